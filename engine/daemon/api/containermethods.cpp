// SPDX-License-Identifier: MIT
// container.* and memory.processes: a container's life and what runs in it.
#include "daemon/api/methodtable.h"
#include "daemon/api/params.h"
#include "daemon/api/wireforms.h"
#include "sandbox/policy/containerpolicy.h"

#include <QJsonArray>

namespace Cordon::Api {

namespace {

using Containers::ContainerManager;

// The methods that take a container id and answer with the container.
template<typename Call> MethodTable::Handler containerCall(Call call)
{
    return [call](ApiContext &context, const QJsonObject &params) -> Result<QJsonObject> {
        auto id = requireString(params, QStringLiteral("id"));
        if (!id)
            return fail(id.error());
        auto container = (context.manager.*call)(*id);
        if (!container)
            return fail(container.error());
        return wrap(QStringLiteral("container"), containerToJson(*container));
    };
}

Result<QJsonObject> create(ApiContext &context, const QJsonObject &params)
{
    const QJsonValue policyValue = params.value(QStringLiteral("policy"));
    if (!policyValue.isUndefined() && !policyValue.isObject())
        return fail(invalidParams(QStringLiteral("`policy` must be an object")));
    QJsonObject policyObject = policyValue.toObject();
    // A policy without a name is named here, where "not given" can still be told from the default.
    if (!policyObject.contains(QStringLiteral("name")))
        policyObject.insert(QStringLiteral("name"), context.manager.unusedName());
    auto policy = Policy::ContainerPolicy::fromJsonValue(toPlain(policyObject));
    if (!policy)
        return fail(policy.error());
    auto origin = optionalOrigin(params);
    if (!origin)
        return fail(origin.error());
    auto demo = optionalBool(params, QStringLiteral("demo"));
    if (!demo)
        return fail(demo.error());
    auto container = context.manager.create(*policy, {*demo, *origin});
    if (!container)
        return fail(container.error());
    return wrap(QStringLiteral("container"), containerToJson(*container));
}

// A demo follows the demo clock (daemon.set_time_scale); taking the mark away puts it back on real time.
Result<QJsonObject> setDemo(ApiContext &context, const QJsonObject &params)
{
    auto id = requireString(params, QStringLiteral("id"));
    if (!id)
        return fail(id.error());
    const QJsonValue demo = params.value(QStringLiteral("demo"));
    if (!demo.isBool())
        return fail(invalidParams(QStringLiteral("`demo` must be true or false")));
    auto container = context.manager.setDemo(*id, demo.toBool());
    if (!container)
        return fail(container.error());
    return wrap(QStringLiteral("container"), containerToJson(*container));
}

Result<QJsonObject> list(ApiContext &context, const QJsonObject &params)
{
    auto includeDeleted = optionalBool(params, QStringLiteral("include_deleted"));
    if (!includeDeleted)
        return fail(includeDeleted.error());
    return QJsonObject{
        {QStringLiteral("containers"), containersToJson(context.manager.list(*includeDeleted))}};
}

Result<QJsonObject> updateNetwork(ApiContext &context, const QJsonObject &params)
{
    auto id = requireString(params, QStringLiteral("id"));
    if (!id)
        return fail(id.error());
    const QJsonValue given = params.value(QStringLiteral("network_policy"));
    auto network = Policy::NetworkPolicy::fromJson(toPlain(given), "network_policy");
    if (!network)
        return fail(network.error());
    const bool keepDomainSecrets = !given.toObject().contains(QStringLiteral("domain_secrets"));
    auto container = context.manager.updateNetwork(*id, std::move(*network), keepDomainSecrets);
    if (!container)
        return fail(container.error());
    return wrap(QStringLiteral("container"), containerToJson(*container));
}

// With wait_for_save, the answer comes once the files are saved, and says how that went: a client may then
// say "its files are kept" and be right.
void stop(ApiContext &context, const QJsonObject &params, Respond respond)
{
    auto id = requireString(params, QStringLiteral("id"));
    auto wait = optionalBool(params, QStringLiteral("wait_for_save"));
    if (!id || !wait)
        return respond(fail(!id ? id.error() : wait.error()));
    auto container = context.manager.stop(*id);
    if (!container)
        return respond(fail(container.error()));
    QJsonObject answer = wrap(QStringLiteral("container"), containerToJson(*container));
    if (!*wait) {
        answer.insert(QStringLiteral("save"),
                      QJsonObject{{QStringLiteral("state"), QStringLiteral("saving")}});
        return respond(answer);
    }
    context.manager.afterSave(*id, [answer, respond](const Containers::WorkspaceSave *save) mutable {
        answer.insert(QStringLiteral("save"), saveToJson(save));
        respond(answer);
    });
}

Result<QJsonObject> processes(ApiContext &context, const QJsonObject &params)
{
    auto container = requireString(params, QStringLiteral("container"));
    if (!container)
        return fail(container.error());
    auto processes = context.manager.processes(*container);
    if (!processes)
        return fail(processes.error());
    return QJsonObject{{QStringLiteral("processes"), processesToJson(*processes)}};
}

} // namespace

void addContainerMethods(MethodTable &table)
{
    table.add(QStringLiteral("container.create"),
              {QStringLiteral("policy"), QStringLiteral("demo"), QStringLiteral("origin")}, create);
    table.add(QStringLiteral("container.set_demo"), {QStringLiteral("id"), QStringLiteral("demo")}, setDemo);
    table.add(QStringLiteral("container.list"), {QStringLiteral("include_deleted")}, list);
    table.add(QStringLiteral("container.get"), {QStringLiteral("id")}, containerCall(&ContainerManager::get));
    table.addDeferred(QStringLiteral("container.stop"),
                      {QStringLiteral("id"), QStringLiteral("wait_for_save")}, stop);
    table.add(QStringLiteral("container.start"), {QStringLiteral("id")},
              containerCall(&ContainerManager::start));
    table.add(QStringLiteral("container.delete"), {QStringLiteral("id")},
              containerCall(&ContainerManager::remove));
    table.add(QStringLiteral("container.keepalive"), {QStringLiteral("id")},
              containerCall(&ContainerManager::keepAlive));
    table.add(QStringLiteral("container.update_network"),
              {QStringLiteral("id"), QStringLiteral("network_policy")}, updateNetwork);
    table.add(QStringLiteral("memory.processes"), {QStringLiteral("container")}, processes);
}

} // namespace Cordon::Api
