// SPDX-License-Identifier: MIT
// A transaction guard: rolls back unless committed, so an early `return` on error can never leave half a
// change behind.
#pragma once

#include "core/result.h"

#include <QString>

namespace Cordon::Store {

class Database;

class Transaction final
{
public:
    enum class Mode
    {
        // BEGIN DEFERRED: a consistent snapshot for several reads (a page and its total).
        Read,
        // BEGIN IMMEDIATE: takes the write lock up front, so a competing writer waits in busy_timeout here
        // instead of failing with SQLITE_BUSY half-way when a read transaction tries to become a write one.
        Write
    };

    static Result<Transaction> begin(const Database &db, Mode mode, const QString &purpose);

    ~Transaction();
    Transaction(Transaction &&other) noexcept;
    Transaction &operator=(Transaction &&) = delete;
    Q_DISABLE_COPY(Transaction)

    Result<> commit();

private:
    Transaction(const Database *db, QString purpose) : m_db(db), m_purpose(std::move(purpose)) {}

    const Database *m_db = nullptr;
    QString m_purpose;
};

} // namespace Cordon::Store
