// SPDX-License-Identifier: MIT
#pragma once

#include "store/database.h"
#include "store/historyrecords.h"
#include "store/transaction.h"
#include "store/whereclause.h"

namespace Cordon::Store {

// One page of `table`'s rows matching `where`, newest first by `orderBy`, with the total: both read in one
// snapshot, so a row recorded in between cannot make them disagree. A negative limit means no limit.
template<typename Record, typename Decode>
Result<Page<Record>> readPage(const Database &db, const char *table, const WhereClause &where,
                              const QByteArray &columns, const char *orderBy, int limit, int offset,
                              const QString &purpose, Decode decode)
{
    auto transaction = Transaction::begin(db, Transaction::Mode::Read, purpose);
    if (!transaction)
        return fail(transaction.error());

    Page<Record> page;
    auto count = db.prepare("SELECT count(*) FROM " + QByteArray(table) + where.sql(), purpose);
    if (!count)
        return fail(count.error());
    where.bindTo(*count);
    auto counted = count->step();
    if (!counted)
        return fail(counted.error());
    page.total = count->columnInt64(0);

    auto stmt = db.prepare("SELECT " + columns + " FROM " + QByteArray(table) + where.sql() + " ORDER BY " +
                               QByteArray(orderBy) + " LIMIT ? OFFSET ?",
                           purpose);
    if (!stmt)
        return fail(stmt.error());
    const int next = where.bindTo(*stmt);
    stmt->bind(next, qint64(limit < 0 ? -1 : limit)).bind(next + 1, qint64(qMax(0, offset)));
    for (;;) {
        auto row = stmt->step();
        if (!row)
            return fail(row.error());
        if (!*row)
            break;
        page.items.append(decode(*stmt));
    }
    CORDON_TRY(transaction->commit());
    return page;
}

// The one row of `table` whose id is `id`: `store.not_found` ("<purpose>: no such <noun>") when there is
// none.
template<typename Record, typename Decode>
Result<Record> readById(const Database &db, const char *table, const QByteArray &columns, const QString &id,
                        const QString &purpose, const QString &noun, Decode decode)
{
    auto stmt = db.prepare("SELECT " + columns + " FROM " + QByteArray(table) + " WHERE id = ?1", purpose);
    if (!stmt)
        return fail(stmt.error());
    stmt->bind(1, id);
    auto row = stmt->step();
    if (!row)
        return fail(row.error());
    if (!*row)
        return fail(QStringLiteral("store.not_found"), purpose + QStringLiteral(": no such ") + noun);
    return decode(*stmt);
}

} // namespace Cordon::Store
