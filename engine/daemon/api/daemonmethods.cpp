// SPDX-License-Identifier: MIT
// daemon.*: the daemon's own state.
#include "core/plainbridge.h"
#include "daemon/api/methodtable.h"
#include "daemon/api/params.h"
#include "daemon/api/wireforms.h"
#include "sandbox/workspace.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QMetaObject>

#include <unistd.h>

namespace Cordon::Api {

namespace {

Result<QJsonObject> status(ApiContext &context, const QJsonObject &)
{
    QJsonObject counts;
    const QHash<QString, int> byState = context.manager.countByState();
    for (auto it = byState.cbegin(); it != byState.cend(); ++it)
        counts.insert(it.key(), it.value());
    return QJsonObject{{QStringLiteral("pid"), static_cast<qint64>(::getpid())},
                       {QStringLiteral("uptime_s"), context.uptime.elapsed() / 1000},
                       {QStringLiteral("time_scale"), context.manager.timeScale()},
                       {QStringLiteral("containers"), counts},
                       {QStringLiteral("cgroup"), context.manager.cgroupDescription()},
                       {QStringLiteral("data_dir"), toQt(Containers::dataDirectory())},
                       {QStringLiteral("version"), QCoreApplication::applicationVersion()}};
}

Result<QJsonObject> setTimeScale(ApiContext &context, const QJsonObject &params)
{
    const QJsonValue scale = params.value(QStringLiteral("scale"));
    if (!scale.isDouble())
        return fail(invalidParams(QStringLiteral("`scale` must be a number between 1 and 3600")));
    // Which running or stopped containers on real time join the new clock: only those named.
    const QJsonValue named = params.value(QStringLiteral("containers"));
    QStringList containers;
    if (!named.isUndefined() && !named.isArray())
        return fail(invalidParams(QStringLiteral("`containers` must be an array of container ids")));
    for (const QJsonValue &id : named.toArray()) {
        if (!id.isString())
            return fail(invalidParams(QStringLiteral("`containers` must be an array of container ids")));
        CORDON_TRY(requireKnownContainer(context, id.toString()));
        containers.append(id.toString());
    }
    CORDON_TRY(context.manager.setTimeScale(scale.toDouble(), containers));
    context.server.setHelloExtras({{QStringLiteral("time_scale"), context.manager.timeScale()}});
    return QJsonObject{{QStringLiteral("time_scale"), context.manager.timeScale()}};
}

// Stops every container and waits for their saves, answers with what became of each one's files (so that
// the client says "kept" only of files that were saved), then stops. With `leave_running` (a restart, for
// an upgrade) nothing is stopped: each running container is checkpointed, and the next daemon adopts it.
void shutdown(ApiContext &context, const QJsonObject &params, Respond respond)
{
    const QJsonValue leave = params.value(QStringLiteral("leave_running"));
    if (!leave.isUndefined() && !leave.isBool()) {
        respond(fail(invalidParams(QStringLiteral("`leave_running` must be true or false"))));
        return;
    }
    const bool leaveRunning = leave.toBool(false);
    QJsonArray containers;
    const auto reports = leaveRunning ? context.manager.leaveRunning() : context.manager.shutdown();
    for (const Containers::ContainerManager::ShutdownReport &report : reports) {
        const Containers::WorkspaceSave *save = report.saved ? &*report.saved : nullptr;
        containers.append(QJsonObject{{QStringLiteral("id"), report.id},
                                      {QStringLiteral("name"), report.name},
                                      {QStringLiteral("expires_at"), report.expiresAt},
                                      {QStringLiteral("save"), saveToJson(save)}});
    }
    respond(QJsonObject{{QStringLiteral("containers"), containers},
                        {QStringLiteral("left_running"), leaveRunning}});
    if (context.requestShutdown)
        context.requestShutdown(leaveRunning);
}

} // namespace

void addDaemonMethods(MethodTable &table)
{
    table.add(QStringLiteral("daemon.status"), {}, status);
    table.add(QStringLiteral("daemon.set_time_scale"),
              {QStringLiteral("scale"), QStringLiteral("containers")}, setTimeScale);
    table.addDeferred(QStringLiteral("daemon.shutdown"), {QStringLiteral("leave_running")}, shutdown);
}

} // namespace Cordon::Api
