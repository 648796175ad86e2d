// SPDX-License-Identifier: MIT
// The daemon's answers: maps each protocol method (docs/protocol.md) onto the container manager and the
// history store, validates parameters strictly, and turns the manager's signals into pushed events.
#pragma once

#include "containers/containermanager.h"
#include "daemon/controlserver.h"
#include "store/historystore.h"

#include <QElapsedTimer>
#include <QHash>
#include <QObject>

#include <functional>

namespace Cordon::Service {

class ContainerService final : public QObject, public Daemon::RequestHandler
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ContainerService)

public:
    using Respond = std::function<void(Result<QJsonObject>)>;

    ContainerService(Containers::ContainerManager &manager, Store::HistoryStore &store,
                     Daemon::ControlServer &server, QObject *parent = nullptr);

    void handleRequest(const Daemon::ClientInfo &client, const QString &method, const QJsonObject &params,
                       Respond respond) override;

Q_SIGNALS:
    void shutdownRequested();

private:
    Result<QJsonObject> handleNow(const QString &method, const QJsonObject &params);
    Result<QJsonObject> execRun(const QJsonObject &params);
    Result<QJsonObject> historyRuns(const QJsonObject &params) const;
    Result<QJsonObject> historyEvents(const QJsonObject &params) const;
    void wireEvents();

    Containers::ContainerManager &m_manager;
    Store::HistoryStore &m_store;
    Daemon::ControlServer &m_server;
    QElapsedTimer m_uptime;
    QMultiHash<QString, Respond> m_waiters; // run.wait answers when the run finishes
};

} // namespace Cordon::Service
