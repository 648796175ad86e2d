// SPDX-License-Identifier: MIT
// The client side of the control socket, used by the CLI and the GUI: connects (starting cordond when nothing
// listens), greets with `hello`, sends requests whose answers may come back in any order, and passes on
// pushed events.
#pragma once

#include "core/result.h"
#include "daemon/framecodec.h"

#include <QElapsedTimer>
#include <QHash>
#include <QJsonObject>
#include <QLocalSocket>
#include <QObject>
#include <QString>
#include <QTimer>

#include <functional>
#include <optional>

namespace Cordon::Daemon {

class DaemonClient final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(DaemonClient)

public:
    using Callback = std::function<void(Result<QJsonObject>)>;

    // How long a freshly started daemon gets to answer `hello`.
    static constexpr int StartWaitMs = 5000;
    static constexpr int HelloTimeoutMs = 10000;

    explicit DaemonClient(QObject *parent = nullptr);
    ~DaemonClient() override;

    // Default: Daemon::socketPath(), read when connecting.
    void setSocketPath(const QString &path);
    // Sent as `client` in hello, for the daemon's logs; default: the application name.
    void setClientName(const QString &name);

    // Connects; when nothing listens and autoStart is true, starts the daemon (daemonProgram()) detached,
    // with its output appended to <socket>.log (daemon/lite/daemonlog.h), then retries with backoff for up to
    // StartWaitMs until hello succeeds; a daemon that exits before that fails the start at once, quoting what
    // it wrote to the log.
    // Emits connected() or connectionFailed(): `daemon.unreachable` (naming the socket path),
    // `daemon.start_failed`, `daemon.timeout`, `protocol.version`, or whatever error the daemon answered
    // hello with.
    void connectToDaemon(bool autoStart = true);
    // Drops the connection; pending callbacks get `daemon.disconnected`.
    void disconnectFromDaemon();
    bool isConnected() const { return m_state == State::Connected; }
    // The daemon's hello result (protocol, daemon_version, pid, ...), once connected.
    const QJsonObject &helloResult() const { return m_hello; }

    // Sends a request; the callback runs once, always from the event loop and never inside call(), with the
    // result or the error (`daemon.disconnected` if the connection drops before the answer). It does not run
    // if this client is destroyed first. Returns the request id.
    qint64 call(const QString &method, const QJsonObject &params, Callback callback);
    // Blocking convenience for the CLI: runs a local event loop until the answer (or timeoutMs:
    // `daemon.timeout`).
    Result<QJsonObject> callSync(const QString &method, const QJsonObject &params, int timeoutMs = 30000);
    Result<> connectSync(bool autoStart = true, int timeoutMs = 10000);

    // $CORDON_DAEMON, else `cordond` beside this program (or in ../../bin, seen from libexec/cordon/), else
    // `cordond` from PATH; empty if none is found.
    static QString daemonProgram();

Q_SIGNALS:
    void connected();
    void disconnected();
    void connectionFailed(const Cordon::Error &error);
    void eventReceived(const QString &name, const QJsonObject &data);

private:
    enum class State
    {
        Disconnected,
        Connecting, // connecting to the socket, or waiting for a daemon we started
        Greeting,   // connected, hello sent
        Connected,
    };

    void attemptConnection();
    void onSocketConnected();
    void onSocketError(QLocalSocket::LocalSocketError socketError);
    void onSocketDisconnected();
    void readFrames();
    void handleMessage(const QJsonObject &message);
    void startDaemonAndRetry();
    void scheduleRetry();
    void failConnecting(const Error &error);
    void failPending(const Error &error);
    void sendFrame(qint64 id, const QByteArray &frame, Callback callback);
    void answerLater(Callback callback, Result<QJsonObject> outcome);

    QLocalSocket *m_socket;
    FrameDecoder m_decoder;
    State m_state = State::Disconnected;
    QString m_socketPathOverride;
    QString m_path; // the path of the current attempt
    QString m_clientName;
    bool m_autoStart = false;
    bool m_daemonStarted = false;
    QString m_startedProgram;
    qint64 m_startedPid = 0;
    qint64 m_logOffset = 0; // where the started daemon's output begins in its log
    QElapsedTimer m_startClock;
    int m_retryDelayMs = 0;
    QTimer m_retryTimer;
    QTimer m_helloTimer;
    QHash<qint64, Callback> m_pending;
    qint64 m_nextId = 1;
    QJsonObject m_hello;
    // Bumped whenever a connection ends, so a loop running callbacks notices that the stream it reads is
    // gone.
    quint64 m_generation = 0;
    // An id-less error frame from the daemon (e.g. frame_too_large), reported when the connection then drops.
    std::optional<Error> m_serverError;
};

} // namespace Cordon::Daemon
