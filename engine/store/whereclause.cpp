// SPDX-License-Identifier: MIT
#include "store/whereclause.h"

namespace Cordon::Store {

void WhereClause::add(const char *condition, const QString &value)
{
    m_conditions.append(QByteArray(condition));
    m_values.append(value);
}

void WhereClause::add(const char *condition, qint64 value)
{
    m_conditions.append(QByteArray(condition));
    m_values.append(value);
}

QByteArray WhereClause::sql() const
{
    return m_conditions.isEmpty() ? QByteArray() : " WHERE " + m_conditions.join(" AND ");
}

int WhereClause::bindTo(Statement &stmt) const
{
    int index = 1;
    for (const auto &value : m_values) {
        std::visit([&](const auto &v) { stmt.bind(index, v); }, value);
        ++index;
    }
    return index;
}

} // namespace Cordon::Store
