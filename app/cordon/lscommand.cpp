// SPDX-License-Identifier: MIT
// cordon ls: the containers cordond holds, with how long each has left before it expires.
#include "cliformat.h"
#include "clioutput.h"
#include "commands.h"
#include "daemoncli.h"

#include "core/formatting.h"

#include <QDateTime>
#include <QJsonArray>

namespace Cordon::Cli {

int lsCommand(const QStringList &arguments)
{
    const QString command = QStringLiteral("cordon ls");
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "List the running and stopped containers. IDLE LEFT counts down to expiry, which removes\n"
        "the container's files; any activity (a run, a file transfer, `cordon keepalive`) resets "
        "it.\nContainers of Go/No-Go audits are listed with --audits."));
    parser.addHelpOption();
    const QCommandLineOption allOption(QStringList{QStringLiteral("a"), QStringLiteral("all")},
                                       QStringLiteral("Also list expired and deleted containers."));
    const QCommandLineOption jsonOption(
        QStringLiteral("json"), QStringLiteral("Print the daemon's result (the containers) as JSON."));
    const QCommandLineOption quietOption(QStringList{QStringLiteral("q"), QStringLiteral("quiet")},
                                         QStringLiteral("Print only the ids, one per line."));
    const QCommandLineOption namesOption(QStringLiteral("names"),
                                         QStringLiteral("Print only the names, one per line."));
    const QCommandLineOption noStartOption(
        QStringLiteral("no-start"),
        QStringLiteral("Do not start cordond when it is not running: exit with status 125 instead."));
    const QCommandLineOption auditsOption(
        QStringLiteral("audits"),
        QStringLiteral("Also list the containers a Go/No-Go audit made for itself (left out otherwise)."));
    parser.addOptions({allOption, auditsOption, jsonOption, quietOption, namesOption, noStartOption});
    if (auto done = parseCommandLine(parser, arguments, command))
        return *done;
    if (!parser.positionalArguments().isEmpty())
        return usageError(
            command, QStringLiteral("unexpected argument `%1`").arg(parser.positionalArguments().first()));
    if (parser.isSet(jsonOption) + parser.isSet(quietOption) + parser.isSet(namesOption) > 1)
        return usageError(command, QStringLiteral("give only one of --json, --quiet and --names"));

    // Shell completion lists containers on every Tab: it must not leave a daemon running behind the user's
    // back, only ask one that already runs.
    DaemonSession session;
    if (auto connected = session.connect(!parser.isSet(noStartOption)); !connected)
        return reportError(connected.error());
    auto listed = session.call(QStringLiteral("container.list"),
                               {{QStringLiteral("include_deleted"), parser.isSet(allOption)}});
    if (!listed)
        return reportError(listed.error());
    // The audit's containers come and go while it runs, dozens over time: the user's own are the list.
    if (!parser.isSet(auditsOption)) {
        QJsonArray own;
        for (const QJsonValue &value : listed->value(QStringLiteral("containers")).toArray()) {
            if (value.toObject().value(QStringLiteral("origin")).toString().isEmpty())
                own.append(value);
        }
        listed->insert(QStringLiteral("containers"), own);
    }
    if (parser.isSet(jsonOption)) {
        printJson(*listed);
        return 0;
    }
    // One bare field per line, without a header, for scripts and shell completion.
    if (parser.isSet(quietOption) || parser.isSet(namesOption)) {
        const QString field = parser.isSet(quietOption) ? QStringLiteral("id") : QStringLiteral("name");
        QString text;
        for (const QJsonValue &value : listed->value(QStringLiteral("containers")).toArray())
            text += value.toObject().value(field).toString() + QLatin1Char('\n');
        printOut(text);
        return 0;
    }
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    Table table({QStringLiteral("ID"), QStringLiteral("NAME"), QStringLiteral("STATE"),
                 QStringLiteral("MEMORY"), QStringLiteral("IDLE LEFT"), QStringLiteral("RUNS"),
                 QStringLiteral("FILES")});
    for (const QJsonValue &value : listed->value(QStringLiteral("containers")).toArray()) {
        const QJsonObject container = value.toObject();
        const bool enforced = container.value(QStringLiteral("limits_enforced")).toBool(true);
        table.addRow({Format::shortId(container.value(QStringLiteral("id")).toString()),
                      container.value(QStringLiteral("name")).toString(),
                      container.value(QStringLiteral("state")).toString(),
                      formatBytes(container.value(QStringLiteral("memory_limit")).toInteger()) +
                          (enforced ? QString() : QStringLiteral(" (not enforced)")),
                      describeExpiry(container, now),
                      QString::number(container.value(QStringLiteral("active_runs")).toInt()),
                      // In memory while it runs; "-" when stopped (its files are on disk then).
                      container.contains(QStringLiteral("workspace_bytes"))
                          ? formatBytes(container.value(QStringLiteral("workspace_bytes")).toInteger())
                          : QStringLiteral("-")});
    }
    printOut(table.toString());
    return 0;
}

} // namespace Cordon::Cli
