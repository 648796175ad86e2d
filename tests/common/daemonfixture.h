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
    // Stopped, not killed: a killed daemon leaves its containers running (they outlive it), and a test
    // must leave nothing behind.
    ~DaemonFixture()
    {
        if (!stop())
            kill();
    }

    QString socketPath() const { return m_socketDir.path() + QStringLiteral("/d.sock"); }

    // `program`: another cordond than the build's (tst_daemonupgrade starts a copy as the package before).
    bool start(const QStringList &arguments = {}, const QString &program = {})
    {
        m_process = std::make_unique<QProcess>();
        m_process->setProcessChannelMode(QProcess::ForwardedErrorChannel);
        m_process->start(
            program.isEmpty() ? QCoreApplication::applicationDirPath() + QStringLiteral("/cordond") : program,
            arguments);
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

    // A container with a 1 GiB limit named `name`, and whatever else `policy` says; its id.
    Cordon::Result<QString> createContainer(const QString &name, QJsonObject policy = {})
    {
        policy.insert(QStringLiteral("name"), name);
        if (!policy.contains(QStringLiteral("memory_limit")))
            policy.insert(QStringLiteral("memory_limit"), QStringLiteral("1g"));
        auto created = call(QStringLiteral("container.create"), {{QStringLiteral("policy"), policy}});
        if (!created)
            return Cordon::fail(created.error());
        return created->value(QStringLiteral("container")).toObject().value(QStringLiteral("id")).toString();
    }

    // run.exec with `params` (a command, or language and code) in the container, then run.wait: the finished
    // run object, with its output.
    Cordon::Result<QJsonObject> runToEnd(const QString &container, QJsonObject params)
    {
        params.insert(QStringLiteral("container"), container);
        auto started = call(QStringLiteral("run.exec"), params);
        if (!started)
            return Cordon::fail(started.error());
        auto ended = call(QStringLiteral("run.wait"),
                          {{QStringLiteral("run_id"),
                            started->value(QStringLiteral("run")).toObject().value(QStringLiteral("id"))}});
        if (!ended)
            return Cordon::fail(ended.error());
        return ended->value(QStringLiteral("run")).toObject();
    }

    std::unique_ptr<Cordon::Daemon::DaemonClient> client;

private:
    QTemporaryDir m_socketDir;
    std::unique_ptr<QProcess> m_process;
};

} // namespace CordonTest
