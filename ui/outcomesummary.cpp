// SPDX-License-Identifier: MIT
#include "outcomesummary.h"

#include "core/formatting.h"

#include <csignal>

namespace Cordon::Ui {

QString OutcomeSummary::signalName(int signal)
{
    switch (signal) {
    case SIGHUP:
        return QStringLiteral("SIGHUP");
    case SIGINT:
        return QStringLiteral("SIGINT");
    case SIGQUIT:
        return QStringLiteral("SIGQUIT");
    case SIGILL:
        return QStringLiteral("SIGILL");
    case SIGABRT:
        return QStringLiteral("SIGABRT");
    case SIGBUS:
        return QStringLiteral("SIGBUS");
    case SIGFPE:
        return QStringLiteral("SIGFPE");
    case SIGKILL:
        return QStringLiteral("SIGKILL");
    case SIGSEGV:
        return QStringLiteral("SIGSEGV");
    case SIGPIPE:
        return QStringLiteral("SIGPIPE");
    case SIGALRM:
        return QStringLiteral("SIGALRM");
    case SIGTERM:
        return QStringLiteral("SIGTERM");
    case SIGSYS:
        return QStringLiteral("SIGSYS");
    case SIGXCPU:
        return QStringLiteral("SIGXCPU");
    case SIGXFSZ:
        return QStringLiteral("SIGXFSZ");
    }
    return tr("signal %1").arg(signal);
}

OutcomeSummary OutcomeSummary::fromRun(const QJsonObject &run, qint64 containerLimit, qint64 pidsLimit)
{
    OutcomeSummary summary;
    const QString state = run.value(QStringLiteral("state")).toString();
    if (state == QLatin1String("running"))
        return running(run.value(QStringLiteral("language")).toString());
    const QString errorClass = run.value(QStringLiteral("error_class")).toString();
    const int exitCode = run.value(QStringLiteral("exit_code")).toInt(-1);
    const int signal = run.value(QStringLiteral("signal")).toInt(0);
    const qint64 runLimit = run.value(QStringLiteral("memory_limit_bytes")).toInteger();
    const qint64 limit = runLimit > 0 ? runLimit : containerLimit;
    const qint64 peak = run.value(QStringLiteral("peak_memory_bytes")).toInteger();
    const qint64 wall = run.value(QStringLiteral("wall_ms")).toInteger();
    const qint64 timeoutS =
        run.value(QStringLiteral("timeout_s")).toInteger(); // present when the daemon reports it
    const QString limitText = limit > 0 ? Format::bytes(limit) : tr("its");
    const QString status =
        signal > 0 ? tr("Signal %1").arg(signalName(signal)) : tr("Exit code %1").arg(exitCode);

    if (errorClass == QLatin1String("ok")) {
        summary.severity = Severity::Success;
        summary.headline = status;
        summary.explanation = tr("ok — the run finished successfully");
    } else if (errorClass == QLatin1String("nonzero_exit")) {
        summary.severity = Severity::Failure;
        summary.headline = status;
        // The engine explains an exit it caused: the executable was not found (127) or could not run (126).
        const QString message = run.value(QStringLiteral("message")).toString();
        summary.explanation =
            message.isEmpty()
                ? tr("nonzero_exit — the program reported a failure with exit code %1").arg(exitCode)
                : tr("nonzero_exit — %1").arg(message);
    } else if (errorClass == QLatin1String("oom") &&
               run.value(QStringLiteral("message")).toString().startsWith(QLatin1String("workspace full"))) {
        // The daemon says so when the files of the workspace are what filled the memory.
        summary.severity = Severity::Failure;
        summary.headline = tr("Workspace full · %1").arg(status);
        summary.explanation = tr("oom — %1").arg(run.value(QStringLiteral("message")).toString());
        summary.contained = tr("Contained: the workspace's files fill the memory limit");
    } else if (errorClass == QLatin1String("oom")) {
        summary.severity = Severity::Failure;
        summary.headline = tr("Out of memory · %1").arg(status);
        summary.explanation =
            limit > 0 ? tr("oom — the run exceeded its %1 memory limit and was killed").arg(limitText)
                      : tr("oom — the run exceeded its memory limit and was killed");
        summary.contained =
            limit > 0 ? tr("Contained: out of memory at %1").arg(limitText) : tr("Contained: out of memory");
    } else if (errorClass == QLatin1String("timeout")) {
        summary.severity = Severity::Failure;
        summary.headline = tr("Timed out · %1").arg(status);
        summary.explanation =
            timeoutS > 0
                ? tr("timeout — the run took longer than its %1 s limit and was stopped with all its "
                     "processes")
                      .arg(timeoutS)
                : tr("timeout — the run took longer than its time limit and was stopped with all its "
                     "processes");
        summary.contained = timeoutS > 0 ? tr("Contained: time limit of %1 s reached").arg(timeoutS)
                                         : tr("Contained: time limit reached");
    } else if (errorClass == QLatin1String("killed")) {
        summary.severity = Severity::Failure;
        summary.headline = status;
        if (run.value(QStringLiteral("message")).toString() == QLatin1String("cancelled"))
            summary.explanation = tr("killed — stopped on request: the run and everything it started got %1")
                                      .arg(signalName(signal));
        else
            summary.explanation = tr("killed — the program was ended by %1").arg(signalName(signal));
    } else if (errorClass == QLatin1String("setup_failed")) {
        summary.severity = Severity::Failure;
        summary.headline = tr("Did not run");
        const QString message = run.value(QStringLiteral("message")).toString();
        summary.explanation =
            message.isEmpty() ? tr("setup_failed — the sandbox could not be set up, so the program never ran")
                              : tr("setup_failed — %1").arg(message);
        return summary;
    } else {
        summary.severity = Severity::Unknown;
        summary.headline = tr("Outcome unknown");
        summary.explanation =
            tr("interrupted — cordond stopped before the run ended, so how it would have ended is not known");
        return summary;
    }
    QString details = tr("Took %1").arg(Format::duration(wall));
    if (peak > 0 || limit > 0)
        details += tr(" · peak memory %1").arg(Format::bytes(peak)) +
                   (limit > 0 ? tr(" of %1").arg(Format::bytes(limit)) : QString());
    if (run.value(QStringLiteral("stdout_truncated")).toBool() ||
        run.value(QStringLiteral("stderr_truncated")).toBool())
        details += tr(" · output was cut at the policy's limit");
    // The process limit held (a fork bomb): the run may still end "ok" or with its own exit code, so this is
    // the line that tells the class what contained it.
    const qint64 refusedForks = run.value(QStringLiteral("pids_limit_hits")).toInteger();
    if (refusedForks > 0) {
        details += refusedForks == 1 ? tr(" · the process limit refused a fork")
                                     : tr(" · the process limit refused %1 forks").arg(refusedForks);
        if (summary.contained.isEmpty()) {
            summary.contained = pidsLimit > 0 ? tr("Contained: process limit %1 reached").arg(pidsLimit)
                                              : tr("Contained: process limit reached");
            // The headline of a run the limit did not end says only how the program exited: what held comes
            // first, in normal mode too (a fork bomb that caught its refused forks exits 0, and "Exit code 0"
            // in green would teach the wrong lesson). An OOM or a timeout headline names its limit already.
            summary.headline = summary.contained + QStringLiteral(" · ") + summary.headline;
            if (summary.severity == Severity::Success)
                summary.severity = Severity::Contained;
        }
    }
    const QJsonObject network = run.value(QStringLiteral("network")).toObject();
    const qint64 allowed = network.value(QStringLiteral("allowed")).toInteger();
    const qint64 denied = network.value(QStringLiteral("denied")).toInteger();
    const qint64 errors = network.value(QStringLiteral("errors")).toInteger();
    if (allowed + denied + errors > 0)
        details += tr(" · network: %1 allowed, %2 denied by policy, %3 failed upstream")
                       .arg(allowed)
                       .arg(denied)
                       .arg(errors);
    summary.details = details;
    return summary;
}

OutcomeSummary OutcomeSummary::running(const QString &language)
{
    OutcomeSummary summary;
    summary.severity = Severity::Running;
    summary.headline = tr("Running…");
    summary.explanation = language.isEmpty()
                              ? tr("The program is running in the container.")
                              : tr("The %1 program is running in the container.").arg(language);
    return summary;
}

OutcomeSummary OutcomeSummary::connectionLost()
{
    OutcomeSummary summary;
    summary.severity = Severity::Unknown;
    summary.headline = tr("Connection lost");
    summary.explanation = tr("The connection to cordond ended during the run. Its outcome is shown once the "
                             "workbench reconnects.");
    return summary;
}

OutcomeSummary OutcomeSummary::refused(const QString &code, const QString &message)
{
    OutcomeSummary summary;
    summary.severity = Severity::Failure;
    summary.headline = tr("Not started");
    summary.explanation = code.isEmpty() ? message : tr("%1 — %2").arg(code, message);
    return summary;
}

} // namespace Cordon::Ui
