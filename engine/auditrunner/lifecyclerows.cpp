// SPDX-License-Identifier: MIT
// The lifecycle rows, on the audit's private daemon: a daemon killed during a run leaves the run
// `interrupted` and no process behind once it is back; an expired container (at a faster clock) is gone
// whole, with a deletion receipt that lists what was removed.
#include "auditrunner/auditrows.h"

#include "auditrunner/privatedaemon.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRandomGenerator>
#include <QThread>

#include <csignal>
#include <sys/syscall.h>
#include <unistd.h>

namespace Cordon::Audit {

namespace {

// The policy under test as the private daemon can take it: no network (its organisation list, when the echo
// row wrote one, allows only the echo upstream) and no secrets (its store is empty), the rest unchanged.
QJsonObject lifecyclePolicy(const QJsonObject &policy, const QString &name)
{
    QJsonObject derived = derivedPolicy(policy, name);
    derived.insert(QStringLiteral("network_policy"),
                   QJsonObject{{QStringLiteral("type"), QStringLiteral("disabled")}});
    derived.remove(QStringLiteral("secrets"));
    return derived;
}

// Whether host process `pid` is the probe sleeping `seconds`: the marker of one run.
bool isProbe(qint64 pid, const QString &seconds)
{
    QFile cmdline(QStringLiteral("/proc/%1/cmdline").arg(pid));
    if (!cmdline.open(QIODevice::ReadOnly))
        return false;
    const QByteArray line = cmdline.readAll();
    return line.contains("cordon-audit-probe") &&
           line.endsWith(QByteArray(QByteArrayLiteral("sleep") + '\0' + seconds.toLatin1() + '\0'));
}

// Host processes that are the probe sleeping `seconds`.
QList<qint64> probeProcesses(const QString &seconds)
{
    QList<qint64> found;
    for (const QString &entry : QDir(QStringLiteral("/proc")).entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        bool numeric = false;
        const qint64 pid = entry.toLongLong(&numeric);
        if (numeric && isProbe(pid, seconds))
            found.append(pid);
    }
    return found;
}

QString pidList(const QList<qint64> &pids)
{
    QStringList shown;
    for (const qint64 pid : pids)
        shown.append(QString::number(pid));
    return shown.isEmpty() ? QStringLiteral("none") : shown.join(QStringLiteral(", "));
}

// The audit cleans up after itself even when the row fails: the probe processes still sleeping `seconds`
// are killed, and named in the evidence.
void endLeftovers(RowRecorder &row, const QString &seconds)
{
    const QList<qint64> left = probeProcesses(seconds);
    if (left.isEmpty())
        return;
    for (const qint64 pid : left) {
        // Through a pidfd, checked again once open: a pid freed and reused since the scan is not signalled.
        const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, static_cast<pid_t>(pid), 0));
        if (pidfd < 0)
            continue;
        if (isProbe(pid, seconds))
            (void)::syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, nullptr, 0);
        ::close(pidfd);
    }
    row.evidence(QStringLiteral("cleaned up"),
                 QStringLiteral("the audit killed the probe processes left behind: %1").arg(pidList(left)));
}

Result<> ensureStarted(AuditContext &context)
{
    if (context.privateDaemon->isRunning())
        return {};
    return context.privateDaemon->start();
}

} // namespace

AuditRow lifecycleRestart(AuditContext &context)
{
    RowRecorder row(QStringLiteral("lifecycle.restart"),
                    QStringLiteral("A daemon killed mid-run ends nothing: the next one adopts the run"));
    if (auto started = ensureStarted(context); !started)
        return row.noGo(describe(started.error()));
    PrivateDaemon &daemon = *context.privateDaemon;
    row.evidence(
        QStringLiteral("daemon"),
        QStringLiteral("a private cordond (pid %1) in %2").arg(daemon.pid()).arg(daemon.directory()));
    ProbeSession session(daemon.client(), context.probeProgram, context.session.origin());
    auto container =
        session.createContainer(lifecyclePolicy(context.policy, QStringLiteral("audit-restart")));
    if (!container)
        return row.noGo(
            QStringLiteral("a container could not be created: %1").arg(describe(container.error())));
    // A marker no other audit's probe has, and a sleep that outlasts the row.
    const QString seconds = QString::number(100000 + QRandomGenerator::system()->bounded(900000));
    const QStringList args{QStringLiteral("sleep"), seconds};
    auto run = session.startProbe(*container, args);
    if (!run)
        return row.noGo(QStringLiteral("the probe could not start: %1").arg(describe(run.error())));
    const QString runId = run->value(QStringLiteral("id")).toString();
    row.evidence(
        QStringLiteral("command"),
        QStringLiteral("%1 (the private daemon's run %2)").arg(ProbeSession::shownCommand(args), runId));
    QList<qint64> before;
    for (int attempt = 0; attempt < 100 && before.isEmpty(); ++attempt) {
        QThread::msleep(100);
        before = probeProcesses(seconds);
    }
    row.evidence(QStringLiteral("processes before"), pidList(before));
    if (before.isEmpty())
        return row.noGo(
            QStringLiteral("the probe's process never showed on the host, so its end cannot be shown"));

    const qint64 killedPid = daemon.pid();
    daemon.kill();
    row.evidence(QStringLiteral("killed"), QStringLiteral("cordond pid %1 with SIGKILL").arg(killedPid));
    if (auto restarted = daemon.start(); !restarted) {
        endLeftovers(row, seconds);
        return row.noGo(
            QStringLiteral("the daemon did not start again: %1").arg(describe(restarted.error())));
    }
    row.evidence(QStringLiteral("restarted"), QStringLiteral("cordond pid %1").arg(daemon.pid()));
    // The container outlived the daemon: its probe still runs, and the new daemon adopted the run.
    const QList<qint64> during = probeProcesses(seconds);
    row.check(!during.isEmpty() && during == before,
              QStringLiteral("the probe's processes outlived the daemon (%1)").arg(pidList(during)),
              QStringLiteral("the probe's processes did not outlive the daemon (before %1, after %2)")
                  .arg(pidList(before), pidList(during)));
    ProbeSession after(daemon.client(), context.probeProgram, context.session.origin());
    auto reread = after.call(QStringLiteral("run.get"), {{QStringLiteral("run_id"), runId}});
    const QString state =
        reread ? reread->value(QStringLiteral("run")).toObject().value(QStringLiteral("state")).toString()
               : describe(reread.error());
    row.check(state == QLatin1String("running"),
              QStringLiteral("run %1 reads %2 after the restart").arg(runId, state),
              QStringLiteral("the new daemon did not adopt run %1: it reads %2").arg(runId, state));
    // Ended through the new daemon: it collects the run's real outcome.
    (void)after.call(QStringLiteral("run.cancel"), {{QStringLiteral("run_id"), runId}});
    auto ended = after.call(QStringLiteral("run.wait"), {{QStringLiteral("run_id"), runId}});
    const QJsonObject endedRun = ended ? ended->value(QStringLiteral("run")).toObject() : QJsonObject();
    const QString endedAs =
        ended ? QStringLiteral("%1 (%2)").arg(endedRun.value(QStringLiteral("state")).toString(),
                                              endedRun.value(QStringLiteral("error_class")).toString())
              : describe(ended.error());
    row.check(endedRun.value(QStringLiteral("state")).toString() == QLatin1String("finished") &&
                  endedRun.value(QStringLiteral("error_class")).toString() == QLatin1String("killed"),
              QStringLiteral("cancelled through the new daemon, run %1 ended as %2").arg(runId, endedAs),
              QStringLiteral("cancelled through the new daemon, run %1 ended as %2, not as killed")
                  .arg(runId, endedAs));
    QList<qint64> left = probeProcesses(seconds);
    for (int attempt = 0; attempt < 100 && !left.isEmpty(); ++attempt) {
        QThread::msleep(100);
        left = probeProcesses(seconds);
    }
    row.check(left.isEmpty(), QStringLiteral("no process of the run is left on the host"),
              QStringLiteral("processes of the run are left on the host (%1)").arg(pidList(left)));
    endLeftovers(row, seconds);
    (void)after.call(QStringLiteral("container.delete"), {{QStringLiteral("id"), *container}});
    return row.finish(
        QStringLiteral("the container outlived the daemon, and the next daemon adopted the run and "
                       "collected its outcome"));
}

AuditRow lifecycleDeletion(AuditContext &context)
{
    RowRecorder row(QStringLiteral("lifecycle.deletion"),
                    QStringLiteral("Expiry removes everything, with a receipt"));
    if (auto started = ensureStarted(context); !started)
        return row.noGo(describe(started.error()));
    PrivateDaemon &daemon = *context.privateDaemon;
    ProbeSession session(daemon.client(), context.probeProgram, context.session.origin());
    constexpr int Scale = 600;
    QJsonObject policy = lifecyclePolicy(context.policy, QStringLiteral("audit-deletion"));
    policy.insert(QStringLiteral("expires_after"),
                  QJsonObject{{QStringLiteral("anchor"), QStringLiteral("last_active_at")},
                              {QStringLiteral("minutes"), 1}});
    auto container = session.createContainer(policy);
    if (!container)
        return row.noGo(
            QStringLiteral("a container could not be created: %1").arg(describe(container.error())));
    // Only a demo container follows the demo clock: this one becomes one.
    if (auto scaled = session.call(
            QStringLiteral("daemon.set_time_scale"),
            {{QStringLiteral("scale"), Scale}, {QStringLiteral("containers"), QJsonArray{*container}}});
        !scaled)
        return row.noGo(QStringLiteral("the clock could not be sped up: %1").arg(describe(scaled.error())));
    row.evidence(
        QStringLiteral("container"),
        QStringLiteral("%1, expiring after 1 idle minute at %2 times the clock").arg(*container).arg(Scale));
    const QStringList args{QStringLiteral("write"), QStringLiteral("/mnt/data/outputs/audit-result.txt")};
    auto run = session.probe(*container, args);
    if (!run)
        return row.noGo(QStringLiteral("the probe could not run: %1").arg(describe(run.error())));
    row.evidence(QStringLiteral("command"), ProbeSession::shownCommand(args));

    QString state;
    for (int attempt = 0; attempt < 300 && state != QLatin1String("expired"); ++attempt) {
        QThread::msleep(100);
        auto got = session.call(QStringLiteral("container.get"), {{QStringLiteral("id"), *container}});
        state =
            got ? got->value(QStringLiteral("container")).toObject().value(QStringLiteral("state")).toString()
                : QString();
    }
    row.check(state == QLatin1String("expired"), QStringLiteral("the container expired (%1)").arg(state),
              QStringLiteral("the container did not expire: it reads %1").arg(state));
    auto receipts = session.events(*container, QStringLiteral("container.deletion_receipt"));
    if (!receipts || receipts->isEmpty())
        return row.noGo(QStringLiteral("no deletion receipt was recorded"));
    const QJsonObject event = receipts->last().toObject();
    const QJsonObject receipt = event.value(QStringLiteral("detail")).toObject();
    row.evidence(
        QStringLiteral("receipt"),
        QStringLiteral("event %1 at %2: %3 files, %4 bytes; workspace %5")
            .arg(event.value(QStringLiteral("id")).toInteger())
            .arg(QDateTime::fromMSecsSinceEpoch(event.value(QStringLiteral("at")).toInteger(), Qt::UTC)
                     .toString(Qt::ISODateWithMs))
            .arg(receipt.value(QStringLiteral("files_total")).toInteger())
            .arg(receipt.value(QStringLiteral("bytes_total")).toInteger())
            .arg(receipt.value(QStringLiteral("workspace")).toString()));
    QHash<QString, QString> listed;
    for (const QJsonValue &value : receipt.value(QStringLiteral("files")).toArray()) {
        const QJsonObject file = value.toObject();
        const QString where = file.value(QStringLiteral("scope")).toString() + QLatin1Char('/') +
                              file.value(QStringLiteral("path")).toString();
        listed.insert(where, file.value(QStringLiteral("sha256")).toString());
        row.evidence(QStringLiteral("removed"), QStringLiteral("%1, %2 bytes, sha256 %3")
                                                    .arg(where)
                                                    .arg(file.value(QStringLiteral("size")).toInteger())
                                                    .arg(file.value(QStringLiteral("sha256")).toString()));
    }
    QFile probe(context.probeProgram);
    const QString probeHash =
        probe.open(QIODevice::ReadOnly)
            ? QString::fromLatin1(
                  QCryptographicHash::hash(probe.readAll(), QCryptographicHash::Sha256).toHex())
            : QString();
    row.check(listed.value(QStringLiteral("inputs/cordon-audit-probe")) == probeHash && !probeHash.isEmpty(),
              QStringLiteral("the receipt lists the uploaded input with its sha256"),
              QStringLiteral("the receipt lacks the uploaded input or its sha256"));
    row.check(listed.contains(QStringLiteral("outputs/audit-result.txt")),
              QStringLiteral("the receipt lists the run's output"),
              QStringLiteral("the receipt lacks the run's output"));
    row.check(
        receipt.value(QStringLiteral("workspace_gone")).toBool() &&
            !receipt.value(QStringLiteral("workspace")).toString().isEmpty() &&
            !QFileInfo::exists(receipt.value(QStringLiteral("workspace")).toString()),
        QStringLiteral("the workspace directory is gone from the host"),
        QStringLiteral("the workspace directory %1 is still on the host, or the receipt says it is not gone")
            .arg(receipt.value(QStringLiteral("workspace")).toString()));
    row.check(!receipt.value(QStringLiteral("cgroups")).toArray().isEmpty() &&
                  receipt.value(QStringLiteral("cgroups_gone")).toBool(),
              QStringLiteral("the container's cgroup is gone"),
              QStringLiteral("the receipt names no removed cgroup of the container"));
    row.check(receipt.value(QStringLiteral("processes_after")).toInteger() == 0,
              QStringLiteral("no process is left"),
              QStringLiteral("%1 processes were left after the deletion")
                  .arg(receipt.value(QStringLiteral("processes_after")).toInteger()));
    return row.finish(QStringLiteral("everything inside was removed, and the receipt says what and when"));
}

} // namespace Cordon::Audit
