// SPDX-License-Identifier: MIT
// HistoryStore: runs.
#include "store/historystore.h"
#include "store/pagequery.h"
#include "store/rowcodec.h"
#include "store/transaction.h"
#include "store/whereclause.h"

namespace Cordon::Store {

namespace {

const QString Running = QStringLiteral("running");
const QString Finished = QStringLiteral("finished");
const QString Interrupted = QStringLiteral("interrupted");

} // namespace

Result<> HistoryStore::insertRun(const RunRecord &run)
{
    auto stmt = m_db.prepare(
        "INSERT INTO runs (id, container_id, state, policy_version, language, command, "
        "code_sha256, code, inputs, "
        "idempotency_key, started_at, ended_at, error_class, exit_code, signal, wall_ms, "
        "cpu_ms, peak_memory_bytes, "
        "stdout, stderr, stdout_truncated, stderr_truncated, message, artifacts, pids_limit_hits, secrets) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, "
        "?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26)",
        QStringLiteral("record run %1").arg(run.id));
    if (!stmt)
        return fail(stmt.error());
    stmt->bind(1, run.id)
        .bind(2, run.containerId)
        .bind(3, run.state.isEmpty() ? Running : run.state)
        .bindOptional(4, run.policyVersion)
        .bind(5, run.language)
        .bind(6, QString::fromUtf8(jsonText(QJsonArray::fromStringList(run.command))))
        .bind(7, run.codeSha256)
        .bind(8, run.code.toUtf8())
        .bind(9, QString::fromUtf8(jsonText(run.inputs)))
        .bind(10, run.idempotencyKey)
        .bind(11, run.startedAt)
        .bind(12, run.endedAt)
        .bind(13, run.errorClass)
        .bind(14, run.exitCode)
        .bind(15, run.signal)
        .bind(16, run.wallMs)
        .bind(17, run.cpuMs)
        .bind(18, run.peakMemoryBytes)
        .bind(19, run.stdoutData)
        .bind(20, run.stderrData)
        .bind(21, run.stdoutTruncated)
        .bind(22, run.stderrTruncated)
        .bind(23, run.message)
        .bind(24, QString::fromUtf8(jsonText(run.artifacts)))
        .bind(25, run.pidsLimitHits)
        .bind(26, QString::fromUtf8(jsonText(run.secrets)));
    return stmt->execute();
}

Result<> HistoryStore::finishRun(const RunRecord &run)
{
    const QString purpose = QStringLiteral("record the outcome of run %1").arg(run.id);
    auto stmt = m_db.prepare(
        "UPDATE runs SET state = ?2, ended_at = ?3, error_class = ?4, exit_code = ?5, signal = ?6, wall_ms = "
        "?7, "
        "cpu_ms = ?8, peak_memory_bytes = ?9, stdout = ?10, stderr = ?11, stdout_truncated = ?12, "
        "stderr_truncated = ?13, message = ?14, artifacts = ?15, pids_limit_hits = ?16 "
        "WHERE id = ?1 AND state = 'running'",
        purpose);
    if (!stmt)
        return fail(stmt.error());
    stmt->bind(1, run.id)
        .bind(2, run.state == Interrupted ? Interrupted : Finished)
        .bind(3, run.endedAt)
        .bind(4, run.errorClass)
        .bind(5, run.exitCode)
        .bind(6, run.signal)
        .bind(7, run.wallMs)
        .bind(8, run.cpuMs)
        .bind(9, run.peakMemoryBytes)
        .bind(10, run.stdoutData)
        .bind(11, run.stderrData)
        .bind(12, run.stdoutTruncated)
        .bind(13, run.stderrTruncated)
        .bind(14, run.message)
        .bind(15, QString::fromUtf8(jsonText(run.artifacts)))
        .bind(16, run.pidsLimitHits);
    CORDON_TRY(stmt->execute());
    if (m_db.changes() == 1)
        return {};
    // Nothing changed: tell an unknown id from a run that already ended (a second finish is a caller bug
    // that would otherwise overwrite the first outcome).
    auto existing = this->run(run.id);
    if (!existing)
        return fail(existing.error().wrap(toPlain(purpose)));
    return fail(QStringLiteral("store.constraint"),
                purpose + QStringLiteral(": the run is already %1").arg(existing->state));
}

Result<RunRecord> HistoryStore::run(const QString &id) const
{
    return readById<RunRecord>(m_db, "runs", runColumns(true), id, QStringLiteral("read run %1").arg(id),
                               QStringLiteral("run"), runFromRow);
}

Result<std::optional<RunRecord>> HistoryStore::runByIdempotencyKey(const QString &containerId,
                                                                   const QString &key) const
{
    if (key.isEmpty())
        return std::optional<RunRecord>();
    auto stmt = m_db.prepare("SELECT " + runColumns(true) +
                                 " FROM runs WHERE container_id = ?1 AND idempotency_key = ?2",
                             QStringLiteral("find the run of idempotency key `%1`").arg(key));
    if (!stmt)
        return fail(stmt.error());
    stmt->bind(1, containerId).bind(2, key);
    auto row = stmt->step();
    if (!row)
        return fail(row.error());
    if (!*row)
        return std::optional<RunRecord>();
    return std::optional<RunRecord>(runFromRow(*stmt));
}

Result<Page<RunRecord>> HistoryStore::runs(const RunFilter &filter, bool withOutput) const
{
    const QString purpose = QStringLiteral("list runs");
    WhereClause where;
    if (!filter.containerId.isEmpty())
        where.add("container_id = ?", filter.containerId);
    if (!filter.errorClass.isEmpty())
        where.add("error_class = ?", filter.errorClass);
    if (!filter.state.isEmpty())
        where.add("state = ?", filter.state);
    if (filter.since > 0)
        where.add("started_at >= ?", filter.since);
    if (filter.until > 0)
        where.add("started_at < ?", filter.until);
    if (filter.origin)
        where.add(ContainerOriginIs, *filter.origin);
    // instr() on lower-cased text rather than LIKE: a search for `%` or `_` finds them, not everything.
    if (!filter.text.isEmpty())
        where.add("instr(lower(CAST(code AS TEXT) || char(10) || command || char(10) || id || char(10) || "
                  "coalesce((SELECT name FROM containers WHERE containers.id = container_id), '')), "
                  "lower(?)) > 0",
                  filter.text);

    return readPage<RunRecord>(m_db, "runs", where, runColumns(withOutput), "started_at DESC, rowid DESC",
                               filter.limit, filter.offset, purpose, runFromRow);
}

Result<int> HistoryStore::markRunningAsInterrupted(qint64 now)
{
    auto stmt =
        m_db.prepare("UPDATE runs SET state = 'interrupted', ended_at = ?1, message = CASE WHEN message = '' "
                     "THEN ?2 ELSE message END WHERE state = 'running'",
                     QStringLiteral("mark unfinished runs as interrupted"));
    if (!stmt)
        return fail(stmt.error());
    stmt->bind(1, now).bind(2, QStringLiteral("the daemon stopped before the run ended"));
    CORDON_TRY(stmt->execute());
    return int(m_db.changes());
}

} // namespace Cordon::Store
