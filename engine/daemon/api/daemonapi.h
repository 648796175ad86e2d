// SPDX-License-Identifier: MIT
// The daemon's answers: the control server hands every request to the method table (methodtable.h), and
// the container manager's signals become pushed events for the subscribed clients.
#pragma once

#include "daemon/api/methodtable.h"

#include <QObject>

namespace Cordon::Api {

class DaemonApi final : public QObject, public Daemon::RequestHandler
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(DaemonApi)

public:
    DaemonApi(Containers::ContainerManager &manager, Store::HistoryStore &store,
              Daemon::ControlServer &server, QObject *parent = nullptr);

    void handleRequest(const Daemon::ClientInfo &client, const QString &method, const QJsonObject &params,
                       Respond respond) override;

Q_SIGNALS:
    // `leaveRunning`: the containers were left running for the next daemon; exit without stopping them.
    void shutdownRequested(bool leaveRunning);

private:
    void wireEvents();

    ApiContext m_context;
    MethodTable m_table;
};

} // namespace Cordon::Api
