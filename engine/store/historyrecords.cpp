// SPDX-License-Identifier: MIT
#include "store/historyrecords.h"

namespace Cordon::Store {

QJsonObject RunRecord::toJson(bool withOutput) const
{
    QJsonObject json{{QStringLiteral("id"), id},
                     {QStringLiteral("container"), containerId},
                     {QStringLiteral("state"), state},
                     {QStringLiteral("command"), QJsonArray::fromStringList(command)},
                     {QStringLiteral("language"), language},
                     {QStringLiteral("code_sha256"), codeSha256},
                     {QStringLiteral("policy_version"), policyVersion},
                     {QStringLiteral("inputs"), inputs},
                     {QStringLiteral("idempotency_key"), idempotencyKey},
                     {QStringLiteral("started_at"), startedAt},
                     {QStringLiteral("ended_at"), endedAt}};
    if (state != QLatin1String("running")) {
        json.insert(QStringLiteral("error_class"), errorClass);
        json.insert(QStringLiteral("exit_code"), exitCode);
        json.insert(QStringLiteral("signal"), signal);
        json.insert(QStringLiteral("wall_ms"), wallMs);
        json.insert(QStringLiteral("cpu_ms"), cpuMs);
        json.insert(QStringLiteral("peak_memory_bytes"), peakMemoryBytes);
        json.insert(QStringLiteral("pids_limit_hits"), pidsLimitHits);
        json.insert(QStringLiteral("stdout_truncated"), stdoutTruncated);
        json.insert(QStringLiteral("stderr_truncated"), stderrTruncated);
        json.insert(QStringLiteral("artifacts"), artifacts);
        if (!message.isEmpty())
            json.insert(QStringLiteral("message"), message);
    }
    if (withOutput) {
        // QString::fromUtf8 replaces each invalid sequence with U+FFFD; JSON escapes NUL as \u0000.
        json.insert(QStringLiteral("stdout"), QString::fromUtf8(stdoutData));
        json.insert(QStringLiteral("stderr"), QString::fromUtf8(stderrData));
        json.insert(QStringLiteral("code"), code);
    }
    return json;
}

QJsonObject FileRecord::toJson() const
{
    QJsonObject json{{QStringLiteral("id"), id},
                     {QStringLiteral("container"), containerId},
                     {QStringLiteral("direction"), direction},
                     {QStringLiteral("scope"), scope},
                     {QStringLiteral("path"), path},
                     {QStringLiteral("sha256"), sha256},
                     {QStringLiteral("size"), size},
                     {QStringLiteral("at"), at}};
    if (!runId.isEmpty())
        json.insert(QStringLiteral("run_id"), runId);
    return json;
}

QJsonObject EventRecord::toJson() const
{
    QJsonObject json{{QStringLiteral("id"), id},
                     {QStringLiteral("at"), at},
                     {QStringLiteral("kind"), kind},
                     {QStringLiteral("detail"), detail}};
    if (!containerId.isEmpty())
        json.insert(QStringLiteral("container"), containerId);
    if (!runId.isEmpty())
        json.insert(QStringLiteral("run_id"), runId);
    return json;
}

} // namespace Cordon::Store
