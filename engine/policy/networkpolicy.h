// SPDX-License-Identifier: MIT
// Whether a container may reach the network at all, and if so which hosts through the egress proxy.
#pragma once

#include "core/result.h"
#include "policy/domainrule.h"

#include <QJsonObject>
#include <QList>

namespace Cordon::Policy {

constexpr qsizetype MaxAllowedDomains = 256;

struct NetworkPolicy
{
    enum class Type
    {
        Disabled,
        Allowlist
    };
    Type type = Type::Disabled;
    // Normalised rules (see normaliseDomainRule); empty for Disabled. An empty allowlist allows nothing, but
    // unlike Disabled the container still gets a proxy that answers every request with a policy denial.
    QList<DomainRule> allowedDomains;

    // {"type":"disabled"} or {"type":"allowlist","allowed_domains":[...]}; entries are strings
    // (parseDomainRule) or objects {"domain", "ports", "methods", "path_prefixes",
    // "allow_private_addresses"}. path is the key path of value in the document, for messages
    // ("network_policy").
    static Result<NetworkPolicy> fromJsonValue(const QJsonValue &value, const QString &path);
    // Every field, every rule in object form; fromJsonValue reads it back to an equal policy.
    QJsonObject toJsonObject() const;

    bool operator==(const NetworkPolicy &other) const = default;
};

// "disabled" or "allowlist".
QString networkTypeName(NetworkPolicy::Type type);

// One allowlist entry as a policy takes it, a string or a rule object, normalised; path names the entry in
// messages ("network_policy.allowed_domains[2]"). The one reader behind NetworkPolicy::fromJsonValue, the
// organisation file and the daemon's network.check.
Result<DomainRule> domainRuleFromJson(const QJsonValue &value, const QString &path);
// A rule in the object form toJsonObject() writes (every key, lists sorted).
QJsonObject domainRuleToJson(const DomainRule &rule);
// policy.invalid_domain: the entry at path repeats an earlier rule of the same list.
Error duplicateRuleError(const DomainRule &rule, const QString &path);

} // namespace Cordon::Policy
