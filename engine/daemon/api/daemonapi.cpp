// SPDX-License-Identifier: MIT
#include "daemon/api/daemonapi.h"

#include "daemon/api/wireforms.h"

namespace Cordon::Api {

DaemonApi::DaemonApi(Containers::ContainerManager &manager, Store::HistoryStore &store,
                     Daemon::ControlServer &server, QObject *parent)
    : QObject(parent), m_context{manager, store, server, {}, {}, {}, {}}
{
    m_context.uptime.start();
    // Queued: the answer to daemon.shutdown is written before the event loop stops.
    m_context.requestShutdown = [this](bool leaveRunning) {
        QMetaObject::invokeMethod(
            this, [this, leaveRunning] { Q_EMIT shutdownRequested(leaveRunning); }, Qt::QueuedConnection);
    };
    addDaemonMethods(m_table);
    addContainerMethods(m_table);
    addRunMethods(m_table);
    addFileMethods(m_table);
    addNetworkMethods(m_table);
    addHistoryMethods(m_table);
    addSecretMethods(m_table);
    addAuditMethods(m_table);
    m_context.server.setHelloExtras({{QStringLiteral("time_scale"), m_context.manager.timeScale()}});
    m_context.server.setSubscribeBacklogProvider([this](const QStringList &topics, const QString &container) {
        QJsonObject backlog;
        if (topics.contains(QStringLiteral("memory")))
            backlog.insert(QStringLiteral("memory_backlog"),
                           memorySamplesToJson(m_context.manager.memoryBacklog(container)));
        if (topics.contains(QStringLiteral("containers")))
            backlog.insert(QStringLiteral("containers"), containersToJson(m_context.manager.list(false)));
        return backlog;
    });
    wireEvents();
}

void DaemonApi::wireEvents()
{
    using Containers::ContainerManager;
    connect(&m_context.manager, &ContainerManager::containerChanged, this,
            [this](const Containers::ContainerSnapshot &container) {
                m_context.server.publish(QStringLiteral("containers"), container.record.id,
                                         QStringLiteral("container.changed"),
                                         {{QStringLiteral("container"), containerToJson(container)}});
            });
    connect(&m_context.manager, &ContainerManager::expiringSoon, this,
            [this](const QString &id, qint64 expiresAt) {
                m_context.server.publish(
                    QStringLiteral("containers"), id, QStringLiteral("container.expiring_soon"),
                    {{QStringLiteral("container"), id}, {QStringLiteral("expires_at"), expiresAt}});
            });
    connect(&m_context.manager, &ContainerManager::runStarted, this,
            [this](const Containers::RunSnapshot &run) {
                m_context.server.publish(QStringLiteral("runs"), run.record.containerId,
                                         QStringLiteral("run.started"),
                                         {{QStringLiteral("run"), runToJson(run)}}, run.record.id);
            });
    connect(&m_context.manager, &ContainerManager::runOutput, this,
            [this](const QString &runId, const QString &container, const QString &stream,
                   const QByteArray &chunk) {
                m_context.server.publish(QStringLiteral("runs"), container, QStringLiteral("run.output"),
                                         {{QStringLiteral("run_id"), runId},
                                          {QStringLiteral("container"), container},
                                          {QStringLiteral("stream"), stream},
                                          {QStringLiteral("data"), QString::fromLatin1(chunk.toBase64())}},
                                         runId);
            });
    connect(&m_context.manager, &ContainerManager::runFinished, this,
            [this](const Containers::RunSnapshot &finished) {
                const QString &runId = finished.record.id;
                const QJsonObject run = runToJson(finished);
                m_context.server.publish(QStringLiteral("runs"), finished.record.containerId,
                                         QStringLiteral("run.finished"), {{QStringLiteral("run"), run}},
                                         runId, true);
                const QList<Respond> waiters = m_context.waiters.values(runId);
                m_context.waiters.remove(runId);
                for (const Respond &respond : waiters)
                    respond(QJsonObject{{QStringLiteral("run"), run}});
            });
    connect(&m_context.manager, &ContainerManager::memorySampled, this,
            [this](const Containers::MemorySample &sample) {
                m_context.server.publish(QStringLiteral("memory"), sample.container,
                                         QStringLiteral("memory.sample"), memorySampleToJson(sample));
            });
    // A one-shot run's network is served for as long as the launcher that attached it stays connected.
    connect(&m_context.server, &Daemon::ControlServer::clientDisconnected, this, [this](quint64 connection) {
        const QStringList held = m_context.oneShotNetworks.values(connection);
        m_context.oneShotNetworks.remove(connection);
        for (const QString &id : held)
            m_context.manager.detachOneShot(id);
    });
    connect(&m_context.manager, &ContainerManager::eventRecorded, this,
            [this](const Store::EventRecord &event) {
                m_context.server.publish(QStringLiteral("events"), event.containerId, QStringLiteral("event"),
                                         eventToJson(event));
            });
}

void DaemonApi::handleRequest(const Daemon::ClientInfo &client, const QString &method,
                              const QJsonObject &params, Respond respond)
{
    m_table.call(m_context, client, method, params, std::move(respond));
}

} // namespace Cordon::Api
