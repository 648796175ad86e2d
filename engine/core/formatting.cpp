// SPDX-License-Identifier: MIT
#include "core/formatting.h"

#include "daemon/lite/containerref.h"

#include <QDateTime>
#include <QLocale>

namespace Cordon {

namespace {

QString twoDigits(qint64 value)
{
    return QStringLiteral("%1").arg(value, 2, 10, QLatin1Char('0'));
}

} // namespace

QString Format::bytes(qint64 bytes)
{
    constexpr qint64 KiB = 1024;
    constexpr qint64 MiB = KiB * 1024;
    constexpr qint64 GiB = MiB * 1024;
    // Whole tiers read as "1 GiB", not "1.0 GiB"; other values keep one decimal below 100.
    auto scaled = [](qint64 value, qint64 unit) {
        const double amount = double(value) / double(unit);
        if (value % unit == 0 || amount >= 100)
            return QString::number(qRound64(amount));
        return QString::number(amount, 'f', 1);
    };
    if (bytes >= GiB)
        return tr("%1 GiB").arg(scaled(bytes, GiB));
    if (bytes >= MiB)
        return tr("%1 MiB").arg(scaled(bytes, MiB));
    if (bytes >= KiB)
        return tr("%1 KiB").arg(scaled(bytes, KiB));
    return tr("%1 B").arg(qMax<qint64>(0, bytes));
}

QString Format::countdown(qint64 ms)
{
    // Rounded up: a countdown that shows 0:00 while time remains reads as "already gone".
    const qint64 seconds = qMax<qint64>(0, (ms + 999) / 1000);
    if (seconds >= 86400)
        return tr("%1 d %2 h").arg(seconds / 86400).arg(seconds % 86400 / 3600);
    if (seconds >= 3600)
        return QStringLiteral("%1:%2:%3")
            .arg(seconds / 3600)
            .arg(twoDigits(seconds % 3600 / 60), twoDigits(seconds % 60));
    return QStringLiteral("%1:%2").arg(seconds / 60).arg(twoDigits(seconds % 60));
}

QString Format::duration(qint64 ms)
{
    if (ms < 1000)
        return tr("%1 ms").arg(qMax<qint64>(0, ms));
    if (ms < 60000)
        return tr("%1 s").arg(double(ms) / 1000.0, 0, 'f', 1);
    return tr("%1 min %2 s").arg(ms / 60000).arg(twoDigits(ms % 60000 / 1000));
}

QString Format::shortId(const QString &containerId)
{
    return containerId.left(qsizetype(Lite::ShortIdLength));
}

QString Format::displayName(const QString &name)
{
    QString shown;
    shown.reserve(name.size());
    for (const QChar c : name) {
        const char16_t u = c.unicode();
        const bool control = u < 0x20 || (u >= 0x7f && u <= 0x9f);
        const bool bidi = (u >= 0x202a && u <= 0x202e) || (u >= 0x2066 && u <= 0x2069) || u == 0x200e ||
                          u == 0x200f || u == 0x061c;
        const bool invisible = (u >= 0x200b && u <= 0x200d) || u == 0xfeff || u == 0x2060 || u == 0xfffd;
        if (control || bidi || invisible)
            shown += QStringLiteral("\\u{%1}").arg(int(u), 4, 16, QLatin1Char('0'));
        else
            shown += c;
    }
    return shown;
}

QString Format::dateTime(qint64 msSinceEpoch)
{
    if (msSinceEpoch <= 0)
        return tr("—");
    return QLocale().toString(QDateTime::fromMSecsSinceEpoch(msSinceEpoch), QLocale::ShortFormat);
}

} // namespace Cordon
