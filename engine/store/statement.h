// SPDX-License-Identifier: MIT
// One prepared statement, owned. Values are always bound, never spliced into SQL text: output and code from
// a sandbox are hostile bytes.
#pragma once

#include "core/result.h"

#include <QByteArray>
#include <QString>

#include <cstddef>
#include <memory>

struct sqlite3_stmt;

namespace Cordon::Store {

class StatementCache;

class Statement final
{
public:
    Statement() = default;
    ~Statement();
    Statement(Statement &&other) noexcept;
    Statement &operator=(Statement &&other) noexcept;
    Q_DISABLE_COPY(Statement)

    // Parameters count from 1, as in SQLite. A failed bind is remembered and reported by the next step(),
    // so a chain of binds needs no checks of its own.
    Statement &bind(int index, qint64 value);
    Statement &bind(int index, int value);
    Statement &bind(int index, double value);
    Statement &bind(int index, bool value);
    // Text is stored as UTF-8 with its exact length (embedded NULs survive); a null QString binds ''.
    Statement &bind(int index, const QString &text);
    // Bytes are stored as a BLOB exactly as given, including an empty one (never NULL).
    Statement &bind(int index, const QByteArray &blob);
    Statement &bind(int index, std::nullptr_t);
    // A string literal would otherwise convert to bool (QString's const char * constructor is disabled).
    Statement &bind(int index, const char *) = delete;
    // NULL for an empty string: optional references (a run's policy version, an event's run).
    Statement &bindOptional(int index, const QString &text);

    // Advances to the next row: true when a row is ready, false when the statement is done.
    Result<bool> step();
    // Steps to completion, for statements that return no rows.
    Result<> execute();
    // Makes the statement runnable again; bindings are kept.
    void reset();

    bool isNull(int column) const;
    qint64 columnInt64(int column) const;
    int columnInt(int column) const;
    double columnDouble(int column) const;
    // NULL reads as an empty string or byte array.
    QString columnText(int column) const;
    QByteArray columnBlob(int column) const;

    const QString &purpose() const { return m_purpose; }

private:
    friend class Database; // only Database::prepare creates statements
    Statement(sqlite3_stmt *stmt, QString purpose, std::weak_ptr<StatementCache> home, QByteArray sql)
        : m_stmt(stmt), m_purpose(std::move(purpose)), m_home(std::move(home)), m_sql(std::move(sql))
    {}
    void noteBind(int rc);
    // Back to the connection's cache, or finalized when the connection is gone.
    void release();

    sqlite3_stmt *m_stmt = nullptr;
    QString m_purpose;
    int m_bindError = 0;
    std::weak_ptr<StatementCache> m_home;
    QByteArray m_sql;
};

} // namespace Cordon::Store
