// SPDX-License-Identifier: MIT
#include "network/orgpolicy.h"

#include "core/plainbridge.h"
#include "network/orgpolicytext.h"
#include "sandbox/policy/fields.h"
#include "sandbox/policy/orgpolicyfile.h"
#include "sandbox/quoteuntrusted.h"
#include "sandbox/readall.h"
#include "sandbox/weakening.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>
#include <QStandardPaths>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <sys/stat.h>

namespace Cordon::Network {

namespace {

// Stand-ins for "any method" and "any path" while enumerating what a container rule can match.
const std::string AnyMethod;
const std::string AnyPath;

bool entryExists(const QString &path)
{
    return Policy::orgPolicyEntryExists(QFile::encodeName(path).toStdString());
}

Result<QByteArray> readFile(const QString &path)
{
    // A FIFO or device where the file should be must not hang the daemon's event loop.
    const Result<std::string> bytes =
        readRegularFile(toPlain(path), Policy::DocumentLimits.maxBytes,
                        toPlain(QStringLiteral("organisation allowlist %1").arg(path)),
                        "network.org_policy_unreadable", "network.org_policy_unreadable", "policy.too_large");
    if (!bytes)
        return fail(bytes.error());
    return QByteArray::fromStdString(*bytes);
}

bool hostCovered(const Policy::DomainRule &outer, const Policy::DomainRule &inner)
{
    if (inner.wildcard)
        return outer.wildcard && (outer.host == inner.host || outer.matchesHost(inner.host));
    if (inner.isIpLiteral())
        return !outer.wildcard && outer.host == inner.host;
    return outer.matchesHost(inner.host);
}

bool methodCovered(const Policy::DomainRule &outer, const std::string &method)
{
    return outer.methods.empty() || (!method.empty() && std::find(outer.methods.begin(), outer.methods.end(),
                                                                  method) != outer.methods.end());
}

bool pathCovered(const Policy::DomainRule &outer, const std::string &prefix)
{
    if (outer.pathPrefixes.empty())
        return true;
    if (prefix.empty())
        return false;
    return std::any_of(outer.pathPrefixes.begin(), outer.pathPrefixes.end(),
                       [&](const std::string &outerPrefix) { return prefix.starts_with(outerPrefix); });
}

// Empty when some rule of outer matches everything inner matches on port with method and path prefix (empty:
// any); otherwise what is outside, in words, naming list.
QString uncovered(const std::vector<Policy::DomainRule> &outer, const Policy::DomainRule &inner, quint16 port,
                  const std::string &method, const std::string &prefix, const QString &list)
{
    bool hostSeen = false;
    bool portSeen = false;
    bool methodSeen = false;
    bool pathSeen = false;
    for (const Policy::DomainRule &rule : outer) {
        if (!hostCovered(rule, inner))
            continue;
        hostSeen = true;
        if (!rule.matchesPort(port))
            continue;
        portSeen = true;
        if (!methodCovered(rule, method))
            continue;
        methodSeen = true;
        if (!pathCovered(rule, prefix))
            continue;
        pathSeen = true;
        if (inner.allowPrivateAddresses && !rule.allowPrivateAddresses)
            continue;
        return {};
    }
    // One arg() per message: a path prefix may contain "%2F", which a second arg() would take for a place
    // marker.
    if (!hostSeen)
        return QStringLiteral("is not in ") + list;
    if (!portSeen)
        return QStringLiteral("port %1 is not allowed by %2").arg(QString::number(port), list);
    if (!methodSeen)
        return method.empty() ? QStringLiteral("allows every method, more than ") + list
                              : QStringLiteral("method %1 is not allowed by %2").arg(toQt(method), list);
    if (!pathSeen)
        return prefix.empty() ? QStringLiteral("allows every path, more than ") + list
                              : QStringLiteral("path %1 is not allowed by %2").arg(toQt(prefix), list);
    return QStringLiteral("allow_private_addresses is not allowed by ") + list;
}

} // namespace

OrgPolicy::OrgPolicy(std::vector<Policy::DomainRule> rules, Source source, QString path)
    : m_rules(std::move(rules)), m_source(source), m_path(std::move(path))
{}

QString OrgPolicy::systemPath()
{
    return QFile::decodeName(QByteArray::fromStdString(Policy::orgPolicySystemPath()));
}

QString OrgPolicy::userPath()
{
    return QFile::decodeName(QByteArray::fromStdString(Policy::orgPolicyUserPath()));
}

Result<OrgPolicy> OrgPolicy::load()
{
    return load(systemPath(), userPath());
}

Result<OrgPolicy> OrgPolicy::load(const QString &systemFile, const QString &userFile)
{
    if (entryExists(systemFile)) {
        const Result<QByteArray> bytes = readFile(systemFile);
        if (!bytes)
            return fail(bytes.error());
        return fromJson(*bytes, Source::System, systemFile);
    }
    if (entryExists(userFile)) {
        const Result<QByteArray> bytes = readFile(userFile);
        if (!bytes)
            return fail(bytes.error());
        return fromJson(*bytes, Source::User, userFile);
    }
    return OrgPolicy({}, Source::Missing, userFile);
}

Result<OrgPolicy> OrgPolicy::saveUserFile(const QJsonArray &domains)
{
    return saveUserFile(domains, systemPath(), userPath());
}

Result<OrgPolicy> OrgPolicy::saveUserFile(const QJsonArray &domains, const QString &systemFile,
                                          const QString &userFile)
{
    if (entryExists(systemFile))
        return fail(QStringLiteral("network.org_policy_administered"),
                    QStringLiteral("the organisation allowlist is set by your administrator in %1; %2 is not "
                                   "used while that file exists")
                        .arg(systemFile, userFile));
    // The allowlist editor writes the domains only: the suffixes the file already lists stay.
    QJsonObject document{{QStringLiteral("allowed_domains"), domains}};
    QByteArray bytes;
    if (entryExists(userFile)) {
        if (const Result<QByteArray> current = readFile(userFile)) {
            const Result<OrgPolicy> old = fromJson(*current, Source::User, userFile);
            if (old && !old->internalSuffixes().empty()) {
                QJsonArray suffixes;
                for (const std::string &suffix : old->internalSuffixes())
                    suffixes.append(toQt(suffix));
                document.insert(QStringLiteral("internal_suffixes"), suffixes);
            }
            // A file the loader reads is changed in its list only, as the user laid it out.
            if (old) {
                if (std::optional<QByteArray> edited = withAllowedDomains(*current, domains);
                    edited && fromJson(*edited, Source::User, userFile))
                    bytes = *edited;
            }
        }
    }
    if (bytes.isEmpty())
        bytes = QJsonDocument(document).toJson(QJsonDocument::Indented);
    Result<OrgPolicy> parsed = fromJson(bytes, Source::User, userFile);
    if (!parsed)
        return parsed;

    auto unwritable = [&userFile](const QString &why) {
        return fail(QStringLiteral("network.org_policy_unwritable"),
                    QStringLiteral("write organisation allowlist %1: %2").arg(userFile, why));
    };
    if (!QDir().mkpath(QFileInfo(userFile).absolutePath()))
        return unwritable(QStringLiteral("cannot create its folder"));
    // QSaveFile writes a temporary file beside the target, syncs it and renames it over the target: the
    // daemon's folder watcher, a reader or a crash never sees half a list.
    QSaveFile file(userFile);
    file.setDirectWriteFallback(false);
    if (!file.open(QIODevice::WriteOnly))
        return unwritable(file.errorString());
    file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ReadGroup |
                        QFileDevice::ReadOther);
    if (file.write(bytes) != bytes.size() || !file.commit())
        return unwritable(file.errorString());
    return parsed;
}

Result<OrgPolicy> OrgPolicy::fromJson(QByteArrayView json, Source source, const QString &path)
{
    std::vector<std::string> suffixes;
    const auto read = [&json, &suffixes]() -> Result<Policy::NetworkPolicy> {
        Result<Json> document = Policy::Fields::readDocument(toPlain(json));
        if (!document)
            return fail(document.error());
        CORDON_TRY(Policy::Fields::expectObject(*document, {}));
        CORDON_TRY(Policy::Fields::checkKeys(*document, {}, {"allowed_domains", "internal_suffixes"}));
        CORDON_TRY(Policy::Fields::requireKey(*document, {}, "allowed_domains"));
        auto listed = Policy::readInternalSuffixes(*document);
        if (!listed)
            return fail(listed.error());
        suffixes = std::move(*listed);
        // The entries are read exactly like a container's, so that both lists mean the same thing.
        Json asPolicy = Json::object({{"allowed_domains", (*document)["allowed_domains"]}});
        asPolicy.insert("type", "allowlist");
        return Policy::NetworkPolicy::fromJson(asPolicy, {});
    };
    const Result<Policy::NetworkPolicy> policy = read();
    if (!policy)
        return fail(policy.error().wrap(toPlain(path)));
    OrgPolicy org(policy->allowedDomains, source, path);
    org.m_internalSuffixes = std::move(suffixes);
    return org;
}

QString OrgPolicy::describe() const
{
    switch (m_source) {
    case Source::System:
        return QStringLiteral("the organisation allowlist (%1, set by your administrator)").arg(m_path);
    case Source::User:
        return QStringLiteral("the organisation allowlist (%1)").arg(m_path);
    case Source::Missing:
        break;
    }
    return QStringLiteral("the organisation allowlist (%1 does not exist, so it is empty)").arg(m_path);
}

Result<void> OrgPolicy::checkNarrows(const Policy::NetworkPolicy &container) const
{
    if (container.type != Policy::NetworkPolicy::Type::Allowlist || weakened(Guarantee::OrgListBound))
        return {};
    for (const Policy::DomainRule &rule : container.allowedDomains) {
        // Every combination the rule can match must be matched by some organisation rule; a union of rules
        // may cover it ("example.com:80" and "example.com:443" together cover "example.com").
        const std::vector<std::string> methods =
            rule.methods.empty() ? std::vector<std::string>{AnyMethod} : rule.methods;
        const std::vector<std::string> prefixes =
            rule.pathPrefixes.empty() ? std::vector<std::string>{AnyPath} : rule.pathPrefixes;
        for (quint16 port : rule.effectivePorts()) {
            for (const std::string &method : methods) {
                for (const std::string &prefix : prefixes) {
                    const QString outside = uncovered(m_rules, rule, port, method, prefix, describe());
                    if (outside.isEmpty())
                        continue;
                    const QString pattern = toQt(quoteUntrusted(rule.pattern()));
                    QString message = pattern + u' ' + outside;
                    if (m_source == Source::Missing)
                        message +=
                            QStringLiteral("; create it with {\"allowed_domains\": [%1]}").arg(pattern);
                    return fail(QStringLiteral("network.domain_not_allowed"), message);
                }
            }
        }
    }
    return {};
}

bool OrgPolicy::allows(const QString &host, quint16 port, const QString &method, const QString &path) const
{
    return allows(Target{host, port, method, path});
}

bool OrgPolicy::allows(const Target &target) const
{
    return findMatchingRule(m_rules, target) != nullptr;
}

bool OrgPolicy::allowsPrivateAddresses(const Target &target) const
{
    return std::any_of(m_rules.begin(), m_rules.end(), [&](const Policy::DomainRule &rule) {
        return rule.allowPrivateAddresses && ruleMatches(rule, target);
    });
}

QString OrgPolicy::sourceName() const
{
    switch (m_source) {
    case Source::Missing:
        return QStringLiteral("missing");
    case Source::User:
        return QStringLiteral("user");
    case Source::System:
        return QStringLiteral("system");
    }
    return {};
}

} // namespace Cordon::Network
