// SPDX-License-Identifier: MIT
// ContainerManager: what a daemon finds when it starts. A container that was running outlived the daemon
// before it (its cordon-init waits on the adoption socket, docs/architecture.md "Containers outlive the
// daemon") and is adopted with its runs; one that cannot be is started again from its saved files, and says
// why. A deadline that passed while no daemon ran gets a grace period instead of a silent wipe.
#include "containers/containermanager.h"

#include "core/plainbridge.h"
#include "sandbox/weakening.h"

#include <QDateTime>
#include <QFile>

namespace Cordon::Containers {

namespace {

qint64 now()
{
    return QDateTime::currentMSecsSinceEpoch();
}

} // namespace

QString ContainerManager::recover(Entry &survivor)
{
    const QString id = survivor.record.id;
    // An adopted run's output is masked with everything the container holds, as a new run's is: read when
    // the run is claimed, once prepareDomainSecrets() has added its domain secrets' values.
    const ClaimRun claim = [this, id, &survivor](const QString &runId) -> std::optional<KnownRun> {
        auto record = m_store.run(runId);
        if (!record || record->containerId != id || record->state != QLatin1String("running"))
            return std::nullopt;
        m_activeRuns.insert(runId, id);
        m_runRecords.insert(runId, *record);
        return KnownRun{record->startedAt, record->command, survivor.masker};
    };
    // The programs inside trust their container's authority alone: the proxy of this daemon speaks for
    // them with the one the daemon before saved beside the workspace, or the container cannot be adopted.
    QString refusal;
    if (Result<> authority = prepareDomainSecrets(survivor, AuthorityFrom::Saved); !authority)
        refusal = toQt(authority.error().message());
    if (weakened(Guarantee::Adoption))
        refusal = QStringLiteral("a test build that adopts nothing");
    auto adopted = survivor.container->adopt(claim, refusal);
    // A cordon-init that is there but did not answer in time (a host under load) gets a second chance
    // before its container is ended and started again from its saved files.
    if (!adopted && adopted.error().code() == "sandbox.adoption_failed")
        adopted = survivor.container->adopt(claim, refusal);
    if (adopted) {
        attachProxy(survivor);
        recordEvent(id, {}, QStringLiteral("container.adopted"),
                    {{QStringLiteral("runs"), adopted->runsAdopted},
                     {QStringLiteral("runs_forgotten"), adopted->runsForgotten},
                     {QStringLiteral("protocol_version"), adopted->protocolVersion}});
        return QStringLiteral("its cordon-init no longer held the run when the daemon started again");
    }
    const bool gone = adopted.error().code() == "sandbox.not_adoptable";
    // A container that is there but could not be adopted twice is ended (through its cgroup) and started
    // again: what changed since its last checkpoint is lost, and the event says so.
    const QString why =
        gone ? QStringLiteral("its processes had ended while no daemon ran (the machine restarted, or its "
                              "cordon-init was killed)")
        : adopted.error().code() == "sandbox.adoption_failed"
            ? QStringLiteral(
                  "its cordon-init could not be adopted (%1): it was ended, and what changed since "
                  "its last checkpoint is lost")
                  .arg(toQt(adopted.error().message()))
            : toQt(adopted.error().message());
    if (!gone)
        recordEvent(id, {}, QStringLiteral("container.adoption_refused"), {{QStringLiteral("error"), why}});
    if (m_cgroup)
        m_cgroup->destroy(id.toStdString()); // left behind by a container that ended
    Result<> started = prepareDomainSecrets(survivor);
    if (started)
        started = survivor.container->start();
    if (started) {
        attachProxy(survivor);
        recordEvent(id, {}, QStringLiteral("container.restarted"), {{QStringLiteral("reason"), why}});
    } else {
        detachProxy(id);
        recordEvent(
            id, {}, QStringLiteral("container.restart_failed"),
            {{QStringLiteral("error"), toQt(started.error().message())}, {QStringLiteral("reason"), why}});
    }
    return QStringLiteral("the container could not be adopted: %1").arg(why);
}

void ContainerManager::finishInterruptedSave(Entry &entry)
{
    const auto resumed = entry.container->recoverInterruptedSave();
    if (!resumed)
        recordEvent(entry.record.id, {}, QStringLiteral("workspace.save_failed"),
                    {{QStringLiteral("error"), toQt(resumed.error().message())}});
    else if (*resumed)
        recordEvent(
            entry.record.id, {}, QStringLiteral("workspace.save_resumed"),
            {{QStringLiteral("reason"), QStringLiteral("the daemon before ended while it saved the files")}});
}

void ContainerManager::deferExpiry(Entry &entry)
{
    const double scale = entry.record.timeScale > 0 ? entry.record.timeScale : 1;
    const qint64 grace = static_cast<qint64>(m_settings.expiryGraceSeconds * 1000.0 / scale);
    const qint64 passedAt = entry.record.expiresAt;
    entry.record.expiresAt = now() + grace;
    entry.warned = false;
    entry.graceSince = passedAt;
    recordEvent(entry.record.id, {}, QStringLiteral("container.expiry_deferred"),
                {{QStringLiteral("deadline_passed_at"), passedAt},
                 {QStringLiteral("expires_at"), entry.record.expiresAt},
                 {QStringLiteral("grace_ms"), grace}});
}

void ContainerManager::interruptUnclaimedRuns(const QHash<QString, QString> &whyByContainer)
{
    Store::RunFilter filter;
    filter.state = QStringLiteral("running");
    filter.limit = 10000;
    auto running = m_store.runs(filter, true);
    if (!running) {
        logStoreFailure(running, "the runs cut off by the daemon's end");
        return;
    }
    int count = 0;
    for (Store::RunRecord record : running->items) {
        if (m_activeRuns.contains(record.id))
            continue; // adopted: it ends with its real outcome
        const QString why = whyByContainer.value(record.containerId,
                                                 QStringLiteral("the daemon stopped before the run ended"));
        record.state = QStringLiteral("interrupted");
        record.endedAt = now();
        // What the daemon before had read of it, which it spooled as it went.
        const QString spools =
            toQt(Workspace::at(record.containerId.toStdString()).root()) + QStringLiteral("/runs");
        for (const auto &[stream, kept] : {std::pair{OutputStream::Stdout, &record.stdoutData},
                                           std::pair{OutputStream::Stderr, &record.stderrData}}) {
            QFile spooled(ContainerRun::spoolPath(spools, record.id, stream));
            if (spooled.open(QIODevice::ReadOnly))
                *kept = spooled.read(16 * 1024 * 1024);
            spooled.remove();
        }
        if (record.message.isEmpty())
            record.message = why;
        logStoreFailure(m_store.finishRun(record), "an interrupted run");
        recordEvent(record.containerId, record.id, QStringLiteral("run.interrupted"),
                    {{QStringLiteral("reason"), why}});
        ++count;
    }
    if (count > 0)
        recordEvent({}, {}, QStringLiteral("daemon.runs_interrupted"), {{QStringLiteral("count"), count}});
}

} // namespace Cordon::Containers
