// SPDX-License-Identifier: MIT
#include "daemonconnection.h"

#include "daemon/daemonclient.h"

#include <QJsonArray>

#include <memory>

namespace Cordon::Ui {

DaemonConnection::DaemonConnection(QObject *parent)
    : QObject(parent), m_client(new Daemon::DaemonClient(this))
{
    m_client->setClientName(QStringLiteral("cordon-workbench"));
    m_retryTimer.setSingleShot(true);
    connect(&m_retryTimer, &QTimer::timeout, this, &DaemonConnection::attempt);
    connect(m_client, &Daemon::DaemonClient::connected, this, &DaemonConnection::onConnected);
    connect(m_client, &Daemon::DaemonClient::connectionFailed, this, &DaemonConnection::onLost);
    connect(m_client, &Daemon::DaemonClient::disconnected, this, [this] {
        onLost(makeError(QStringLiteral("daemon.disconnected"), tr("cordond closed the connection")));
    });
    connect(m_client, &Daemon::DaemonClient::eventReceived, this, &DaemonConnection::eventReceived);
    m_clock.start();
    m_answerCheck.setInterval(250);
    connect(&m_answerCheck, &QTimer::timeout, this, &DaemonConnection::checkAnswers);
}

DaemonConnection::~DaemonConnection() = default;

void DaemonConnection::open()
{
    setStatus(Status::Connecting);
    attempt();
}

void DaemonConnection::retryNow()
{
    if (m_status != Status::Reconnecting || !m_retryTimer.isActive())
        return;
    m_retryTimer.stop();
    attempt();
}

int DaemonConnection::retryInMs() const
{
    return m_retryTimer.isActive() ? m_retryTimer.remainingTime() : 0;
}

QJsonObject DaemonConnection::helloResult() const
{
    return m_client->helloResult();
}

void DaemonConnection::attempt()
{
    m_client->connectToDaemon(m_autoStart);
}

void DaemonConnection::onConnected()
{
    // Every topic for every container: the list, the run console, the chart and the history's timeline all
    // feed from this one stream.
    const QJsonObject params{
        {QStringLiteral("topics"), QJsonArray{QStringLiteral("containers"), QStringLiteral("runs"),
                                              QStringLiteral("memory"), QStringLiteral("events")}}};
    m_client->call(QStringLiteral("subscribe"), params, [this](Result<QJsonObject> result) {
        if (!result) {
            // The connection is useless without events; drop it and let the retry loop try again.
            m_client->disconnectFromDaemon();
            return;
        }
        m_retryDelayMs = FirstRetryMs;
        m_lastError = Error();
        setStatus(Status::Connected);
        Q_EMIT subscribed(*result);
    });
}

void DaemonConnection::onLost(const Error &error)
{
    // The calls that waited are answered with the loss; the banner now says the connection is gone.
    m_waiting.clear();
    m_probeId = -1;
    m_answerCheck.stop();
    setAnswering(true);
    m_lastError = error;
    setStatus(Status::Reconnecting);
    m_retryTimer.start(m_retryDelayMs);
    m_retryDelayMs = qMin(m_retryDelayMs * 2, MaxRetryMs);
}

void DaemonConnection::setStatus(Status status)
{
    // Reconnecting is re-announced on every failed attempt so that the banner can show the new error.
    if (m_status == status && status != Status::Reconnecting)
        return;
    m_status = status;
    Q_EMIT statusChanged(status);
}

void DaemonConnection::call(const QString &method, const QJsonObject &params, const QObject *context,
                            Callback callback)
{
    // The callback never runs inside DaemonClient::call(), so the id is known by the time it does.
    auto id = std::make_shared<qint64>(-1);
    *id = m_client->call(method, params,
                         [this, id, guard = QPointer<const QObject>(context),
                          callback = std::move(callback)](Result<QJsonObject> result) {
                             answered(*id);
                             if (guard)
                                 callback(std::move(result));
                         });
    if (m_status != Status::Connected)
        return;
    m_waiting.insert(*id, m_clock.elapsed());
    m_answerCheck.start();
}

qint64 DaemonConnection::silentForMs() const
{
    if (m_waiting.isEmpty())
        return 0;
    // Silent since the later of the last answer and the oldest call still waiting.
    return m_clock.elapsed() - qMax(m_lastAnswerAt, m_waiting.first());
}

void DaemonConnection::answered(qint64 id)
{
    m_waiting.remove(id);
    if (id == m_probeId)
        m_probeId = -1;
    m_lastAnswerAt = m_clock.elapsed();
    if (m_waiting.isEmpty())
        m_answerCheck.stop();
    setAnswering(true);
}

void DaemonConnection::checkAnswers()
{
    if (m_waiting.isEmpty() || m_status != Status::Connected) {
        m_answerCheck.stop();
        return;
    }
    const qint64 silent = silentForMs();
    // A download or a run's wait may take minutes while the daemon answers everything else: one cheap
    // question tells the two apart.
    if (silent >= ProbeAfterMs && m_probeId < 0) {
        auto id = std::make_shared<qint64>(-1);
        *id = m_client->call(QStringLiteral("daemon.status"), {},
                             [this, id](const Result<QJsonObject> &) { answered(*id); });
        m_probeId = *id;
        m_waiting.insert(*id, m_clock.elapsed());
    }
    if (silent >= NotAnsweringMs)
        setAnswering(false);
}

void DaemonConnection::setAnswering(bool answering)
{
    if (m_answering == answering)
        return;
    m_answering = answering;
    Q_EMIT answeringChanged(answering);
}

} // namespace Cordon::Ui
