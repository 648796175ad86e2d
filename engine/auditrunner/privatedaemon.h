// SPDX-License-Identifier: MIT
// A cordond of the audit's own, in a temporary directory (its socket, history, workspaces and settings), for
// the rows that kill a daemon mid-run or speed up its clock, and for the domain secret's echo, which needs a
// daemon that trusts the audit's own upstream: the user's daemon and containers never notice.
#pragma once

#include "core/result.h"
#include "daemon/daemonclient.h"

#include <QProcess>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>

#include <memory>

namespace Cordon::Audit {

class PrivateDaemon final
{
public:
    explicit PrivateDaemon(QString program);
    ~PrivateDaemon();
    PrivateDaemon(const PrivateDaemon &) = delete;
    PrivateDaemon &operator=(const PrivateDaemon &) = delete;

    // cordond's options for the next start() (the credentials.domain_secret row's --upstream-ca).
    void setArguments(const QStringList &arguments) { m_arguments = arguments; }
    const QStringList &arguments() const { return m_arguments; }
    // Starts it (again) and connects; `audit.private_daemon` when it does not answer.
    Result<> start();
    bool isRunning() const { return m_process.state() == QProcess::Running && m_client != nullptr; }
    // SIGKILL, as a crash would end it: nothing of its own shutdown runs.
    void kill();
    // daemon.shutdown, then waits for its exit.
    void stop();

    Daemon::DaemonClient &client() { return *m_client; }
    QString directory() const { return m_dir.path(); }
    qint64 pid() const { return m_process.processId(); }

private:
    QString m_program;
    QStringList m_arguments;
    QTemporaryDir m_dir;
    QProcess m_process;
    std::unique_ptr<Daemon::DaemonClient> m_client;
};

} // namespace Cordon::Audit
