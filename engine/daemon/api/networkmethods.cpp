// SPDX-License-Identifier: MIT
// network.*: the organisation's allowlist, checking entries against it, and what a container reached.
#include "daemon/api/allowlistcheck.h"
#include "daemon/api/methodtable.h"
#include "daemon/api/params.h"
#include "daemon/api/wireforms.h"

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

Result<QJsonObject> orgPolicy(ApiContext &context, const QJsonObject &)
{
    return orgPolicyToJson(context.manager.orgPolicy());
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
    auto summary = context.manager.networkSummary(*container);
    if (!summary)
        return fail(summary.error());
    return networkSummaryToJson(*summary);
}

} // namespace

void addNetworkMethods(MethodTable &table)
{
    table.add(QStringLiteral("network.org_policy"), orgPolicy);
    table.add(QStringLiteral("network.reload_org_policy"), reloadOrgPolicy);
    table.add(QStringLiteral("network.set_org_policy"), setOrgPolicy);
    table.add(QStringLiteral("network.check"), check);
    table.add(QStringLiteral("network.summary"), summary);
}

} // namespace Cordon::Api
