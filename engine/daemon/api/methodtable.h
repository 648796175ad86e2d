// SPDX-License-Identifier: MIT
// The daemon's protocol (docs/protocol.md) as a table: each method name maps to one handler, registered by
// the file of its group (daemonmethods.cpp, containermethods.cpp, runmethods.cpp, filemethods.cpp,
// networkmethods.cpp, historymethods.cpp, secretmethods.cpp). A handler reads its parameters strictly
// (params.h), asks the container manager or the history store, and shapes the answer.
#pragma once

#include "containers/containermanager.h"
#include "core/result.h"
#include "daemon/controlserver.h"
#include "store/historystore.h"

#include <QElapsedTimer>
#include <QHash>
#include <QJsonObject>
#include <QMultiHash>
#include <QString>

#include <functional>

namespace Cordon::Api {

using Respond = std::function<void(Result<QJsonObject>)>;

// What every handler works with; owned by DaemonApi.
struct ApiContext
{
    Containers::ContainerManager &manager;
    Store::HistoryStore &store;
    Daemon::ControlServer &server;
    QElapsedTimer uptime;
    // run.wait answers when the run finishes (DaemonApi answers them from ContainerManager::runFinished).
    QMultiHash<QString, Respond> waiters;
    // daemon.shutdown: asks the daemon to stop once the answer is on its way; `leaveRunning` when its
    // containers stay up for the next daemon (ContainerManager::leaveRunning()).
    std::function<void(bool leaveRunning)> requestShutdown;
    // network.attach_one_shot: the one-shot runs whose network each client connection holds; the daemon
    // stops serving them when the connection closes (DaemonApi).
    QMultiHash<quint64, QString> oneShotNetworks;
};

class MethodTable
{
public:
    // Answers now.
    using Handler = std::function<Result<QJsonObject>(ApiContext &, const QJsonObject &params)>;
    // Answers when it can (run.wait) or does something after answering (daemon.shutdown).
    using DeferredHandler = std::function<void(ApiContext &, const QJsonObject &params, Respond)>;
    // Needs to know who asked (network.attach_one_shot takes a descriptor only from the client's own pid).
    using ClientHandler =
        std::function<void(ApiContext &, const Daemon::ClientInfo &, const QJsonObject &params, Respond)>;

    // `parameters` names every parameter the method takes; call() refuses any other, and a null value, with
    // `protocol.invalid_params` before the handler runs, so that a misspelt option is never silently ignored.
    void add(const QString &method, QStringList parameters, Handler handler);
    void addDeferred(const QString &method, QStringList parameters, DeferredHandler handler);
    void addForClient(const QString &method, QStringList parameters, ClientHandler handler);
    // Calls the method's handler; `protocol.unknown_method` for a name the table does not hold.
    void call(ApiContext &context, const Daemon::ClientInfo &client, const QString &method,
              const QJsonObject &params, Respond respond) const;
    QStringList methods() const;

private:
    struct Entry
    {
        QStringList parameters;
        ClientHandler handler;
    };
    QHash<QString, Entry> m_handlers;
};

// Lookups by id answer `container.not_found` / `run.not_found` for an id the history has never seen, never
// an empty success: a typo must not look like "nothing happened". Deleted containers and ended runs are
// known (their history stays).
Result<> requireKnownContainer(const ApiContext &context, const QString &id);
Result<> requireKnownRun(const ApiContext &context, const QString &id);

void addDaemonMethods(MethodTable &table);
void addContainerMethods(MethodTable &table);
void addRunMethods(MethodTable &table);
void addFileMethods(MethodTable &table);
void addNetworkMethods(MethodTable &table);
void addHistoryMethods(MethodTable &table);
void addSecretMethods(MethodTable &table);
void addAuditMethods(MethodTable &table);

} // namespace Cordon::Api
