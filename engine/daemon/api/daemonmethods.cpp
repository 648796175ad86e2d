// SPDX-License-Identifier: MIT
// daemon.*: the daemon's own state.
#include "core/plainbridge.h"
#include "daemon/api/methodtable.h"
#include "daemon/api/params.h"
#include "sandbox/workspace.h"

#include <QCoreApplication>
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
    CORDON_TRY(context.manager.setTimeScale(scale.toDouble()));
    context.server.setHelloExtras({{QStringLiteral("time_scale"), context.manager.timeScale()}});
    return QJsonObject{{QStringLiteral("time_scale"), context.manager.timeScale()}};
}

// Answers first, then stops: the client learns the request was taken before its connection closes.
void shutdown(ApiContext &context, const QJsonObject &, Respond respond)
{
    respond(QJsonObject{});
    if (context.requestShutdown)
        context.requestShutdown();
}

} // namespace

void addDaemonMethods(MethodTable &table)
{
    table.add(QStringLiteral("daemon.status"), {}, status);
    table.add(QStringLiteral("daemon.set_time_scale"), {QStringLiteral("scale")}, setTimeScale);
    table.addDeferred(QStringLiteral("daemon.shutdown"), {}, shutdown);
}

} // namespace Cordon::Api
