// SPDX-License-Identifier: MIT
// HistoryStore: file transfers and events.
#include "store/historystore.h"
#include "store/pagequery.h"
#include "store/rowcodec.h"
#include "store/transaction.h"
#include "store/whereclause.h"

namespace Cordon::Store {

namespace {

// How many decisions an event row stands for: its detail's integer `count`, else 1.
constexpr const char *RowWeight = "coalesce(json_extract(detail, '$.count'), 1)";

} // namespace

Result<qint64> HistoryStore::recordFile(const FileRecord &file)
{
    auto stmt = m_db.prepare(
        "INSERT INTO files (container_id, run_id, direction, scope, path, sha256, size, at, detail) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        QStringLiteral("record %1 of `%2`").arg(file.direction, file.path));
    if (!stmt)
        return fail(stmt.error());
    stmt->bind(1, file.containerId)
        .bindOptional(2, file.runId)
        .bind(3, file.direction)
        .bind(4, file.scope)
        .bind(5, file.path)
        .bind(6, file.sha256)
        .bind(7, file.size)
        .bind(8, file.at)
        .bind(9, QString::fromUtf8(jsonText(file.detail)));
    CORDON_TRY(stmt->execute());
    return m_db.lastInsertRowId();
}

Result<QList<FileRecord>> HistoryStore::files(const QString &containerId, const QString &runId) const
{
    WhereClause where;
    where.add("container_id = ?", containerId);
    if (!runId.isEmpty())
        where.add("run_id = ?", runId);
    auto stmt =
        m_db.prepare("SELECT " + QByteArray(FileColumns) + " FROM files" + where.sql() + " ORDER BY at, id",
                     QStringLiteral("list the files of container %1").arg(containerId));
    if (!stmt)
        return fail(stmt.error());
    where.bindTo(*stmt);
    QList<FileRecord> result;
    for (;;) {
        auto row = stmt->step();
        if (!row)
            return fail(row.error());
        if (!*row)
            return result;
        result.append(fileFromRow(*stmt));
    }
}

Result<qint64> HistoryStore::recordEvent(const EventRecord &event)
{
    auto stmt = m_db.prepare(
        "INSERT INTO events (at, container_id, run_id, kind, detail) VALUES (?1, ?2, ?3, ?4, ?5)",
        QStringLiteral("record event %1").arg(event.kind));
    if (!stmt)
        return fail(stmt.error());
    stmt->bind(1, event.at)
        .bindOptional(2, event.containerId)
        .bindOptional(3, event.runId)
        .bind(4, event.kind)
        .bind(5, QString::fromUtf8(jsonText(event.detail)));
    CORDON_TRY(stmt->execute());
    return m_db.lastInsertRowId();
}

Result<Page<EventRecord>> HistoryStore::events(const EventFilter &filter) const
{
    const QString purpose = QStringLiteral("list events");
    WhereClause where;
    if (!filter.containerId.isEmpty())
        where.add("container_id = ?", filter.containerId);
    if (!filter.runId.isEmpty())
        where.add("run_id = ?", filter.runId);
    if (!filter.kind.isEmpty())
        where.add("kind = ?", filter.kind);
    // instr() instead of LIKE: a prefix holding `%` or `_` must match literally, and case matters.
    if (!filter.kindPrefix.isEmpty())
        where.add("instr(kind, ?) = 1", filter.kindPrefix);
    if (filter.since > 0)
        where.add("at >= ?", filter.since);
    if (filter.until > 0)
        where.add("at < ?", filter.until);
    if (filter.origin)
        where.add(EventOriginIs, *filter.origin);

    return readPage<EventRecord>(m_db, "events", where, eventColumns(), "at DESC, id DESC", filter.limit,
                                 filter.offset, purpose, eventFromRow);
}

Result<QList<DecisionGroup>> HistoryStore::networkDecisions(const QString &containerId) const
{
    // Per decision, host, unparsed target and whether the rows were suppressed ones: how many, when last,
    // and the reason of the latest row (SQLite takes bare columns from the row that max() picked).
    auto stmt = m_db.prepare(
        "SELECT kind, coalesce(json_extract(detail, '$.host'), ''), coalesce(json_extract(detail, "
        "'$.target'), "
        "''), coalesce(json_extract(detail, '$.suppressed'), 0), sum(" +
            QByteArray(RowWeight) +
            "), max(at), json_extract(detail, '$.reason') FROM events WHERE container_id = ? AND kind IN "
            "('network.allowed', 'network.denied', 'network.error') GROUP BY 1, 2, 3, 4 ORDER BY 2, 3, 1",
        QStringLiteral("count network decisions"));
    if (!stmt)
        return fail(stmt.error());
    stmt->bind(1, containerId);
    QList<DecisionGroup> groups;
    for (;;) {
        auto row = stmt->step();
        if (!row)
            return fail(row.error());
        if (!*row)
            return groups;
        groups.append(DecisionGroup{stmt->columnText(0), stmt->columnText(1), stmt->columnText(2),
                                    stmt->columnInt64(3) != 0, stmt->columnInt64(4), stmt->columnInt64(5),
                                    stmt->columnText(6)});
    }
}

Result<QList<SecretDelivery>> HistoryStore::secretDeliveries(const QString &containerId) const
{
    auto stmt = m_db.prepare(
        "SELECT sent.value, coalesce(json_extract(detail, '$.host'), ''), 0, sum(" + QByteArray(RowWeight) +
            "), max(at) FROM events, json_each(json_extract(detail, '$.secrets_sent')) AS sent "
            "WHERE container_id = ?1 AND kind = 'network.allowed' AND json_type(detail, '$.secrets_sent') = "
            "'array' GROUP BY 1, 2 "
            "UNION ALL SELECT json_extract(detail, '$.secret_refused'), coalesce(json_extract(detail, "
            "'$.host'), "
            "''), 1, sum(" +
            QByteArray(RowWeight) +
            "), max(at) FROM events WHERE container_id = ?1 AND kind = 'network.denied' AND "
            "json_type(detail, '$.secret_refused') = 'text' GROUP BY 1, 2 ORDER BY 1, 3, 2",
        QStringLiteral("count where secrets went"));
    if (!stmt)
        return fail(stmt.error());
    stmt->bind(1, containerId);
    QList<SecretDelivery> deliveries;
    for (;;) {
        auto row = stmt->step();
        if (!row)
            return fail(row.error());
        if (!*row)
            return deliveries;
        deliveries.append(SecretDelivery{stmt->columnText(0), stmt->columnText(1), stmt->columnInt64(2) != 0,
                                         stmt->columnInt64(3), stmt->columnInt64(4)});
    }
}

Result<QHash<QString, qint64>>
HistoryStore::eventCounts(const QString &containerId, const QString &kindPrefix, const QString &runId) const
{
    WhereClause where;
    if (!containerId.isEmpty())
        where.add("container_id = ?", containerId);
    if (!runId.isEmpty())
        where.add("run_id = ?", runId);
    if (!kindPrefix.isEmpty())
        where.add("instr(kind, ?) = 1", kindPrefix);
    // A row whose detail has an integer `count` stands for that many (containers/networkledger.h).
    auto stmt = m_db.prepare("SELECT kind, sum(" + QByteArray(RowWeight) + ") FROM events" + where.sql() +
                                 " GROUP BY kind",
                             QStringLiteral("count events"));
    if (!stmt)
        return fail(stmt.error());
    where.bindTo(*stmt);
    QHash<QString, qint64> counts;
    for (;;) {
        auto row = stmt->step();
        if (!row)
            return fail(row.error());
        if (!*row)
            return counts;
        counts.insert(stmt->columnText(0), stmt->columnInt64(1));
    }
}

} // namespace Cordon::Store
