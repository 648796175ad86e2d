// SPDX-License-Identifier: MIT
#include "store/statement.h"
#include "store/database.h"
#include "store/statementcache.h"

#include <sqlite3.h>

namespace Cordon::Store {

namespace {

// Never a null pointer: SQLite binds NULL for a null data pointer, and the columns are NOT NULL.
constexpr char EmptyBytes[] = "";

} // namespace

Statement::~Statement()
{
    release();
}

Statement::Statement(Statement &&other) noexcept
    : m_stmt(other.m_stmt), m_purpose(std::move(other.m_purpose)), m_bindError(other.m_bindError),
      m_home(std::move(other.m_home)), m_sql(std::move(other.m_sql))
{
    other.m_stmt = nullptr;
}

Statement &Statement::operator=(Statement &&other) noexcept
{
    if (this != &other) {
        release();
        m_stmt = other.m_stmt;
        m_purpose = std::move(other.m_purpose);
        m_bindError = other.m_bindError;
        m_home = std::move(other.m_home);
        m_sql = std::move(other.m_sql);
        other.m_stmt = nullptr;
    }
    return *this;
}

void Statement::release()
{
    if (!m_stmt)
        return;
    if (const std::shared_ptr<StatementCache> home = m_home.lock())
        home->giveBack(m_sql, m_stmt);
    else
        sqlite3_finalize(m_stmt);
    m_stmt = nullptr;
}

void Statement::noteBind(int rc)
{
    if (rc != SQLITE_OK && m_bindError == SQLITE_OK)
        m_bindError = rc;
}

Statement &Statement::bind(int index, qint64 value)
{
    noteBind(sqlite3_bind_int64(m_stmt, index, value));
    return *this;
}

Statement &Statement::bind(int index, int value)
{
    return bind(index, qint64(value));
}

Statement &Statement::bind(int index, double value)
{
    noteBind(sqlite3_bind_double(m_stmt, index, value));
    return *this;
}

Statement &Statement::bind(int index, bool value)
{
    return bind(index, qint64(value ? 1 : 0));
}

Statement &Statement::bind(int index, const QString &text)
{
    const QByteArray utf8 = text.toUtf8();
    const char *data = utf8.isEmpty() ? EmptyBytes : utf8.constData();
    noteBind(
        sqlite3_bind_text64(m_stmt, index, data, sqlite3_uint64(utf8.size()), SQLITE_TRANSIENT, SQLITE_UTF8));
    return *this;
}

Statement &Statement::bind(int index, const QByteArray &blob)
{
    if (blob.isEmpty())
        noteBind(sqlite3_bind_zeroblob(m_stmt, index, 0));
    else
        noteBind(sqlite3_bind_blob64(m_stmt, index, blob.constData(), sqlite3_uint64(blob.size()),
                                     SQLITE_TRANSIENT));
    return *this;
}

Statement &Statement::bind(int index, std::nullptr_t)
{
    noteBind(sqlite3_bind_null(m_stmt, index));
    return *this;
}

Statement &Statement::bindOptional(int index, const QString &text)
{
    return text.isEmpty() ? bind(index, nullptr) : bind(index, text);
}

Result<bool> Statement::step()
{
    sqlite3 *db = sqlite3_db_handle(m_stmt);
    if (m_bindError != SQLITE_OK) {
        const int rc = m_bindError;
        m_bindError = SQLITE_OK;
        return fail(sqliteError(nullptr, rc, m_purpose + QStringLiteral(" (binding a value)")));
    }
    const int rc = sqlite3_step(m_stmt);
    if (rc == SQLITE_ROW)
        return true;
    if (rc == SQLITE_DONE)
        return false;
    Error error = sqliteError(db, rc, m_purpose);
    // Resetting here releases the statement's read lock at once; the connection keeps the message above.
    sqlite3_reset(m_stmt);
    return fail(std::move(error));
}

Result<> Statement::execute()
{
    for (;;) {
        auto row = step();
        if (!row)
            return fail(row.error());
        if (!*row)
            return {};
    }
}

void Statement::reset()
{
    sqlite3_reset(m_stmt);
}

bool Statement::isNull(int column) const
{
    return sqlite3_column_type(m_stmt, column) == SQLITE_NULL;
}

qint64 Statement::columnInt64(int column) const
{
    return sqlite3_column_int64(m_stmt, column);
}

int Statement::columnInt(int column) const
{
    return sqlite3_column_int(m_stmt, column);
}

double Statement::columnDouble(int column) const
{
    return sqlite3_column_double(m_stmt, column);
}

QString Statement::columnText(int column) const
{
    // Pointer first, then the length, as the SQLite documentation requires (the call may convert).
    const auto *data = reinterpret_cast<const char *>(sqlite3_column_text(m_stmt, column));
    const int size = sqlite3_column_bytes(m_stmt, column);
    return data ? QString::fromUtf8(data, size) : QString();
}

QByteArray Statement::columnBlob(int column) const
{
    const auto *data = static_cast<const char *>(sqlite3_column_blob(m_stmt, column));
    const int size = sqlite3_column_bytes(m_stmt, column);
    return data ? QByteArray(data, size) : QByteArray();
}

} // namespace Cordon::Store
