// SPDX-License-Identifier: MIT
// Every container of this user, as the daemon holds them: lifecycle (create, stop, start, delete), runs,
// files, idle expiry with a demo time scale, memory sampling, recovery after a restart, and the history of it
// all in the store. Single-threaded on the Qt event loop; nothing here blocks for long.
#pragma once

#include "audit/auditreport.h"
#include "containers/container.h"
#include "containers/networkledger.h"
#include "core/plainbridge.h"
#include "core/result.h"
#include "network/egressproxy.h"
#include "network/orgpolicy.h"
#include "network/orgpolicywatcher.h"
#include "pseudonymize/csvpseudonymizer.h"
#include "sandbox/cgroup/cgroupbackend.h"
#include "sandbox/files/safecopy.h"
#include "sandbox/policy/containerpolicy.h"
#include "sandbox/secrets/secretinjection.h"
#include "scan/artifactinspection.h"
#include "secretservice/secretservicevault.h"
#include "store/historystore.h"

#include <QHash>
#include <QJsonArray>
#include <QJsonObject>
#include <QObject>
#include <QThreadPool>
#include <QTimer>

#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <set>

namespace Cordon::Containers {

// How a container is made, besides its policy.
struct CreateOptions
{
    bool demo = false; // it follows the demo clock (ContainerManager::setTimeScale)
    QString origin;    // who made it (Store::ContainerRecord::origin): empty for the user, `audit:<id>`
};

struct ManagerSettings
{
    double timeScale = 1;        // every container's idle time passes this much faster (tests)
    int maxContainers = 16;      // running at once
    int maxRunsPerContainer = 8; // active at once in one container
    int sampleIntervalMs = 500;  // memory sampling, 2 Hz
    int memoryHistorySeconds = 600;
    int expiringSoonLeadSeconds = 120; // on the container's (scaled) clock
    // A deadline that passed while no daemon ran: the container lives this much longer (on its clock) from
    // the daemon's start, announced, before it expires.
    int expiryGraceSeconds = 600;
    // A running container with activity since its last checkpoint, or with processes besides its PID 1, is
    // checkpointed this often (Container::checkpoint()): at most this much of its work is lost with the
    // machine (a power loss), and none with the daemon.
    int checkpointIntervalMs = 60000;
    bool allowDegraded = false; // create containers without cgroup limits when the host has none
    // What network decisions may make the history hold (containers/networkledger.h).
    int networkRowsPerRun = 1000;
    int networkCoalesceMs = 10000;
    // PEM files of CAs that upstreams of terminated TLS (domain secrets) may also be signed by, besides the
    // host's trust store: cordond --upstream-ca (a test CA, or an organisation's own).
    QStringList upstreamCaFiles;
};

// One memory reading of a container's cgroup; the API layer gives it its wire form (daemon/api/wireforms.h).
struct MemorySample
{
    QString container;
    qint64 at = 0;
    qint64 current = 0;
    qint64 peak = 0;
    qint64 limit = 0;
    qint64 oomKills = 0;
    qint64 pids = 0;          // processes and threads now
    qint64 pidsLimit = 0;     // limits.pids
    qint64 pidsLimitHits = 0; // forks refused at that limit since the container started
};

// What a client is told about one container: its record, its policy and what only the live daemon knows.
// The API layer gives it its wire form (daemon/api/wireforms.h).
struct ContainerSnapshot
{
    Store::ContainerRecord record;
    Policy::ContainerPolicy policy;
    ContainerState state = ContainerState::Stopped;
    bool limitsEnforced = false; // cgroup memory and pids limits apply
    int activeRuns = 0;
    // What the files of its in-memory workspace hold (charged to its memory), while it runs.
    std::optional<qint64> workspaceBytes;
    // Set while it is in a grace period: when its idle deadline passed while no daemon ran.
    std::optional<qint64> graceSince;
};

// A run's egress decisions, counted from the recorded network.* events.
struct NetworkCounts
{
    qint64 allowed = 0;
    qint64 denied = 0;
    qint64 errors = 0;
};

// What a client is told about one run: its record, with its output once the record holds it, and its egress
// decisions once it has ended. The API layer gives it its wire form (daemon/api/wireforms.h).
struct RunSnapshot
{
    Store::RunRecord record;
    bool withOutput = false; // stdout, stderr and code: only a finished run's record has them
    std::optional<NetworkCounts> network = std::nullopt;
};

// A file copy or listing as a client is told it: what was copied (or is there), what was refused and why,
// and the scope it concerned (inputs, outputs, workspace).
struct FileReport
{
    QString scope;
    Files::CopyReport report;
    // A download's artifact scan: the files with findings, and what became of each (docs/artifact-scan.md).
    std::vector<Scan::InspectedFile> inspected = {};
    // A scanned listing's: each inspected file's path as it is shown (masked), in the same order; the
    // listing's own `path` stays the name as listed.
    std::vector<std::string> inspectedShown = {};
};

// An upload of a CSV file with chosen columns pseudonymised (docs/pseudonymize.md).
struct PseudonymizeRequest
{
    QStringList columns;        // names from the header, or 1-based positions when no name matches
    QList<int> positions;       // 1-based positions, exactly
    std::optional<bool> header; // unset: guessed from the file
    QString key;                // the pseudonym key's name in the secret store
};

// An upload as its client is told it.
struct UploadReport
{
    Files::CopiedFile file;
    // Empty unless pseudonymised: {columns, header, delimiter, key, key_id, source_sha256, source_size, rows,
    // values, short_rows}, as the file's history and its file.uploaded event keep it.
    QJsonObject pseudonymized = {};
};

// A CSV file's first rows and their pseudonyms under a key, for the upload dialog.
struct CsvPreviewReport
{
    Csv::CsvPreview preview;
    QString key;
    QString keyId;
};

// A container's egress decisions per host and decision, from its recorded network.* events.
struct HostDecisions
{
    QString host;
    // With an empty host: the request line as recorded (ConnectionRecord::target); each target is a row.
    QString target;
    // Decisions past the ledger's row limit, counted but not itemised (containers/networkledger.h).
    bool suppressed = false;
    QString decision; // allowed, denied, error
    qint64 count = 0;
    QJsonValue lastReason;
    qint64 lastAt = 0;
};

struct NetworkSummary
{
    QList<HostDecisions> hosts;           // by host, then decision
    QList<Store::SecretDelivery> secrets; // where domain secrets went, or were refused
    qint64 events = 0;                    // decisions on record for the container (every row's count summed)
};

// One process of a container, from /proc/PID/status.
struct ProcessInfo
{
    qint64 pid = 0;
    QString command;
    qint64 rssBytes = 0;
};

// One secret of the store as a client is told it: never its value.
struct SecretListing
{
    Secrets::StoredSecret stored;
    struct User
    {
        QString id;
        QString name;
    };
    QList<User> usedBy; // containers, not expired or deleted, whose policy receives it
};

class ContainerManager final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ContainerManager)

public:
    ContainerManager(Store::HistoryStore &store, ManagerSettings settings, QObject *parent = nullptr);
    ~ContainerManager() override;

    // Chooses the cgroup backend, then recovers what a previous daemon left: a container that was running is
    // adopted with its runs (or started again from its saved files when it cannot be, saying why), runs no
    // container holds become `interrupted`, and a deadline that passed meanwhile gets a grace period.
    // Containers that expired or were deleted are listed again as they ended, with their names.
    Result<> initialize();
    QString cgroupDescription() const;
    // The demo clock's scale (cordond --time-scale until a client sets it).
    double timeScale() const { return m_demoScale; }
    // The demo clock: demo containers (made with `demo`, or marked by setDemo()) and those named in
    // `containers`, which become demos, pass their idle time at `scale`; every other container keeps the
    // daemon's clock, so that switching a demo clock on never moves a user's container's deadline.
    Result<> setTimeScale(double scale, const QStringList &containers = {});
    // Marks a container as a demo (it follows the demo clock from now on) or takes the mark away (back to
    // the daemon's clock); only the idle time still to go changes pace.
    Result<ContainerSnapshot> setDemo(const QString &id, bool demo);

    // Refuses a name that a container not yet expired or deleted has (container.name_taken).
    Result<ContainerSnapshot> create(const Policy::ContainerPolicy &policy, const CreateOptions &options = {});
    // A readable name ("brisk-heron") no such container has, for a policy that gives none.
    QString unusedName() const;
    QList<ContainerSnapshot> list(bool includeEnded) const;
    Result<ContainerSnapshot> get(const QString &id) const;
    Result<ContainerSnapshot> stop(const QString &id);
    // Calls `then` once the container's save under way (a stop's) is done and recorded, with how it went;
    // at once with null when none is under way.
    void afterSave(const QString &id, std::function<void(const WorkspaceSave *)> then);
    Result<ContainerSnapshot> start(const QString &id);
    Result<ContainerSnapshot> remove(const QString &id);
    Result<ContainerSnapshot> keepAlive(const QString &id);
    QHash<QString, int> countByState() const;

    // A repeated idempotency key returns the earlier run instead of starting another.
    Result<RunSnapshot> exec(const QString &containerId, const ExecRequest &request,
                             const QString &idempotencyKey);
    Result<> writeStdin(const QString &runId, const QByteArray &data, bool eof);
    Result<RunSnapshot> cancel(const QString &runId);
    Result<RunSnapshot> run(const QString &runId) const;
    bool isRunActive(const QString &runId) const { return m_activeRuns.contains(runId); }

    // File transfers copy on a worker thread (the file pool), so that a large one never stalls the daemon's
    // other clients; `done` is called on the manager's thread, once, with the answer. Checks that need the
    // manager's state happen before the copy, and what the copy changes is recorded after it, when the
    // container is looked up again (it may have gone meanwhile).
    template<typename T> using Done = std::function<void(Result<T>)>;
    // The file as it now is in inputs/. With `pseudonymize`, a CSV file whose chosen columns' values became
    // pseudonyms under the key of that name (made at its first use); the source is never copied as it is.
    void upload(const QString &containerId, const QString &name, const QString &hostPath,
                const std::optional<QByteArray> &content, Done<UploadReport> done,
                const std::optional<PseudonymizeRequest> &pseudonymize = std::nullopt);
    // The first `maxRows` rows of a CSV file on the host (or sent as content), with their pseudonyms.
    void previewCsv(const QString &hostPath, const std::optional<QByteArray> &content,
                    std::optional<bool> header, const QString &key, int maxRows, Done<CsvPreviewReport> done);
    // With `scan`, each listed file is also scanned in place, as a download would scan it, and the report's
    // `inspected` says what a download would do with each file that has findings (docs/artifact-scan.md).
    void listFiles(const QString &containerId, const QString &scope, Done<FileReport> done,
                   bool scan = false);
    // `existing` says what a name already at the destination gets (refused unless asked otherwise). Each
    // copied entry names where it went (`saved_as`, relative to the destination). Refusals are recorded in
    // the file.downloaded event too, also when a single file's refusal is the request's error.
    void download(const QString &containerId, const QString &scope, const QString &path,
                  const QString &destination, Files::ExistingName existing, Done<FileReport> done,
                  const QString &overrideReason = {});
    Result<> deleteFile(const QString &containerId, const QString &scope, const QString &path);

    Result<QList<ProcessInfo>> processes(const QString &containerId) const;

    // Network: the organisation allowlist in force, re-read on request, or replaced by the user (their file,
    // unless an administrator's governs; running containers follow at once); a running container's allowlist
    // replaced (only narrower than the organisation's; a new policy version); decisions per host.
    const Network::OrgPolicy &orgPolicy() const;
    // Since when the list in force is, and, when its file was edited into something that cannot be read, the
    // error and since when (the list in force stays the one before); empty when the file reads.
    struct OrgPolicyStatus
    {
        qint64 inForceSince = 0;
        QString fileError;
        qint64 fileErrorSince = 0;
    };
    OrgPolicyStatus orgPolicyStatus() const;
    // Both answer the list in force afterwards.
    Result<Network::OrgPolicy> reloadOrgPolicy();
    Result<Network::OrgPolicy> setOrgPolicy(const QJsonArray &domains);
    // keepDomainSecrets: the request did not name domain_secrets, and the container's stay (an allowlist
    // editor that does not know them); changing them needs a stopped container.
    Result<ContainerSnapshot> updateNetwork(const QString &containerId, Policy::NetworkPolicy network,
                                            bool keepDomainSecrets = false);
    Result<NetworkSummary> networkSummary(const QString &containerId) const;

    // A one-shot run's network (`cordon run` with an allowlist, which the launcher runs without the daemon):
    // the daemon's proxy serves the listener cordon-init made in the run's container, under the run's
    // allowlist and the organisation's, until detachOneShot(). The run gets a history row of its own
    // (state "one-shot", never a live container), so that its decisions are recorded and `cordon network
    // show ID` answers for it. checkOneShot() answers what attachOneShot() would refuse before the listener
    // travels: an id in use (container.exists), an allowlist wider than the organisation's.
    Result<> checkOneShot(const QString &id, const Policy::ContainerPolicy &policy) const;
    // Takes listenerFd (closed on failure too); answers the policy version recorded.
    Result<QString> attachOneShot(const QString &id, const Policy::ContainerPolicy &policy, int listenerFd);
    void detachOneShot(const QString &id);
    // What the container (a one-shot run's) tried on the network, counted from the recorded decisions.
    NetworkCounts containerNetworkCounts(const QString &containerId) const;

    // The samples kept (memoryHistorySeconds) of one container, or of every container for an empty id.
    QList<MemorySample> memoryBacklog(const QString &containerId) const;
    NetworkCounts runNetworkCounts(const QString &runId) const;

    // The host's secrets (containersecrets.cpp, docs/secrets.md). Values go in and never come out: runs
    // receive them, everything recorded or streamed has them masked. Setting or removing one is an event
    // with the name only, and the `origin` of an audit's own test secrets (CreateOptions::origin).
    Result<QList<SecretListing>> secrets() const;
    Result<SecretListing> setSecret(const QString &name, const std::string &value,
                                    const QString &origin = {});
    // Where the store keeps its values: "file" (its own 0600 file) or "secret-service" (the desktop keyring).
    Result<QString> secretValuesIn() const;
    // The secret store's pseudonym keys: names, ids, when each was made; never the keys.
    Result<std::vector<Secrets::StoredPseudonymKey>> pseudonymKeys() const;
    Result<> removeSecret(const QString &name, const QString &origin = {});
    Result<> removePseudonymKey(const QString &name);

    // The Go/No-Go audit's reports (containeraudits.cpp, docs/audit.md): kept in the history's audits table
    // and signed with this user's key from the secret store. Saving checks the report's form, its evidence
    // hashes and, when it has one, its signature (audit.bad_report, audit.bad_signature); signing never signs
    // evidence that no longer matches its hash, and replaces the stored report with the signed one.
    // An audit begins here: the daemon names it (id and created_at) and keeps only a report of an audit it
    // began (audit.not_begun); it signs only a report the history holds, unchanged (audit.not_held).
    struct AuditStart
    {
        QString id;
        QString createdAt; // ISO 8601 UTC, as the report carries it
    };
    AuditStart beginAudit();
    Result<Store::AuditRecord> saveAudit(const QJsonObject &report);
    Result<Store::AuditRecord> signAudit(const QJsonObject &report, const Audit::SignOff &signOff);
    Result<Store::AuditRecord> auditRecord(const QString &id) const;
    Result<Store::Page<Store::AuditRecord>> auditRecords(int limit, int offset) const;

    // What a clean shutdown did with one container's files.
    struct ShutdownReport
    {
        QString id;
        QString name;
        qint64 expiresAt = 0;               // kept until then (its idle deadline; a grace period follows)
        std::optional<WorkspaceSave> saved; // empty: it was not running, its last saved copy stays
    };
    // Stops every container (files saved) for a clean daemon shutdown; returns, once every save is done,
    // what became of each container's files. A second call finds nothing running.
    QList<ShutdownReport> shutdown();
    // For a restart of the daemon (an upgrade of the package): nothing is stopped. Each running container
    // is checkpointed (`saved` is that checkpoint), the history flushed, and the timers stopped; the daemon
    // then exits as a crashed one would, leaving every container to its cordon-init, and the next daemon
    // adopts them (docs/architecture.md, "Containers outlive the daemon").
    QList<ShutdownReport> leaveRunning();

Q_SIGNALS:
    void containerChanged(const Cordon::Containers::ContainerSnapshot &container);
    void expiringSoon(const QString &containerId, qint64 expiresAt);
    void runStarted(const Cordon::Containers::RunSnapshot &run);
    void runOutput(const QString &runId, const QString &containerId, const QString &stream,
                   const QByteArray &chunk);
    void runFinished(const Cordon::Containers::RunSnapshot &run);
    void memorySampled(const Cordon::Containers::MemorySample &sample);
    void eventRecorded(const Cordon::Store::EventRecord &event);

private:
    struct Entry
    {
        std::unique_ptr<Container> container;
        Store::ContainerRecord record;
        bool warned = false; // expiring_soon sent for the current idle period
        // When its idle deadline passed while no daemon ran: it is in its grace period (deferExpiry())
        // until it is used or kept alive.
        std::optional<qint64> graceSince;
        std::deque<MemorySample> samples;
        QHash<QString, QJsonObject> inputs; // name -> {path, sha256, size}, for run attribution
        QHash<QString, QString> outputs;    // path -> sha256 after the last run, to find what a run produced
        qint64 uploadingBytes = 0;          // uploads under way, counted against the quota already
        qint64 savedActiveAt = 0;           // record.lastActiveAt as last saved to the history
        bool activeSinceCheckpoint = false; // touch() since the last checkpoint
        // Every value the container was given or could obtain: its secrets' values (also those replaced
        // since, which the store keeps for it across restarts), its domain secrets' real values and
        // placeholders. Masked in its events (network decisions included), its runs' output and the
        // artifact scan of its files.
        std::set<std::pair<std::string, std::string>> secretValues;
        Secrets::SecretMasker masker;
        // Domain secrets (containerdomainsecrets.cpp): the placeholder of each name, kept while the daemon
        // runs, and the authority of the container's terminated TLS, made again at each start.
        std::map<std::string, QByteArray> placeholders;
        std::shared_ptr<Network::InterceptionAuthority> authority;
        // What the proxy was last given; given again when a start hands the proxy a new listener.
        std::shared_ptr<const Network::DomainSecrets> proxySecrets;
    };

    // Runs `work` (plain file work that touches no manager state) on m_filePool and `finish` with its result
    // on the manager's thread.
    template<typename T> void offload(std::function<Result<T>()> work, Done<T> finish);

    Result<Entry *> entry(const QString &id) const;
    Result<Entry *> liveEntry(const QString &id) const;
    // Marks activity, which restarts the idle countdown; saves and announces the container when its saved
    // activity is more than a second old, and says whether it did.
    bool touch(Entry &entry);
    qint64 idleMillis(const Entry &entry) const;
    void persist(Entry &entry);
    // The clock an entry's idle time passes on: the demo clock for a demo, else the daemon's.
    double clockFor(const Entry &entry) const;
    // Puts an entry on clockFor() from now on, rescaling only the idle time still to go, and saves it.
    void moveToClock(Entry &entry);
    void recordEvent(const QString &containerId, const QString &runId, const QString &kind,
                     const QJsonObject &detail);
    // recordEvent() without telling listeners: for an event written in a batch, announced once committed.
    Store::EventRecord storeEvent(const QString &containerId, const QString &runId, const QString &kind,
                                  const QJsonObject &detail);
    // An artifact.finding event per scanned file with findings, and an artifact.override for each saved
    // despite them, each tied to the run that last wrote the file.
    void recordArtifactFindings(const QString &containerId, const QString &scope,
                                const std::vector<Scan::InspectedFile> &files, const QString &overrideReason);
    // The secret store, opened at first use (and again after a failure, so that a fixed file is taken
    // without a restart).
    Result<Secrets::SecretStore *> secretStore() const;
    // The container's policy's secrets with their values now (secrets.not_found names a missing one).
    Result<std::vector<Secrets::ResolvedSecret>> resolveSecrets(const Policy::ContainerPolicy &policy) const;
    // policy.secret_in_env when an `env` value is a stored secret's value: in `env` it would be kept in the
    // policy and the history in plain text, and masked nowhere; `secrets` gives it to the runs instead.
    Result<> checkNoSecretInEnv(const Policy::ContainerPolicy &policy) const;
    // audit.exists when the history keeps another report under the same id (containeraudits.cpp).
    Result<> sameAsStored(const Audit::AuditReport &report, const Json &document) const;
    // audit.not_held unless the history holds this report, but for its sign-off and signature.
    Result<> heldUnchanged(const Audit::AuditReport &report, const Json &document) const;
    // The pseudonym key of that name, made at its first use (containerpseudonyms.cpp).
    Result<Secrets::PseudonymKey> pseudonymKey(const QString &name) const;
    // Adds values to what the container's masker masks: its events, its runs' output, the artifact scan of
    // its files.
    void rememberSecretValues(Entry &entry, const std::vector<Secrets::ResolvedSecret> &secrets);
    // Adds the previous values of rotated or removed secrets that the store keeps for the container (a
    // daemon started again has no other record of them).
    void rememberRetiredValues(Entry &entry);
    // The containers, not expired or deleted, that received a value of the secret of this name (their policy
    // names it, or their masker holds a value of it): the store keeps the value being replaced for them.
    std::vector<std::string> holdersOf(const std::string &name) const;
    // Tells the store which containers still live, so that it drops previous values none of them holds.
    void releaseRetiredValues();
    // Every string of `detail` (keys too), masked with the container's secrets.
    QJsonObject maskedDetail(const QString &containerId, const QJsonObject &detail) const;
    // The masker of a container or a one-shot run; null when it has no secrets.
    const Secrets::SecretMasker *maskerOf(const QString &containerId) const;
    QString maskedText(const QString &containerId, const QString &text) const;
    // The paths of a scan's findings (the files, archive members) masked like every shown name.
    void maskFindings(const QString &containerId, std::vector<Scan::InspectedFile> &files) const;
    // Records a file transfer or an artifact; its path masked (a program may name a file after a secret).
    void recordFile(Store::FileRecord record, const char *what);
    void recordOrgPolicyError(const QString &message);
    // The container that is not expired or deleted and has this name; names are unique among those.
    const Entry *liveEntryNamed(const QString &name) const;
    ContainerSnapshot snapshot(const Entry &entry) const;
    // The policy recorded under a version (store.not_found when absent).
    Result<Policy::ContainerPolicy> storedPolicy(const QString &version) const;
    // A one-shot run's history row as a container (its limits are the launcher's: not shown as enforced).
    std::optional<ContainerSnapshot> oneShotSnapshot(const QString &id) const;
    void expire(Entry &entry, bool whileDown);
    // At start-up: a container that expired or was deleted under a daemon before, as an entry in that state
    // (nothing to recover: its files and processes are gone), so that it is listed and named as before.
    void addEnded(const Store::ContainerRecord &record);
    // At start-up (containerrecovery.cpp): adopts a container the daemon before left running, or starts it
    // again from its saved files; returns why a run of it that was not adopted was cut off.
    QString recover(Entry &survivor);
    void deferExpiry(Entry &entry);
    // A stopped container whose save the daemon before did not finish: saved now (Container::
    // recoverInterruptedSave()).
    void finishInterruptedSave(Entry &entry);
    // Runs still `running` in the history that no adopted container holds become `interrupted`, each with
    // the reason of its container (`whyByContainer`) in a run.interrupted event.
    void interruptUnclaimedRuns(const QHash<QString, QString> &whyByContainer);
    void checkExpiry();
    void sampleMemory();
    void checkpointAll();
    void onRunFinished(Entry &entry, ContainerRun *run);
    void wireContainer(Entry &entry);
    int runningCount() const;
    void attachProxy(Entry &entry);
    // Before a start: the container's authority and CA bundle, placeholders and the proxy's values
    // (nothing for a policy without domain secrets). secrets.not_found for a name the store lacks. A new
    // authority is saved beside the workspace for a later daemon; before an adoption, Saved reads that one
    // (network.tls_authority when it cannot), since the programs inside trust it alone.
    enum class AuthorityFrom
    {
        New,
        Saved
    };
    Result<> prepareDomainSecrets(Entry &entry, AuthorityFrom from = AuthorityFrom::New);
    // At each run: the values looked up again and given to the proxy; returns the placeholders as the run's
    // variables.
    Result<std::vector<Secrets::ResolvedSecret>> domainSecretsForRun(Entry &entry);
    // A secret set or removed (an empty value): the proxies of the containers that send it use the new value,
    // or refuse its placeholder, from the next request on.
    void updateDomainSecret(const std::string &name, const QByteArray &value);
    void detachProxy(const QString &containerId);
    void recordConnection(const Network::ConnectionRecord &record);
    // The history is the record of what happened, but a failed write must not stop a container: it is logged.
    template<typename T> static void logStoreFailure(const Result<T> &written, const char *what)
    {
        if (!written)
            qWarning("cordond: could not record %s in the history: %s", what,
                     written.error().message().c_str());
    }

    // File transfers' copies; the destructor waits for them before anything they report to goes away.
    QThreadPool m_filePool;
    Store::HistoryStore &m_store;
    // Network decisions pass through it on their way to the history (recordConnection()).
    NetworkLedger *m_ledger = nullptr;
    ManagerSettings m_settings;
    double m_demoScale; // the demo clock (daemon.set_time_scale)
    std::unique_ptr<Cgroup::CgroupBackend> m_cgroup;
    std::unique_ptr<Network::EgressProxy> m_proxy;
    std::map<QString, std::unique_ptr<Entry>> m_entries;
    QHash<QString, QString> m_activeRuns;          // run id -> container id
    QHash<QString, Store::RunRecord> m_runRecords; // active runs' records, finished at the end
    std::deque<AuditStart> m_begunAudits;          // beginAudit(), until their report is kept
    QHash<QString, QList<std::function<void(const WorkspaceSave *)>>> m_saveWaiters; // afterSave()
    QHash<QString, Store::ContainerRecord> m_oneShots; // one-shot runs whose network the proxy serves
    // One-shot runs' secrets, masked in their decisions; kept after a run ends (a connection may report its
    // end later), the oldest dropped past MaxOneShotMaskers.
    // A masker of two 4 KiB secrets takes about 1 MB; a late decision comes within seconds of the end.
    static constexpr std::size_t MaxOneShotMaskers = 64;
    QHash<QString, Secrets::SecretMasker> m_oneShotMaskers;
    std::deque<QString> m_oneShotMaskerOrder;
    // The organisation allowlist's files: a change of content applies at once, other files' events are
    // ignored.
    std::unique_ptr<Network::OrgPolicyWatcher> m_orgWatcher;
    QString m_lastOrgPolicyError; // recorded once, not again for every event while the file stays broken
    qint64 m_orgPolicyErrorSince = 0;
    qint64 m_orgPolicyInForceSince = 0;
    QTimer m_expiryTimer;
    QTimer m_sampleTimer;
    QTimer m_checkpointTimer;
    // The desktop keyring, for a store made while one was open (declared first: the store points at it).
    mutable Secrets::SecretServiceVault m_secretVault;
    mutable std::optional<Secrets::SecretStore> m_secretStore;
};

// Runs `work` on the file pool and hands its result to `finish` on the manager's thread.
template<typename T> void ContainerManager::offload(std::function<Result<T>()> work, Done<T> finish)
{
    m_filePool.start([this, work = std::move(work), finish = std::move(finish)]() mutable {
        auto result = std::make_shared<Result<T>>(work());
        // Queued to the manager: if it is gone by then, the event goes with it.
        QMetaObject::invokeMethod(
            this, [finish = std::move(finish), result] { finish(std::move(*result)); }, Qt::QueuedConnection);
    });
}

} // namespace Cordon::Containers
