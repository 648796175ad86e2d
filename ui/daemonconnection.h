// SPDX-License-Identifier: MIT
// The workbench's one line to cordond: the engine's DaemonClient, kept connected. It starts the daemon when
// none runs (unless told not to), subscribes to container, run and memory events, and when the daemon goes
// away it says so and reconnects with a growing delay, for as long as the window lives. Nothing here blocks:
// every answer arrives through a callback from the event loop.
#pragma once

#include "core/result.h"

#include <QJsonObject>
#include <QObject>
#include <QPointer>
#include <QTimer>

#include <functional>

namespace Cordon::Daemon {
class DaemonClient;
}

namespace Cordon::Ui {

class DaemonConnection final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(DaemonConnection)

public:
    enum class Status
    {
        Connecting,   // the first attempt, possibly starting the daemon
        Connected,    // greeted and subscribed
        Reconnecting, // lost or never reached; the next attempt is scheduled
    };
    Q_ENUM(Status)

    using Callback = std::function<void(Result<QJsonObject>)>;

    // Delays between attempts after a loss: short at first (a restart takes a moment), capped so that the
    // window notices a daemon that comes back within a few seconds.
    static constexpr int FirstRetryMs = 250;
    static constexpr int MaxRetryMs = 4000;

    explicit DaemonConnection(QObject *parent = nullptr);
    ~DaemonConnection() override;

    // Default true: start cordond when nothing listens. Tests that restart the daemon themselves turn it off.
    void setAutoStart(bool autoStart) { m_autoStart = autoStart; }
    void open();
    // Skips the remaining delay and tries at once (the banner's "Retry now").
    void retryNow();

    Status status() const { return m_status; }
    bool isConnected() const { return m_status == Status::Connected; }
    // Why the last attempt failed or the connection ended; empty while connected.
    const Error &lastError() const { return m_lastError; }
    // Milliseconds until the next attempt while reconnecting.
    int retryInMs() const;
    QJsonObject helloResult() const;

    // Sends a request. The callback runs later from the event loop, and only while `context` still exists:
    // a dialog closed before the daemon answered is never called back.
    void call(const QString &method, const QJsonObject &params, const QObject *context, Callback callback);

Q_SIGNALS:
    void statusChanged(Cordon::Ui::DaemonConnection::Status status);
    // After each successful (re)connection: the subscribe result, with `containers` and `memory_backlog`.
    void subscribed(const QJsonObject &snapshot);
    void eventReceived(const QString &name, const QJsonObject &data);

private:
    void attempt();
    void onConnected();
    void onLost(const Error &error);
    void setStatus(Status status);

    Daemon::DaemonClient *m_client;
    QTimer m_retryTimer;
    int m_retryDelayMs = FirstRetryMs;
    bool m_autoStart = true;
    Status m_status = Status::Connecting;
    Error m_lastError;
};

} // namespace Cordon::Ui
