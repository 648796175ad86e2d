// SPDX-License-Identifier: MIT
#include "containers/runoutcome.h"

#include <QJsonArray>

namespace Cordon::Containers {

QString errorClassName(ErrorClass errorClass)
{
    switch (errorClass) {
    case ErrorClass::Ok:
        return QStringLiteral("ok");
    case ErrorClass::NonzeroExit:
        return QStringLiteral("nonzero_exit");
    case ErrorClass::Oom:
        return QStringLiteral("oom");
    case ErrorClass::Timeout:
        return QStringLiteral("timeout");
    case ErrorClass::Killed:
        return QStringLiteral("killed");
    case ErrorClass::SetupFailed:
        return QStringLiteral("setup_failed");
    }
    return QStringLiteral("unknown");
}

QString describeErrorClass(ErrorClass errorClass)
{
    switch (errorClass) {
    case ErrorClass::Ok:
        return QStringLiteral("the run finished successfully");
    case ErrorClass::NonzeroExit:
        return QStringLiteral("the program exited with a non-zero status");
    case ErrorClass::Oom:
        return QStringLiteral("the run exceeded its memory limit and was killed by the OOM killer");
    case ErrorClass::Timeout:
        return QStringLiteral("the run exceeded its wall-time limit and was killed with all its processes");
    case ErrorClass::Killed:
        return QStringLiteral("the program was killed by a signal");
    case ErrorClass::SetupFailed:
        return QStringLiteral("the sandbox could not be set up, the program did not run");
    }
    return {};
}

int RunOutcome::shellStatus() const
{
    if (errorClass == ErrorClass::SetupFailed)
        return 125;
    if (signal > 0)
        return 128 + signal;
    if (errorClass == ErrorClass::Timeout || errorClass == ErrorClass::Oom)
        return exitCode > 0 ? exitCode : 137;
    return exitCode < 0 ? 125 : exitCode;
}

QJsonObject RunOutcome::toJson() const
{
    QJsonArray artifactList;
    for (const ArtifactRecord &artifact : artifacts)
        artifactList.append(QJsonObject{{QStringLiteral("path"), artifact.path},
                                        {QStringLiteral("size"), artifact.size},
                                        {QStringLiteral("sha256"), artifact.sha256}});
    QJsonArray refusedList;
    for (const RefusedArtifact &refused : refusedArtifacts)
        refusedList.append(QJsonObject{{QStringLiteral("path"), refused.path},
                                       {QStringLiteral("code"), refused.code},
                                       {QStringLiteral("reason"), refused.reason}});
    QJsonObject json{{QStringLiteral("error_class"), errorClassName(errorClass)},
                     {QStringLiteral("exit_code"), exitCode},
                     {QStringLiteral("signal"), signal},
                     {QStringLiteral("wall_ms"), wallMs},
                     {QStringLiteral("cpu_ms"), cpuMs},
                     {QStringLiteral("peak_memory_bytes"), peakMemoryBytes},
                     {QStringLiteral("memory_limit_bytes"), memoryLimitBytes},
                     {QStringLiteral("oom_kills"), oomKills},
                     {QStringLiteral("stdout"), QString::fromUtf8(stdoutData)},
                     {QStringLiteral("stderr"), QString::fromUtf8(stderrData)},
                     {QStringLiteral("stdout_bytes"), stdoutBytes},
                     {QStringLiteral("stderr_bytes"), stderrBytes},
                     {QStringLiteral("stdout_truncated"), stdoutTruncated},
                     {QStringLiteral("stderr_truncated"), stderrTruncated},
                     {QStringLiteral("policy_version"), policyVersion},
                     {QStringLiteral("degraded"), degraded},
                     {QStringLiteral("artifacts"), artifactList},
                     {QStringLiteral("refused_artifacts"), refusedList}};
    if (errorClass == ErrorClass::SetupFailed || !message.isEmpty()) {
        json.insert(QStringLiteral("message"), message);
        json.insert(QStringLiteral("setup_stage"), setupStage);
        json.insert(QStringLiteral("setup_errno"), setupErrno);
    }
    return json;
}

} // namespace Cordon::Containers
