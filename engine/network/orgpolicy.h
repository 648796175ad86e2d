// SPDX-License-Identifier: MIT
// The organisation allowlist: the outer bound every container's allowlist must stay inside. It is a file
// {"allowed_domains": [...]} with the entries of a container's network_policy.allowed_domains (strings or
// rule objects, docs/policy.md), and optionally "internal_suffixes": the organisation's own internal domains,
// which the artifact scan reports in downloads beside the usual ones (docs/artifact-scan.md). An
// administrator's read-only /etc/cordon/org-policy.json wins over the user's
// $XDG_CONFIG_HOME/cordon/org-policy.json. No file at all means an empty list: nothing may be reached until
// someone writes down what may (docs/network.md).
#pragma once

#include "core/result.h"
#include "network/hostmatch.h"
#include "sandbox/policy/domainrule.h"
#include "sandbox/policy/networkpolicy.h"

#include <QByteArrayView>
#include <QJsonArray>
#include <QList>
#include <QString>

namespace Cordon::Network {

class OrgPolicy
{
public:
    enum class Source
    {
        Missing, // neither file exists: the list is empty and allows nothing
        User,    // the user's settings file
        System,  // the administrator's file, which wins
    };

    // An empty list from no file: allows nothing (fail closed).
    OrgPolicy() = default;
    OrgPolicy(std::vector<Policy::DomainRule> rules, Source source, QString path);

    // Reads the system file when it exists, else the user file, else returns an empty Missing list naming
    // userPath. A system file that exists but cannot be read or parsed is an error: the caller must not
    // fall back to the user's file (the administrator's restriction would silently vanish). Errors:
    // network.org_policy_unreadable, policy.* (with the file name in front) from the strict parser.
    static Result<OrgPolicy> load(const QString &systemPath, const QString &userPath);
    // load(systemPath(), userPath()).
    static Result<OrgPolicy> load();
    // Parses a document; path is the file it came from, for messages.
    static Result<OrgPolicy> fromJson(QByteArrayView json, Source source, const QString &path);

    // Writes the user's file: its text with the allowed_domains array replaced (withAllowedDomains(): the
    // rest of the file and the entries that stay keep their layout), or, for no file or one the loader
    // refuses,
    // {"allowed_domains": domains} with the file's internal_suffixes kept; read back
    // through fromJson() first (the loader's own parser, so nothing is written that load() would refuse),
    // then replaced atomically (a temporary file renamed over it, mode 0644, the folder created). Refused
    // while an administrator's file exists at systemPath: that file wins, and writing the user's would change
    // nothing. Returns the list as written. Errors: network.org_policy_administered,
    // network.org_policy_unwritable, policy.* (with the file name).
    static Result<OrgPolicy> saveUserFile(const QJsonArray &domains, const QString &systemPath,
                                          const QString &userPath);
    // saveUserFile(domains, systemPath(), userPath()).
    static Result<OrgPolicy> saveUserFile(const QJsonArray &domains);

    // Policy::orgPolicySystemPath() and orgPolicyUserPath() (sandbox/policy/orgpolicyfile.h).
    static QString systemPath();
    static QString userPath();

    Source source() const { return m_source; }
    // The file the list was read from, or for Missing the user file that would be read.
    const QString &path() const { return m_path; }
    bool isAdministered() const { return m_source == Source::System; }
    const std::vector<Policy::DomainRule> &rules() const { return m_rules; }
    // Host-name suffixes the organisation counts as internal ("corp.example.com"), lower case, without a
    // leading dot; at most Policy::MaxInternalSuffixes.
    const std::vector<std::string> &internalSuffixes() const { return m_internalSuffixes; }
    // "missing", "user" or "system": how the protocol and the history name the source.
    QString sourceName() const;

    // Succeeds when every host, port, method, path and private-address permission a container rule can match
    // is matched by some organisation rule ("*.example.com" covers "api.example.com" and "*.api.example.com";
    // "example.com:443" does not cover "example.com", whose default ports are 80 and 443; a rule with
    // allow_private_addresses needs an organisation rule that allows them too). Fails with
    // network.domain_not_allowed naming the first container rule that is outside, what of it is outside, and
    // the file that would have to change.
    Result<void> checkNarrows(const Policy::NetworkPolicy &container) const;

    // Runtime: whether some organisation rule matches. method is "CONNECT" for a tunnel (then path is
    // ignored).
    bool allows(const QString &host, quint16 port, const QString &method, const QString &path) const;
    bool allows(const Target &target) const;
    // Whether a matching organisation rule also allows private addresses for target.
    bool allowsPrivateAddresses(const Target &target) const;

    // "the organisation allowlist (/etc/cordon/org-policy.json, set by your administrator)", for messages.
    QString describe() const;

    bool operator==(const OrgPolicy &other) const = default;

private:
    std::vector<Policy::DomainRule> m_rules;
    std::vector<std::string> m_internalSuffixes;
    Source m_source = Source::Missing;
    QString m_path;
};

} // namespace Cordon::Network
