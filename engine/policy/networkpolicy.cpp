// SPDX-License-Identifier: MIT
#include "policy/networkpolicy.h"

#include "policy/jsonfields.h"

#include <QJsonArray>

#include <algorithm>

namespace Cordon::Policy {

namespace {

// Long enough for any method name we know; a longer string is a mistake or hostile.
constexpr qsizetype MaxMethodLength = 16;
// A host of 253 characters, brackets and ":65535", with room for the Unicode spelling of a name.
constexpr qsizetype MaxDomainEntryLength = 512;

Result<DomainRule> ruleFromObject(const QJsonObject &object, const QString &path)
{
    CORDON_TRY(Json::checkKeys(object, path,
                               {QLatin1StringView("domain"), QLatin1StringView("ports"),
                                QLatin1StringView("methods"), QLatin1StringView("path_prefixes"),
                                QLatin1StringView("allow_private_addresses")}));
    const QString domainPath = Json::childPath(path, QStringLiteral("domain"));
    const Result<QJsonValue> domainValue = Json::required(object, path, QLatin1StringView("domain"));
    if (!domainValue)
        return fail(domainValue.error());
    const Result<QString> domain = Json::toString(*domainValue, domainPath, MaxDomainEntryLength);
    if (!domain)
        return fail(domain.error());
    Result<DomainRule> rule = parseDomainRule(*domain);
    if (!rule)
        return fail(rule.error().wrap(toPlain(domainPath)));
    if (!rule->ports.isEmpty())
        return fail(QStringLiteral("policy.invalid_domain"),
                    Json::at(domainPath, QStringLiteral("put the port in \"ports\", not in the domain")));

    if (const QJsonValue value = object.value(QLatin1StringView("ports")); !value.isUndefined()) {
        const QString portsPath = Json::childPath(path, QStringLiteral("ports"));
        const Result<QJsonArray> ports = Json::toArray(value, portsPath, MaxRulePorts);
        if (!ports)
            return fail(ports.error());
        for (qsizetype i = 0; i < ports->size(); ++i) {
            const Result<qint64> port =
                Json::toInteger(ports->at(i), Json::indexPath(portsPath, i), 1, 65535);
            if (!port)
                return fail(port.error());
            if (rule->ports.contains(quint16(*port)))
                return fail(QStringLiteral("policy.invalid_domain"),
                            Json::at(Json::indexPath(portsPath, i),
                                     QStringLiteral("port %1 is listed twice").arg(*port)));
            rule->ports.append(quint16(*port));
        }
    }

    if (const QJsonValue value = object.value(QLatin1StringView("methods")); !value.isUndefined()) {
        const QString methodsPath = Json::childPath(path, QStringLiteral("methods"));
        const Result<QJsonArray> methods = Json::toArray(value, methodsPath, MaxRuleMethods);
        if (!methods)
            return fail(methods.error());
        const QStringList known = knownHttpMethods();
        for (qsizetype i = 0; i < methods->size(); ++i) {
            const QString itemPath = Json::indexPath(methodsPath, i);
            const Result<QString> method = Json::toString(methods->at(i), itemPath, MaxMethodLength);
            if (!method)
                return fail(method.error());
            const QString upper = method->toUpper();
            if (!known.contains(upper))
                return fail(
                    QStringLiteral("policy.invalid_domain"),
                    Json::at(itemPath, QStringLiteral("unknown HTTP method %1 (known: %2)")
                                           .arg(Json::quoted(*method), known.join(QStringLiteral(", ")))));
            if (rule->methods.contains(upper))
                return fail(QStringLiteral("policy.invalid_domain"),
                            Json::at(itemPath, QStringLiteral("method %1 is listed twice").arg(upper)));
            rule->methods.append(upper);
        }
    }

    if (const QJsonValue value = object.value(QLatin1StringView("path_prefixes")); !value.isUndefined()) {
        const QString prefixesPath = Json::childPath(path, QStringLiteral("path_prefixes"));
        const Result<QJsonArray> prefixes = Json::toArray(value, prefixesPath, MaxRulePathPrefixes);
        if (!prefixes)
            return fail(prefixes.error());
        for (qsizetype i = 0; i < prefixes->size(); ++i) {
            const QString itemPath = Json::indexPath(prefixesPath, i);
            const Result<QString> prefix = Json::toString(prefixes->at(i), itemPath, MaxPathPrefixLength);
            if (!prefix)
                return fail(prefix.error());
            const Result<QString> checked = checkPathPrefix(*prefix);
            if (!checked)
                return fail(checked.error().wrap(toPlain(itemPath)));
            if (rule->pathPrefixes.contains(*checked))
                return fail(QStringLiteral("policy.invalid_domain"),
                            Json::at(itemPath, QStringLiteral("path prefix is listed twice")));
            rule->pathPrefixes.append(*checked);
        }
    }

    CORDON_TRY(Json::readBool(object, path, QLatin1StringView("allow_private_addresses"),
                              rule->allowPrivateAddresses));

    // Sorts the lists; every check it repeats has passed above, so an error here would be a bug in one of
    // them.
    Result<DomainRule> normalised = normaliseDomainRule(*rule);
    if (!normalised)
        return fail(normalised.error().wrap(toPlain(path)));
    return normalised;
}

} // namespace

Result<DomainRule> domainRuleFromJson(const QJsonValue &value, const QString &path)
{
    if (value.isString()) {
        const Result<QString> entry = Json::toString(value, path, MaxDomainEntryLength);
        if (!entry)
            return fail(entry.error());
        Result<DomainRule> rule = parseDomainRule(*entry);
        if (!rule)
            return fail(rule.error().wrap(toPlain(path)));
        return rule;
    }
    if (value.isObject())
        return ruleFromObject(value.toObject(), path);
    return fail(QStringLiteral("policy.wrong_type"),
                Json::at(path, QStringLiteral("must be a domain string or a rule object, got ") +
                                   Json::typeName(value)));
}

Error duplicateRuleError(const DomainRule &rule, const QString &path)
{
    return makeError(
        QStringLiteral("policy.invalid_domain"),
        Json::at(path, QStringLiteral("the rule for %1 is listed twice").arg(Json::quoted(rule.pattern()))));
}

QString networkTypeName(NetworkPolicy::Type type)
{
    return type == NetworkPolicy::Type::Allowlist ? QStringLiteral("allowlist") : QStringLiteral("disabled");
}

Result<NetworkPolicy> NetworkPolicy::fromJsonValue(const QJsonValue &value, const QString &path)
{
    const Result<QJsonObject> object = Json::toObject(value, path);
    if (!object)
        return fail(object.error());
    CORDON_TRY(
        Json::checkKeys(*object, path, {QLatin1StringView("type"), QLatin1StringView("allowed_domains")}));

    // "type" is required: {"allowed_domains": [...]} alone would otherwise silently mean "disabled".
    const QString typePath = Json::childPath(path, QStringLiteral("type"));
    const Result<QJsonValue> typeValue = Json::required(*object, path, QLatin1StringView("type"));
    if (!typeValue)
        return fail(typeValue.error());
    const Result<QString> typeName = Json::toString(*typeValue, typePath, 32);
    if (!typeName)
        return fail(typeName.error());

    NetworkPolicy policy;
    if (*typeName == u"allowlist")
        policy.type = Type::Allowlist;
    else if (*typeName != u"disabled")
        return fail(QStringLiteral("policy.invalid_value"),
                    Json::at(typePath, QStringLiteral("must be \"disabled\" or \"allowlist\", got ") +
                                           Json::quoted(*typeName)));

    const QJsonValue domainsValue = object->value(QLatin1StringView("allowed_domains"));
    if (domainsValue.isUndefined())
        return policy;
    const QString domainsPath = Json::childPath(path, QStringLiteral("allowed_domains"));
    const Result<QJsonArray> domains = Json::toArray(domainsValue, domainsPath, MaxAllowedDomains);
    if (!domains)
        return fail(domains.error());
    if (policy.type == Type::Disabled && !domains->isEmpty())
        return fail(QStringLiteral("policy.invalid_value"),
                    Json::at(domainsPath, QStringLiteral("must be empty when type is \"disabled\"")));
    for (qsizetype i = 0; i < domains->size(); ++i) {
        const QString itemPath = Json::indexPath(domainsPath, i);
        Result<DomainRule> rule = domainRuleFromJson(domains->at(i), itemPath);
        if (!rule)
            return fail(rule.error());
        if (policy.allowedDomains.contains(*rule))
            return fail(duplicateRuleError(*rule, itemPath));
        policy.allowedDomains.append(std::move(*rule));
    }
    return policy;
}

QJsonObject domainRuleToJson(const DomainRule &rule)
{
    // Sorted here too, so that a rule built in code hashes like the same rule read from a document.
    QList<quint16> sortedPorts = rule.ports;
    std::sort(sortedPorts.begin(), sortedPorts.end());
    QStringList methods = rule.methods;
    methods.sort();
    QStringList pathPrefixes = rule.pathPrefixes;
    pathPrefixes.sort();
    QJsonArray ports;
    for (quint16 port : std::as_const(sortedPorts))
        ports.append(qint64(port));
    return QJsonObject{
        {QStringLiteral("domain"), rule.pattern()},
        {QStringLiteral("ports"), ports},
        {QStringLiteral("methods"), QJsonArray::fromStringList(methods)},
        {QStringLiteral("path_prefixes"), QJsonArray::fromStringList(pathPrefixes)},
        {QStringLiteral("allow_private_addresses"), rule.allowPrivateAddresses},
    };
}

QJsonObject NetworkPolicy::toJsonObject() const
{
    QJsonArray domains;
    for (const DomainRule &rule : allowedDomains)
        domains.append(domainRuleToJson(rule));
    return QJsonObject{{QStringLiteral("type"), networkTypeName(type)},
                       {QStringLiteral("allowed_domains"), domains}};
}

} // namespace Cordon::Policy
