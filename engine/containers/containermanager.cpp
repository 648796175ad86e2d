// SPDX-License-Identifier: MIT
#include "containers/containermanager.h"

#include "containers/containernames.h"
#include "containers/deletionreceipt.h"
#include "core/plainbridge.h"
#include "sandbox/files/removetree.h"
#include "sandbox/weakening.h"

#include <QDateTime>
#include <QFileInfo>
#include <QJsonDocument>
#include <QRegularExpression>

#include <algorithm>

namespace Cordon::Containers {

namespace {

constexpr int ExpiryCheckMs = 250;

qint64 now()
{
    return QDateTime::currentMSecsSinceEpoch();
}

Error notFound(const QString &what, const QString &id)
{
    return makeError(QStringLiteral("%1.not_found").arg(what),
                     QStringLiteral("no %1 with id `%2`").arg(what, id));
}

} // namespace

ContainerManager::ContainerManager(Store::HistoryStore &store, ManagerSettings settings, QObject *parent)
    : QObject(parent), m_store(store), m_settings(settings), m_demoScale(settings.timeScale)
{
    m_ledger = new NetworkLedger(
        [this](const QString &containerId, const QString &runId, const QString &kind,
               const QJsonObject &detail) { recordEvent(containerId, runId, kind, detail); },
        m_settings.networkRowsPerRun, m_settings.networkCoalesceMs, this);
    connect(&m_expiryTimer, &QTimer::timeout, this, &ContainerManager::checkExpiry);
    connect(&m_sampleTimer, &QTimer::timeout, this, &ContainerManager::sampleMemory);
    connect(&m_checkpointTimer, &QTimer::timeout, this, &ContainerManager::checkpointAll);
}

ContainerManager::~ContainerManager()
{
    // A copy under way finishes first; its answer then goes nowhere (the queued call dies with us).
    m_filePool.waitForDone();
    shutdown();
}

Result<> ContainerManager::initialize()
{
    // A test build may find no cgroups (sandbox/weakening.h), to show what degraded mode gives up.
    Result<std::unique_ptr<Cgroup::CgroupBackend>> backend =
        weakened(Guarantee::Cgroups) ? Result<std::unique_ptr<Cgroup::CgroupBackend>>(tl::unexpected(
                                           Error("cgroup.unavailable", "a test build without cgroups")))
                                     : Cgroup::detectBackend(userNameFromNss);
    if (backend) {
        m_cgroup = std::move(*backend);
        CORDON_TRY(m_cgroup->prepareSelf());
    } else if (!m_settings.allowDegraded) {
        return fail(backend.error().wrap("memory and pids limits cannot be enforced on this host"));
    }

    auto org = Network::OrgPolicy::load();
    if (!org)
        return fail(org.error().wrap("organisation allowlist"));
    m_proxy = std::make_unique<Network::EgressProxy>();
    m_proxy->setOrgPolicy(*org);
    m_orgPolicyInForceSince = now();
    QList<QSslCertificate> upstreamCas;
    for (const QString &file : std::as_const(m_settings.upstreamCaFiles)) {
        const QList<QSslCertificate> read = QSslCertificate::fromPath(file, QSsl::Pem);
        if (read.isEmpty())
            return fail(QStringLiteral("network.invalid_ca"),
                        QStringLiteral("--upstream-ca %1: no PEM certificate could be read").arg(file));
        upstreamCas += read;
    }
    m_proxy->setUpstreamTrust(upstreamCas);
    connect(m_proxy.get(), &Network::EgressProxy::connectionFinished, this,
            &ContainerManager::recordConnection);
    m_orgWatcher = std::make_unique<Network::OrgPolicyWatcher>(
        QStringList{Network::OrgPolicy::systemPath(), Network::OrgPolicy::userPath()});
    connect(m_orgWatcher.get(), &Network::OrgPolicyWatcher::changed, this, [this] {
        if (auto reloaded = reloadOrgPolicy(); !reloaded)
            recordOrgPolicyError(toQt(reloaded.error().message()));
    });

    auto records = m_store.containers(true);
    if (!records)
        return fail(records.error());
    // Why each container's runs that no cordon-init held any more were cut off, for their events.
    QHash<QString, QString> whyInterrupted;
    bool anyLive = false;
    for (const Store::ContainerRecord &record : *records) {
        if (record.endedAt != 0) {
            if (record.state != QLatin1String("one-shot"))
                addEnded(record);
            continue;
        }
        anyLive = true;
        // A one-shot run whose launcher was attached when the daemon went down: its network ended with the
        // daemon, and its container was never the daemon's to restart or wipe.
        if (record.state == QLatin1String("one-shot")) {
            Store::ContainerRecord ended = record;
            ended.endedAt = now();
            logStoreFailure(m_store.saveContainer(ended), "the end of a one-shot run");
            continue;
        }
        auto policy = storedPolicy(record.policyVersion);
        auto owned = std::make_unique<Entry>();
        owned->record = record;
        owned->container = std::make_unique<Container>(
            record.id, policy ? *policy : Policy::ContainerPolicy{}, m_cgroup.get());
        Entry &survivor = *owned;
        m_entries.emplace(record.id, std::move(owned));
        // A demo clock switched on before the restart still runs: the trainer switched it, not the daemon.
        if (record.demo && record.endedAt == 0)
            m_demoScale = std::max(m_demoScale, record.timeScale);
        // Masked from the first event on; a secret removed meanwhile fails the next run, not the restart.
        if (auto secrets = resolveSecrets(survivor.container->policy()))
            rememberSecretValues(survivor, *secrets);
        rememberRetiredValues(survivor);
        wireContainer(survivor);
        survivor.container->setState(ContainerState::Stopped);
        if (record.state == QLatin1String("running")) {
            whyInterrupted.insert(record.id, recover(survivor));
        } else {
            finishInterruptedSave(survivor);
            if (m_cgroup)
                m_cgroup->destroy(record.id.toStdString()); // left behind by a daemon that was killed
        }
        if (!policy) {
            expire(survivor, true);
            continue;
        }
        // Never deleted at start without notice: a deadline that passed while no daemon ran gets a grace
        // period, announced, in which the user can keep the container alive or take its files.
        if (record.expiresAt <= now())
            deferExpiry(survivor);
        persist(survivor);
    }
    interruptUnclaimedRuns(whyInterrupted);
    // Containers removed while no daemon ran (or before the store heard of it) no longer hold anything.
    // Without any container the store is not opened (a fresh daemon maps no library it has not used): its
    // orphans go at the next removal or secret change.
    if (anyLive)
        releaseRetiredValues();
    m_expiryTimer.start(ExpiryCheckMs);
    m_sampleTimer.start(m_settings.sampleIntervalMs);
    if (m_settings.checkpointIntervalMs > 0)
        m_checkpointTimer.start(m_settings.checkpointIntervalMs);
    return {};
}

QString ContainerManager::cgroupDescription() const
{
    return m_cgroup ? toQt(m_cgroup->describe())
                    : QStringLiteral("none (degraded: no memory or pids limits)");
}

Result<> ContainerManager::setTimeScale(double scale, const QStringList &containers)
{
    if (!(scale >= 1 && scale <= 3600))
        return fail(QStringLiteral("daemon.invalid_time_scale"),
                    QStringLiteral("time scale must be between 1 and 3600, got %1").arg(scale));
    m_demoScale = scale;
    for (auto &[id, entry] : m_entries) {
        if (containers.contains(id))
            entry->record.demo = true;
        if (entry->record.demo)
            moveToClock(*entry);
    }
    recordEvent({}, {}, QStringLiteral("daemon.time_scale"),
                {{QStringLiteral("scale"), scale},
                 {QStringLiteral("containers"), QJsonArray::fromStringList(containers)}});
    return {};
}

Result<ContainerSnapshot> ContainerManager::setDemo(const QString &id, bool demo)
{
    auto found = liveEntry(id);
    if (!found)
        return fail(found.error());
    Entry &entry = **found;
    if (entry.record.demo != demo) {
        entry.record.demo = demo;
        moveToClock(entry);
        persist(entry);
        recordEvent(entry.record.id, {}, QStringLiteral("container.demo_clock"),
                    {{QStringLiteral("demo"), demo}, {QStringLiteral("time_scale"), entry.record.timeScale}});
    }
    return snapshot(entry);
}

double ContainerManager::clockFor(const Entry &entry) const
{
    return entry.record.demo ? m_demoScale : m_settings.timeScale;
}

void ContainerManager::moveToClock(Entry &entry)
{
    const double scale = clockFor(entry);
    const double oldScale = entry.record.timeScale > 0 ? entry.record.timeScale : 1;
    if (entry.record.endedAt != 0 || scale == oldScale)
        return;
    // The new clock applies to the idle period under way, not only from the next activity on: a trainer who
    // switches to a fast clock wants to see the countdown of the container in front of the class shrink now.
    // But only the idle time still to go passes faster, from this moment on. Scaling the time already spent
    // idle too would expire, and delete, a container that sat idle for a minute the moment a 20-minute period
    // is switched to 60x: nothing may expire because the clock was switched.
    const qint64 at = now();
    const qint64 left = std::max<qint64>(0, entry.record.expiresAt - at);
    entry.record.timeScale = scale;
    entry.record.expiresAt = at + static_cast<qint64>(static_cast<double>(left) * oldScale / scale);
    entry.warned = false;
    persist(entry); // also announces the new deadline (container.changed)
}

int ContainerManager::runningCount() const
{
    return static_cast<int>(std::count_if(m_entries.begin(), m_entries.end(), [](const auto &item) {
        return item.second->container->state() == ContainerState::Running;
    }));
}

void ContainerManager::addEnded(const Store::ContainerRecord &record)
{
    auto policy = storedPolicy(record.policyVersion);
    Policy::ContainerPolicy shown = policy ? *policy : Policy::ContainerPolicy{};
    shown.name = toPlain(record.name); // the name it had, also when its policy is no longer on record
    auto owned = std::make_unique<Entry>();
    owned->record = record;
    owned->container = std::make_unique<Container>(record.id, std::move(shown), m_cgroup.get());
    owned->container->setState(record.state == QLatin1String("expired") ? ContainerState::Expired
                                                                        : ContainerState::Deleted);
    m_entries.emplace(record.id, std::move(owned));
}

Result<ContainerSnapshot> ContainerManager::create(const Policy::ContainerPolicy &policy,
                                                   const CreateOptions &options)
{
    if (runningCount() >= m_settings.maxContainers)
        return fail(QStringLiteral("container.limit"),
                    QStringLiteral("%1 containers are running, the limit: stop or delete one first")
                        .arg(m_settings.maxContainers));
    // Clients take an id, a name or an id's prefix where a container is named: a name of hex digits alone
    // could be another container's prefix, and `cordon rm NAME` would remove the wrong one.
    static const QRegularExpression hexDigits(QStringLiteral("^[0-9a-f]+$"));
    if (hexDigits.match(toQt(policy.name)).hasMatch())
        return fail(
            QStringLiteral("policy.invalid_name"),
            QStringLiteral("name: %1 is hex digits alone, which would read as a container id or the start "
                           "of one; add a letter outside a-f, or a dash")
                .arg(QString::fromStdString(Cordon::ticked(policy.name))));
    if (const Entry *holder = liveEntryNamed(toQt(policy.name)))
        return fail(QStringLiteral("container.name_taken"),
                    QStringLiteral("a container named %1 already exists (%2, %3)")
                        .arg(QString::fromStdString(Cordon::ticked(policy.name)), holder->record.id,
                             containerStateName(holder->container->state())));
    if (policy.network.type == Policy::NetworkPolicy::Type::Allowlist)
        CORDON_TRY(m_proxy->orgPolicy().checkNarrows(policy.network));
    CORDON_TRY(checkNoSecretInEnv(policy));
    // A secret the store lacks is refused now, not at the first run.
    auto secrets = resolveSecrets(policy);
    if (!secrets)
        return fail(secrets.error());
    const QString version = toQt(policy.version());
    CORDON_TRY(m_store.recordPolicyVersion(version, QByteArray::fromStdString(policy.canonicalJson())));
    auto owned = std::make_unique<Entry>();
    Entry &created = *owned;
    rememberSecretValues(created, *secrets);
    created.record.id = toQt(newContainerId());
    created.record.name = toQt(policy.name);
    created.record.state = QStringLiteral("running");
    created.record.policyVersion = version;
    created.record.memoryLimit = m_cgroup ? policy.memoryLimitBytes : 0;
    created.record.demo = options.demo;
    created.record.timeScale = clockFor(created);
    created.record.createdAt = now();
    created.record.origin = options.origin;
    created.container = std::make_unique<Container>(created.record.id, policy, m_cgroup.get());
    Result<> started = prepareDomainSecrets(created);
    if (started)
        started = created.container->start();
    if (!started) {
        created.container->wipe();
        detachProxy(created.record.id); // what prepareDomainSecrets() gave the proxy
        return fail(started.error());
    }
    const QString id = created.record.id;
    m_entries.emplace(id, std::move(owned));
    wireContainer(created);
    attachProxy(created);
    touch(created);
    recordEvent(id, {}, QStringLiteral("container.created"),
                {{QStringLiteral("policy_version"), created.record.policyVersion},
                 {QStringLiteral("time_scale"), created.record.timeScale},
                 {QStringLiteral("demo"), created.record.demo}});
    return snapshot(created);
}

const ContainerManager::Entry *ContainerManager::liveEntryNamed(const QString &name) const
{
    for (const auto &[id, entry] : m_entries)
        if (entry->record.endedAt == 0 && toQt(entry->container->policy().name) == name)
            return entry.get();
    return nullptr;
}

QString ContainerManager::unusedName() const
{
    return QString::fromStdString(readableContainerName(
        [this](const std::string &name) { return liveEntryNamed(QString::fromStdString(name)) != nullptr; }));
}

void ContainerManager::wireContainer(Entry &target)
{
    Container *container = target.container.get();
    const QString id = target.record.id;
    connect(container, &Container::runOutput, this,
            [this, id](const QString &runId, OutputStream stream, const QByteArray &chunk) {
                if (auto found = entry(id))
                    touch(**found);
                Q_EMIT runOutput(runId, id, outputStreamName(stream), chunk);
            });
    connect(container, &Container::runFinished, this, [this, id](ContainerRun *run) {
        if (auto found = entry(id))
            onRunFinished(**found, run);
    });
    connect(container, &Container::workspaceSaved, this, [this, id](const WorkspaceSave &save) {
        QJsonObject detail{{QStringLiteral("milliseconds"), save.milliseconds}};
        if (!save.saved) {
            detail.insert(QStringLiteral("error"), save.error);
            recordEvent(id, {}, QStringLiteral("workspace.save_failed"), detail);
        } else {
            detail.insert(QStringLiteral("files"), save.files);
            detail.insert(QStringLiteral("directories"), save.directories);
            detail.insert(QStringLiteral("symlinks"), save.symlinks);
            detail.insert(QStringLiteral("bytes"), save.bytes);
            if (save.leftOut > 0) {
                detail.insert(QStringLiteral("left_out"), save.leftOut);
                detail.insert(QStringLiteral("left_out_examples"), QJsonArray::fromStringList(save.examples));
            }
            recordEvent(id, {}, QStringLiteral("workspace.saved"), detail);
        }
        // Recorded first: whoever waited for the save may say it is done.
        for (const auto &then : m_saveWaiters.take(id))
            then(&save);
    });
    connect(container, &Container::checkpointFailed, this, [this, id](const QString &error) {
        recordEvent(id, {}, QStringLiteral("workspace.checkpoint_failed"),
                    {{QStringLiteral("error"), error}});
    });
    connect(container, &Container::died, this, [this, id] {
        detachProxy(id);
        if (auto found = entry(id)) {
            (*found)->record.state = QStringLiteral("stopped");
            persist(**found);
            recordEvent(id, {}, QStringLiteral("container.died"), {});
        }
    });
}

Result<ContainerManager::Entry *> ContainerManager::entry(const QString &id) const
{
    const auto it = m_entries.find(id);
    if (it == m_entries.end())
        return fail(notFound(QStringLiteral("container"), id));
    return it->second.get();
}

Result<ContainerManager::Entry *> ContainerManager::liveEntry(const QString &id) const
{
    auto found = entry(id);
    if (!found)
        return found;
    const ContainerState state = (*found)->container->state();
    if (state == ContainerState::Expired || state == ContainerState::Deleted) {
        const Store::ContainerRecord &record = (*found)->record;
        const QString when =
            QDateTime::fromMSecsSinceEpoch(record.endedAt).toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
        const QString name = QString::fromStdString(Cordon::ticked((*found)->container->policy().name));
        return fail(
            QStringLiteral("container.gone"),
            state == ContainerState::Expired
                ? QStringLiteral("container %1 (%2) expired at %3 after %4 min without activity; its "
                                 "files were deleted")
                      .arg(name, id, when)
                      .arg((*found)->container->policy().expiresAfter.minutes)
                : QStringLiteral("container %1 (%2) was deleted at %3, with its files").arg(name, id, when));
    }
    return found;
}

QList<ContainerSnapshot> ContainerManager::list(bool includeEnded) const
{
    QList<const Entry *> entries;
    for (const auto &[id, entry] : m_entries) {
        if (includeEnded || entry->record.endedAt == 0)
            entries.append(entry.get());
    }
    std::sort(entries.begin(), entries.end(),
              [](const Entry *a, const Entry *b) { return a->record.createdAt > b->record.createdAt; });
    QList<ContainerSnapshot> snapshots;
    for (const Entry *entry : entries)
        snapshots.append(snapshot(*entry));
    return snapshots;
}

Result<ContainerSnapshot> ContainerManager::get(const QString &id) const
{
    auto found = entry(id);
    if (found)
        return snapshot(**found);
    // A one-shot run's record answers too, so that `cordon network show ID` works after a `cordon run`:
    // running while its network is served, deleted after.
    if (auto oneShot = oneShotSnapshot(id))
        return *oneShot;
    return fail(found.error());
}

Result<Policy::ContainerPolicy> ContainerManager::storedPolicy(const QString &version) const
{
    auto json = m_store.policyJson(version);
    if (!json)
        return fail(json.error());
    return Policy::ContainerPolicy::fromJson(toPlain(*json));
}

std::optional<ContainerSnapshot> ContainerManager::oneShotSnapshot(const QString &id) const
{
    const bool attached = m_oneShots.contains(id);
    auto record = attached ? Result<Store::ContainerRecord>(m_oneShots.value(id)) : m_store.container(id);
    if (!record || record->state != QLatin1String("one-shot"))
        return std::nullopt;
    auto policy = storedPolicy(record->policyVersion);
    return ContainerSnapshot{*record,
                             policy ? *policy : Policy::ContainerPolicy{},
                             attached ? ContainerState::Running : ContainerState::Deleted,
                             false,
                             0,
                             std::nullopt,
                             std::nullopt};
}

Result<ContainerSnapshot> ContainerManager::stop(const QString &id)
{
    auto found = liveEntry(id);
    if (!found)
        return fail(found.error());
    Entry &stopped = **found;
    detachProxy(id);
    stopped.container->stop(QStringLiteral("the container was stopped"));
    stopped.record.state = QStringLiteral("stopped");
    touch(stopped);
    // A new state is always saved and announced: touch() alone skips both within a second of the last
    // save, and every other client (the workbench after `cordon stop`) would go on showing "running".
    persist(stopped);
    recordEvent(id, {}, QStringLiteral("container.stopped"), {});
    return snapshot(stopped);
}

void ContainerManager::afterSave(const QString &id, std::function<void(const WorkspaceSave *)> then)
{
    auto found = entry(id);
    if (!found || !(*found)->container->savePending()) {
        then(nullptr);
        return;
    }
    m_saveWaiters[id].append(std::move(then));
}

Result<ContainerSnapshot> ContainerManager::start(const QString &id)
{
    auto found = liveEntry(id);
    if (!found)
        return fail(found.error());
    Entry &started = **found;
    if (started.container->state() != ContainerState::Running) {
        if (runningCount() >= m_settings.maxContainers)
            return fail(QStringLiteral("container.limit"),
                        QStringLiteral("%1 containers are running, the limit").arg(m_settings.maxContainers));
        Result<> launched = prepareDomainSecrets(started);
        if (launched)
            launched = started.container->start();
        if (!launched) {
            detachProxy(id); // what prepareDomainSecrets() gave the proxy
            return fail(launched.error());
        }
        attachProxy(started);
        started.record.state = QStringLiteral("running");
        started.warned = false;
        recordEvent(id, {}, QStringLiteral("container.started"), {});
    }
    touch(started);
    persist(started); // as in stop(): the new state reaches every client at once
    return snapshot(started);
}

Result<ContainerSnapshot> ContainerManager::remove(const QString &id)
{
    auto found = entry(id);
    if (!found)
        return fail(found.error());
    Entry &removed = **found;
    if (removed.container->state() == ContainerState::Deleted)
        return snapshot(removed);
    detachProxy(id);
    DeletionReceipt receipt = DeletionReceipt::take(*removed.container, m_cgroup.get());
    removed.container->stop(QStringLiteral("the container was deleted"), WorkspaceOnStop::Discard);
    auto wiped = removed.container->wipe();
    receipt.confirm(m_cgroup.get());
    removed.container->setState(ContainerState::Deleted);
    removed.record.state = QStringLiteral("deleted");
    removed.record.endedAt = now();
    persist(removed);
    recordEvent(id, {}, QStringLiteral("container.deleted"),
                wiped ? QJsonObject{}
                      : QJsonObject{{QStringLiteral("wipe_error"), toQt(wiped.error().message())}});
    recordEvent(id, {}, QStringLiteral("container.deletion_receipt"), receipt.toJson());
    releaseRetiredValues();
    return snapshot(removed);
}

Result<ContainerSnapshot> ContainerManager::keepAlive(const QString &id)
{
    auto found = liveEntry(id);
    if (!found)
        return fail(found.error());
    touch(**found);
    // An explicit act of a user (unlike the activity of runs, which is frequent): recorded, and announced at
    // once so that every client's countdown starts again.
    persist(**found);
    recordEvent(id, {}, QStringLiteral("container.kept_alive"),
                {{QStringLiteral("expires_at"), (*found)->record.expiresAt}});
    return snapshot(**found);
}

QHash<QString, int> ContainerManager::countByState() const
{
    QHash<QString, int> counts;
    for (const auto &[id, entry] : m_entries)
        ++counts[containerStateName(entry->container->state())];
    return counts;
}

bool ContainerManager::touch(Entry &entry)
{
    const qint64 at = now();
    // Output arrives in many small chunks and runs follow each other within milliseconds: saving at each
    // would write the database for every line and every run. The saved activity is at most a second old.
    const bool persistNow = at - entry.savedActiveAt > 1000;
    entry.record.lastActiveAt = at;
    entry.record.expiresAt = at + idleMillis(entry);
    entry.warned = false;
    entry.graceSince.reset();
    entry.activeSinceCheckpoint = true;
    if (persistNow)
        persist(entry);
    return persistNow;
}

qint64 ContainerManager::idleMillis(const Entry &entry) const
{
    const double scale = entry.record.timeScale > 0 ? entry.record.timeScale : 1;
    return static_cast<qint64>(entry.container->policy().expiresAfter.minutes * 60000.0 / scale);
}

void ContainerManager::persist(Entry &entry)
{
    entry.record.state = containerStateName(entry.container->state());
    logStoreFailure(m_store.saveContainer(entry.record), "a container");
    entry.savedActiveAt = entry.record.lastActiveAt;
    Q_EMIT containerChanged(snapshot(entry));
}

void ContainerManager::recordEvent(const QString &containerId, const QString &runId, const QString &kind,
                                   const QJsonObject &detail)
{
    Q_EMIT eventRecorded(storeEvent(containerId, runId, kind, detail));
}

Store::EventRecord ContainerManager::storeEvent(const QString &containerId, const QString &runId,
                                                const QString &kind, const QJsonObject &detail)
{
    Store::EventRecord event;
    event.at = now();
    event.containerId = containerId;
    event.runId = weakened(Guarantee::EventAttribution) ? QString() : runId;
    event.kind = kind;
    event.detail = maskedDetail(containerId, detail);
    if (auto id = m_store.recordEvent(event))
        event.id = *id;
    return event;
}

ContainerSnapshot ContainerManager::snapshot(const Entry &entry) const
{
    return {entry.record,        entry.container->policy(),     entry.container->state(),
            m_cgroup != nullptr, entry.container->activeRuns(), entry.container->workspaceBytes(),
            entry.graceSince};
}

void ContainerManager::expire(Entry &entry, bool whileDown)
{
    detachProxy(entry.record.id);
    DeletionReceipt receipt = DeletionReceipt::take(*entry.container, m_cgroup.get());
    entry.container->stop(QStringLiteral("the container expired"), WorkspaceOnStop::Discard);
    if (m_cgroup)
        m_cgroup->destroy(entry.record.id.toStdString());
    auto wiped = weakened(Guarantee::ExpiryWipe) ? Result<>() : entry.container->wipe();
    receipt.confirm(m_cgroup.get());
    entry.container->setState(ContainerState::Expired);
    entry.record.endedAt = now();
    persist(entry);
    QJsonObject detail{{QStringLiteral("idle_minutes"), entry.container->policy().expiresAfter.minutes},
                       {QStringLiteral("time_scale"), entry.record.timeScale},
                       {QStringLiteral("while_daemon_down"), whileDown}};
    if (!wiped)
        detail.insert(QStringLiteral("wipe_error"), toQt(wiped.error().message()));
    recordEvent(entry.record.id, {}, QStringLiteral("container.expired"), detail);
    recordEvent(entry.record.id, {}, QStringLiteral("container.deletion_receipt"), receipt.toJson());
    // At start-up the containers not yet read still hold theirs: initialize() releases once all are read.
    if (!whileDown)
        releaseRetiredValues();
}

// Activity is what the daemon sees (runs, output, transfers); a process left in the background writes
// unseen, so a container with processes besides its PID 1 is checkpointed at every interval too. One that is
// idle costs nothing.
void ContainerManager::checkpointAll()
{
    for (auto &[id, owned] : m_entries) {
        Entry &candidate = *owned;
        if (candidate.container->state() != ContainerState::Running)
            continue;
        if (!candidate.activeSinceCheckpoint && candidate.container->pidsCurrent() <= 1)
            continue;
        if (candidate.container->checkpoint())
            candidate.activeSinceCheckpoint = false;
    }
}

void ContainerManager::checkExpiry()
{
    const qint64 at = now();
    for (auto &[id, owned] : m_entries) {
        Entry &candidate = *owned;
        const ContainerState state = candidate.container->state();
        if (state != ContainerState::Running && state != ContainerState::Stopped)
            continue;
        // A run that is still working counts as activity, even when it prints nothing.
        if (candidate.container->activeRuns() > 0) {
            touch(candidate);
            continue;
        }
        const qint64 lead = static_cast<qint64>(m_settings.expiringSoonLeadSeconds * 1000.0 /
                                                qMax(1.0, candidate.record.timeScale));
        // The warning always comes first, even when a short scaled lead falls between two checks.
        if (!candidate.warned && candidate.record.expiresAt - at <= lead) {
            candidate.warned = true;
            recordEvent(id, {}, QStringLiteral("container.expiring_soon"),
                        {{QStringLiteral("expires_at"), candidate.record.expiresAt}});
            Q_EMIT expiringSoon(id, candidate.record.expiresAt);
        }
        if (at >= candidate.record.expiresAt)
            expire(candidate, false);
    }
}

void ContainerManager::sampleMemory()
{
    const qint64 at = now();
    const std::size_t keep = static_cast<std::size_t>(
        qMax(1, m_settings.memoryHistorySeconds * 1000 / qMax(1, m_settings.sampleIntervalMs)));
    for (auto &[id, owned] : m_entries) {
        if (owned->container->state() != ContainerState::Running)
            continue;
        const auto stats = owned->container->memoryStats();
        if (!stats)
            continue;
        MemorySample sample{id,
                            at,
                            stats->current,
                            stats->peak,
                            stats->limit,
                            stats->oomKills,
                            owned->container->pidsCurrent(),
                            owned->container->policy().limits.pids,
                            stats->pidsLimitHits};
        if (!owned->samples.empty() && owned->samples.back().oomKills < sample.oomKills)
            recordEvent(id, {}, QStringLiteral("container.oom_kill"),
                        {{QStringLiteral("oom_kills"), sample.oomKills}});
        // Once per burst: the first sample that sees the counter move. The group is new with the container
        // (or its restart), so before the first sample the count was 0.
        const qint64 hitsBefore = owned->samples.empty() ? 0 : owned->samples.back().pidsLimitHits;
        if (hitsBefore < sample.pidsLimitHits)
            recordEvent(id, {}, QStringLiteral("container.pids_limit_reached"),
                        {{QStringLiteral("limit"), sample.pidsLimit},
                         {QStringLiteral("refused_forks"), sample.pidsLimitHits}});
        owned->samples.push_back(sample);
        while (owned->samples.size() > keep)
            owned->samples.pop_front();
        Q_EMIT memorySampled(sample);
    }
}

QList<MemorySample> ContainerManager::memoryBacklog(const QString &containerId) const
{
    QList<MemorySample> backlog;
    for (const auto &[id, owned] : m_entries) {
        if (!containerId.isEmpty() && id != containerId)
            continue;
        for (const MemorySample &sample : owned->samples)
            backlog.append(sample);
    }
    return backlog;
}

QList<ContainerManager::ShutdownReport> ContainerManager::leaveRunning()
{
    m_expiryTimer.stop();
    m_sampleTimer.stop();
    m_checkpointTimer.stop();
    m_ledger->flushAll();
    QList<ShutdownReport> reports;
    for (auto &[id, owned] : m_entries) {
        const ContainerState state = owned->container->state();
        if (state != ContainerState::Running && state != ContainerState::Stopped)
            continue;
        reports.append({id, owned->record.name, owned->record.expiresAt,
                        state == ContainerState::Running ? owned->container->checkpointNow() : std::nullopt});
    }
    return reports;
}

QList<ContainerManager::ShutdownReport> ContainerManager::shutdown()
{
    m_expiryTimer.stop();
    m_sampleTimer.stop();
    m_checkpointTimer.stop();
    if (m_proxy)
        m_proxy->disconnect(this); // containers stop below; their connections are not news any more
    m_ledger->flushAll();
    QList<ShutdownReport> reports;
    QList<QMetaObject::Connection> watches;
    for (auto &[id, owned] : m_entries) {
        const ContainerState state = owned->container->state();
        if (state != ContainerState::Running && state != ContainerState::Stopped)
            continue;
        const qsizetype index = reports.size();
        reports.append({id, owned->record.name, owned->record.expiresAt, std::nullopt});
        // The last word of each save counts: a failed one is tried again below.
        watches.append(
            connect(owned->container.get(), &Container::workspaceSaved, this,
                    [&reports, index](const WorkspaceSave &save) { reports[index].saved = save; }));
        if (state == ContainerState::Running) {
            owned->container->stop(QStringLiteral("the daemon stopped"));
            // Recorded as running: the next daemon brings it back.
            logStoreFailure(m_store.saveContainer(owned->record), "a container");
        }
    }
    // The saves run side by side; each is recorded before the daemon goes, and one that failed is tried
    // once more (what is still not saved then is lost with the daemon, and the event says why).
    for (auto &[id, owned] : m_entries)
        (void)owned->container->saveAgainIfFailed();
    for (const QMetaObject::Connection &watch : std::as_const(watches))
        disconnect(watch);
    // One-shot runs lose their network with the daemon; their rows say when.
    for (const QString &id : m_oneShots.keys())
        detachOneShot(id);
    return reports;
}

} // namespace Cordon::Containers
