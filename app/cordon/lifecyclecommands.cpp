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
};

constexpr LifecycleCommand Stop{
    "stop", "container.stop",
    "Stop containers: every process inside ends (runs finish as killed), the files stay, and `cordon start`\n"
    "brings the container back with them. A stopped container still expires (its files are removed) once\n"
    "it has been idle for its policy's expires_after.minutes."};
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
    parser.addPositionalArgument(QStringLiteral("id"),
                                 QStringLiteral("Containers: ids, unique id prefixes or names."),
                                 QStringLiteral("ID..."));
    if (auto done = parseCommandLine(parser, arguments, command))
        return *done;
    const QStringList references = parser.positionalArguments();
    if (references.isEmpty())
        return usageError(command, QStringLiteral("give at least one container id"));

    const QString method = QLatin1String(which.method);
    return actOnContainers(
        references, parser.isSet(jsonOption),
        [&method](DaemonSession &session, const QJsonObject &container) {
            return session.call(method, {{QStringLiteral("id"), container.value(QStringLiteral("id"))}});
        },
        [](const QJsonObject &result) {
            return describeState(result.value(QStringLiteral("container")).toObject());
        });
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
