// SPDX-License-Identifier: MIT
// The daemon's side of the control socket: accepts same-uid clients, decodes frames, answers `hello`,
// `subscribe` and `unsubscribe` itself and hands every other request to a RequestHandler; pushes events to
// subscribers. Client input can cost that client its connection, never the daemon or the other clients.
#pragma once

#include "core/result.h"

#include <QJsonObject>
#include <QObject>
#include <QString>
#include <QStringList>
#include <QTimer>

#include <functional>
#include <memory>
#include <sys/types.h>
#include <unordered_map>

class QSocketNotifier;

namespace Cordon::Daemon {

struct ClientInfo
{
    quint64 connectionId = 0;
    pid_t pid = 0; // from SO_PEERCRED at connect time
    uid_t uid = 0;
    QString clientName; // from `hello`, empty before it
};

class RequestHandler
{
public:
    virtual ~RequestHandler() = default;
    // Must call respond exactly once, now or later (e.g. run.wait answers when the run ends), on the server's
    // thread. respond is safe to call after the client disconnected (it then does nothing); a second call is
    // ignored. An unknown method is answered with `protocol.unknown_method` by the handler itself.
    virtual void handleRequest(const ClientInfo &client, const QString &method, const QJsonObject &params,
                               std::function<void(Result<QJsonObject>)> respond) = 0;
};

class ControlServer final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ControlServer)

public:
    // A client that lets this much output pile up unread is disconnected (docs/protocol.md).
    static constexpr qint64 MaxQueuedBytes = 64LL * 1024 * 1024;
    static constexpr int DefaultMaxClients = 256;
    // Malformed frames logged per connection; the rest are answered but not logged.
    static constexpr int LoggedMalformedFrames = 3;
    // A connection must say `hello` within this long, or it is closed (`daemon.hello_timeout`).
    static constexpr int DefaultHelloTimeoutMs = 5000;
    static constexpr int DefaultIdleTimeoutMs = 10 * 60 * 1000;

    using BacklogProvider = std::function<QJsonObject(const QStringList &topics, const QString &container)>;

    explicit ControlServer(QObject *parent = nullptr);
    ~ControlServer() override;

    // Binds a unix stream socket at path (mode 0600; the directory's 0700 is the real fence). A socket file
    // left by a dead daemon is removed, but only after connecting to it failed; a live one is
    // `daemon.already_running`, anything else at the path is refused.
    Result<> listen(const QString &path);
    // Serves on a listening socket that the service manager bound and passed (socket activation,
    // daemon/socketactivation.h). It must be the socket clients find at `path`: one bound elsewhere would
    // leave them starting a second daemon. Takes the descriptor, also when it fails. The socket file is the
    // service manager's, so close() leaves it in place.
    Result<> adopt(int fd, const QString &path);
    // Stops listening, drops every client and removes the socket file if it is still ours (never an adopted
    // one).
    void close();
    bool isListening() const { return m_listenFd >= 0; }
    const QString &path() const { return m_path; }

    // Not owned. Without a handler, every method other than the built-in ones is `protocol.unknown_method`.
    void setHandler(RequestHandler *handler);
    // Extra fields of the `hello` result (e.g. time_scale); protocol, daemon_version and pid always win.
    void setHelloExtras(QJsonObject extras);
    // Its result is merged into the `subscribe` result (e.g. memory_backlog).
    void setSubscribeBacklogProvider(BacklogProvider provider);
    // A new connection beyond this closes the oldest one that has not said hello yet to make room; when every
    // client has, the connection used longest ago of the process holding the most, unless it waits for an
    // answer; when every connection does, the new one is told `daemon.too_many_clients` and closed.
    void setMaxClients(int maxClients);
    void setHelloTimeout(int milliseconds) { m_helloTimeoutMs = milliseconds; }
    // A connection with no subscription and no request in flight that sends nothing for this long is closed
    // (`daemon.idle_timeout`): it holds a slot for nothing. Subscribers (the workbench, `events --follow`)
    // and clients waiting for an answer (`run.wait`) are never idle.
    void setIdleTimeout(int milliseconds);

    // Pushes an event to every client subscribed to `topic` whose container filter is empty or equals
    // containerId. An event of a run (runId set) skips the clients that subscribed to their own runs only
    // and did not start it; `lastOfRun` (run.finished) then forgets the run's claims.
    void publish(const QString &topic, const QString &containerId, const QString &eventName,
                 const QJsonObject &data, const QString &runId = {}, bool lastOfRun = false);
    // The client of `connectionId` started run `runId`: it gets the run's events under {"runs": "own"}.
    void claimRun(quint64 connectionId, const QString &runId);

    int clientCount() const;
    // Whether the client of a request is still connected (an answer that comes later may find it gone).
    bool isConnected(quint64 connectionId) const { return find(connectionId) != nullptr; }

Q_SIGNALS:
    void clientConnected(quint64 id);
    void clientDisconnected(quint64 id);

private:
    struct Connection;
    using ConnectionPtr = std::shared_ptr<Connection>;

    void startAccepting(int fd, const QString &path);
    void acceptPending();
    void admit(int fd);
    void refuse(int fd, const Error &error);
    bool evictOneSilentClient();
    bool evictFromTheLargestHolder();
    void readFrom(quint64 connectionId);
    void dispatch(const ConnectionPtr &connection, const QJsonObject &message);
    void answerHello(const ConnectionPtr &connection, qint64 id, const QJsonObject &params);
    void answerSubscribe(const ConnectionPtr &connection, qint64 id, const QJsonObject &params);
    std::function<void(Result<QJsonObject>)> responder(quint64 connectionId, qint64 requestId,
                                                       const QString &method);
    void sendResponse(quint64 connectionId, qint64 requestId, const QString &method,
                      const Result<QJsonObject> &outcome);
    void send(const ConnectionPtr &connection, const QByteArray &frame);
    void closeAfterFlush(const ConnectionPtr &connection);
    void drop(quint64 connectionId);
    ConnectionPtr find(quint64 connectionId) const;

    int m_listenFd = -1;
    QString m_path;
    dev_t m_socketDev = 0; // identify our socket file, so close() never unlinks a successor's
    ino_t m_socketIno = 0;
    bool m_ownsSocketFile = false; // listen() bound it; adopt()ed sockets belong to the service manager
    std::unique_ptr<QSocketNotifier> m_acceptNotifier;
    RequestHandler *m_handler = nullptr;
    QJsonObject m_helloExtras;
    BacklogProvider m_backlogProvider;
    int m_maxClients = DefaultMaxClients;
    // Lines about malformed frames per second, all clients together; the rest are counted in one line.
    class LogBudget
    {
    public:
        bool allow();

    private:
        static constexpr int LinesPerSecond = 10;
        qint64 m_second = 0;
        int m_lines = 0;
        int m_suppressed = 0;
    };
    LogBudget m_malformedLog;
    int m_helloTimeoutMs = DefaultHelloTimeoutMs;
    int m_idleTimeoutMs = DefaultIdleTimeoutMs;
    QTimer m_idleSweep;
    void closeIdleConnections();
    int m_lingering = 0;
    quint64 m_nextConnectionId = 0;
    std::unordered_map<quint64, ConnectionPtr> m_connections;
};

} // namespace Cordon::Daemon
