// SPDX-License-Identifier: MIT
#include "store/database.h"
#include "store/statementcache.h"

#include <sqlite3.h>

namespace Cordon::Store {

namespace {

QString codeFor(int rc)
{
    switch (rc & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
        return QStringLiteral("store.busy");
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
        return QStringLiteral("store.corrupt");
    case SQLITE_CONSTRAINT:
        return QStringLiteral("store.constraint");
    case SQLITE_CANTOPEN:
    case SQLITE_PERM:
    case SQLITE_AUTH:
        return QStringLiteral("store.open");
    default:
        return QStringLiteral("store.io");
    }
}

} // namespace

Error sqliteError(sqlite3 *db, int rc, const QString &purpose)
{
    // sqlite3_errmsg() describes the most recent failure on the connection, which is the one being reported
    // (the daemon uses a connection from one thread); without a connection only the generic text is known.
    const char *text = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    const int sysErrno = db ? sqlite3_system_errno(db) : 0;
    return makeError(codeFor(rc), purpose + QStringLiteral(": ") + QString::fromUtf8(text),
                     (rc & 0xff) == SQLITE_IOERR || (rc & 0xff) == SQLITE_CANTOPEN ? sysErrno : 0);
}

Database::Database(sqlite3 *db) : m_db(db), m_statements(std::make_shared<StatementCache>()) {}

Database::~Database()
{
    close();
}

Database::Database(Database &&other) noexcept : m_db(other.m_db), m_statements(std::move(other.m_statements))
{
    other.m_db = nullptr;
}

Database &Database::operator=(Database &&other) noexcept
{
    if (this != &other) {
        close();
        m_db = other.m_db;
        m_statements = std::move(other.m_statements);
        other.m_db = nullptr;
    }
    return *this;
}

void Database::close()
{
    // The kept statements go first; close_v2 then defers the close until any statement still in use is
    // finalized, instead of failing with SQLITE_BUSY.
    m_statements.reset();
    if (m_db)
        sqlite3_close_v2(m_db);
    m_db = nullptr;
}

Result<Database> Database::open(const QString &path)
{
    int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX | SQLITE_OPEN_NOFOLLOW;
#ifdef SQLITE_OPEN_EXRESCODE
    flags |= SQLITE_OPEN_EXRESCODE;
#endif
    sqlite3 *raw = nullptr;
    const QByteArray encoded = path.toUtf8();
    const int rc = sqlite3_open_v2(encoded.constData(), &raw, flags, nullptr);
    // Even a failed open usually allocates a handle that carries the message and must be closed.
    Database db(raw);
    if (rc != SQLITE_OK)
        return fail(sqliteError(raw, rc, QStringLiteral("open history database `%1`").arg(path)));
    sqlite3_extended_result_codes(raw, 1);
    // Defensive mode refuses the few statements that can corrupt a database file on purpose (writable_schema,
    // journal_mode=OFF tricks); trusted_schema=0 keeps functions with side effects out of views and triggers.
    sqlite3_db_config(raw, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
    sqlite3_db_config(raw, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
    return db;
}

Result<> Database::exec(const QByteArray &sql, const QString &purpose) const
{
    // QByteArray's data is always NUL-terminated, as sqlite3_exec needs.
    const int rc = sqlite3_exec(m_db, sql.constData(), nullptr, nullptr, nullptr);
    if (rc != SQLITE_OK)
        return fail(sqliteError(m_db, rc, purpose));
    return {};
}

Result<Statement> Database::prepare(const QByteArray &sql, const QString &purpose) const
{
    if (!m_db)
        return fail(QStringLiteral("store.io"), purpose + QStringLiteral(": the history database is closed"));
    if (sqlite3_stmt *kept = m_statements->take(sql))
        return Statement(kept, purpose, m_statements, sql);
    sqlite3_stmt *stmt = nullptr;
    // PERSISTENT: the statement is meant to be kept, so SQLite allocates it outside its short-lived pools.
    const int rc =
        sqlite3_prepare_v3(m_db, sql.data(), int(sql.size()), SQLITE_PREPARE_PERSISTENT, &stmt, nullptr);
    if (rc != SQLITE_OK) {
        sqlite3_finalize(stmt);
        return fail(sqliteError(m_db, rc, purpose));
    }
    return Statement(stmt, purpose, m_statements, sql);
}

Result<QString> Database::queryText(const QByteArray &sql, const QString &purpose) const
{
    auto stmt = prepare(sql, purpose);
    if (!stmt)
        return fail(stmt.error());
    auto row = stmt->step();
    if (!row)
        return fail(row.error());
    return *row ? stmt->columnText(0) : QString();
}

Result<qint64> Database::queryInt(const QByteArray &sql, const QString &purpose) const
{
    auto stmt = prepare(sql, purpose);
    if (!stmt)
        return fail(stmt.error());
    auto row = stmt->step();
    if (!row)
        return fail(row.error());
    return *row ? stmt->columnInt64(0) : 0;
}

qint64 Database::lastInsertRowId() const
{
    return sqlite3_last_insert_rowid(m_db);
}

qint64 Database::changes() const
{
    return sqlite3_changes64(m_db);
}

} // namespace Cordon::Store
