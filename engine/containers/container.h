// SPDX-License-Identifier: MIT
// A long-lived container, like a hosted code-interpreter container: created once, its namespaces held by
// cordon-init, any number of runs exec'd inside it. Files and background processes persist between runs until
// the container is stopped (processes end, files stay), expires or is deleted (both remove the files).
#pragma once

#include "containers/containerrun.h"
#include "core/plainbridge.h"
#include "core/result.h"
#include "isolation/sandbox.h"
#include "sandbox/cgroup/cgroupbackend.h"
#include "sandbox/files/safecopy.h"
#include "sandbox/policy/containerpolicy.h"
#include "sandbox/secrets/secretinjection.h"
#include "sandbox/workspace.h"

#include <QHash>
#include <QObject>

#include <functional>
#include <future>
#include <memory>
#include <optional>

namespace Cordon::Containers {

enum class ContainerState
{
    Running,
    Stopped,
    Expired,
    Deleted
};
QString containerStateName(ContainerState state);
std::optional<ContainerState> containerStateFromName(const QString &name);

// What a stop did with the in-memory workspace: saved to the host (the counts), or why not.
struct WorkspaceSave
{
    bool saved = false;
    QString error;
    qint64 files = 0;
    qint64 directories = 0;
    qint64 symlinks = 0;
    qint64 bytes = 0;
    qint64 leftOut = 0;   // entries not kept: devices, FIFOs, sockets, unreadable, past a limit
    QStringList examples; // the first few of them
    qint64 milliseconds = 0;
};

// Whether a stop keeps the files: a stop does, an expiry or a deletion wipes them anyway.
enum class WorkspaceOnStop
{
    Save,
    Discard,
};

struct ExecRequest
{
    QStringList command; // either a command ...
    QString language;    // ... or a language (python, bash, node) and its code
    QString code;
    std::optional<QByteArray> stdinData; // given up front
    bool keepStdinOpen = false;          // stdin stays open for writeStdin()
    int timeoutS = 0;                    // 0: the policy's run_timeout_s; never more than it
    // The policy's secrets with their values (the manager looks them up): set in the run's environment.
    std::vector<Secrets::ResolvedSecret> secrets;
    // What the run's output is masked with: every value the container was given or could obtain (the
    // manager's), not only `secrets`, since a program may print what an earlier run saved in its files.
    Secrets::SecretMasker masker;
};

// What the daemon knows of a run that an adopted cordon-init still holds (Container::adopt()).
struct KnownRun
{
    qint64 startedAtMs = 0; // since the epoch
    QStringList command;
    Secrets::SecretMasker masker; // its output is masked with it (ExecRequest::masker)
};
// Looks a held run up by its id, and claims it for the caller's books before the container takes it over
// (a run that ended while no daemon ran finishes at once); nullopt: unknown, cordon-init may forget it.
using ClaimRun = std::function<std::optional<KnownRun>(const QString &runId)>;

struct Adoption
{
    int runsAdopted = 0;   // still running, or ended with their outcome kept by cordon-init
    int runsForgotten = 0; // held by cordon-init but unknown here (their end was recorded already)
    int protocolVersion = 0;
};

class Container final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(Container)

public:
    // `cgroup` may be null: degraded mode, accepted explicitly by whoever created the container.
    Container(QString id, Policy::ContainerPolicy policy, Cgroup::CgroupBackend *cgroup,
              QObject *parent = nullptr);
    ~Container() override;

    const QString &id() const { return m_id; }
    const Policy::ContainerPolicy &policy() const { return m_policy; }
    ContainerState state() const { return m_state; }
    void setState(ContainerState state) { m_state = state; }
    Workspace workspace() const { return Workspace::at(m_id.toStdString()); }

    // Creates the workspace (or reuses it), the cgroup and the sandbox.
    Result<> start();
    // Takes over the container as an earlier daemon left it running: its cordon-init waits on the adoption
    // socket with its runs, their output and exit statuses (docs/architecture.md, "Containers outlive the
    // daemon"). sandbox.not_adoptable when none waits (the caller starts it again from its saved files);
    // container.adoption_refused when its cordon-init speaks another protocol version or is not in the
    // container's cgroup, after its files were saved and it was ended.
    // A non-empty `refusal` ends it as such, saying so.
    Result<Adoption> adopt(const ClaimRun &claim, const QString &refusal = {});
    // Kills every process inside (runs end as `killed` with `reason`) and releases the cgroup. With Save, the
    // in-memory workspace is then saved to the host on a thread (workspaceSaved() says how it went, from the
    // event loop), so files stay for the next start; with Discard its memory is simply let go.
    void stop(const QString &reason, WorkspaceOnStop then = WorkspaceOnStop::Save);
    bool savePending() const { return m_pendingSave.valid(); }
    // While it runs: an incremental, durable copy of the workspace to the host on a thread of its own (files
    // unchanged since the last copy are linked, not copied), so that a power loss, which takes the tmpfs,
    // loses only what changed since. False when one is under way already, a stop is saving, or it is not
    // running. checkpointFailed() says when one fails; the copy before it stays.
    bool checkpoint();
    // A checkpoint now, waited for (after any one under way): for a daemon that leaves its containers
    // running. Empty when the container is not running or a stop's save holds its files.
    std::optional<WorkspaceSave> checkpointNow();
    // Waits for a save under way and reports it now (a daemon that stops records it before it exits). A
    // start and a wipe do this themselves.
    void finishPendingSave();
    // A save that failed kept the tmpfs in memory: tries once more (a start does this before it restores
    // the host copy, and refuses to start on the old copy; a daemon that stops does it too).
    // container.save_failed when it fails again.
    Result<> saveAgainIfFailed();
    // Removes the workspace. Only when stopped.
    Result<> wipe();
    // A stopped container whose cordon-init still waits for a daemon: the daemon before ended during the
    // stop's save (the stop ends every process but cordon-init before it saves). Saves again and ends it;
    // false when none waits.
    Result<bool> recoverInterruptedSave();

    Result<ContainerRun *> exec(const QString &runId, const ExecRequest &request);
    ContainerRun *run(const QString &runId) const { return m_runs.value(runId); }
    int activeRuns() const { return static_cast<int>(m_runs.size()); }
    QList<ContainerRun *> runs() const { return m_runs.values(); }

    std::optional<Cgroup::MemoryStats> memoryStats() const;
    // What the files of its in-memory workspace hold now (/mnt/data and the outputs bound into it share one
    // tmpfs); nullopt when it is not running.
    std::optional<qint64> workspaceBytes() const;
    // Processes and threads charged to the container's pids group now (0 without cgroups).
    int pidsCurrent() const;
    // The egress proxy's listening socket inside this container (allowlist policies), once per start; -1 if
    // none.
    int takeProxyListener() { return m_sandbox ? m_sandbox->takeProxyListener() : -1; }
    // A new network policy for a running container (the proxy enforces it; the namespaces stay as they are).
    void setNetworkPolicy(const Policy::NetworkPolicy &network) { m_policy.network = network; }
    // The CA bundle its next start mounts at /etc/cordon/ca-certificates.crt, and which its runs' TLS
    // variables name (domain secrets); empty: none.
    void setTrustBundle(std::string pem) { m_trustBundlePem = std::move(pem); }
    QList<pid_t> processes() const;
    // Where a file scope's files are now (inputs, outputs or workspace; empty is outputs): while running,
    // inside the workspace tmpfs through the descriptors cordon-init handed back (it is mounted only inside
    // the container); when stopped, on the host as the last stop saved them. Inputs are always on the host.
    // files.invalid_scope for any other name.
    Result<Files::SourceRoot> filesRoot(const QString &scope) const;

Q_SIGNALS:
    void runOutput(const QString &runId, Cordon::Containers::OutputStream stream, const QByteArray &chunk);
    void runFinished(Cordon::Containers::ContainerRun *run); // deleted later by the container
    // cordon-init is gone without a stop() (its PID 1 was killed, e.g. by the OOM killer).
    void died();
    // The in-memory workspace was saved to the host at a stop or after a death (or the save failed).
    void workspaceSaved(const Cordon::Containers::WorkspaceSave &save);
    void checkpointFailed(const QString &error);

private:
    ContainerRun *findByWireId(quint64 wireId) const;
    // Where its runs' output is spooled (ContainerRun::setSpoolDirectory()), made when it starts or is
    // adopted.
    void makeSpoolDirectory();
    void connectSandbox();
    void watchRun(ContainerRun *run);
    // Saves through an adopted cordon-init's directories and ends it: what a daemon does with a container
    // it cannot adopt.
    void saveAndEnd(Isolation::AdoptedInit &adopted);
    // container.adoption_refused unless `pid` is in the container's cgroup (always true without cgroups).
    Result<> answeredFromItsCgroup(pid_t pid) const;
    Result<QStringList> commandFor(const QString &runId, const ExecRequest &request) const;
    void releaseSandbox(WorkspaceOnStop then);
    void releaseCgroup();
    // The save is done: the cordon-init that held the container for it ends, and then its cgroup.
    void endSavingInit();
    void startSave();
    void finishPendingCheckpoint();
    // Everything up to the setup request; on failure the sandbox is released again.
    Result<> beginStart();
    Result<> launchAndSendSetup(const Isolation::IdMapping &ids);

    QString m_id;
    Policy::ContainerPolicy m_policy;
    std::string m_trustBundlePem;
    Cgroup::CgroupBackend *m_cgroup;
    ContainerState m_state = ContainerState::Stopped;
    bool m_cgroupCreated = false;
    std::unique_ptr<Isolation::Sandbox> m_sandbox;
    // A stopped container's cordon-init, with no process left beside it, until its save is done.
    std::unique_ptr<Isolation::Sandbox> m_savingSandbox;
    std::shared_ptr<const UniqueFd> m_workspaceDir;
    std::shared_ptr<const UniqueFd> m_outputsDir;
    // The descriptors of a save under way (the copy holds them too), and its result.
    std::shared_ptr<const UniqueFd> m_savingWorkspaceDir;
    std::shared_ptr<const UniqueFd> m_savingOutputsDir;
    std::future<WorkspaceSave> m_pendingSave;
    // What the checkpoints of this start saved, for the next one to link from; the stop's save takes it.
    std::shared_ptr<WorkspaceManifest> m_manifest;
    std::future<WorkspaceSave> m_pendingCheckpoint;
    quint64 m_saveGeneration = 0;
    QHash<QString, ContainerRun *> m_runs;
    QString m_spoolDirectory;
    quint64 m_nextWireId = 1;
};

} // namespace Cordon::Containers
