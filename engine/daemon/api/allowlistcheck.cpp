// SPDX-License-Identifier: MIT
#include "daemon/api/allowlistcheck.h"

#include "core/plainbridge.h"
#include "daemon/framecodec.h"
#include "sandbox/policy/fields.h"
#include "sandbox/policy/networkpolicy.h"

#include <algorithm>

namespace Cordon::Api {

Result<QJsonObject> checkAllowlistEntries(const QJsonValue &entries, const Network::OrgPolicy &org)
{
    const std::string_view listPath = "allowed_domains";
    const Json list = toPlain(entries);
    CORDON_TRY(Policy::Fields::expectArray(list, listPath, Policy::MaxAllowedDomains));
    std::vector<Policy::DomainRule> seen;
    QJsonArray answers;
    bool allOk = true;
    for (std::size_t i = 0; i < list.items().size(); ++i) {
        const std::string path = jsonIndexPath(listPath, i);
        Result<Policy::DomainRule> rule = Policy::domainRuleFromJson(list.items()[i], path);
        if (rule && std::find(seen.begin(), seen.end(), *rule) != seen.end())
            rule = fail(Policy::duplicateRuleError(*rule, path));
        if (!rule) {
            allOk = false;
            answers.append(QJsonObject{{QStringLiteral("ok"), false},
                                       {QStringLiteral("error"), Daemon::errorToJson(rule.error())}});
            continue;
        }
        seen.push_back(*rule);
        QJsonObject answer{{QStringLiteral("ok"), true},
                           {QStringLiteral("rule"), toQt(Policy::domainRuleToJson(*rule))}};
        Policy::NetworkPolicy single;
        single.type = Policy::NetworkPolicy::Type::Allowlist;
        single.allowedDomains = {*rule};
        if (const Result<void> inside = org.checkNarrows(single); !inside) {
            allOk = false;
            answer.insert(QStringLiteral("outside_organisation"), Daemon::errorToJson(inside.error()));
        }
        answers.append(answer);
    }
    return QJsonObject{{QStringLiteral("entries"), answers}, {QStringLiteral("ok"), allOk}};
}

} // namespace Cordon::Api
