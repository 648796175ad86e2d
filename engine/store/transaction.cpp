// SPDX-License-Identifier: MIT
#include "store/transaction.h"
#include "store/database.h"

#include <sqlite3.h>

namespace Cordon::Store {

Result<Transaction> Transaction::begin(const Database &db, Mode mode, const QString &purpose)
{
    CORDON_TRY(
        db.exec(mode == Mode::Write ? "BEGIN IMMEDIATE" : "BEGIN", purpose + QStringLiteral(" (begin)")));
    return Transaction(&db, purpose);
}

Transaction::~Transaction()
{
    // A failed statement inside may already have rolled back (SQLITE_FULL, SQLITE_IOERR); ROLLBACK is only
    // issued while a transaction is still open, so no "no transaction is active" noise.
    if (m_db && m_db->isOpen() && !sqlite3_get_autocommit(m_db->handle()))
        sqlite3_exec(m_db->handle(), "ROLLBACK", nullptr, nullptr, nullptr);
}

Transaction::Transaction(Transaction &&other) noexcept
    : m_db(other.m_db), m_purpose(std::move(other.m_purpose))
{
    other.m_db = nullptr;
}

Result<> Transaction::commit()
{
    if (!m_db)
        return fail(QStringLiteral("store.io"),
                    m_purpose + QStringLiteral(": the transaction already ended"));
    const Database *db = m_db;
    auto committed = db->exec("COMMIT", m_purpose + QStringLiteral(" (commit)"));
    // A failed COMMIT (SQLITE_BUSY) leaves the transaction open; the destructor then rolls it back.
    if (committed)
        m_db = nullptr;
    return committed;
}

} // namespace Cordon::Store
