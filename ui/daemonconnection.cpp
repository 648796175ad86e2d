// SPDX-License-Identifier: MIT
#include "daemonconnection.h"

#include "daemon/daemonclient.h"

#include <QJsonArray>

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
    m_client->call(method, params,
                   [guard = QPointer<const QObject>(context),
                    callback = std::move(callback)](Result<QJsonObject> result) {
                       if (guard)
                           callback(std::move(result));
                   });
}

} // namespace Cordon::Ui
