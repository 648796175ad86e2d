// SPDX-License-Identifier: MIT
// The audits table: Go/No-Go reports as stored documents (docs/history.md).
#include "store/historystore.h"
#include "store/pagequery.h"

namespace Cordon::Store {

namespace {

// The rows that applied are read from the report (a report made before "not_applicable" has every row
// applied): no column of the table had to change for them.
constexpr char SummaryColumns[] =
    "id, created_at, policy_version, verdict, rows, go_rows, key_id, "
    "CASE WHEN json_valid(report) THEN coalesce(json_extract(report, '$.rows_applied'), rows) ELSE rows END";

AuditRecord decodeSummary(const Statement &stmt)
{
    AuditRecord record;
    record.id = stmt.columnText(0);
    record.createdAt = stmt.columnInt64(1);
    record.policyVersion = stmt.columnText(2);
    record.verdict = stmt.columnText(3);
    record.rows = int(stmt.columnInt64(4));
    record.goRows = int(stmt.columnInt64(5));
    record.keyId = stmt.columnText(6);
    record.rowsApplied = int(stmt.columnInt64(7));
    return record;
}

} // namespace

Result<> HistoryStore::saveAudit(const AuditRecord &audit)
{
    auto stmt = m_db.prepare(
        "INSERT INTO audits (id, created_at, policy_version, verdict, rows, go_rows, key_id, report) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) ON CONFLICT (id) DO UPDATE SET created_at = "
        "excluded.created_at, "
        "policy_version = excluded.policy_version, verdict = excluded.verdict, rows = excluded.rows, "
        "go_rows = excluded.go_rows, key_id = excluded.key_id, report = excluded.report",
        QStringLiteral("save audit %1").arg(audit.id));
    if (!stmt)
        return fail(stmt.error());
    stmt->bind(1, audit.id)
        .bind(2, audit.createdAt)
        .bind(3, audit.policyVersion)
        .bind(4, audit.verdict)
        .bind(5, qint64(audit.rows))
        .bind(6, qint64(audit.goRows))
        .bind(7, audit.keyId)
        .bind(8, QString::fromUtf8(audit.report));
    return stmt->execute();
}

Result<AuditRecord> HistoryStore::audit(const QString &id) const
{
    return readById<AuditRecord>(m_db, "audits", QByteArray(SummaryColumns) + ", report", id,
                                 QStringLiteral("read audit %1").arg(id), QStringLiteral("audit"),
                                 [](const Statement &stmt) {
                                     AuditRecord record = decodeSummary(stmt);
                                     record.report = stmt.columnText(8).toUtf8();
                                     return record;
                                 });
}

Result<Page<AuditRecord>> HistoryStore::audits(int limit, int offset) const
{
    return readPage<AuditRecord>(m_db, "audits", WhereClause(), SummaryColumns, "created_at DESC, id DESC",
                                 limit, offset, QStringLiteral("list audits"), decodeSummary);
}

} // namespace Cordon::Store
