// SPDX-License-Identifier: MIT
#include "core/duration.h"

#include <QRegularExpression>

namespace Cordon {

Result<qint64> parseDuration(const QString &text)
{
    static const QRegularExpression pattern(QStringLiteral("^([0-9]{1,9})(ms|s|m|h)?$"));
    const QRegularExpressionMatch match = pattern.match(text.trimmed());
    if (!match.hasMatch())
        return fail(
            QStringLiteral("cli.invalid_duration"),
            QStringLiteral("`%1` is not a duration: use a whole number with ms, s, m or h (e.g. 30s, 5m)")
                .arg(text));
    const qint64 value = match.captured(1).toLongLong();
    const QString unit = match.captured(2);
    const qint64 factor = unit == QLatin1String("ms")  ? 1
                          : unit == QLatin1String("m") ? 60'000
                          : unit == QLatin1String("h") ? 3'600'000
                                                       : 1000;
    const qint64 millis = value * factor;
    constexpr qint64 Week = 7LL * 24 * 3'600'000;
    if (millis <= 0 || millis > Week)
        return fail(QStringLiteral("cli.invalid_duration"),
                    QStringLiteral("`%1` is out of range: between 1ms and 7 days").arg(text));
    return millis;
}

} // namespace Cordon
