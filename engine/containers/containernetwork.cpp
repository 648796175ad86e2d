// SPDX-License-Identifier: MIT
// ContainerManager: network. Containers with an allowlist hand their proxy listener to the daemon's egress
// proxy when they start, and so do one-shot runs (through the launcher); every proxy decision becomes a
// history event; a running container's allowlist can be replaced (never wider than the organisation's),
// which the proxy applies to new and open connections at once.
#include "containers/containermanager.h"

#include <QDateTime>
#include <QFileInfo>
#include <QJsonDocument>

#include <unistd.h>

namespace Cordon::Containers {

void ContainerManager::attachProxy(Entry &target)
{
    const Policy::ContainerPolicy &policy = target.container->policy();
    if (!m_proxy || policy.network.type != Policy::NetworkPolicy::Type::Allowlist)
        return;
    const int listener = target.container->takeProxyListener();
    if (listener < 0) {
        recordEvent(
            target.record.id, {}, QStringLiteral("network.proxy_failed"),
            {{QStringLiteral("error"), QStringLiteral("the container did not hand over a proxy listener")}});
        return;
    }
    m_proxy->removeListener(target.record.id); // a listener of an earlier start of the same container
    if (auto added = m_proxy->addListener(target.record.id, listener); !added) {
        recordEvent(target.record.id, {}, QStringLiteral("network.proxy_failed"),
                    {{QStringLiteral("error"), toQt(added.error().message())}});
        return;
    }
    m_proxy->updatePolicy(target.record.id, policy.network);
    // A new listener starts from a new context: the domain secrets prepared for this start go with it.
    if (target.proxySecrets)
        m_proxy->setDomainSecrets(target.record.id, target.proxySecrets, target.authority);
}

void ContainerManager::detachProxy(const QString &containerId)
{
    if (m_proxy)
        m_proxy->removeListener(containerId);
}

Result<> ContainerManager::checkOneShot(const QString &id, const Policy::ContainerPolicy &policy) const
{
    if (!m_proxy)
        return fail(QStringLiteral("daemon.internal"), QStringLiteral("the egress proxy is not set up yet"));
    if (policy.network.type != Policy::NetworkPolicy::Type::Allowlist)
        return fail(QStringLiteral("protocol.invalid_params"),
                    QStringLiteral("a one-shot run's network is served only for an allowlist policy"));
    if (!policy.network.domainSecrets.empty())
        return fail(QStringLiteral("policy.invalid_secret"),
                    QStringLiteral("domain secrets need a container of their own (`cordon create --policy "
                                   "FILE`, then `cordon exec`); a one-shot run takes only \"secrets\""));
    if (m_entries.count(id) != 0 || m_oneShots.contains(id) || m_store.container(id))
        return fail(QStringLiteral("container.exists"),
                    QStringLiteral("a container with id `%1` is already recorded").arg(id));
    return m_proxy->orgPolicy().checkNarrows(policy.network);
}

Result<QString> ContainerManager::attachOneShot(const QString &id, const Policy::ContainerPolicy &policy,
                                                int listenerFd)
{
    if (auto checked = checkOneShot(id, policy); !checked) {
        ::close(listenerFd);
        return fail(checked.error());
    }
    const QString version = toQt(policy.version());
    Store::ContainerRecord record;
    record.id = id;
    record.name = toQt(policy.name);
    record.state = QStringLiteral("one-shot");
    record.policyVersion = version;
    record.memoryLimit = policy.memoryLimitBytes;
    record.createdAt = QDateTime::currentMSecsSinceEpoch();
    record.lastActiveAt = record.createdAt;
    auto saved =
        m_store.recordPolicyVersion(version, QByteArray::fromStdString(policy.canonicalJson())).and_then([&] {
            return m_store.saveContainer(record);
        });
    if (!saved) {
        ::close(listenerFd);
        return fail(saved.error());
    }
    if (auto added = m_proxy->addListener(id, listenerFd); !added) {
        record.endedAt = QDateTime::currentMSecsSinceEpoch();
        logStoreFailure(m_store.saveContainer(record), "the end of a one-shot run");
        return fail(added.error());
    }
    m_proxy->updatePolicy(id, policy.network);
    m_oneShots.insert(id, record);
    // The launcher gave the run its secrets from the same store: its decisions mask them too.
    if (auto secrets = resolveSecrets(policy); secrets && !secrets->empty()) {
        m_oneShotMaskers.insert(id, Secrets::maskerFor(*secrets));
        m_oneShotMaskerOrder.push_back(id);
        // Kept after the run ended, for decisions reported late; the oldest go past a bound.
        while (m_oneShotMaskerOrder.size() > MaxOneShotMaskers) {
            m_oneShotMaskers.remove(m_oneShotMaskerOrder.front());
            m_oneShotMaskerOrder.pop_front();
        }
    }
    recordEvent(id, {}, QStringLiteral("container.one_shot_started"),
                {{QStringLiteral("policy_version"), version},
                 {QStringLiteral("network_policy"), toQt(policy.network.toJson())}});
    return version;
}

void ContainerManager::detachOneShot(const QString &id)
{
    auto found = m_oneShots.find(id);
    if (found == m_oneShots.end())
        return;
    m_proxy->removeListener(id);
    Store::ContainerRecord record = *found;
    m_oneShots.erase(found);
    record.endedAt = QDateTime::currentMSecsSinceEpoch();
    record.lastActiveAt = record.endedAt;
    logStoreFailure(m_store.saveContainer(record), "the end of a one-shot run");
    // Decisions the ledger still holds for the run are written now; its masker stays (m_oneShotMaskers, the
    // last MaxOneShotMaskers runs) for a connection that reports its end later.
    m_ledger->flushContainer(id);
    recordEvent(id, {}, QStringLiteral("container.one_shot_ended"), {});
}

void ContainerManager::recordConnection(const Network::ConnectionRecord &record)
{
    QJsonObject detail = record.toJson();
    detail.remove(QStringLiteral("container_id"));
    const QString kind = QStringLiteral("network.") + Network::decisionName(record.decision);
    // A TCP connection to the proxy does not say which process made it; with one run active in the container
    // it can only be that run's (or something it left running), so attribute it. Otherwise it stays
    // unattributed.
    QString runId;
    if (auto found = entry(record.containerId)) {
        touch(**found);
        const QList<ContainerRun *> runs = (*found)->container->runs();
        if (runs.size() == 1)
            runId = runs.first()->id();
    }
    m_ledger->add(record.containerId, runId, kind, detail);
}

const Network::OrgPolicy &ContainerManager::orgPolicy() const
{
    // Before initialize() there is no proxy: the empty list, which allows nothing.
    static const Network::OrgPolicy none;
    return m_proxy ? m_proxy->orgPolicy() : none;
}

Result<Network::OrgPolicy> ContainerManager::reloadOrgPolicy()
{
    auto org = Network::OrgPolicy::load();
    if (!org)
        return fail(org.error());
    const bool changed = *org != orgPolicy();
    m_proxy->setOrgPolicy(*org);
    m_lastOrgPolicyError.clear();
    m_orgPolicyErrorSince = 0;
    if (changed || m_orgPolicyInForceSince == 0)
        m_orgPolicyInForceSince = QDateTime::currentMSecsSinceEpoch();
    // Only a change is an event: a reload that finds what is already in force leaves the timeline alone.
    if (changed)
        recordEvent({}, {}, QStringLiteral("network.org_policy_reloaded"),
                    {{QStringLiteral("path"), org->path()},
                     {QStringLiteral("source"), org->sourceName()},
                     {QStringLiteral("rules"), static_cast<qint64>(org->rules().size())}});
    return orgPolicy();
}

ContainerManager::OrgPolicyStatus ContainerManager::orgPolicyStatus() const
{
    return {m_orgPolicyInForceSince, m_lastOrgPolicyError, m_orgPolicyErrorSince};
}

void ContainerManager::recordOrgPolicyError(const QString &message)
{
    if (message == m_lastOrgPolicyError)
        return;
    if (m_lastOrgPolicyError.isEmpty())
        m_orgPolicyErrorSince = QDateTime::currentMSecsSinceEpoch();
    m_lastOrgPolicyError = message;
    recordEvent({}, {}, QStringLiteral("network.org_policy_invalid"), {{QStringLiteral("error"), message}});
}

Result<Network::OrgPolicy> ContainerManager::setOrgPolicy(const QJsonArray &domains)
{
    if (!m_proxy)
        return fail(QStringLiteral("daemon.internal"), QStringLiteral("the egress proxy is not set up yet"));
    auto saved = Network::OrgPolicy::saveUserFile(domains);
    if (!saved)
        return fail(saved.error());
    // Our own write is not news for the watcher (it also starts watching a folder that is new).
    if (m_orgWatcher)
        m_orgWatcher->resync();
    // Re-read rather than use what was written: what is in force is whatever load() finds now.
    return reloadOrgPolicy();
}

Result<ContainerSnapshot> ContainerManager::updateNetwork(const QString &containerId,
                                                          Policy::NetworkPolicy network,
                                                          bool keepDomainSecrets)
{
    auto found = liveEntry(containerId);
    if (!found)
        return fail(found.error());
    Entry &target = **found;
    const Policy::ContainerPolicy &current = target.container->policy();
    // The listener exists only when the container started with an allowlist: switching between "disabled"
    // and "allowlist" changes what its runs are given (proxy variables), which needs a fresh start.
    const bool running = target.container->state() == ContainerState::Running;
    if (running && current.network.type != network.type)
        return fail(
            QStringLiteral("network.restart_required"),
            QStringLiteral("switching the network between disabled and allowlist needs a stopped container: "
                           "stop it, change the policy, start it"));
    // An allowlist editor that knows nothing of domain secrets keeps them; each must still be allowed.
    if (keepDomainSecrets && network.type == Policy::NetworkPolicy::Type::Allowlist)
        network.domainSecrets = current.network.domainSecrets;
    CORDON_TRY(Policy::checkDomainSecrets(network, "network_policy"));
    // The sandbox's CA bundle and placeholders are made at start.
    if (running && network.domainSecrets != current.network.domainSecrets)
        return fail(QStringLiteral("network.restart_required"),
                    QStringLiteral("domain secrets change with the container stopped: stop it, change the "
                                   "policy, start it"));
    if (network.type == Policy::NetworkPolicy::Type::Allowlist)
        CORDON_TRY(m_proxy->orgPolicy().checkNarrows(network));

    Policy::ContainerPolicy updated = current;
    updated.network = network;
    const QString version = toQt(updated.version());
    CORDON_TRY(m_store.recordPolicyVersion(version, QByteArray::fromStdString(updated.canonicalJson())));
    const QString previous = target.record.policyVersion;
    target.container->setNetworkPolicy(network);
    target.record.policyVersion = version;
    if (running && m_proxy->hasListener(containerId))
        m_proxy->updatePolicy(containerId, network);
    touch(target);
    persist(target);
    recordEvent(containerId, {}, QStringLiteral("network.policy_changed"),
                {{QStringLiteral("policy_version"), version},
                 {QStringLiteral("previous_policy_version"), previous},
                 {QStringLiteral("network_policy"), toQt(network.toJson())}});
    return snapshot(target);
}

Result<NetworkSummary> ContainerManager::networkSummary(const QString &containerId) const
{
    m_ledger->flushContainer(containerId);
    // Exact: summed over every recorded row, each weighted by the decisions it stands for.
    auto groups = m_store.networkDecisions(containerId);
    if (!groups)
        return fail(groups.error());
    NetworkSummary summary;
    for (const Store::DecisionGroup &group : *groups) {
        summary.hosts.append(HostDecisions{group.host, group.target, group.suppressed,
                                           group.kind.mid(int(qstrlen("network."))), group.count,
                                           group.lastReason, group.lastAt});
        summary.events += group.count;
    }
    auto secrets = m_store.secretDeliveries(containerId);
    if (!secrets)
        return fail(secrets.error());
    summary.secrets = std::move(*secrets);
    return summary;
}

} // namespace Cordon::Containers
