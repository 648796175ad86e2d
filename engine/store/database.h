// SPDX-License-Identifier: MIT
// One SQLite connection, owned. Every failure becomes a Cordon::Error whose code says what kind of trouble it
// is (store.busy, store.corrupt, ...) and whose message names what the statement was for and what SQLite
// said.
#pragma once

#include "core/result.h"
#include "store/statement.h"

#include <QByteArray>
#include <QString>

#include <memory>

struct sqlite3;

namespace Cordon::Store {

class StatementCache;

// Maps an SQLite result code to a stable error: "record run 3f2a: UNIQUE constraint failed: runs.id".
Error sqliteError(sqlite3 *db, int rc, const QString &purpose);

class Database final
{
public:
    Database() = default;
    ~Database();
    Database(Database &&other) noexcept;
    Database &operator=(Database &&other) noexcept;
    Q_DISABLE_COPY(Database)

    // Opens one read-write connection, creating the file when it is missing. A symlink as the last path
    // component is refused (SQLITE_OPEN_NOFOLLOW), so a planted link cannot redirect the history elsewhere.
    // No pragmas are set here: HistoryStore decides the journal mode and the rest.
    //
    // The connection is opened with SQLITE_OPEN_FULLMUTEX, but Statement and Transaction objects are not
    // thread-safe: the daemon uses one connection from its one event-loop thread.
    static Result<Database> open(const QString &path);

    bool isOpen() const { return m_db != nullptr; }
    sqlite3 *handle() const { return m_db; }

    // Runs one or more statements that return no rows (schema, pragmas that set, BEGIN/COMMIT).
    Result<> exec(const QByteArray &sql, const QString &purpose) const;
    // A statement compiled once per SQL text: it goes back to the connection's cache when the Statement is
    // destroyed, reset and with its bindings cleared.
    Result<Statement> prepare(const QByteArray &sql, const QString &purpose) const;

    // The first column of the first row as text or integer: for pragmas and counts.
    Result<QString> queryText(const QByteArray &sql, const QString &purpose) const;
    Result<qint64> queryInt(const QByteArray &sql, const QString &purpose) const;

    qint64 lastInsertRowId() const;
    // Rows changed by the last INSERT/UPDATE/DELETE, not counting foreign-key cascades.
    qint64 changes() const;

private:
    explicit Database(sqlite3 *db);
    void close();

    sqlite3 *m_db = nullptr;
    // Shared with the statements taken from it only weakly: one that outlives the connection is finalized.
    std::shared_ptr<StatementCache> m_statements;
};

} // namespace Cordon::Store
