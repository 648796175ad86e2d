// SPDX-License-Identifier: MIT
// cordon events: what cordond recorded (containers created, expired, runs started, files moved, ...), oldest
// first; with --follow, new events as they happen until Ctrl-C.
#include "cliformat.h"
#include "clioutput.h"
#include "commands.h"
#include "daemoncli.h"

#include "core/eventwords.h"
#include "core/formatting.h"

#include "daemon/lite/signalpipe.h"

#include <QEventLoop>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSocketNotifier>

#include <csignal>
#include <cstdio>
#include <fcntl.h>
#include <unistd.h>

namespace Cordon::Cli {

namespace {

bool kindMatches(const QString &kind, const QString &filter)
{
    if (filter.isEmpty())
        return true;
    return filter.endsWith(QLatin1Char('.')) ? kind.startsWith(filter) : kind == filter;
}

QString eventLine(const QJsonObject &event, bool json)
{
    if (json)
        return QString::fromUtf8(QJsonDocument(event).toJson(QJsonDocument::Compact)) + QLatin1Char('\n');
    const QString container = event.value(QStringLiteral("container")).toString();
    const QString run = event.value(QStringLiteral("run_id")).toString();
    const QString line = QStringLiteral("%1  %2  %3  %4  %5")
                             .arg(formatTime(event.value(QStringLiteral("at")).toInteger()))
                             .arg(event.value(QStringLiteral("kind")).toString(), -24)
                             .arg(container.isEmpty() ? QStringLiteral("-") : Format::shortId(container), -9)
                             .arg(run.isEmpty() ? QStringLiteral("-") : run, -16)
                             .arg(EventWords::describe(event));
    return line.trimmed() + QLatin1Char('\n');
}

QString headerLine()
{
    return QStringLiteral("%1  %2  %3  %4  WHAT HAPPENED\n")
        .arg(QStringLiteral("TIME"), -19)
        .arg(QStringLiteral("KIND"), -24)
        .arg(QStringLiteral("CONTAINER"), -9)
        .arg(QStringLiteral("RUN"), -16);
}

// With SIGPIPE ignored, a closed stdout (`cordon events --follow | head`) shows up as a failed write; then
// there is nobody left to follow for.
bool writeOut(const QString &text)
{
    const QByteArray bytes = text.toUtf8();
    return std::fwrite(bytes.constData(), 1, static_cast<size_t>(bytes.size()), stdout) ==
               static_cast<size_t>(bytes.size()) &&
           std::fflush(stdout) == 0;
}

} // namespace

int eventsCommand(const QStringList &arguments)
{
    const QString command = QStringLiteral("cordon events");
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("List recorded events, oldest first: container.created, "
                                                    "container.expired, run.started, run.finished,\n"
                                                    "file.uploaded, ... With --follow, keep printing new "
                                                    "ones until Ctrl-C (with --json: one JSON object\n"
                                                    "per line)."));
    parser.addHelpOption();
    const QCommandLineOption containerOption(
        QStringLiteral("container"), QStringLiteral("Only this container's events."), QStringLiteral("ID"));
    const QCommandLineOption kindOption(
        QStringLiteral("kind"),
        QStringLiteral("Only this kind; a trailing dot matches a family (container.)."),
        QStringLiteral("kind"));
    const QCommandLineOption runOption(QStringLiteral("run"), QStringLiteral("Only this run's events."),
                                       QStringLiteral("RUN_ID"));
    const QCommandLineOption limitOption(QStringLiteral("limit"),
                                         QStringLiteral("The N most recent events, 1-500 (default 100)."),
                                         QStringLiteral("N"));
    const QCommandLineOption followOption(QStringList{QStringLiteral("f"), QStringLiteral("follow")},
                                          QStringLiteral("Keep printing new events until interrupted."));
    const QCommandLineOption jsonOption(
        QStringLiteral("json"), QStringLiteral("Print the daemon's result (events and total) as JSON."));
    const QCommandLineOption auditsOption(
        QStringLiteral("audits"),
        QStringLiteral("Also list the events of the containers Go/No-Go audits made (left out otherwise)."));
    parser.addOptions(
        {containerOption, kindOption, runOption, auditsOption, limitOption, followOption, jsonOption});
    if (auto done = parseCommandLine(parser, arguments, command))
        return *done;
    if (!parser.positionalArguments().isEmpty())
        return usageError(
            command, QStringLiteral("unexpected argument `%1`").arg(parser.positionalArguments().first()));
    QJsonObject params;
    const QString kind = parser.value(kindOption);
    if (!kind.isEmpty())
        params.insert(QStringLiteral("kind"), kind);
    const QString runId = parser.value(runOption);
    if (!runId.isEmpty())
        params.insert(QStringLiteral("run_id"), runId);
    if (parser.isSet(auditsOption))
        params.insert(QStringLiteral("audits"), true);
    if (parser.isSet(limitOption)) {
        bool ok = false;
        const int limit = parser.value(limitOption).toInt(&ok);
        if (!ok || limit < 1 || limit > 500)
            return usageError(command, QStringLiteral("--limit must be a number from 1 to 500"));
        params.insert(QStringLiteral("limit"), limit);
    }
    const bool follow = parser.isSet(followOption);
    const bool json = parser.isSet(jsonOption);

    DaemonSession session;
    if (auto connected = session.connect(); !connected)
        return reportError(connected.error());
    QString containerId;
    if (parser.isSet(containerOption)) {
        const QString reference = parser.value(containerOption);
        auto id = session.resolveContainerId(reference);
        if (!id && id.error().code() != "container.not_found")
            return reportError(id.error());
        containerId = id ? *id : reference;
        params.insert(QStringLiteral("container"), containerId);
    }

    // Following: subscribe before reading the history, and drop pushed events the history already showed,
    // so that nothing falls into the gap between the two.
    QList<QJsonObject> pushed;
    bool stdoutGone = false;
    qint64 lastShown = -1;
    auto show = [&](const QJsonObject &event) {
        const qint64 id = event.value(QStringLiteral("id")).toInteger();
        if (id <= lastShown || stdoutGone)
            return;
        if (!kindMatches(event.value(QStringLiteral("kind")).toString(), kind) ||
            (!runId.isEmpty() && event.value(QStringLiteral("run_id")).toString() != runId))
            return;
        lastShown = id;
        stdoutGone = !writeOut(eventLine(event, json));
    };
    bool live = false;
    if (follow) {
        QObject::connect(&session.client(), &Daemon::DaemonClient::eventReceived, &session.client(),
                         [&](const QString &name, const QJsonObject &data) {
                             if (name != QLatin1String("event"))
                                 return;
                             if (live)
                                 show(data);
                             else
                                 pushed.append(data);
                         });
        QJsonObject subscribe{{QStringLiteral("topics"), QJsonArray{QStringLiteral("events")}}};
        if (!containerId.isEmpty())
            subscribe.insert(QStringLiteral("container"), containerId);
        if (auto subscribed = session.call(QStringLiteral("subscribe"), subscribe); !subscribed)
            return reportError(subscribed.error());
    }
    auto page = session.call(QStringLiteral("history.events"), params);
    if (!page)
        return reportError(page.error());
    const QJsonArray newestFirst = page->value(QStringLiteral("events")).toArray();
    if (json && !follow) {
        printJson(*page);
        return 0;
    }
    if (!json && !writeOut(headerLine()))
        return 0;
    for (qsizetype i = newestFirst.size() - 1; i >= 0; --i)
        show(newestFirst.at(i).toObject());
    if (!follow)
        return 0;
    live = true;
    for (const QJsonObject &event : std::as_const(pushed))
        show(event);
    pushed.clear();

    const int stopPipe = Lite::interruptSignalPipe();
    if (stopPipe < 0)
        return reportError(errnoError(QStringLiteral("cli.io"), QStringLiteral("pipe"), errno));
    QEventLoop loop;
    QSocketNotifier stopNotifier(stopPipe, QSocketNotifier::Read);
    QObject::connect(&stopNotifier, &QSocketNotifier::activated, &loop, &QEventLoop::quit);
    std::optional<Error> lost;
    QObject::connect(&session.client(), &Daemon::DaemonClient::disconnected, &loop, [&] {
        lost =
            makeError(QStringLiteral("daemon.disconnected"), QStringLiteral("cordond closed the connection"));
        loop.quit();
    });
    // A closed stdout is noticed on the next write; the check keeps the loop from outliving its reader.
    QObject::connect(&session.client(), &Daemon::DaemonClient::eventReceived, &loop, [&] {
        if (stdoutGone)
            loop.quit();
    });
    if (!stdoutGone)
        loop.exec();
    if (lost)
        return reportError(*lost);
    return 0;
}

} // namespace Cordon::Cli
