// SPDX-License-Identifier: MIT
#include "daemoncli.h"

#include "clioutput.h"
#include "commands.h"

#include "daemon/daemonpaths.h"

#include <QCoreApplication>
#include <QJsonDocument>

namespace Cordon::Cli {

namespace {

struct CliHint
{
    const char *code;
    const char *hint;
};

// Advice for the errors the engine's hint table does not cover because they only make sense to someone at
// this command line. Matched by exact code, or by prefix for entries ending in '.'.
constexpr CliHint CliHints[] = {
    {"daemon.unreachable", "Start it with `cordon daemon start` (other commands start it when needed); "
                           "CORDON_SOCKET names a different socket."},
    {"daemon.start_failed", "Run `cordond` in a terminal to see why it does not start; CORDON_DAEMON names "
                            "the program to start."},
    {"daemon.timeout", "cordond is busy or stuck: `cordon daemon status` checks it, `cordon daemon stop` "
                       "and `cordon daemon start` restart it."},
    {"daemon.disconnected", "cordond stopped or restarted: `cordon daemon status` checks it; a run it was "
                            "running shows as interrupted in `cordon history`."},
    {"daemon.already_running", "Only one cordond runs per user: `cordon daemon status` shows it."},
    {"protocol.version", "cordon and cordond come from different builds: restart the daemon with `cordon "
                         "daemon stop`, the next command starts the matching one."},
    {"container.not_found", "`cordon ls --all` lists the containers; give an id, a unique prefix of one, or "
                            "the name of a running or stopped container."},
    {"container.gone", "Its files were removed when it expired or was deleted; `cordon create` makes a new "
                       "container."},
    {"container.not_running", "Start it with `cordon start ID`; its files are still there."},
    {"container.limit", "`cordon ls` shows them: stop (`cordon stop ID`) or remove (`cordon rm ID`) one."},
    {"run.limit", "Wait for one of the container's runs to end; `cordon history --container ID` lists them."},
    {"run.not_found", "`cordon history` lists the runs and their ids."},
    {"cli.ambiguous", "Give the full id, or more of it: `cordon ls --all` shows them."},
};

QString cliHint(const QString &code)
{
    for (const CliHint &entry : CliHints) {
        const QLatin1String prefix(entry.code);
        if (prefix.endsWith(QLatin1Char('.')) ? code.startsWith(prefix) : code == prefix)
            return QString::fromUtf8(entry.hint);
    }
    return {};
}

bool isLiveState(const QJsonObject &container)
{
    const QString state = container.value(QStringLiteral("state")).toString();
    return state == QLatin1String("running") || state == QLatin1String("stopped");
}

} // namespace

std::optional<int> parseCommandLine(QCommandLineParser &parser, const QStringList &arguments,
                                    const QString &command)
{
    if (!parser.parse(arguments))
        return usageError(command, parser.errorText());
    if (parser.isSet(QStringLiteral("help"))) {
        // QCommandLineParser names the executable's path in its usage line; the user typed a subcommand.
        QString text = parser.helpText();
        const QString generated = QStringLiteral("Usage: ") + QCoreApplication::arguments().constFirst();
        if (text.startsWith(generated))
            text.replace(0, generated.size(), QStringLiteral("Usage: ") + command);
        printOut(text);
        return 0;
    }
    return std::nullopt;
}

int usageError(const QString &command, const QString &message)
{
    printErr(QStringLiteral("%1: %2\nTry `%1 --help`.\n").arg(command, message));
    return UsageError;
}

bool isUnreachable(const Error &error)
{
    static const QStringList codes = {
        QStringLiteral("daemon.unreachable"),      QStringLiteral("daemon.start_failed"),
        QStringLiteral("daemon.timeout"),          QStringLiteral("daemon.disconnected"),
        QStringLiteral("daemon.too_many_clients"), QStringLiteral("protocol.version"),
    };
    return codes.contains(error.code());
}

int reportError(const Error &error)
{
    printError(error);
    if (error.hint().isEmpty()) {
        const QString hint = cliHint(error.code());
        if (!hint.isEmpty())
            printErr(QStringLiteral("cordon: hint: %1\n").arg(hint));
    }
    return isUnreachable(error) ? SetupFailure : 1;
}

void printJson(const QJsonObject &object)
{
    printOut(QString::fromUtf8(QJsonDocument(object).toJson(QJsonDocument::Indented)));
}

void printJson(const QJsonArray &array)
{
    printOut(QString::fromUtf8(QJsonDocument(array).toJson(QJsonDocument::Indented)));
}

QString stripSlashes(QString path)
{
    while (path.endsWith(QLatin1Char('/')))
        path.chop(1);
    while (path.startsWith(QLatin1Char('/')))
        path.remove(0, 1);
    return path;
}

ContainerPath parseContainerPath(const QString &text)
{
    const QString mount = QStringLiteral("/mnt/data");
    QString path = text;
    const bool absolute = path == mount || path.startsWith(mount + QLatin1Char('/'));
    if (absolute)
        path = path.mid(mount.size());
    path = stripSlashes(path);
    QStringList scopes = {QStringLiteral("outputs"), QStringLiteral("inputs")};
    if (!absolute)
        scopes.append(QStringLiteral("workspace"));
    for (const QString &scope : std::as_const(scopes)) {
        if (path == scope)
            return {scope, QString()};
        if (path.startsWith(scope + QLatin1Char('/')))
            return {scope, stripSlashes(path.mid(scope.size() + 1))};
    }
    return {absolute ? QStringLiteral("workspace") : QStringLiteral("outputs"), path};
}

Result<> DaemonSession::connect(bool autoStart)
{
    m_client.setClientName(QStringLiteral("cordon"));
    // Longer than the client's own start-up wait, so that its more precise error is the one reported.
    auto connected = m_client.connectSync(autoStart, Daemon::DaemonClient::StartWaitMs +
                                                         Daemon::DaemonClient::HelloTimeoutMs + 1000);
    // "start `cordond`: execv: ..." alone does not say why anything was started.
    const QString path = Daemon::socketPath();
    if (!connected && connected.error().code() == QLatin1String("daemon.start_failed") &&
        !connected.error().message().contains(path))
        return fail(connected.error().wrap(
            QStringLiteral("no cordond is listening on `%1`, and starting one failed").arg(path)));
    return connected;
}

Result<QJsonObject> DaemonSession::call(const QString &method, const QJsonObject &params, int timeoutMs)
{
    return m_client.callSync(method, params, timeoutMs);
}

Result<QJsonObject> DaemonSession::resolveContainer(const QString &reference)
{
    if (reference.isEmpty())
        return fail(QStringLiteral("cli.usage"), QStringLiteral("an empty container id"));
    auto listed = call(QStringLiteral("container.list"), {{QStringLiteral("include_deleted"), true}});
    if (!listed)
        return fail(listed.error());
    // Like docker: an exact id, then the name of a live container, then an id prefix (live ones first).
    QList<QJsonObject> named;
    QList<QJsonObject> livePrefix;
    QList<QJsonObject> endedPrefix;
    for (const QJsonValue &value : listed->value(QStringLiteral("containers")).toArray()) {
        const QJsonObject container = value.toObject();
        const QString id = container.value(QStringLiteral("id")).toString();
        if (id == reference)
            return container;
        const bool live = isLiveState(container);
        if (live && container.value(QStringLiteral("name")).toString() == reference)
            named.append(container);
        if (id.startsWith(reference))
            (live ? livePrefix : endedPrefix).append(container);
    }
    const QList<QJsonObject> &matches = !named.isEmpty()        ? named
                                        : !livePrefix.isEmpty() ? livePrefix
                                                                : endedPrefix;
    if (matches.size() == 1)
        return matches.first();
    if (matches.size() > 1) {
        QStringList names;
        for (const QJsonObject &container : matches)
            names.append(QStringLiteral("%1 (%2, %3)")
                             .arg(container.value(QStringLiteral("id")).toString(),
                                  container.value(QStringLiteral("name")).toString(),
                                  container.value(QStringLiteral("state")).toString()));
        return fail(QStringLiteral("cli.ambiguous"), QStringLiteral("`%1` matches %2 containers: %3")
                                                         .arg(reference)
                                                         .arg(matches.size())
                                                         .arg(names.join(QStringLiteral(", "))));
    }
    // Nothing matched: the daemon words the refusal, so every client reports it the same way.
    auto container = call(QStringLiteral("container.get"), {{QStringLiteral("id"), reference}});
    if (!container)
        return fail(container.error());
    return container->value(QStringLiteral("container")).toObject();
}

Result<QString> DaemonSession::resolveContainerId(const QString &reference)
{
    auto container = resolveContainer(reference);
    if (!container)
        return fail(container.error());
    return container->value(QStringLiteral("id")).toString();
}

} // namespace Cordon::Cli
