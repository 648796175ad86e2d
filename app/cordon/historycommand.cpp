// SPDX-License-Identifier: MIT
// cordon history: the runs cordond recorded, newest first, filtered by container and outcome class;
// `cordon history purge --older-than 30d` deletes old records.
#include "cliformat.h"
#include "clioutput.h"
#include "commands.h"
#include "daemoncli.h"

#include <QHash>
#include <QJsonArray>
#include <QRegularExpression>
#include <QTextStream>

#include <unistd.h>

namespace Cordon::Cli {

namespace {

const QStringList ErrorClasses = {QStringLiteral("ok"),     QStringLiteral("nonzero_exit"),
                                  QStringLiteral("oom"),    QStringLiteral("timeout"),
                                  QStringLiteral("killed"), QStringLiteral("setup_failed")};

std::optional<int> parseCount(const QString &text, int min, int max)
{
    bool ok = false;
    const int value = text.toInt(&ok);
    if (!ok || value < min || value > max)
        return std::nullopt;
    return value;
}

QString describeCode(const QJsonObject &run)
{
    const QString language = run.value(QStringLiteral("language")).toString();
    if (!language.isEmpty())
        return QStringLiteral("%1 %2").arg(language,
                                           run.value(QStringLiteral("code_sha256")).toString().left(12));
    QStringList command;
    for (const QJsonValue &arg : run.value(QStringLiteral("command")).toArray())
        command.append(arg.toString());
    QString text = escapeName(command.join(QLatin1Char(' ')));
    if (text.size() > 40)
        text = text.left(39) + QChar(0x2026);
    return text;
}

QString describeExit(const QJsonObject &run)
{
    if (!run.contains(QStringLiteral("error_class")))
        return QStringLiteral("-");
    const int signal = run.value(QStringLiteral("signal")).toInt();
    if (signal > 0)
        return QStringLiteral("sig %1").arg(signal);
    const int exitCode = run.value(QStringLiteral("exit_code")).toInt(-1);
    return exitCode < 0 ? QStringLiteral("-") : QString::number(exitCode);
}

int purge(const QStringList &arguments)
{
    const QString command = QStringLiteral("cordon history purge");
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Delete history older than a number of days: finished runs (with their output), events and file\n"
        "records from before then, and containers that expired or were deleted before then. Running runs "
        "and\n"
        "running or stopped containers stay."));
    parser.addHelpOption();
    const QCommandLineOption olderOption(
        QStringLiteral("older-than"),
        QStringLiteral("Age in days: 30d or 30; 0d deletes everything that has ended."),
        QStringLiteral("days"));
    const QCommandLineOption jsonOption(
        QStringLiteral("json"), QStringLiteral("Print the daemon's result (what was deleted) as JSON."));
    const QCommandLineOption yesOption(
        QStringLiteral("yes"),
        QStringLiteral("With --older-than 0d: delete everything that has ended without asking."));
    parser.addOptions({olderOption, jsonOption, yesOption});
    if (auto done = parseCommandLine(parser, arguments, command))
        return *done;
    if (!parser.positionalArguments().isEmpty())
        return usageError(
            command, QStringLiteral("unexpected argument `%1`").arg(parser.positionalArguments().first()));
    if (!parser.isSet(olderOption))
        return usageError(command, QStringLiteral("--older-than DAYS is required, e.g. --older-than 30d"));
    static const QRegularExpression daysPattern(QStringLiteral("^([0-9]{1,5})d?$"));
    const QRegularExpressionMatch match = daysPattern.match(parser.value(olderOption).trimmed());
    const int days = match.hasMatch() ? match.captured(1).toInt() : -1;
    if (days < 0 || days > 36500)
        return usageError(command,
                          QStringLiteral("--older-than `%1` is not a number of days between 0 and 36500 "
                                         "(e.g. 30d)")
                              .arg(parser.value(olderOption)));
    // 0 days is the whole history of what has ended: asked for at a terminal, else said with --yes.
    if (days == 0 && !parser.isSet(yesOption)) {
        if (::isatty(STDIN_FILENO) != 1)
            return usageError(command,
                              QStringLiteral("--older-than 0d deletes the whole history of ended runs, "
                                             "events and containers: add --yes to mean it"));
        printErr(QStringLiteral("Delete the whole history of ended runs, events and containers? [y/N] "));
        QTextStream input(stdin);
        const QString answer = input.readLine().trimmed().toLower();
        if (answer != QLatin1String("y") && answer != QLatin1String("yes")) {
            printErr(QStringLiteral("nothing was deleted\n"));
            return 1;
        }
    }

    DaemonSession session;
    if (auto connected = session.connect(); !connected)
        return reportError(connected.error());
    auto purged = session.call(QStringLiteral("history.purge"), {{QStringLiteral("older_than_days"), days}});
    if (!purged)
        return reportError(purged.error());
    if (parser.isSet(jsonOption)) {
        printJson(*purged);
        return 0;
    }
    printOut(
        QStringLiteral("purged %1 runs, %2 events, %3 file records and %4 containers older than %5 days\n")
            .arg(purged->value(QStringLiteral("runs")).toInteger())
            .arg(purged->value(QStringLiteral("events")).toInteger())
            .arg(purged->value(QStringLiteral("files")).toInteger())
            .arg(purged->value(QStringLiteral("containers")).toInteger())
            .arg(days));
    return 0;
}

} // namespace

int historyCommand(const QStringList &arguments)
{
    if (arguments.size() > 1 && arguments[1] == QLatin1String("purge")) {
        QStringList rest = arguments.mid(1);
        rest[0] = QStringLiteral("cordon history purge");
        return purge(rest);
    }
    const QString command = QStringLiteral("cordon history");
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "List recorded runs, newest first: outcome class, exit status, wall time, peak memory, and the code\n"
        "(language and sha256 prefix) or command. `cordon logs RUN` prints a run's output.\n"
        "\n"
        "  cordon history purge --older-than 30d   delete old history (see `cordon history purge --help`)"));
    parser.addHelpOption();
    const QCommandLineOption containerOption(
        QStringLiteral("container"), QStringLiteral("Only this container's runs."), QStringLiteral("ID"));
    const QCommandLineOption classOption(
        QStringLiteral("class"),
        QStringLiteral("Only runs that ended so: ok, nonzero_exit, oom, timeout, killed, setup_failed."),
        QStringLiteral("class"));
    const QCommandLineOption limitOption(
        QStringLiteral("limit"), QStringLiteral("At most N runs, 1-500 (default 50)."), QStringLiteral("N"));
    const QCommandLineOption offsetOption(
        QStringLiteral("offset"), QStringLiteral("Skip the N newest matching runs."), QStringLiteral("N"));
    const QCommandLineOption jsonOption(
        QStringLiteral("json"), QStringLiteral("Print the daemon's result (runs and total) as JSON."));
    const QCommandLineOption searchOption(
        QStringLiteral("search"),
        QStringLiteral("Only runs whose code, command, id or container name holds TEXT."),
        QStringLiteral("TEXT"));
    const QCommandLineOption auditsOption(
        QStringLiteral("audits"),
        QStringLiteral("Also list the runs of the containers Go/No-Go audits made (left out otherwise)."));
    parser.addOptions(
        {containerOption, classOption, searchOption, auditsOption, limitOption, offsetOption, jsonOption});
    if (auto done = parseCommandLine(parser, arguments, command))
        return *done;
    if (!parser.positionalArguments().isEmpty())
        return usageError(
            command, QStringLiteral("unexpected argument `%1`").arg(parser.positionalArguments().first()));
    QJsonObject params;
    if (parser.isSet(classOption)) {
        if (!ErrorClasses.contains(parser.value(classOption)))
            return usageError(command,
                              QStringLiteral("unknown --class `%1`: use one of %2")
                                  .arg(parser.value(classOption), ErrorClasses.join(QStringLiteral(", "))));
        params.insert(QStringLiteral("error_class"), parser.value(classOption));
    }
    if (parser.isSet(searchOption))
        params.insert(QStringLiteral("search"), parser.value(searchOption));
    if (parser.isSet(auditsOption))
        params.insert(QStringLiteral("audits"), true);
    int offset = 0;
    if (parser.isSet(limitOption)) {
        const auto limit = parseCount(parser.value(limitOption), 1, 500);
        if (!limit)
            return usageError(command, QStringLiteral("--limit must be a number from 1 to 500"));
        params.insert(QStringLiteral("limit"), *limit);
    }
    if (parser.isSet(offsetOption)) {
        const auto parsed = parseCount(parser.value(offsetOption), 0, std::numeric_limits<int>::max());
        if (!parsed)
            return usageError(command, QStringLiteral("--offset must be a number, 0 or more"));
        offset = *parsed;
        params.insert(QStringLiteral("offset"), offset);
    }

    DaemonSession session;
    if (auto connected = session.connect(); !connected)
        return reportError(connected.error());
    if (parser.isSet(containerOption)) {
        // The history outlives the containers the daemon holds: an unknown id still filters by itself.
        const QString reference = parser.value(containerOption);
        auto id = session.resolveContainerId(reference);
        if (!id && id.error().code() != "container.not_found")
            return reportError(id.error());
        params.insert(QStringLiteral("container"), id ? *id : reference);
    }
    auto page = session.call(QStringLiteral("history.runs"), params);
    if (!page)
        return reportError(page.error());
    if (parser.isSet(jsonOption)) {
        printJson(*page);
        return 0;
    }
    const QJsonArray runs = page->value(QStringLiteral("runs")).toArray();
    // Runs name their container by id; people know containers by name (ended ones too, while kept).
    QHash<QString, QString> names;
    if (auto listed =
            session.call(QStringLiteral("container.list"), {{QStringLiteral("include_deleted"), true}})) {
        for (const QJsonValue &value : listed->value(QStringLiteral("containers")).toArray())
            names.insert(value.toObject().value(QStringLiteral("id")).toString(),
                         value.toObject().value(QStringLiteral("name")).toString());
    }
    Table table({QStringLiteral("RUN"), QStringLiteral("CONTAINER"), QStringLiteral("STARTED"),
                 QStringLiteral("CLASS"), QStringLiteral("EXIT"), QStringLiteral("WALL"),
                 QStringLiteral("PEAK"), QStringLiteral("CODE")});
    for (const QJsonValue &value : runs) {
        const QJsonObject run = value.toObject();
        const bool ended = run.contains(QStringLiteral("error_class"));
        const QString errorClass = run.value(QStringLiteral("error_class")).toString();
        // The history keeps each run's container name, a deleted container's too.
        const QString containerId = run.value(QStringLiteral("container")).toString();
        const QString name = run.value(QStringLiteral("container_name")).toString();
        table.addRow(
            {run.value(QStringLiteral("id")).toString(),
             escapeName(name.isEmpty() ? names.value(containerId, containerId) : name),
             formatTime(run.value(QStringLiteral("started_at")).toInteger()),
             errorClass.isEmpty() ? run.value(QStringLiteral("state")).toString() : errorClass,
             describeExit(run),
             ended ? formatWall(run.value(QStringLiteral("wall_ms")).toInteger()) : QStringLiteral("-"),
             ended ? formatBytes(run.value(QStringLiteral("peak_memory_bytes")).toInteger())
                   : QStringLiteral("-"),
             describeCode(run)});
    }
    printOut(table.toString());
    const qint64 total = page->value(QStringLiteral("total")).toInteger();
    if (offset + runs.size() < total)
        printErr(QStringLiteral("cordon: runs %1-%2 of %3; --offset %2 shows the next ones\n")
                     .arg(runs.isEmpty() ? offset : offset + 1)
                     .arg(offset + runs.size())
                     .arg(total));
    return 0;
}

} // namespace Cordon::Cli
