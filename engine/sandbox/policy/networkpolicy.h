// SPDX-License-Identifier: MIT
// Whether a container may reach the network at all, and if so which hosts through the egress proxy.
#pragma once

#include "sandbox/error.h"
#include "sandbox/json.h"
#include "sandbox/policy/domainrule.h"

#include <string>
#include <string_view>
#include <vector>

namespace Cordon::Policy {

constexpr std::size_t MaxAllowedDomains = 256;

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
    std::vector<DomainRule> allowedDomains;

    // {"type":"disabled"} or {"type":"allowlist","allowed_domains":[...]}; entries are strings
    // (parseDomainRule) or objects {"domain", "ports", "methods", "path_prefixes",
    // "allow_private_addresses"}. path is the key path of value in the document, for messages
    // ("network_policy").
    static Result<NetworkPolicy> fromJson(const Json &value, std::string_view path);
    // Every field, every rule in object form; fromJson reads it back to an equal policy.
    Json toJson() const;

    bool operator==(const NetworkPolicy &other) const = default;
};

// "disabled" or "allowlist".
std::string networkTypeName(NetworkPolicy::Type type);

// One allowlist entry as a policy takes it, a string or a rule object, normalised; path names the entry in
// messages ("network_policy.allowed_domains[2]"). The one reader behind NetworkPolicy::fromJson, the
// organisation file and the daemon's network.check.
Result<DomainRule> domainRuleFromJson(const Json &value, std::string_view path);
// A rule in the object form toJson() writes (every key, lists sorted).
Json domainRuleToJson(const DomainRule &rule);
// policy.invalid_domain: the entry at path repeats an earlier rule of the same list.
Error duplicateRuleError(const DomainRule &rule, std::string_view path);

} // namespace Cordon::Policy
