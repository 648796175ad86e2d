// SPDX-License-Identifier: MIT
#include "store/rowcodec.h"

#include <QJsonDocument>

namespace Cordon::Store {

namespace {

// The name and the origin of the container of a row that has a container_id (runs, events), from its row in
// containers, which outlives the daemon's memory of it; empty for a row without one.
constexpr char ContainerNameOfRow[] =
    "coalesce((SELECT name FROM containers WHERE containers.id = container_id), '')";
constexpr char ContainerOriginOfRow[] =
    "coalesce((SELECT origin FROM containers WHERE containers.id = container_id), '')";

} // namespace

const char ContainerOriginIs[] =
    "coalesce((SELECT origin FROM containers WHERE containers.id = container_id), '') = ?";
const char EventOriginIs[] = "coalesce((SELECT origin FROM containers WHERE containers.id = container_id), "
                             "json_extract(detail, '$.origin'), '') = ?";
const char ContainerColumns[] = "id, name, state, policy_version, memory_limit, time_scale, created_at, "
                                "last_active_at, expires_at, ended_at, demo, origin";
const char FileColumns[] = "id, container_id, run_id, direction, scope, path, sha256, size, at, detail";
QByteArray eventColumns()
{
    return QByteArray("id, at, container_id, run_id, kind, detail, ") + ContainerNameOfRow;
}

QByteArray runColumns(bool withOutput)
{
    return QByteArray("id, container_id, state, policy_version, language, command, code_sha256, ") +
           (withOutput ? "code" : "x''") +
           ", inputs, idempotency_key, started_at, ended_at, error_class, exit_code, signal, wall_ms, "
           "cpu_ms, "
           "peak_memory_bytes, " +
           (withOutput ? "stdout, stderr" : "x'', x''") +
           ", stdout_truncated, stderr_truncated, message, artifacts, pids_limit_hits, secrets, "
           // The beginning of the code, for what a list says ran; the container's name and origin.
           "substr(code, 1, " +
           QByteArray::number(RunCodeHeadBytes) + "), " + ContainerNameOfRow + ", " + ContainerOriginOfRow;
}

ContainerRecord containerFromRow(const Statement &row)
{
    ContainerRecord record;
    record.id = row.columnText(0);
    record.name = row.columnText(1);
    record.state = row.columnText(2);
    record.policyVersion = row.columnText(3);
    record.memoryLimit = row.columnInt64(4);
    record.timeScale = row.columnDouble(5);
    record.createdAt = row.columnInt64(6);
    record.lastActiveAt = row.columnInt64(7);
    record.expiresAt = row.columnInt64(8);
    record.endedAt = row.columnInt64(9);
    record.demo = row.columnInt(10) != 0;
    record.origin = row.columnText(11);
    return record;
}

RunRecord runFromRow(const Statement &row)
{
    RunRecord run;
    run.id = row.columnText(0);
    run.containerId = row.columnText(1);
    run.state = row.columnText(2);
    run.policyVersion = row.columnText(3);
    run.language = row.columnText(4);
    run.command = stringListFrom(row.columnBlob(5));
    run.codeSha256 = row.columnText(6);
    run.code = QString::fromUtf8(row.columnBlob(7));
    run.inputs = jsonArrayFrom(row.columnBlob(8));
    run.idempotencyKey = row.columnText(9);
    run.startedAt = row.columnInt64(10);
    run.endedAt = row.columnInt64(11);
    run.errorClass = row.columnText(12);
    run.exitCode = row.columnInt(13);
    run.signal = row.columnInt(14);
    run.wallMs = row.columnInt64(15);
    run.cpuMs = row.columnInt64(16);
    run.peakMemoryBytes = row.columnInt64(17);
    run.stdoutData = row.columnBlob(18);
    run.stderrData = row.columnBlob(19);
    run.stdoutTruncated = row.columnInt(20) != 0;
    run.stderrTruncated = row.columnInt(21) != 0;
    run.message = row.columnText(22);
    run.artifacts = jsonArrayFrom(row.columnBlob(23));
    run.pidsLimitHits = row.columnInt64(24);
    run.secrets = jsonArrayFrom(row.columnBlob(25));
    run.codeHead = QString::fromUtf8(row.columnBlob(26));
    run.containerName = row.columnText(27);
    run.containerOrigin = row.columnText(28);
    return run;
}

FileRecord fileFromRow(const Statement &row)
{
    FileRecord file;
    file.id = row.columnInt64(0);
    file.containerId = row.columnText(1);
    file.runId = row.columnText(2);
    file.direction = row.columnText(3);
    file.scope = row.columnText(4);
    file.path = row.columnText(5);
    file.sha256 = row.columnText(6);
    file.size = row.columnInt64(7);
    file.at = row.columnInt64(8);
    file.detail = jsonObjectFrom(row.columnBlob(9));
    return file;
}

EventRecord eventFromRow(const Statement &row)
{
    EventRecord event;
    event.id = row.columnInt64(0);
    event.at = row.columnInt64(1);
    event.containerId = row.columnText(2);
    event.runId = row.columnText(3);
    event.kind = row.columnText(4);
    event.detail = jsonObjectFrom(row.columnBlob(5));
    event.containerName = row.columnText(6);
    return event;
}

QByteArray jsonText(const QJsonArray &array)
{
    return QJsonDocument(array).toJson(QJsonDocument::Compact);
}

QByteArray jsonText(const QJsonObject &object)
{
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

QJsonArray jsonArrayFrom(const QByteArray &text)
{
    return QJsonDocument::fromJson(text).array();
}

QJsonObject jsonObjectFrom(const QByteArray &text)
{
    return QJsonDocument::fromJson(text).object();
}

QStringList stringListFrom(const QByteArray &text)
{
    QStringList list;
    for (const QJsonValue &value : jsonArrayFrom(text))
        list.append(value.toString());
    return list;
}

} // namespace Cordon::Store
