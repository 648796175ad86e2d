// SPDX-License-Identifier: MIT
#include "daemon/api/allowlistcheck.h"

#include "daemon/framecodec.h"
#include "policy/jsonfields.h"
#include "policy/networkpolicy.h"

namespace Cordon::Api {

Result<QJsonObject> checkAllowlistEntries(const QJsonValue &entries, const Network::OrgPolicy &org)
{
    const QString listPath = QStringLiteral("allowed_domains");
    const Result<QJsonArray> list = Policy::Json::toArray(entries, listPath, Policy::MaxAllowedDomains);
    if (!list)
        return fail(list.error());
    QList<Policy::DomainRule> seen;
    QJsonArray answers;
    bool allOk = true;
    for (qsizetype i = 0; i < list->size(); ++i) {
        const QString path = Policy::Json::indexPath(listPath, i);
        Result<Policy::DomainRule> rule = Policy::domainRuleFromJson(list->at(i), path);
        if (rule && seen.contains(*rule))
            rule = fail(Policy::duplicateRuleError(*rule, path));
        if (!rule) {
            allOk = false;
            answers.append(QJsonObject{{QStringLiteral("ok"), false},
                                       {QStringLiteral("error"), Daemon::errorToJson(rule.error())}});
            continue;
        }
        seen.append(*rule);
        QJsonObject answer{{QStringLiteral("ok"), true},
                           {QStringLiteral("rule"), Policy::domainRuleToJson(*rule)}};
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
