// SPDX-License-Identifier: MIT
// A WHERE clause assembled from fixed SQL fragments and bound values, for the history's filters. Only the
// fragments (string literals in our code) become SQL text; every filter value is a bound parameter.
#pragma once

#include "store/statement.h"

#include <QByteArray>
#include <QList>
#include <QString>

#include <variant>

namespace Cordon::Store {

class WhereClause final
{
public:
    // condition holds exactly one `?`, e.g. "container_id = ?".
    void add(const char *condition, const QString &value);
    void add(const char *condition, qint64 value);

    // " WHERE a = ? AND b >= ?", or nothing without conditions.
    QByteArray sql() const;
    // Binds the values from parameter 1 on; returns the next free parameter index.
    int bindTo(Statement &stmt) const;

private:
    QList<QByteArray> m_conditions;
    QList<std::variant<qint64, QString>> m_values;
};

} // namespace Cordon::Store
