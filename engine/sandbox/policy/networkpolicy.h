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
constexpr std::size_t MaxDomainSecrets = 64;

// A secret that only the egress proxy holds (docs/secrets.md, "Domain secrets"): the sandbox's variable
// `name` carries a placeholder, and the proxy puts the store's value of secret `name` in its place in
// requests to `domain` (HTTPS only, which it terminates for that domain).
struct DomainSecret
{
    std::string domain; // a host name in normaliseHost() form, no wildcard, no address
    std::string name;   // the variable in the sandbox and the secret in the store
    // The one request header the value goes into ([A-Za-z0-9-], 1..64 characters, compared without case);
    // the placeholder in any other header refuses the request, since servers echo and log those.
    std::string header = "Authorization";
    // A response to a request that carried the value may be compressed (gzip, br ...). The proxy cannot look
    // into a compressed body for an echo of the value, so by default it asks for `identity` and refuses a
    // compressed answer; this opts the domain out of both, for APIs that compress whatever is asked.
    bool allowCompressedResponses = false;

    bool operator==(const DomainSecret &other) const = default;
};

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
    // Each domain is one the allowlist allows; a name may be given to several domains.
    std::vector<DomainSecret> domainSecrets;

    // {"type":"disabled"} or {"type":"allowlist","allowed_domains":[...]}; entries are strings
    // (parseDomainRule) or objects {"domain", "ports", "methods", "path_prefixes",
    // "allow_private_addresses"}; "domain_secrets" lists {"domain", "name"} (a "value" is refused: values
    // live in the secret store, never in a policy). path is the key path of value in the document, for
    // messages ("network_policy").
    static Result<NetworkPolicy> fromJson(const Json &value, std::string_view path);
    // Every field, every rule in object form ("domain_secrets" only when there are some); fromJson reads it
    // back to an equal policy.
    Json toJson() const;

    bool operator==(const NetworkPolicy &other) const = default;
};

// "disabled" or "allowlist".
std::string networkTypeName(NetworkPolicy::Type type);

// One allowlist entry as a policy takes it, a string or a rule object, normalised; path names the entry in
// messages ("network_policy.allowed_domains[2]"). The one reader behind NetworkPolicy::fromJson, the
// organisation file and the daemon's network.check.
Result<DomainRule> domainRuleFromJson(const Json &value, std::string_view path);
// policy.invalid_secret unless every domain secret's domain is allowed by the allowlist (path
// names the policy in messages). fromJson checks it; so does a caller that combines secrets and rules.
Result<> checkDomainSecrets(const NetworkPolicy &policy, std::string_view path);

// A rule in the object form toJson() writes (every key, lists sorted).
Json domainRuleToJson(const DomainRule &rule);
// policy.invalid_domain: the entry at path repeats an earlier rule of the same list.
Error duplicateRuleError(const DomainRule &rule, std::string_view path);

} // namespace Cordon::Policy
