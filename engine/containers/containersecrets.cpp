// SPDX-License-Identifier: MIT
// ContainerManager: the host's secrets (docs/secrets.md). The store holds the values; the manager gives each
// run the values its policy names and masks them in everything it records or streams about the container.
#include "containers/containermanager.h"

#include "core/plainbridge.h"

#include <QDateTime>
#include <QJsonArray>

#include <algorithm>

namespace Cordon::Containers {

namespace {

QJsonValue maskedValue(const Secrets::SecretMasker &masker, const QJsonValue &value);

QJsonObject maskedObject(const Secrets::SecretMasker &masker, const QJsonObject &object)
{
    QJsonObject out;
    for (auto it = object.begin(); it != object.end(); ++it)
        out.insert(toQt(masker.maskAll(toPlain(it.key()))), maskedValue(masker, it.value()));
    return out;
}

QJsonValue maskedValue(const Secrets::SecretMasker &masker, const QJsonValue &value)
{
    if (value.isString())
        return toQt(masker.maskAll(toPlain(value.toString())));
    if (value.isObject())
        return maskedObject(masker, value.toObject());
    if (value.isArray()) {
        QJsonArray out;
        for (const QJsonValue &item : value.toArray())
            out.append(maskedValue(masker, item));
        return out;
    }
    return value;
}

bool hasDomainSecret(const Policy::ContainerPolicy &policy, const std::string &name)
{
    const auto &domainSecrets = policy.network.domainSecrets;
    return std::any_of(domainSecrets.begin(), domainSecrets.end(),
                       [&](const Policy::DomainSecret &secret) { return secret.name == name; });
}

// Whether the policy gives its runs the secret of this name, or its proxy (a domain secret).
bool receives(const Policy::ContainerPolicy &policy, const std::string &name)
{
    return hasDomainSecret(policy, name) ||
           std::any_of(policy.secrets.begin(), policy.secrets.end(),
                       [&](const Policy::SecretRef &ref) { return ref.name == name; });
}

} // namespace

Result<Secrets::SecretStore *> ContainerManager::secretStore() const
{
    if (m_secretStore && m_secretStore->changedOnDisk())
        m_secretStore.reset();
    if (!m_secretStore) {
        auto opened = Secrets::SecretStore::open(Secrets::SecretStore::defaultPath(), &m_secretVault);
        if (!opened)
            return fail(opened.error());
        m_secretStore = std::move(*opened);
    }
    return &*m_secretStore;
}

Result<> ContainerManager::checkNoSecretInEnv(const Policy::ContainerPolicy &policy) const
{
    if (policy.env.empty())
        return {};
    auto store = secretStore();
    if (!store)
        return {}; // no store to compare with: nothing of it can be in the policy by mistake
    return Secrets::checkNoSecretInEnv(**store, policy);
}

Result<std::vector<Secrets::ResolvedSecret>>
ContainerManager::resolveSecrets(const Policy::ContainerPolicy &policy) const
{
    if (policy.secrets.empty())
        return std::vector<Secrets::ResolvedSecret>{};
    auto store = secretStore();
    if (!store)
        return fail(store.error());
    auto resolved = Secrets::resolveSecrets(**store, policy.secrets);
    if (!resolved)
        return fail(resolved.error().wrap("policy " + policy.name));
    return resolved;
}

void ContainerManager::rememberSecretValues(Entry &entry, const std::vector<Secrets::ResolvedSecret> &secrets)
{
    bool grew = false;
    for (const Secrets::ResolvedSecret &secret : secrets)
        grew |= entry.secretValues.emplace(secret.name, secret.value).second;
    if (!grew)
        return;
    Secrets::SecretMasker masker;
    for (const auto &[name, value] : entry.secretValues)
        (void)masker.add(name, value);
    entry.masker = std::move(masker);
}

void ContainerManager::rememberRetiredValues(Entry &entry)
{
    auto store = secretStore();
    auto retired = store ? (*store)->retiredValuesOf(toPlain(entry.record.id)) : fail(store.error());
    if (!retired) {
        qWarning("cordond: the previous secret values of container %s could not be read, and are not masked: "
                 "%s",
                 qPrintable(entry.record.id), retired.error().message().c_str());
        return;
    }
    std::vector<Secrets::ResolvedSecret> values;
    for (Secrets::RetiredValue &value : *retired)
        values.push_back({std::move(value.name), {}, std::move(value.value), {}, {}});
    rememberSecretValues(entry, values);
}

std::vector<std::string> ContainerManager::holdersOf(const std::string &name) const
{
    std::vector<std::string> holders;
    for (const auto &[id, entry] : m_entries) {
        const ContainerState state = entry->container->state();
        if (state == ContainerState::Expired || state == ContainerState::Deleted)
            continue;
        const bool held = std::any_of(entry->secretValues.begin(), entry->secretValues.end(),
                                      [&](const auto &value) { return value.first == name; });
        if (held || receives(entry->container->policy(), name))
            holders.push_back(toPlain(id));
    }
    return holders;
}

void ContainerManager::releaseRetiredValues()
{
    std::vector<std::string> live;
    for (const auto &[id, entry] : m_entries) {
        const ContainerState state = entry->container->state();
        if (state != ContainerState::Expired && state != ContainerState::Deleted)
            live.push_back(toPlain(id));
    }
    auto store = secretStore();
    const Result<> released = store ? (*store)->keepRetiredFor(live) : fail(store.error());
    if (!released)
        qWarning("cordond: the secret store could not drop the previous values no container holds: %s",
                 released.error().message().c_str());
}

const Secrets::SecretMasker *ContainerManager::maskerOf(const QString &containerId) const
{
    const Secrets::SecretMasker *masker = nullptr;
    if (const auto found = m_entries.find(containerId); found != m_entries.end())
        masker = &found->second->masker;
    else if (const auto oneShot = m_oneShotMaskers.constFind(containerId); oneShot != m_oneShotMaskers.cend())
        masker = &*oneShot;
    return masker && !masker->empty() ? masker : nullptr;
}

QJsonObject ContainerManager::maskedDetail(const QString &containerId, const QJsonObject &detail) const
{
    const Secrets::SecretMasker *masker = maskerOf(containerId);
    return masker ? maskedObject(*masker, detail) : detail;
}

QString ContainerManager::maskedText(const QString &containerId, const QString &text) const
{
    const Secrets::SecretMasker *masker = maskerOf(containerId);
    return masker ? toQt(masker->maskAll(toPlain(text))) : text;
}

void ContainerManager::recordFile(Store::FileRecord record, const char *what)
{
    record.path = maskedText(record.containerId, record.path);
    logStoreFailure(m_store.recordFile(record), what);
}

Result<QList<SecretListing>> ContainerManager::secrets() const
{
    auto store = secretStore();
    if (!store)
        return fail(store.error());
    QList<SecretListing> listings;
    for (Secrets::StoredSecret &stored : (*store)->list()) {
        SecretListing listing{std::move(stored), {}};
        for (const auto &[id, entry] : m_entries) {
            const ContainerState state = entry->container->state();
            if (state == ContainerState::Expired || state == ContainerState::Deleted)
                continue;
            if (receives(entry->container->policy(), listing.stored.name))
                listing.usedBy.append({id, entry->record.name});
        }
        listings.append(std::move(listing));
    }
    return listings;
}

Result<QString> ContainerManager::secretValuesIn() const
{
    auto store = secretStore();
    if (!store)
        return fail(store.error());
    return toQt((*store)->valuesIn());
}

Result<SecretListing> ContainerManager::setSecret(const QString &name, const std::string &value,
                                                  const QString &origin)
{
    auto store = secretStore();
    if (!store)
        return fail(store.error());
    const std::string plainName = toPlain(name);
    const bool replaced = (*store)->contains(plainName);
    // The value replaced stays with the containers that had it (a program may have saved it in their files):
    // in their maskers now, and in the store for a daemon started after this one.
    CORDON_TRY((*store)->set(plainName, value, QDateTime::currentMSecsSinceEpoch(), holdersOf(plainName)));
    // Containers that use it mask the new value from now on (their next run receives it).
    const Secrets::ResolvedSecret resolved{plainName, {}, value, (*store)->fingerprint(value), {}};
    for (const auto &[id, entry] : m_entries) {
        if (receives(entry->container->policy(), plainName))
            rememberSecretValues(*entry, {resolved});
    }
    // The proxies of running containers send the new value from the next request on.
    updateDomainSecret(plainName, QByteArray::fromStdString(value));
    QJsonObject detail{{QStringLiteral("name"), name},
                       {QStringLiteral("fingerprint"), toQt(resolved.fingerprint)},
                       {QStringLiteral("values_in"), toQt((*store)->valuesIn())}};
    if (!origin.isEmpty())
        detail.insert(QStringLiteral("origin"), origin);
    recordEvent({}, {}, replaced ? QStringLiteral("secret.replaced") : QStringLiteral("secret.set"), detail);
    auto listed = secrets();
    if (!listed)
        return fail(listed.error());
    for (const SecretListing &listing : *listed) {
        if (listing.stored.name == plainName)
            return listing;
    }
    return fail(QStringLiteral("secrets.not_found"), QStringLiteral("secret %1 vanished").arg(name));
}

Result<> ContainerManager::removeSecret(const QString &name, const QString &origin)
{
    auto store = secretStore();
    if (!store)
        return fail(store.error());
    CORDON_TRY((*store)->remove(toPlain(name), holdersOf(toPlain(name))));
    // A domain secret's placeholder is refused from now on, not sent as it is.
    updateDomainSecret(toPlain(name), {});
    QJsonObject detail{{QStringLiteral("name"), name}};
    if (!origin.isEmpty())
        detail.insert(QStringLiteral("origin"), origin);
    recordEvent({}, {}, QStringLiteral("secret.removed"), detail);
    return {};
}

} // namespace Cordon::Containers
