// SPDX-License-Identifier: MIT
#include "network/accesscheck.h"

#include "sandbox/weakening.h"

#include <algorithm>

namespace Cordon::Network {

namespace {

// Why no rule of rules matches target, narrowing down from host to path; empty when one does. owner is
// appended to the sentence: "" or " by the organisation allowlist (...)".
QString mismatch(const std::vector<Policy::DomainRule> &rules, const Target &target, const QString &notListed,
                 const QString &owner)
{
    if (findMatchingRule(rules, target))
        return {};
    QList<const Policy::DomainRule *> candidates;
    for (const Policy::DomainRule &rule : rules) {
        if (rule.matchesHost(toPlain(target.host)) &&
            !(rule.wildcard && Authority{target.host, 1}.isIpLiteral()))
            candidates.append(&rule);
    }
    if (candidates.isEmpty())
        return notListed;
    const auto keep = [&](auto predicate) {
        QList<const Policy::DomainRule *> kept;
        std::copy_if(candidates.begin(), candidates.end(), std::back_inserter(kept), predicate);
        return kept;
    };
    candidates = keep([&](const Policy::DomainRule *rule) { return rule->matchesPort(target.port); });
    if (candidates.isEmpty())
        return QStringLiteral("port %1 is not allowed for %2%3")
            .arg(QString::number(target.port), target.host, owner);
    if (target.isTunnel() && !target.terminated)
        return QStringLiteral(
                   "%1 is only allowed for plain HTTP with listed methods or paths; an HTTPS (CONNECT) "
                   "tunnel cannot be checked%2")
            .arg(target.host, owner);
    candidates = keep([&](const Policy::DomainRule *rule) {
        return rule->methods.empty() || std::find(rule->methods.begin(), rule->methods.end(),
                                                  toPlain(target.method)) != rule->methods.end();
    });
    if (candidates.isEmpty())
        return QStringLiteral("method %1 not allowed for %2%3").arg(target.method, target.host, owner);
    return QStringLiteral("path %1 not allowed for %2%3").arg(target.path, target.host, owner);
}

} // namespace

AccessVerdict checkAccess(const Policy::NetworkPolicy *container, const OrgPolicy &org, const Target &target)
{
    AccessVerdict verdict;
    if (!container || container->type != Policy::NetworkPolicy::Type::Allowlist) {
        verdict.reason = QStringLiteral("this container has no network access");
        return verdict;
    }
    if (weakened(Guarantee::ProxyAllowlist)) {
        verdict.allowed = true;
        return verdict;
    }
    const QString own =
        mismatch(container->allowedDomains, target,
                 target.host + QStringLiteral(" is not in this container's allowlist"), QString());
    if (!own.isEmpty()) {
        verdict.reason = own;
        return verdict;
    }
    const QString orgWords = org.describe();
    const QString outer =
        mismatch(org.rules(), target, target.host + QStringLiteral(" is not in ") + orgWords,
                 QStringLiteral(" by ") + orgWords);
    if (!outer.isEmpty()) {
        verdict.reason = outer;
        return verdict;
    }
    verdict.allowed = true;
    const bool containerPrivate =
        std::any_of(container->allowedDomains.begin(), container->allowedDomains.end(),
                    [&](const Policy::DomainRule &rule) {
                        return rule.allowPrivateAddresses && ruleMatches(rule, target);
                    });
    verdict.allowPrivateAddresses = containerPrivate && org.allowsPrivateAddresses(target);
    return verdict;
}

} // namespace Cordon::Network
