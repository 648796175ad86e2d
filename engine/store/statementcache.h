// SPDX-License-Identifier: MIT
// Prepared statements kept for reuse, one per SQL text. Compiling a statement costs more than running it:
// a run's start and end each write three rows, and parsing those INSERTs and UPDATEs again every time was
// the largest part of the daemon's work per `cordon exec`.
#pragma once

#include <QByteArray>
#include <QHash>

struct sqlite3_stmt;

namespace Cordon::Store {

class StatementCache final
{
public:
    StatementCache() = default;
    ~StatementCache();
    StatementCache(const StatementCache &) = delete;
    StatementCache &operator=(const StatementCache &) = delete;

    // A statement for this text, taken out of the cache, or null when none is idle (the caller prepares one).
    sqlite3_stmt *take(const QByteArray &sql);
    // Resets the statement (releasing any read lock it held), clears its bindings so that no value of one
    // call can reach the next, and keeps it; finalizes it when one for the same text is kept already or the
    // cache is full (queries built from filters have many texts).
    void giveBack(const QByteArray &sql, sqlite3_stmt *stmt);
    // Finalizes every kept statement; the connection can then close at once.
    void clear();

    static constexpr qsizetype Capacity = 64;

private:
    QHash<QByteArray, sqlite3_stmt *> m_idle;
};

} // namespace Cordon::Store
