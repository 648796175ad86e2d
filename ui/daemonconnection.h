// SPDX-License-Identifier: MIT
// The workbench's one line to cordond: the engine's DaemonClient, kept connected. It starts the daemon when
// none runs (unless told not to), subscribes to container, run and memory events, and when the daemon goes
// away it says so and reconnects with a growing delay, for as long as the window lives. Nothing here blocks:
// every answer arrives through a callback from the event loop.
#pragma once

#include "core/result.h"

#include <QElapsedTimer>
#include <QJsonObject>
#include <QMap>
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

    // Connected, a call waiting and no answer to anything for this long: the daemon is not answering
    // (stopped, or stuck). A call that takes long while the daemon answers others (a download) does not
    // count.
    static constexpr int NotAnsweringMs = 5000;
    // A call waiting with no answer for this long sends a cheap one, to tell a long call from a silent
    // daemon.
    static constexpr int ProbeAfterMs = 1500;

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
    // False while connected but not answering (NotAnsweringMs); true again with the next answer.
    bool isAnswering() const { return m_answering; }
    // How long the daemon has given no answer while a call waited (0 when none waits).
    qint64 silentForMs() const;

    // Sends a request. The callback runs later from the event loop, and only while `context` still exists:
    // a dialog closed before the daemon answered is never called back.
    void call(const QString &method, const QJsonObject &params, const QObject *context, Callback callback);

Q_SIGNALS:
    void statusChanged(Cordon::Ui::DaemonConnection::Status status);
    // After each successful (re)connection: the subscribe result, with `containers` and `memory_backlog`.
    void subscribed(const QJsonObject &snapshot);
    void eventReceived(const QString &name, const QJsonObject &data);
    void answeringChanged(bool answering);

private:
    void attempt();
    void onConnected();
    void onLost(const Error &error);
    void setStatus(Status status);
    void answered(qint64 id);
    void setAnswering(bool answering);
    void checkAnswers();

    Daemon::DaemonClient *m_client;
    QTimer m_retryTimer;
    int m_retryDelayMs = FirstRetryMs;
    bool m_autoStart = true;
    Status m_status = Status::Connecting;
    Error m_lastError;
    // Calls sent and not answered yet: request id (in the order sent) to when it was sent, on m_clock.
    QMap<qint64, qint64> m_waiting;
    QElapsedTimer m_clock;
    qint64 m_lastAnswerAt = 0;
    qint64 m_probeId = -1;
    bool m_answering = true;
    QTimer m_answerCheck;
};

} // namespace Cordon::Ui
