// SPDX-License-Identifier: MIT
#include "policy/memorylimit.h"

#include "policy/jsonfields.h"

namespace Cordon::Policy {

namespace {

constexpr int TierGiB[] = {1, 4, 16, 64};

} // namespace

QString memoryLimitRule()
{
    return QStringLiteral("must be one of 1g, 4g, 16g, 64g, or a byte count between %1 and %2")
        .arg(MinMemoryLimitBytes)
        .arg(MaxMemoryLimitBytes);
}

bool isMemoryTier(qint64 bytes)
{
    for (int tier : TierGiB) {
        if (bytes == tier * GiB)
            return true;
    }
    return false;
}

Result<qint64> parseMemoryLimit(const QString &text)
{
    for (int tier : TierGiB) {
        const QString name = QString::number(tier);
        if (text.size() == name.size() + 1 && text.startsWith(name) &&
            (text.back() == u'g' || text.back() == u'G'))
            return tier * GiB;
    }
    // At most 11 digits (64 GiB has 11), checked as ASCII: QChar::isDigit() would let "１２" through.
    bool digitsOnly = !text.isEmpty() && text.size() <= 11;
    for (QChar c : text)
        digitsOnly = digitsOnly && c.unicode() >= u'0' && c.unicode() <= u'9';
    if (digitsOnly) {
        const qint64 bytes = text.toLongLong();
        if (bytes >= MinMemoryLimitBytes && bytes <= MaxMemoryLimitBytes)
            return bytes;
    }
    return fail(QStringLiteral("policy.invalid_memory_limit"),
                memoryLimitRule() + QStringLiteral(", got ") + Json::quoted(text));
}

QString formatMemoryLimit(qint64 bytes)
{
    for (int tier : TierGiB) {
        if (bytes == tier * GiB)
            return QString::number(tier) + u'g';
    }
    return QString::number(bytes);
}

} // namespace Cordon::Policy
