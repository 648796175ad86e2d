// SPDX-License-Identifier: MIT
#include "cliformat.h"

#include "core/plainbridge.h"

#include "clioutput.h"
#include "commands.h"

#include "daemon/framecodec.h"
#include "daemon/lite/runreport.h"

#include <QJsonArray>

#include <optional>

namespace Cordon::Cli {

namespace {

QString twoDigits(qint64 value)
{
    return QStringLiteral("%1").arg(value, 2, 10, QLatin1Char('0'));
}

} // namespace

Table::Table(QStringList headers) : m_headers(std::move(headers)) {}

void Table::addRow(QStringList cells)
{
    while (cells.size() < m_headers.size())
        cells.append(QString());
    m_rows.append(std::move(cells));
}

QString Table::toString() const
{
    QList<qsizetype> widths;
    for (const QString &header : m_headers)
        widths.append(header.size());
    for (const QStringList &row : m_rows) {
        for (qsizetype column = 0; column < widths.size(); ++column)
            widths[column] = qMax(widths[column], row.value(column).size());
    }
    auto line = [&](const QStringList &cells) -> QString {
        QString text;
        for (qsizetype column = 0; column < widths.size(); ++column) {
            const bool last = column + 1 == widths.size();
            text += last ? cells.value(column) : cells.value(column).leftJustified(widths[column] + 2);
        }
        return text + QLatin1Char('\n');
    };
    QString text = line(m_headers);
    for (const QStringList &row : m_rows)
        text += line(row);
    return text;
}

QString formatTime(qint64 msSinceEpoch)
{
    return QString::fromStdString(Lite::formatTime(msSinceEpoch));
}

QString formatSpan(qint64 ms)
{
    const qint64 seconds = qMax<qint64>(0, (ms + 999) / 1000);
    if (seconds < 60)
        return QStringLiteral("%1s").arg(seconds);
    if (seconds < 3600)
        return QStringLiteral("%1m %2s").arg(seconds / 60).arg(twoDigits(seconds % 60));
    if (seconds < 86400)
        return QStringLiteral("%1h %2m").arg(seconds / 3600).arg(twoDigits(seconds % 3600 / 60));
    return QStringLiteral("%1d %2h").arg(seconds / 86400).arg(seconds % 86400 / 3600);
}

QString formatWall(qint64 ms)
{
    if (ms < 1000)
        return QStringLiteral("%1 ms").arg(ms);
    if (ms < 60000)
        return QStringLiteral("%1 s").arg(static_cast<double>(ms) / 1000.0, 0, 'f', 1);
    return QStringLiteral("%1m %2s").arg(ms / 60000).arg(twoDigits(ms % 60000 / 1000));
}

QString describeExpiry(const QJsonObject &container, qint64 nowMs)
{
    const QString state = container.value(QStringLiteral("state")).toString();
    if (state != QLatin1String("running") && state != QLatin1String("stopped"))
        return QStringLiteral("-");
    const qint64 expiresAt = container.value(QStringLiteral("expires_at")).toInteger();
    if (expiresAt <= nowMs)
        return QStringLiteral("expiring");
    // Its deadline passed while no daemon ran: what is left is the grace period, which a use ends.
    if (container.contains(QStringLiteral("grace_since")))
        return formatSpan(expiresAt - nowMs) + QStringLiteral(" (grace)");
    return formatSpan(expiresAt - nowMs);
}

QString escapeName(const QString &name)
{
    return QString::fromStdString(Lite::escapeName(name.toStdString()));
}

// The wording and the status mapping are shared with the Qt-free `cordon exec` (daemon/lite/runreport.h).
int runExitStatus(const QJsonObject &run)
{
    return Lite::runExitStatus(toPlain(run));
}

QString summarizeRun(const QJsonObject &run, const QJsonObject &container)
{
    return QString::fromStdString(Lite::summarizeRun(toPlain(run), toPlain(container)));
}

} // namespace Cordon::Cli
