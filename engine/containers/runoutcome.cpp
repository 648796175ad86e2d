// SPDX-License-Identifier: MIT
#include "containers/runoutcome.h"

#include "daemon/lite/runreport.h"

#include <QJsonArray>

namespace Cordon::Containers {

// Names, sentences and the status mapping are shared with every client, the Qt-free `cordon exec` included
// (daemon/lite/runreport.h).
QString errorClassName(ErrorClass errorClass)
{
    const auto index = static_cast<std::size_t>(errorClass);
    if (index >= std::size(Cordon::ErrorClassNames))
        return QStringLiteral("unknown");
    const std::string_view name = Cordon::ErrorClassNames[index];
    return QString::fromLatin1(name.data(), static_cast<qsizetype>(name.size()));
}

ErrorClass errorClassFromName(std::string_view name)
{
    for (std::size_t index = 0; index < std::size(Cordon::ErrorClassNames); ++index) {
        if (Cordon::ErrorClassNames[index] == name)
            return static_cast<ErrorClass>(index);
    }
    return ErrorClass::SetupFailed;
}

QString describeErrorClass(ErrorClass errorClass)
{
    return QString::fromUtf8(Cordon::describeErrorClass(errorClassName(errorClass).toStdString()));
}

int RunOutcome::shellStatus() const
{
    return Cordon::shellStatus(errorClassName(errorClass).toStdString(), exitCode, signal);
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
                     {QStringLiteral("pids_limit_hits"), pidsLimitHits},
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
