// SPDX-License-Identifier: MIT
// A real cordond for tests: started from the build's bin directory on a private socket and data directory,
// talked to through the engine's own client library, stopped (or killed) by the test.
#pragma once

#include "daemon/daemonclient.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <csignal>
#include <memory>

namespace CordonTest {

class DaemonFixture
{
public:
    DaemonFixture() : m_socketDir(QStringLiteral("/tmp/cordon-sock-XXXXXX"))
    {
        qputenv("CORDON_SOCKET", socketPath().toLocal8Bit());
        qputenv("CORDON_DAEMON",
                QFile::encodeName(QCoreApplication::applicationDirPath() + QStringLiteral("/cordond")));
    }
    ~DaemonFixture() { kill(); }

    QString socketPath() const { return m_socketDir.path() + QStringLiteral("/d.sock"); }

    bool start(const QStringList &arguments = {})
    {
        m_process = std::make_unique<QProcess>();
        m_process->setProcessChannelMode(QProcess::ForwardedErrorChannel);
        m_process->start(QCoreApplication::applicationDirPath() + QStringLiteral("/cordond"), arguments);
        if (!m_process->waitForStarted(5000))
            return false;
        client = std::make_unique<Cordon::Daemon::DaemonClient>();
        QElapsedTimer clock;
        clock.start();
        while (clock.elapsed() < 10000) {
            if (client->connectSync(false, 2000))
                return true;
            if (m_process->state() == QProcess::NotRunning)
                return false;
            QThread::msleep(50);
        }
        return false;
    }

    // A fresh connection (a second client).
    std::unique_ptr<Cordon::Daemon::DaemonClient> connectAnother() const
    {
        auto another = std::make_unique<Cordon::Daemon::DaemonClient>();
        return another->connectSync(false, 5000) ? std::move(another) : nullptr;
    }

    bool stop()
    {
        if (!m_process)
            return true;
        client.reset();
        m_process->terminate();
        const bool stopped = m_process->waitForFinished(15000);
        m_process.reset();
        return stopped;
    }

    void kill()
    {
        client.reset();
        if (m_process) {
            m_process->kill();
            m_process->waitForFinished(5000);
            m_process.reset();
        }
    }

    qint64 pid() const { return m_process ? m_process->processId() : -1; }

    Cordon::Result<QJsonObject> call(const QString &method, const QJsonObject &params = {},
                                     int timeoutMs = 60000)
    {
        return client->callSync(method, params, timeoutMs);
    }

    std::unique_ptr<Cordon::Daemon::DaemonClient> client;

private:
    QTemporaryDir m_socketDir;
    std::unique_ptr<QProcess> m_process;
};

} // namespace CordonTest
