// SPDX-License-Identifier: MIT
// The tool-rights and hard-limit rows: no capabilities, seccomp on, no new privileges, no host process in
// sight; memory, pids, run time, output, workspace and parallel runs held at the policy's values; and the
// same idempotency key running once.
#include "auditrunner/auditrows.h"

#include "core/plainbridge.h"

#include <QFile>
#include <QJsonArray>

namespace Cordon::Audit {

namespace {

constexpr qint64 MiB = 1024 * 1024;

qint64 limitOf(const QJsonObject &container, const QString &name, qint64 fallback)
{
    const QJsonValue value = container.value(QStringLiteral("policy"))
                                 .toObject()
                                 .value(QStringLiteral("limits"))
                                 .toObject()
                                 .value(name);
    return value.isUndefined() ? fallback : value.toInteger();
}

// MemAvailable of /proc/meminfo in bytes, 0 when unknown.
qint64 hostAvailableMemory()
{
    QFile meminfo(QStringLiteral("/proc/meminfo"));
    if (!meminfo.open(QIODevice::ReadOnly))
        return 0;
    for (const QByteArray &line : meminfo.readAll().split('\n')) {
        if (line.startsWith("MemAvailable:"))
            return line.mid(13).trimmed().split(' ').value(0).toLongLong() * 1024;
    }
    return 0;
}

} // namespace

AuditRow rightsPrivileges(AuditContext &context)
{
    RowRecorder row(QStringLiteral("rights.privileges"),
                    QStringLiteral("No capabilities, seccomp on, no new privileges"));
    const QStringList args{QStringLiteral("rights")};
    auto run = context.session.probe(context.mainContainer, args);
    if (!run)
        return row.noGo(QStringLiteral("the probe could not run: %1").arg(describe(run.error())));
    const QString out = run->value(QStringLiteral("stdout")).toString();
    row.evidence(QStringLiteral("command"),
                 QStringLiteral("%1 (run %2)")
                     .arg(ProbeSession::shownCommand(args), run->value(QStringLiteral("id")).toString()));
    row.evidence(QStringLiteral("/proc/self/status"), excerpt(out));
    for (const QString &set : {QStringLiteral("CapInh"), QStringLiteral("CapPrm"), QStringLiteral("CapEff"),
                               QStringLiteral("CapBnd"), QStringLiteral("CapAmb")}) {
        const QString value = probeValue(out, set);
        row.check(!value.isEmpty() && value.toULongLong(nullptr, 16) == 0,
                  QStringLiteral("%1 is empty (%2)").arg(set, value),
                  QStringLiteral("the run holds capabilities: %1 is %2")
                      .arg(set, value.isEmpty() ? QStringLiteral("unreadable") : value));
    }
    row.check(probeValue(out, QStringLiteral("NoNewPrivs")) == QLatin1String("1"),
              QStringLiteral("NoNewPrivs is set"),
              QStringLiteral("NoNewPrivs is %1: the run can gain privileges through a set-id program")
                  .arg(probeValue(out, QStringLiteral("NoNewPrivs"))));
    row.check(probeValue(out, QStringLiteral("Seccomp")) == QLatin1String("2"),
              QStringLiteral("a seccomp filter is active (Seccomp: 2)"),
              QStringLiteral("no seccomp filter is active (Seccomp: %1)")
                  .arg(probeValue(out, QStringLiteral("Seccomp"))));
    row.check(probeValue(out, QStringLiteral("unshare")) == QLatin1String("EPERM"),
              QStringLiteral("the filter is the profile: unshare, a no-op without it, is refused with EPERM"),
              QStringLiteral("the filter is not the profile: unshare answered %1, not EPERM")
                  .arg(probeValue(out, QStringLiteral("unshare"))));
    // allow_ptrace lets a run attach to any other process of the container (the shell that started it, a
    // second run) and read or drive it: a privilege this row must not call absent.
    const QString ptrace = probeValue(out, QStringLiteral("ptrace"));
    row.check(ptrace == QLatin1String("EPERM"),
              QStringLiteral("ptrace of another process is refused with EPERM"),
              context.policy.value(QStringLiteral("allow_ptrace")).toBool()
                  ? QStringLiteral("ptrace of another process succeeded (%1): the policy sets allow_ptrace")
                        .arg(ptrace)
                  : QStringLiteral("ptrace of another process answered %1, not EPERM").arg(ptrace));
    return row.finish(
        QStringLiteral("the run holds no capability, cannot gain one, and runs under the filter"));
}

AuditRow rightsProcesses(AuditContext &context)
{
    RowRecorder row(QStringLiteral("rights.processes"), QStringLiteral("No host process is visible"));
    const QStringList args{QStringLiteral("processes")};
    auto run = context.session.probe(context.mainContainer, args);
    if (!run)
        return row.noGo(QStringLiteral("the probe could not run: %1").arg(describe(run.error())));
    const QString out = run->value(QStringLiteral("stdout")).toString();
    row.evidence(QStringLiteral("command"),
                 QStringLiteral("%1 (run %2)")
                     .arg(ProbeSession::shownCommand(args), run->value(QStringLiteral("id")).toString()));
    row.evidence(QStringLiteral("processes seen"), excerpt(out));
    const int seen = probeValue(out, QStringLiteral("processes")).toInt();
    row.check(probeValue(out, QStringLiteral("process 1")) == QLatin1String("cordon-init"),
              QStringLiteral("pid 1 is the container's own init"),
              QStringLiteral("pid 1 is %1, not the container's own init")
                  .arg(probeValue(out, QStringLiteral("process 1"))));
    row.check(seen >= 1 && seen <= 8,
              QStringLiteral("only the container's processes are listed (%1)").arg(seen),
              QStringLiteral("%1 processes are listed: more than the container's own").arg(seen));
    row.check(!out.contains(QStringLiteral(": cordond")) && !out.contains(QStringLiteral(": systemd")),
              QStringLiteral("neither cordond nor the host's init is among them"),
              QStringLiteral("cordond or the host's init is among them"));
    return row.finish(QStringLiteral("the run sees its own pid namespace only"));
}

AuditRow limitsMemory(AuditContext &context)
{
    RowRecorder row(QStringLiteral("limits.memory"), QStringLiteral("The memory limit ends a run as oom"));
    const qint64 limit = context.mainRecord.value(QStringLiteral("memory_limit")).toInteger();
    const bool enforced = context.mainRecord.value(QStringLiteral("limits_enforced")).toBool(true);
    row.evidence(QStringLiteral("container"),
                 QStringLiteral("memory_limit %1 bytes, limits_enforced %2")
                     .arg(limit)
                     .arg(enforced ? QStringLiteral("true") : QStringLiteral("false")));
    if (!enforced || limit <= 0)
        return row.noGo(QStringLiteral("the container runs without a memory limit (degraded mode)"));
    const qint64 available = hostAvailableMemory();
    if (available > 0 && limit + 512 * MiB > available)
        return row.noGo(QStringLiteral("this host has %1 MiB available, too little to show a limit of %2 MiB")
                            .arg(available / MiB)
                            .arg(limit / MiB));
    const QStringList args{QStringLiteral("alloc"), QString::number(limit / MiB + 256)};
    row.evidence(QStringLiteral("command"), ProbeSession::shownCommand(args));
    auto run = context.session.probe(context.mainContainer, args);
    if (!run)
        return row.noGo(QStringLiteral("the probe could not run: %1").arg(describe(run.error())));
    row.runEvidence(QStringLiteral("probe"), *run);
    row.check(run->value(QStringLiteral("error_class")).toString() == QLatin1String("oom"),
              QStringLiteral("the run ended as oom"),
              QStringLiteral("the run ended as %1, not oom")
                  .arg(run->value(QStringLiteral("error_class")).toString()));
    row.check(!run->value(QStringLiteral("stdout")).toString().contains(QStringLiteral("all of it")),
              QStringLiteral("it never got all it asked for"),
              QStringLiteral("the run got all the memory it asked for"));
    return row.finish(QStringLiteral("allocating past %1 MiB ended the run as oom").arg(limit / MiB));
}

AuditRow limitsPids(AuditContext &context)
{
    RowRecorder row(QStringLiteral("limits.pids"), QStringLiteral("The pids limit holds"));
    const qint64 pids = limitOf(context.mainRecord, QStringLiteral("pids"), 256);
    if (pids > 16384)
        return row.noGo(
            QStringLiteral("a limit of %1 processes is more than the audit forks to show it").arg(pids));
    const QStringList args{QStringLiteral("fork"), QString::number(pids + 16)};
    row.evidence(QStringLiteral("command"), ProbeSession::shownCommand(args));
    auto run = context.session.probe(context.mainContainer, args);
    if (!run)
        return row.noGo(QStringLiteral("the probe could not run: %1").arg(describe(run.error())));
    row.runEvidence(QStringLiteral("probe"), *run);
    const QString out = run->value(QStringLiteral("stdout")).toString();
    const qint64 forked = probeValue(out, QStringLiteral("forked")).toLongLong();
    row.check(forked < pids,
              QStringLiteral("%1 forks succeeded, fewer than the limit of %2").arg(forked).arg(pids),
              QStringLiteral("%1 forks succeeded, not fewer than the limit of %2").arg(forked).arg(pids));
    row.check(
        probeValue(out, QStringLiteral("fork")) == QLatin1String("EAGAIN"),
        QStringLiteral("the next fork failed with EAGAIN"),
        QStringLiteral("the next fork answered %1, not EAGAIN").arg(probeValue(out, QStringLiteral("fork"))));
    return row.finish(QStringLiteral("the container cannot hold more than %1 processes").arg(pids));
}

AuditRow limitsTimeout(AuditContext &context)
{
    RowRecorder row(QStringLiteral("limits.timeout"),
                    QStringLiteral("The run timeout ends a run as timeout"));
    const qint64 policyTimeout = limitOf(context.mainRecord, QStringLiteral("run_timeout_s"), 300);
    // The policy's own timeout when it is short; else a shorter one for this run, which the daemon enforces
    // by the same timer.
    const int timeout = policyTimeout <= 10 ? 0 : 2;
    const qint64 effective = timeout == 0 ? policyTimeout : timeout;
    const QStringList args{QStringLiteral("sleep"), QString::number(effective + 10)};
    row.evidence(QStringLiteral("command"), QStringLiteral("%1 with timeout_s %2 (the policy's: %3)")
                                                .arg(ProbeSession::shownCommand(args))
                                                .arg(effective)
                                                .arg(policyTimeout));
    auto run = context.session.probe(context.mainContainer, args, timeout);
    if (!run)
        return row.noGo(QStringLiteral("the probe could not run: %1").arg(describe(run.error())));
    row.runEvidence(QStringLiteral("probe"), *run);
    const qint64 wallMs = run->value(QStringLiteral("wall_ms")).toInteger();
    row.check(run->value(QStringLiteral("error_class")).toString() == QLatin1String("timeout"),
              QStringLiteral("the run ended as timeout"),
              QStringLiteral("the run ended as %1, not timeout")
                  .arg(run->value(QStringLiteral("error_class")).toString()));
    // wall_ms counts from the program's start, a little after the daemon's timer started.
    row.check(wallMs >= effective * 1000 - 500 && wallMs < (effective + 8) * 1000,
              QStringLiteral("after %1 ms, at its timeout of %2 s").arg(wallMs).arg(effective),
              QStringLiteral("it ended after %1 ms, not at its timeout of %2 s").arg(wallMs).arg(effective));
    return row.finish(QStringLiteral("a run past its time is ended as timeout"));
}

AuditRow limitsOutput(AuditContext &context)
{
    RowRecorder row(QStringLiteral("limits.output"), QStringLiteral("Output is capped"));
    const qint64 outputMb = limitOf(context.mainRecord, QStringLiteral("output_mb"), 16);
    if (outputMb > 1024)
        return row.noGo(
            QStringLiteral("an output cap of %1 MiB is more than the audit writes to show it").arg(outputMb));
    const QStringList args{QStringLiteral("spew"), QString::number((outputMb + 1) * MiB)};
    row.evidence(QStringLiteral("command"), ProbeSession::shownCommand(args));
    auto run = context.session.probe(context.mainContainer, args);
    if (!run)
        return row.noGo(QStringLiteral("the probe could not run: %1").arg(describe(run.error())));
    const qint64 kept = run->value(QStringLiteral("stdout_bytes")).toInteger() +
                        run->value(QStringLiteral("stderr_bytes")).toInteger();
    row.evidence(QStringLiteral("run"),
                 QStringLiteral("run %1: %2, %3 bytes kept, stdout_truncated %4")
                     .arg(run->value(QStringLiteral("id")).toString(),
                          run->value(QStringLiteral("error_class")).toString())
                     .arg(kept)
                     .arg(run->value(QStringLiteral("stdout_truncated")).toBool() ? QStringLiteral("true")
                                                                                  : QStringLiteral("false")));
    row.check(kept <= outputMb * MiB,
              QStringLiteral("no more than %1 MiB was kept (%2 bytes)").arg(outputMb).arg(kept),
              QStringLiteral("%1 bytes were kept, more than %2 MiB").arg(kept).arg(outputMb));
    row.check(run->value(QStringLiteral("stdout_truncated")).toBool(),
              QStringLiteral("the run is marked truncated"),
              QStringLiteral("the run is not marked truncated"));
    return row.finish(QStringLiteral("%1 MiB of output is kept, the rest dropped and said so").arg(outputMb));
}

AuditRow limitsWorkspace(AuditContext &context)
{
    RowRecorder row(QStringLiteral("limits.workspace"), QStringLiteral("The workspace quota holds"));
    const qint64 workspaceMb = limitOf(context.mainRecord, QStringLiteral("workspace_mb"), 2048);
    const qint64 memory = context.mainRecord.value(QStringLiteral("memory_limit")).toInteger();
    const qint64 available = hostAvailableMemory();
    const qint64 bound = std::min(workspaceMb * MiB, memory > 0 ? memory : workspaceMb * MiB);
    if (available > 0 && bound + 512 * MiB > available)
        return row.noGo(
            QStringLiteral("this host has %1 MiB available, too little to fill a workspace of %2 MiB")
                .arg(available / MiB)
                .arg(bound / MiB));
    // A container of its own: the workspace lives in memory, and a full one would starve the other rows.
    auto container =
        context.session.createContainer(derivedPolicy(context.policy, QStringLiteral("audit-workspace")));
    if (!container)
        return row.noGo(
            QStringLiteral("a container could not be created: %1").arg(describe(container.error())));
    const QStringList args{QStringLiteral("fill"), QStringLiteral("/mnt/data/outputs/audit-fill")};
    row.evidence(QStringLiteral("command"), ProbeSession::shownCommand(args));
    auto run = context.session.probe(*container, args);
    (void)context.session.call(QStringLiteral("container.delete"), {{QStringLiteral("id"), *container}});
    if (!run)
        return row.noGo(QStringLiteral("the probe could not run: %1").arg(describe(run.error())));
    row.runEvidence(QStringLiteral("probe"), *run);
    const QString out = run->value(QStringLiteral("stdout")).toString();
    const QString errorClass = run->value(QStringLiteral("error_class")).toString();
    if (errorClass == QLatin1String("oom")) {
        // The workspace is charged to the container's memory: a quota above the memory limit is bounded by
        // it.
        row.check(
            workspaceMb * MiB >= memory,
            QStringLiteral("the memory limit (%1 MiB) ended the write before the quota of %2 MiB")
                .arg(memory / MiB)
                .arg(workspaceMb),
            QStringLiteral("the write ran past the quota of %2 MiB until the memory limit (%1 MiB) ended it")
                .arg(memory / MiB)
                .arg(workspaceMb));
        return row.finish(
            QStringLiteral("the workspace cannot outgrow the memory limit, which is below its quota"));
    }
    const qint64 filled =
        probeValue(out, QStringLiteral("filled")).section(QLatin1Char(' '), 0, 0).toLongLong();
    const QString ended = probeValue(out, QStringLiteral("fill"));
    // EFBIG (one file's size limit) moves the probe on to its next file: only the file system's own end
    // counts.
    row.check(ended == QLatin1String("ENOSPC"), QStringLiteral("the writes ended with ENOSPC"),
              QStringLiteral("the writes ended with %1, not ENOSPC").arg(ended));
    row.check(filled > 0 && filled <= workspaceMb * MiB,
              QStringLiteral("after %1 bytes, within the quota of %2 MiB").arg(filled).arg(workspaceMb),
              QStringLiteral("%1 bytes were written, past the quota of %2 MiB").arg(filled).arg(workspaceMb));
    return row.finish(QStringLiteral("the kernel refuses writes past %1 MiB").arg(workspaceMb));
}

AuditRow limitsParallel(AuditContext &context)
{
    RowRecorder row(QStringLiteral("limits.parallel"),
                    QStringLiteral("At most the configured parallel runs"));
    QStringList started;
    std::optional<Error> refusal;
    const QStringList args{QStringLiteral("sleep"), QStringLiteral("60")};
    row.evidence(QStringLiteral("command"),
                 ProbeSession::shownCommand(args) + QStringLiteral(", started until refused"));
    for (int attempt = 0; attempt < 65; ++attempt) {
        auto run = context.session.startProbe(context.mainContainer, args);
        if (!run) {
            refusal = run.error();
            break;
        }
        started.append(run->value(QStringLiteral("id")).toString());
    }
    for (const QString &id : std::as_const(started))
        (void)context.session.call(QStringLiteral("run.cancel"), {{QStringLiteral("run_id"), id}});
    for (const QString &id : std::as_const(started))
        (void)context.session.wait(id, 30000);
    row.evidence(QStringLiteral("accepted"), QStringLiteral("%1 runs at once").arg(started.size()));
    if (!refusal)
        return row.noGo(QStringLiteral("65 runs were accepted at once: no limit holds"));
    row.evidence(QStringLiteral("refused"), describe(*refusal));
    row.check(refusal->code() == "run.limit", QStringLiteral("the next run was refused as run.limit"),
              QStringLiteral("the next run was refused as %1, not run.limit").arg(toQt(refusal->code())));
    row.check(!started.isEmpty(), QStringLiteral("at least one run was accepted"),
              QStringLiteral("no run was accepted at all"));
    return row.finish(QStringLiteral("%1 runs at once, and no more").arg(started.size()));
}

AuditRow runsIdempotency(AuditContext &context)
{
    RowRecorder row(QStringLiteral("runs.idempotency"), QStringLiteral("The same idempotency key runs once"));
    const QString key = QStringLiteral("audit-") + randomHex(16);
    const QStringList args{QStringLiteral("sleep"), QStringLiteral("0")};
    auto first = context.session.probe(context.mainContainer, args, 0, key);
    auto second = context.session.probe(context.mainContainer, args, 0, key);
    auto other = context.session.probe(context.mainContainer, args, 0, key + QStringLiteral("-other"));
    if (!first || !second || !other)
        return row.noGo(QStringLiteral("a run could not start: %1")
                            .arg(describe(!first    ? first.error()
                                          : !second ? second.error()
                                                    : other.error())));
    const QString firstId = first->value(QStringLiteral("id")).toString();
    const QString secondId = second->value(QStringLiteral("id")).toString();
    const QString otherId = other->value(QStringLiteral("id")).toString();
    row.evidence(
        QStringLiteral("runs"),
        QStringLiteral("key %1 twice: %2, %3; another key: %4").arg(key, firstId, secondId, otherId));
    row.check(firstId == secondId, QStringLiteral("the second submission answered with the first run"),
              QStringLiteral("the second submission started run %1 instead of answering with %2")
                  .arg(secondId, firstId));
    row.check(otherId != firstId, QStringLiteral("another key ran anew"),
              QStringLiteral("another key was answered with the first run"));
    auto events = context.session.events(context.mainContainer, QStringLiteral("run.started"));
    int startsOfFirst = 0;
    if (events) {
        for (const QJsonValue &event : *events)
            startsOfFirst += event.toObject().value(QStringLiteral("run_id")).toString() == firstId ? 1 : 0;
    }
    row.check(startsOfFirst == 1, QStringLiteral("the history holds one start of it"),
              QStringLiteral("the history holds %1 starts of it, not one").arg(startsOfFirst));
    return row.finish(QStringLiteral("a repeated submission does not run twice"));
}

} // namespace Cordon::Audit
