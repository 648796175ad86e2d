// SPDX-License-Identifier: MIT
#include "policy/memorylimit.h"

#include "policy/jsonfields.h"
#include "sandbox/memorylimit.h"

namespace Cordon::Policy {

QString memoryLimitRule()
{
    return QStringLiteral("must be one of 1g, 4g, 16g, 64g, or a byte count between %1 and %2")
        .arg(MinMemoryLimitBytes)
        .arg(MaxMemoryLimitBytes);
}

bool isMemoryTier(qint64 bytes)
{
    for (int tier : Core::MemoryTiersGiB) {
        if (bytes == tier * GiB)
            return true;
    }
    return false;
}

Result<qint64> parseMemoryLimit(const QString &text)
{
    if (const auto bytes = Core::parseMemoryLimit(text.toStdString()))
        return *bytes;
    return fail(QStringLiteral("policy.invalid_memory_limit"),
                memoryLimitRule() + QStringLiteral(", got ") + Json::quoted(text));
}

QString formatMemoryLimit(qint64 bytes)
{
    for (int tier : Core::MemoryTiersGiB) {
        if (bytes == tier * GiB)
            return QString::number(tier) + u'g';
    }
    return QString::number(bytes);
}

} // namespace Cordon::Policy
