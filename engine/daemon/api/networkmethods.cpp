// SPDX-License-Identifier: MIT
// network.*: the organisation's allowlist, checking entries against it, what a container reached, and
// serving a one-shot run's network.
#include "daemon/api/allowlistcheck.h"
#include "daemon/api/listenerreceiver.h"
#include "daemon/api/methodtable.h"
#include "daemon/api/params.h"
#include "daemon/api/wireforms.h"
#include "sandbox/listenerhandoff.h"

#include <QFileInfo>
#include <QJsonArray>

namespace Cordon::Api {

namespace {

Result<QJsonArray> allowedDomains(const QJsonObject &params)
{
    const QJsonValue domains = params.value(QStringLiteral("allowed_domains"));
    if (!domains.isArray())
        return fail(invalidParams(QStringLiteral(
            "`allowed_domains` must be an array of allowlist entries (strings or rule objects)")));
    return domains.toArray();
}

// The list in force, since when, and what is wrong with its file when an edit broke it.
QJsonObject orgPolicyAnswer(ApiContext &context)
{
    QJsonObject answer = orgPolicyToJson(context.manager.orgPolicy());
    const Containers::ContainerManager::OrgPolicyStatus status = context.manager.orgPolicyStatus();
    answer.insert(QStringLiteral("in_force_since"), status.inForceSince);
    if (!status.fileError.isEmpty())
        answer.insert(QStringLiteral("file_error"),
                      QJsonObject{{QStringLiteral("message"), status.fileError},
                                  {QStringLiteral("since"), status.fileErrorSince}});
    return answer;
}

Result<QJsonObject> orgPolicy(ApiContext &context, const QJsonObject &)
{
    return orgPolicyAnswer(context);
}

Result<QJsonObject> reloadOrgPolicy(ApiContext &context, const QJsonObject &)
{
    auto org = context.manager.reloadOrgPolicy();
    if (!org)
        return fail(org.error());
    return orgPolicyToJson(*org);
}

Result<QJsonObject> setOrgPolicy(ApiContext &context, const QJsonObject &params)
{
    auto domains = allowedDomains(params);
    if (!domains)
        return fail(domains.error());
    auto org = context.manager.setOrgPolicy(*domains);
    if (!org)
        return fail(org.error());
    return orgPolicyToJson(*org);
}

Result<QJsonObject> check(ApiContext &context, const QJsonObject &params)
{
    auto domains = allowedDomains(params);
    if (!domains)
        return fail(domains.error());
    auto checked = checkAllowlistEntries(*domains, context.manager.orgPolicy());
    if (!checked)
        return fail(checked.error());
    checked->insert(QStringLiteral("organisation"), orgPolicyToJson(context.manager.orgPolicy()));
    return checked;
}

Result<QJsonObject> summary(ApiContext &context, const QJsonObject &params)
{
    auto container = requireString(params, QStringLiteral("container"));
    if (!container)
        return fail(container.error());
    CORDON_TRY(requireKnownContainer(context, *container));
    auto summary = context.manager.networkSummary(*container);
    if (!summary)
        return fail(summary.error());
    return networkSummaryToJson(*summary);
}

// network.attach_one_shot {container_id, policy, handoff}: the launcher of a `cordon run` with an allowlist
// hands its container's proxy listener over (sandbox/listenerhandoff.h) and the proxy serves it until the
// client's connection closes. Everything the request says is checked before the daemon connects anywhere:
// the policy (strictly, as a file), its allowlist against the organisation's, the id, and the handoff path,
// which must be the id's handoff socket in the daemon's own directory.
void attachOneShot(ApiContext &context, const Daemon::ClientInfo &client, const QJsonObject &params,
                   Respond respond)
{
    auto id = requireString(params, QStringLiteral("container_id"));
    auto handoff = requireString(params, QStringLiteral("handoff"));
    if (!id || !handoff)
        return respond(fail(!id ? id.error() : handoff.error()));
    const QJsonValue policyValue = params.value(QStringLiteral("policy"));
    if (!policyValue.isObject())
        return respond(fail(invalidParams(QStringLiteral("`policy` must be a container policy object"))));
    auto policy = Policy::ContainerPolicy::fromJsonValue(toPlain(policyValue));
    if (!policy)
        return respond(fail(policy.error()));
    const QFileInfo handoffFile(*handoff);
    const QString expectedName = toQt(Handoff::socketName(toPlain(*id)));
    if (!Handoff::isSocketName(toPlain(handoffFile.fileName())) || handoffFile.fileName() != expectedName ||
        !handoffFile.isAbsolute() ||
        handoffFile.absolutePath() != QFileInfo(context.server.path()).absolutePath())
        return respond(fail(invalidParams(
            QStringLiteral("`handoff` must be %1 in the daemon's socket directory, and `container_id` a "
                           "container id")
                .arg(expectedName))));
    if (auto checked = context.manager.checkOneShot(*id, *policy); !checked)
        return respond(fail(checked.error()));
    auto connected = Handoff::connectTo(toPlain(*handoff));
    if (!connected)
        return respond(fail(connected.error()));

    const quint64 connection = client.connectionId;
    ListenerReceiver::start(
        std::move(*connected), client.pid,
        [&context, connection, id = *id, policy = std::move(*policy),
         respond = std::move(respond)](Result<UniqueFd> listener) {
            if (!listener)
                return respond(fail(listener.error()));
            // The launcher may have gone while the descriptor travelled: then there is nothing to serve (the
            // listener closes here) and the answer reaches nobody.
            if (!context.server.isConnected(connection))
                return respond(fail(QStringLiteral("daemon.disconnected"),
                                    QStringLiteral("the client left before its network was attached")));
            auto attached = context.manager.attachOneShot(id, policy, listener->release());
            if (!attached)
                return respond(fail(attached.error()));
            context.oneShotNetworks.insert(connection, id);
            respond(QJsonObject{{QStringLiteral("container_id"), id},
                                {QStringLiteral("policy_version"), *attached}});
        },
        &context.server);
}

// network.detach_one_shot {container_id}: the run has ended; the proxy closes what is still open (each open
// request recorded) and the answer counts every decision, so the launcher's summary is complete. Only the
// connection that attached the network may detach it; closing that connection does the same.
void detachOneShot(ApiContext &context, const Daemon::ClientInfo &client, const QJsonObject &params,
                   Respond respond)
{
    auto id = requireString(params, QStringLiteral("container_id"));
    if (!id)
        return respond(fail(id.error()));
    if (!context.oneShotNetworks.contains(client.connectionId, *id))
        return respond(fail(QStringLiteral("container.not_found"),
                            QStringLiteral("this client serves no one-shot run `%1`").arg(*id)));
    context.oneShotNetworks.remove(client.connectionId, *id);
    context.manager.detachOneShot(*id);
    respond(QJsonObject{
        {QStringLiteral("container_id"), *id},
        {QStringLiteral("network"), networkCountsToJson(context.manager.containerNetworkCounts(*id))}});
}

} // namespace

void addNetworkMethods(MethodTable &table)
{
    table.addForClient(QStringLiteral("network.detach_one_shot"), {QStringLiteral("container_id")},
                       detachOneShot);
    table.addForClient(QStringLiteral("network.attach_one_shot"),
                       {QStringLiteral("container_id"), QStringLiteral("handoff"), QStringLiteral("policy")},
                       attachOneShot);
    table.add(QStringLiteral("network.org_policy"), {}, orgPolicy);
    table.add(QStringLiteral("network.reload_org_policy"), {}, reloadOrgPolicy);
    table.add(QStringLiteral("network.set_org_policy"), {QStringLiteral("allowed_domains")}, setOrgPolicy);
    table.add(QStringLiteral("network.check"), {QStringLiteral("allowed_domains")}, check);
    table.add(QStringLiteral("network.summary"), {QStringLiteral("container")}, summary);
}

} // namespace Cordon::Api
