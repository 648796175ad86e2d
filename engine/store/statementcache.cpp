// SPDX-License-Identifier: MIT
#include "store/statementcache.h"

#include <sqlite3.h>

namespace Cordon::Store {

StatementCache::~StatementCache()
{
    clear();
}

sqlite3_stmt *StatementCache::take(const QByteArray &sql)
{
    return m_idle.take(sql);
}

void StatementCache::giveBack(const QByteArray &sql, sqlite3_stmt *stmt)
{
    if (!stmt)
        return;
    sqlite3_reset(stmt);
    sqlite3_clear_bindings(stmt);
    if (m_idle.size() >= Capacity || m_idle.contains(sql)) {
        sqlite3_finalize(stmt);
        return;
    }
    m_idle.insert(sql, stmt);
}

void StatementCache::clear()
{
    for (sqlite3_stmt *stmt : std::as_const(m_idle))
        sqlite3_finalize(stmt);
    m_idle.clear();
}

} // namespace Cordon::Store
