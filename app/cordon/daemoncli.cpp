// SPDX-License-Identifier: MIT
#include "daemoncli.h"

#include "core/plainbridge.h"

#include "clioutput.h"
#include "commands.h"

#include "daemon/daemonpaths.h"
#include "daemon/lite/containerref.h"
#include "daemon/lite/runreport.h"

#include <QCoreApplication>
#include <QJsonDocument>

namespace Cordon::Cli {

bool isUnreachable(const Error &error)
{
    return Lite::isUnreachableCode(error.code());
}

int reportError(const Error &error)
{
    // The engine's advice first, then the command line's own (both tables are shared with the launcher).
    std::string_view hint = error.hint();
    if (hint.empty())
        hint = Lite::cliHint(error.code());
    printErr(QString::fromStdString(Lite::errorReport(error.message(), hint)));
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
    if (!connected && connected.error().code() == "daemon.start_failed" &&
        !toQt(connected.error().message()).contains(path))
        return fail(connected.error().wrap(
            toPlain(QStringLiteral("no cordond is listening on `%1`, and starting one failed").arg(path))));
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
    // The rules are shared with the Qt-free `cordon exec` (daemon/lite/containerref.h).
    if (Lite::isFullContainerId(reference.toStdString())) {
        auto exact = call(QStringLiteral("container.get"), {{QStringLiteral("id"), reference}});
        if (exact)
            return exact->value(QStringLiteral("container")).toObject();
    }
    auto listed = call(QStringLiteral("container.list"), {{QStringLiteral("include_deleted"), true}});
    if (!listed)
        return fail(listed.error());
    const QJsonArray containers = listed->value(QStringLiteral("containers")).toArray();
    const std::vector<std::size_t> indexes = Lite::matchContainers(
        toPlain(QJsonObject{{QStringLiteral("containers"), containers}})["containers"].items(),
        reference.toStdString());
    if (indexes.size() == 1)
        return containers.at(static_cast<qsizetype>(indexes.front())).toObject();
    if (indexes.size() > 1) {
        QStringList names;
        for (const std::size_t index : indexes) {
            const QJsonObject container = containers.at(static_cast<qsizetype>(index)).toObject();
            names.append(QStringLiteral("%1 (%2, %3)")
                             .arg(container.value(QStringLiteral("id")).toString(),
                                  container.value(QStringLiteral("name")).toString(),
                                  container.value(QStringLiteral("state")).toString()));
        }
        return fail(QStringLiteral("cli.ambiguous"), QStringLiteral("`%1` matches %2 containers: %3")
                                                         .arg(reference)
                                                         .arg(indexes.size())
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

int actOnContainers(const QStringList &references, bool json, const ContainerAction &act,
                    const std::function<QString(const QJsonObject &result)> &describe)
{
    DaemonSession session;
    if (auto connected = session.connect(); !connected)
        return reportError(connected.error());
    int status = 0;
    QJsonArray results;
    for (const QString &reference : references) {
        auto container = session.resolveContainer(reference);
        auto result =
            container ? act(session, *container) : Result<QJsonObject>(tl::unexpected(container.error()));
        if (!result) {
            status = reportError(result.error());
            if (isUnreachable(result.error()))
                return status;
            continue;
        }
        if (json)
            results.append(*result);
        else
            printOut(describe(*result));
    }
    if (json) {
        if (references.size() == 1 && results.size() == 1)
            printJson(results.first().toObject());
        else
            printJson(results);
    }
    return status;
}

} // namespace Cordon::Cli
