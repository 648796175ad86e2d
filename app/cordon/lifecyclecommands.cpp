// SPDX-License-Identifier: MIT
// cordon stop | start | keepalive ID...: one container method each, the same shape: print the state and
// when the container now expires.
#include "cliformat.h"
#include "clioutput.h"
#include "commands.h"
#include "daemoncli.h"

#include <QDateTime>

namespace Cordon::Cli {

namespace {

struct LifecycleCommand
{
    const char *name;
    const char *method;
    const char *description;
    bool savesFiles = false; // stop: waits for the save, and says how it went
};

constexpr LifecycleCommand Stop{
    "stop", "container.stop",
    "Stop containers: every process inside ends (runs finish as killed), the files are saved, and `cordon\n"
    "start` brings the container back with them. It returns once they are saved (--no-wait: at once,\n"
    "while they are being saved). A stopped container still expires (its files are removed) once it has\n"
    "been idle for its policy's expires_after.minutes.",
    true};
constexpr LifecycleCommand Start{"start", "container.start",
                                 "Start stopped containers again, with the files they had."};
constexpr LifecycleCommand KeepAlive{
    "keepalive", "container.keepalive",
    "Count now as activity, so that containers expire a full idle period from now."};

QString describeState(const QJsonObject &container)
{
    const QString state = container.value(QStringLiteral("state")).toString();
    const qint64 expiresAt = container.value(QStringLiteral("expires_at")).toInteger();
    QString text = QStringLiteral("%1 %2").arg(container.value(QStringLiteral("id")).toString(), state);
    if (expiresAt > 0)
        text +=
            QStringLiteral(", expires in %1 (%2)")
                .arg(describeExpiry(container, QDateTime::currentMSecsSinceEpoch()), formatTime(expiresAt));
    return text + QLatin1Char('\n');
}

// What a stop did with the files, and until when they are kept: said only as the daemon reported it.
QString describeStop(const QJsonObject &result, bool &failed)
{
    const QJsonObject container = result.value(QStringLiteral("container")).toObject();
    const QJsonObject save = result.value(QStringLiteral("save")).toObject();
    const QString state = save.value(QStringLiteral("state")).toString();
    const QString id = container.value(QStringLiteral("id")).toString();
    const qint64 expiresAt = container.value(QStringLiteral("expires_at")).toInteger();
    const QString until =
        expiresAt > 0
            ? QStringLiteral(" until %1 (%2 from now, unless it is started or kept alive)")
                  .arg(formatTime(expiresAt), describeExpiry(container, QDateTime::currentMSecsSinceEpoch()))
            : QString();
    if (state == QLatin1String("saving"))
        return QStringLiteral("%1 stopped; saving its files\n").arg(id);
    if (state == QLatin1String("failed")) {
        failed = true;
        return QStringLiteral(
                   "%1 stopped; its files could NOT be saved (%2): they are kept in memory while the "
                   "daemon runs; free space where Cordon keeps its data, then `cordon start %1`\n")
            .arg(id, save.value(QStringLiteral("error")).toString());
    }
    if (state == QLatin1String("saved"))
        return QStringLiteral("%1 stopped; its files are kept (%2 files, %3)%4\n")
            .arg(id)
            .arg(save.value(QStringLiteral("files")).toInteger())
            .arg(formatBytes(save.value(QStringLiteral("bytes")).toInteger()), until);
    return QStringLiteral("%1 stopped; its files are kept%2\n").arg(id, until);
}

int runLifecycle(const LifecycleCommand &which, const QStringList &arguments)
{
    const QString command = QStringLiteral("cordon ") + QLatin1String(which.name);
    QCommandLineParser parser;
    parser.setApplicationDescription(QString::fromUtf8(which.description));
    parser.addHelpOption();
    const QCommandLineOption jsonOption(
        QStringLiteral("json"),
        QStringLiteral("Print the daemon's result (the container) as JSON; an array for several ids."));
    parser.addOption(jsonOption);
    const QCommandLineOption noWaitOption(QStringLiteral("no-wait"),
                                          QStringLiteral("Return at once, while the files are being saved."));
    if (which.savesFiles)
        parser.addOption(noWaitOption);
    parser.addPositionalArgument(QStringLiteral("id"),
                                 QStringLiteral("Containers: ids, unique id prefixes or names."),
                                 QStringLiteral("ID..."));
    if (auto done = parseCommandLine(parser, arguments, command))
        return *done;
    const QStringList references = parser.positionalArguments();
    if (references.isEmpty())
        return usageError(command, QStringLiteral("give at least one container id"));

    const QString method = QLatin1String(which.method);
    const bool waitForSave = which.savesFiles && !parser.isSet(noWaitOption);
    bool saveFailed = false;
    const int status = actOnContainers(
        references, parser.isSet(jsonOption),
        [&](DaemonSession &session, const QJsonObject &container) {
            QJsonObject params{{QStringLiteral("id"), container.value(QStringLiteral("id"))}};
            if (which.savesFiles)
                params.insert(QStringLiteral("wait_for_save"), waitForSave);
            // A save of a large workspace takes seconds.
            return session.call(method, params, which.savesFiles ? 600000 : 60000);
        },
        [&](const QJsonObject &result) {
            return which.savesFiles ? describeStop(result, saveFailed)
                                    : describeState(result.value(QStringLiteral("container")).toObject());
        });
    return status == 0 && saveFailed ? 1 : status;
}

} // namespace

int stopCommand(const QStringList &arguments)
{
    return runLifecycle(Stop, arguments);
}

int startCommand(const QStringList &arguments)
{
    return runLifecycle(Start, arguments);
}

int keepaliveCommand(const QStringList &arguments)
{
    return runLifecycle(KeepAlive, arguments);
}

} // namespace Cordon::Cli
