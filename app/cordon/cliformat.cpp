// SPDX-License-Identifier: MIT
#include "cliformat.h"

#include "clioutput.h"
#include "commands.h"

#include "containers/runoutcome.h"

#include <QDateTime>
#include <QJsonArray>

#include <optional>

namespace Cordon::Cli {

namespace {

std::optional<Containers::ErrorClass> errorClassFromName(const QString &name)
{
    using Containers::ErrorClass;
    for (ErrorClass candidate : {ErrorClass::Ok, ErrorClass::NonzeroExit, ErrorClass::Oom,
                                 ErrorClass::Timeout, ErrorClass::Killed, ErrorClass::SetupFailed}) {
        if (Containers::errorClassName(candidate) == name)
            return candidate;
    }
    return std::nullopt;
}

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
    if (msSinceEpoch <= 0)
        return QStringLiteral("-");
    return QDateTime::fromMSecsSinceEpoch(msSinceEpoch).toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
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
    return formatSpan(expiresAt - nowMs);
}

QString escapeName(const QString &name)
{
    QString escaped;
    for (const QChar c : name) {
        const char16_t u = c.unicode();
        // C0 and C1 controls, DEL, and the bidirectional formatting characters that reorder what follows.
        const bool control = u < 0x20 || (u >= 0x7f && u < 0xa0);
        const bool bidi = (u >= 0x202a && u <= 0x202e) || (u >= 0x2066 && u <= 0x2069) || u == 0x200e ||
                          u == 0x200f || u == 0x061c;
        if (control)
            escaped += QStringLiteral("\\x%1").arg(static_cast<int>(u), 2, 16, QLatin1Char('0'));
        else if (bidi)
            escaped += QStringLiteral("\\u{%1}").arg(static_cast<int>(u), 4, 16, QLatin1Char('0'));
        else
            escaped += c;
    }
    return escaped;
}

int runExitStatus(const QJsonObject &run)
{
    const auto errorClass = errorClassFromName(run.value(QStringLiteral("error_class")).toString());
    if (!errorClass)
        return SetupFailure; // interrupted, or a class this CLI does not know: the outcome is unknown
    Containers::RunOutcome outcome;
    outcome.errorClass = *errorClass;
    outcome.exitCode = run.value(QStringLiteral("exit_code")).toInt(-1);
    outcome.signal = run.value(QStringLiteral("signal")).toInt(0);
    return outcome.shellStatus();
}

QString summarizeRun(const QJsonObject &run, const QJsonObject &container)
{
    const QString runId = run.value(QStringLiteral("id")).toString();
    const QString state = run.value(QStringLiteral("state")).toString();
    if (state == QLatin1String("running"))
        return QStringLiteral("cordon: run %1 is still running (started %2)\n")
            .arg(runId, formatTime(run.value(QStringLiteral("started_at")).toInteger()));
    const auto errorClass = errorClassFromName(run.value(QStringLiteral("error_class")).toString());
    const QString message = run.value(QStringLiteral("message")).toString();
    if (!errorClass)
        return QStringLiteral("cordon: %1: the run's outcome is unknown (cordond stopped before it ended)\n")
            .arg(state.isEmpty() ? QStringLiteral("interrupted") : state);

    using Containers::ErrorClass;
    const bool setupFailed = *errorClass == ErrorClass::SetupFailed;
    const int signal = run.value(QStringLiteral("signal")).toInt(0);
    const QString status =
        setupFailed  ? message
        : signal > 0 ? QStringLiteral("signal %1").arg(signal)
                     : QStringLiteral("exit %1").arg(run.value(QStringLiteral("exit_code")).toInt(-1));
    QString text = QStringLiteral("cordon: %1 (%2): %3\n")
                       .arg(Containers::errorClassName(*errorClass), status,
                            Containers::describeErrorClass(*errorClass));
    if (!setupFailed) {
        const qint64 limit = container.value(QStringLiteral("memory_limit")).toInteger();
        const bool enforced = container.value(QStringLiteral("limits_enforced")).toBool(true);
        text += QStringLiteral("cordon: wall %1 ms, cpu %2 ms, peak memory %3%4%5\n")
                    .arg(run.value(QStringLiteral("wall_ms")).toInteger())
                    .arg(run.value(QStringLiteral("cpu_ms")).toInteger())
                    .arg(formatBytes(run.value(QStringLiteral("peak_memory_bytes")).toInteger()),
                         limit > 0 ? QStringLiteral(" of ") + formatBytes(limit) : QString(),
                         enforced ? QString() : QStringLiteral(" (not enforced: degraded mode)"));
    }
    for (const char *stream : {"stdout", "stderr"}) {
        if (run.value(QLatin1String(stream) + QStringLiteral("_truncated")).toBool())
            text += QStringLiteral("cordon: %1 was cut at the policy's output limit (limits.output_mb)\n")
                        .arg(QLatin1String(stream));
    }
    for (const QJsonValue &value : run.value(QStringLiteral("artifacts")).toArray()) {
        const QJsonObject artifact = value.toObject();
        text += QStringLiteral("cordon: artifact %1 (%2, sha256 %3)\n")
                    .arg(escapeName(artifact.value(QStringLiteral("path")).toString()),
                         formatBytes(artifact.value(QStringLiteral("size")).toInteger()),
                         artifact.value(QStringLiteral("sha256")).toString());
    }
    if (!setupFailed && !message.isEmpty())
        text += QStringLiteral("cordon: note: %1\n").arg(message);
    return text;
}

} // namespace Cordon::Cli
