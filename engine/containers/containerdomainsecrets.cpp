// SPDX-License-Identifier: MIT
// ContainerManager: domain secrets (docs/secrets.md, "Domain secrets"). A container whose policy lists
// network_policy.domain_secrets gets, at each start, a new certificate authority (its key saved beside the
// workspace, mode 0600, so that a daemon started after this one can adopt the running container), a CA bundle
// (the host's CAs and that authority) mounted read-only in the sandbox, and one placeholder per secret name,
// which its runs receive in the variable of that name. A placeholder is keyed by the store (an HMAC of the
// container and the name), so it stays the same across daemon restarts: a program that saved it in its
// workspace (.netrc, .env) keeps working. The store's values go only to the egress proxy, looked up again at
// each run; events and output mask values and placeholders alike.
#include "containers/containermanager.h"

#include "network/domainsecrets.h"
#include "network/interceptionauthority.h"
#include "sandbox/weakening.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>

#include <sys/stat.h>

#include <map>

namespace Cordon::Containers {

namespace {

// Debian's bundle of the CAs the host trusts (ca-certificates); absent when that package is not installed,
// and then the sandbox trusts only the container's authority through these variables.
constexpr const char *HostBundle = "/etc/ssl/certs/ca-certificates.crt";

// Each secret name once, with every domain it may go to, in the policy's order.
std::vector<std::pair<std::string, QStringList>> domainsByName(const Policy::NetworkPolicy &network)
{
    std::vector<std::pair<std::string, QStringList>> names;
    for (const Policy::DomainSecret &secret : network.domainSecrets) {
        auto found = std::find_if(names.begin(), names.end(),
                                  [&](const auto &entry) { return entry.first == secret.name; });
        if (found == names.end())
            found = names.insert(names.end(), {secret.name, {}});
        found->second.append(toQt(secret.domain));
    }
    return names;
}

// The header the policy puts the secret of this name into (checkDomainSecrets() makes it one per name).
QByteArray headerOf(const Policy::NetworkPolicy &network, const std::string &name)
{
    for (const Policy::DomainSecret &secret : network.domainSecrets) {
        if (secret.name == name)
            return QByteArray::fromStdString(secret.header).toLower();
    }
    return Network::DomainSecretValue{}.header;
}

// Beside the workspace, which a wipe removes with it; never inside the sandbox.
QString authorityFile(const Container &container)
{
    return toQt(container.workspace().root()) + QStringLiteral("/authority.pem");
}

Result<> saveAuthority(const QString &path, const Network::InterceptionAuthority &authority)
{
    // The workspace itself is made at the start that follows: its folder is made here as it will be.
    const QString root = QFileInfo(path).path();
    QDir().mkpath(QFileInfo(root).path());
    (void)::mkdir(QFile::encodeName(root).constData(), 0700);
    auto saved = authority.savedForm();
    if (!saved)
        return fail(saved.error());
    QSaveFile file(path);
    const bool written = file.open(QIODevice::WriteOnly) &&
                         file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner) &&
                         file.write(*saved) == saved->size() && file.commit();
    saved->fill('\0');
    if (!written)
        return fail(QStringLiteral("network.tls_authority"),
                    QStringLiteral("cannot save the container's certificate authority at %1: %2")
                        .arg(path, file.errorString()));
    return {};
}

Result<std::shared_ptr<Network::InterceptionAuthority>> readAuthority(const QString &path,
                                                                      const QStringList &domains)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return fail(QStringLiteral("network.tls_authority"),
                    QStringLiteral("its domain secrets' certificate authority was not saved (%1)")
                        .arg(file.errorString()));
    QByteArray saved = file.readAll();
    auto authority = Network::InterceptionAuthority::restore(domains, saved);
    saved.fill('\0');
    return authority;
}

// The domains whose answers to a request with this secret may come compressed (allow_compressed_responses).
QStringList compressedDomainsOf(const Policy::NetworkPolicy &network, const std::string &name)
{
    QStringList domains;
    for (const Policy::DomainSecret &secret : network.domainSecrets) {
        if (secret.name == name && secret.allowCompressedResponses)
            domains.append(toQt(secret.domain));
    }
    return domains;
}

} // namespace

Result<> ContainerManager::prepareDomainSecrets(Entry &entry, AuthorityFrom from)
{
    const QString id = entry.record.id;
    const Policy::NetworkPolicy &network = entry.container->policy().network;
    if (network.domainSecrets.empty()) {
        // Only a container that had some (a policy changed while stopped) has anything to take back.
        if (entry.proxySecrets && m_proxy)
            m_proxy->setDomainSecrets(id, nullptr, nullptr);
        entry.authority.reset();
        entry.proxySecrets.reset();
        entry.container->setTrustBundle({});
        return {};
    }
    auto store = secretStore();
    if (!store)
        return fail(store.error());
    QStringList domains;
    for (const auto &[name, to] : domainsByName(network)) {
        for (const QString &domain : to) {
            if (!domains.contains(domain))
                domains.append(domain);
        }
        const std::string mac = (*store)->fingerprint("cordon-placeholder:" + toPlain(id) + ':' + name);
        entry.placeholders[name] =
            Network::placeholderFor(toQt(name), QByteArray::fromStdString(mac.substr(mac.find(':') + 1)));
    }
    const QString saved = authorityFile(*entry.container);
    auto authority = from == AuthorityFrom::Saved ? readAuthority(saved, domains)
                                                  : Network::InterceptionAuthority::create(id, domains);
    if (!authority)
        return fail(authority.error());
    if (from == AuthorityFrom::New) {
        if (auto written = saveAuthority(saved, **authority); !written)
            return fail(written.error());
    }
    entry.authority = *authority;
    QByteArray bundle;
    if (QFile host(QString::fromLatin1(HostBundle)); host.open(QIODevice::ReadOnly))
        bundle = host.readAll() + '\n';
    bundle += entry.authority->certificatePem();
    entry.container->setTrustBundle(bundle.toStdString());
    auto values = domainSecretsForRun(entry);
    if (!values)
        return fail(values.error());
    return {};
}

Result<std::vector<Secrets::ResolvedSecret>> ContainerManager::domainSecretsForRun(Entry &entry)
{
    const auto names = domainsByName(entry.container->policy().network);
    if (names.empty())
        return std::vector<Secrets::ResolvedSecret>{};
    std::vector<Policy::SecretRef> refs;
    for (const auto &[name, domains] : names)
        refs.push_back({name, name});
    Policy::ContainerPolicy lookup;
    lookup.name = entry.container->policy().name;
    lookup.secrets = refs;
    auto values = resolveSecrets(lookup);
    if (!values)
        return fail(values.error());

    QList<Network::DomainSecretValue> forProxy;
    std::vector<Secrets::ResolvedSecret> placeholders;
    for (std::size_t i = 0; i < names.size(); ++i) {
        const auto &[name, domains] = names[i];
        const QByteArray &placeholder = entry.placeholders.at(name);
        forProxy.append({toQt(name), domains, placeholder, QByteArray::fromStdString((*values)[i].value),
                         headerOf(entry.container->policy().network, name),
                         compressedDomainsOf(entry.container->policy().network, name)});
        Secrets::ResolvedSecret variable{
            name,
            name,
            weakened(Guarantee::DomainSecretPlaceholder) ? (*values)[i].value : placeholder.toStdString(),
            (*values)[i].fingerprint,
            {}};
        for (const QString &domain : domains)
            variable.domains.push_back(toPlain(domain));
        placeholders.push_back(std::move(variable));
    }
    // Both are masked as [secret:NAME]: the value (which could come back from its domain into the output)
    // and the placeholder (which stands for it).
    rememberSecretValues(entry, *values);
    rememberSecretValues(entry, placeholders);
    entry.proxySecrets = std::make_shared<const Network::DomainSecrets>(forProxy);
    if (m_proxy)
        m_proxy->setDomainSecrets(entry.record.id, entry.proxySecrets, entry.authority);
    return placeholders;
}

void ContainerManager::updateDomainSecret(const std::string &name, const QByteArray &value)
{
    for (const auto &[id, entry] : m_entries) {
        if (!entry->proxySecrets)
            continue;
        QList<Network::DomainSecretValue> secrets = entry->proxySecrets->secrets();
        bool changed = false;
        for (Network::DomainSecretValue &secret : secrets) {
            if (toPlain(secret.name) == name) {
                secret.value = value;
                changed = true;
            }
        }
        if (!changed)
            continue;
        entry->proxySecrets = std::make_shared<const Network::DomainSecrets>(secrets);
        if (m_proxy && m_proxy->hasListener(id))
            m_proxy->setDomainSecrets(id, entry->proxySecrets, entry->authority);
    }
}

} // namespace Cordon::Containers
