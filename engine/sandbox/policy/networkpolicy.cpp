// SPDX-License-Identifier: MIT
#include "sandbox/policy/networkpolicy.h"

#include "sandbox/policy/fields.h"
#include "sandbox/quoteuntrusted.h"

#include <algorithm>
#include <cctype>

namespace Cordon::Policy {

namespace {

using Fields::at;

// Long enough for any method name we know; a longer string is a mistake or hostile.
constexpr std::size_t MaxMethodLength = 16;
// A host of 253 characters, brackets and ":65535", with room for the Unicode spelling of a name.
constexpr std::size_t MaxDomainEntryLength = 512;

template<typename T> bool contains(const std::vector<T> &list, const T &value)
{
    return std::find(list.begin(), list.end(), value) != list.end();
}

std::string upperAscii(std::string text)
{
    for (char &c : text) {
        if (c >= 'a' && c <= 'z')
            c = static_cast<char>(c - 'a' + 'A');
    }
    return text;
}

Result<DomainRule> ruleFromObject(const Json &object, std::string_view path)
{
    CORDON_TRY(Fields::checkKeys(object, path,
                                 {"domain", "ports", "methods", "path_prefixes", "allow_private_addresses"}));
    const std::string domainPath = jsonMemberPath(path, "domain");
    CORDON_TRY(Fields::requireKey(object, path, "domain"));
    const Result<std::string> domain = Fields::toString(object["domain"], domainPath, MaxDomainEntryLength);
    if (!domain)
        return fail(domain.error());
    Result<DomainRule> rule = parseDomainRule(*domain);
    if (!rule)
        return fail(rule.error().wrap(domainPath));
    if (!rule->ports.empty())
        return fail("policy.invalid_domain", at(domainPath, "put the port in \"ports\", not in the domain"));

    if (const Json &value = object["ports"]; !value.isUndefined()) {
        const std::string portsPath = jsonMemberPath(path, "ports");
        CORDON_TRY(Fields::expectArray(value, portsPath, MaxRulePorts));
        for (std::size_t i = 0; i < value.items().size(); ++i) {
            const std::string itemPath = jsonIndexPath(portsPath, i);
            const Result<std::int64_t> port = Fields::toInteger(value.items()[i], itemPath, 1, 65535);
            if (!port)
                return fail(port.error());
            const auto number = static_cast<std::uint16_t>(*port);
            if (contains(rule->ports, number))
                return fail("policy.invalid_domain",
                            at(itemPath, "port " + std::to_string(number) + " is listed twice"));
            rule->ports.push_back(number);
        }
    }
    if (const Json &value = object["methods"]; !value.isUndefined()) {
        const std::string methodsPath = jsonMemberPath(path, "methods");
        CORDON_TRY(Fields::expectArray(value, methodsPath, MaxRuleMethods));
        const std::vector<std::string> &known = knownHttpMethods();
        for (std::size_t i = 0; i < value.items().size(); ++i) {
            const std::string itemPath = jsonIndexPath(methodsPath, i);
            const Result<std::string> method = Fields::toString(value.items()[i], itemPath, MaxMethodLength);
            if (!method)
                return fail(method.error());
            std::string upper = upperAscii(*method);
            if (!contains(known, upper)) {
                std::string list;
                for (const std::string &name : known)
                    list += (list.empty() ? "" : ", ") + name;
                return fail("policy.invalid_domain",
                            at(itemPath,
                               "unknown HTTP method " + quoteUntrusted(*method) + " (known: " + list + ")"));
            }
            if (contains(rule->methods, upper))
                return fail("policy.invalid_domain", at(itemPath, "method " + upper + " is listed twice"));
            rule->methods.push_back(std::move(upper));
        }
    }
    if (const Json &value = object["path_prefixes"]; !value.isUndefined()) {
        const std::string prefixesPath = jsonMemberPath(path, "path_prefixes");
        CORDON_TRY(Fields::expectArray(value, prefixesPath, MaxRulePathPrefixes));
        for (std::size_t i = 0; i < value.items().size(); ++i) {
            const std::string itemPath = jsonIndexPath(prefixesPath, i);
            const Result<std::string> prefix =
                Fields::toString(value.items()[i], itemPath, MaxPathPrefixLength);
            if (!prefix)
                return fail(prefix.error());
            Result<std::string> checked = checkPathPrefix(*prefix);
            if (!checked)
                return fail(checked.error().wrap(itemPath));
            if (contains(rule->pathPrefixes, *checked))
                return fail("policy.invalid_domain", at(itemPath, "path prefix is listed twice"));
            rule->pathPrefixes.push_back(std::move(*checked));
        }
    }
    CORDON_TRY(Fields::readBool(object, path, "allow_private_addresses", rule->allowPrivateAddresses));
    // Sorts the lists; every check it repeats has passed above, so an error here would be a bug in one of
    // them.
    Result<DomainRule> normalised = normaliseDomainRule(std::move(*rule));
    if (!normalised)
        return fail(normalised.error().wrap(path));
    return normalised;
}

// Header names compare without case (RFC 9110).
bool sameHeader(std::string_view a, std::string_view b)
{
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) ==
                      std::tolower(static_cast<unsigned char>(y));
           });
}

Result<DomainSecret> readDomainSecret(const Json &value, std::string_view path)
{
    CORDON_TRY(Fields::expectObject(value, path));
    if (!value["value"].isUndefined())
        return fail("policy.invalid_secret",
                    at(jsonMemberPath(path, "value"),
                       "a policy never holds a secret's value (policies are recorded in the history): set it "
                       "with `cordon secret set NAME` and give only its name here"));
    CORDON_TRY(Fields::checkKeys(value, path, {"domain", "name", "header", "allow_compressed_responses"}));
    CORDON_TRY(Fields::requireKey(value, path, "domain"));
    DomainSecret secret;
    Result<std::string> name = Fields::readSecretName(value, path);
    if (!name)
        return fail(name.error());
    secret.name = std::move(*name);
    const std::string domainPath = jsonMemberPath(path, "domain");
    const Result<std::string> domain = Fields::toString(value["domain"], domainPath, MaxDomainEntryLength);
    if (!domain)
        return fail(domain.error());
    Result<std::string> host = normaliseHost(*domain);
    if (!host)
        return fail(host.error().wrap(domainPath));
    // The proxy presents a certificate for exactly this name; an address or a pattern has none to present.
    DomainRule asRule;
    asRule.host = *host;
    if (asRule.isIpLiteral())
        return fail("policy.invalid_secret", at(domainPath, "must be a host name, not an address"));
    secret.domain = std::move(*host);
    if (!value["header"].isUndefined()) {
        const std::string headerPath = jsonMemberPath(path, "header");
        const Result<std::string> header = Fields::toString(value["header"], headerPath, 64);
        if (!header)
            return fail(header.error());
        const bool token = !header->empty() && std::all_of(header->begin(), header->end(), [](char c) {
            return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
        });
        if (!token)
            return fail("policy.invalid_secret",
                        at(headerPath, "must be a header field name of letters, digits and '-', got " +
                                           quoteUntrusted(*header)));
        // One spelling of the default, so that "authorization" reads back equal to the policy it came from.
        secret.header = sameHeader(*header, DomainSecret{}.header) ? DomainSecret{}.header : *header;
    }
    if (!value["allow_compressed_responses"].isUndefined()) {
        const Result<bool> allowed = Fields::toBool(value["allow_compressed_responses"],
                                                    jsonMemberPath(path, "allow_compressed_responses"));
        if (!allowed)
            return fail(allowed.error());
        secret.allowCompressedResponses = *allowed;
    }
    return secret;
}

} // namespace

Result<> checkDomainSecrets(const NetworkPolicy &policy, std::string_view path)
{
    for (std::size_t i = 0; i < policy.domainSecrets.size(); ++i) {
        const DomainSecret &secret = policy.domainSecrets[i];
        const bool allowed =
            std::any_of(policy.allowedDomains.begin(), policy.allowedDomains.end(),
                        [&](const DomainRule &rule) { return rule.matchesHost(secret.domain); });
        if (!allowed)
            return fail("policy.invalid_secret", at(jsonIndexPath(jsonMemberPath(path, "domain_secrets"), i),
                                                    "secret " + secret.name + " goes to " + secret.domain +
                                                        ", which allowed_domains does not allow"));
        for (std::size_t j = 0; j < i; ++j) {
            const DomainSecret &earlier = policy.domainSecrets[j];
            if (earlier.name == secret.name && !sameHeader(earlier.header, secret.header))
                return fail("policy.invalid_secret",
                            at(jsonIndexPath(jsonMemberPath(path, "domain_secrets"), i),
                               "secret " + secret.name + " goes into header " + secret.header + " here and " +
                                   earlier.header + " above; a secret has one header"));
        }
    }
    return {};
}

Result<DomainRule> domainRuleFromJson(const Json &value, std::string_view path)
{
    if (value.isString()) {
        const Result<std::string> entry = Fields::toString(value, path, MaxDomainEntryLength);
        if (!entry)
            return fail(entry.error());
        Result<DomainRule> rule = parseDomainRule(*entry);
        if (!rule)
            return fail(rule.error().wrap(path));
        return rule;
    }
    if (value.isObject())
        return ruleFromObject(value, path);
    return fail("policy.wrong_type",
                at(path, "must be a domain string or a rule object, got " + Fields::typeName(value)));
}

Error duplicateRuleError(const DomainRule &rule, std::string_view path)
{
    return Error("policy.invalid_domain",
                 at(path, "the rule for " + quoteUntrusted(rule.pattern()) + " is listed twice"));
}

std::string networkTypeName(NetworkPolicy::Type type)
{
    return type == NetworkPolicy::Type::Allowlist ? "allowlist" : "disabled";
}

Result<NetworkPolicy> NetworkPolicy::fromJson(const Json &value, std::string_view path)
{
    CORDON_TRY(Fields::expectObject(value, path));
    CORDON_TRY(Fields::checkKeys(value, path, {"type", "allowed_domains", "domain_secrets"}));
    // "type" is required: {"allowed_domains": [...]} alone would otherwise silently mean "disabled".
    const std::string typePath = jsonMemberPath(path, "type");
    CORDON_TRY(Fields::requireKey(value, path, "type"));
    const Result<std::string> typeName = Fields::toString(value["type"], typePath, 32);
    if (!typeName)
        return fail(typeName.error());
    NetworkPolicy policy;
    if (*typeName == "allowlist")
        policy.type = Type::Allowlist;
    else if (*typeName != "disabled")
        return fail("policy.invalid_value",
                    at(typePath, "must be \"disabled\" or \"allowlist\", got " + quoteUntrusted(*typeName)));
    const Json &domains = value["allowed_domains"];
    const std::string domainsPath = jsonMemberPath(path, "allowed_domains");
    if (!domains.isUndefined())
        CORDON_TRY(Fields::expectArray(domains, domainsPath, MaxAllowedDomains));
    if (policy.type == Type::Disabled && !domains.isUndefined() && !domains.items().empty())
        return fail("policy.invalid_value", at(domainsPath, "must be empty when type is \"disabled\""));
    for (std::size_t i = 0; !domains.isUndefined() && i < domains.items().size(); ++i) {
        const std::string itemPath = jsonIndexPath(domainsPath, i);
        Result<DomainRule> rule = domainRuleFromJson(domains.items()[i], itemPath);
        if (!rule)
            return fail(rule.error());
        if (contains(policy.allowedDomains, *rule))
            return fail(duplicateRuleError(*rule, itemPath));
        policy.allowedDomains.push_back(std::move(*rule));
    }

    const Json &secrets = value["domain_secrets"];
    if (secrets.isUndefined())
        return policy;
    const std::string secretsPath = jsonMemberPath(path, "domain_secrets");
    CORDON_TRY(Fields::expectArray(secrets, secretsPath, MaxDomainSecrets));
    if (policy.type == Type::Disabled && !secrets.items().empty())
        return fail("policy.invalid_value", at(secretsPath, "must be empty when type is \"disabled\""));
    for (std::size_t i = 0; i < secrets.items().size(); ++i) {
        const std::string itemPath = jsonIndexPath(secretsPath, i);
        Result<DomainSecret> secret = readDomainSecret(secrets.items()[i], itemPath);
        if (!secret)
            return fail(secret.error());
        if (contains(policy.domainSecrets, *secret))
            return fail("policy.invalid_secret", at(itemPath, "secret " + secret->name + " for " +
                                                                  secret->domain + " is listed twice"));
        policy.domainSecrets.push_back(std::move(*secret));
    }
    CORDON_TRY(checkDomainSecrets(policy, path));
    return policy;
}

Json domainRuleToJson(const DomainRule &rule)
{
    // Sorted here too, so that a rule built in code hashes like the same rule read from a document.
    std::vector<std::uint16_t> sortedPorts = rule.ports;
    std::sort(sortedPorts.begin(), sortedPorts.end());
    std::vector<std::string> methods = rule.methods;
    std::sort(methods.begin(), methods.end());
    std::vector<std::string> pathPrefixes = rule.pathPrefixes;
    std::sort(pathPrefixes.begin(), pathPrefixes.end());
    Json::Array ports;
    for (const std::uint16_t port : sortedPorts)
        ports.emplace_back(static_cast<int>(port));
    return Json::object({
        {"domain", rule.pattern()},
        {"ports", Json(std::move(ports))},
        {"methods", Json(Json::Array(methods.begin(), methods.end()))},
        {"path_prefixes", Json(Json::Array(pathPrefixes.begin(), pathPrefixes.end()))},
        {"allow_private_addresses", rule.allowPrivateAddresses},
    });
}

Json NetworkPolicy::toJson() const
{
    Json::Array domains;
    for (const DomainRule &rule : allowedDomains)
        domains.push_back(domainRuleToJson(rule));
    Json document =
        Json::object({{"type", networkTypeName(type)}, {"allowed_domains", Json(std::move(domains))}});
    // Only when there are some, so that the versions of policies without them stay what they were.
    if (!domainSecrets.empty()) {
        Json::Array secrets;
        for (const DomainSecret &secret : domainSecrets) {
            Json entry = Json::object({{"domain", secret.domain}, {"name", secret.name}});
            // Written only when not the default, so that the versions of earlier policies stay.
            if (!sameHeader(secret.header, DomainSecret{}.header))
                entry.insert("header", secret.header);
            if (secret.allowCompressedResponses)
                entry.insert("allow_compressed_responses", true);
            secrets.push_back(std::move(entry));
        }
        document.insert("domain_secrets", Json(std::move(secrets)));
    }
    return document;
}

} // namespace Cordon::Policy
