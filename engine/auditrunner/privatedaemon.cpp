// SPDX-License-Identifier: MIT
#include "auditrunner/privatedaemon.h"

#include <QDir>
#include <QProcessEnvironment>

#include <unistd.h>

namespace Cordon::Audit {

PrivateDaemon::PrivateDaemon(QString program)
    : m_program(std::move(program)), m_dir(QDir::tempPath() + QStringLiteral("/cordon-audit-XXXXXX"))
{}

PrivateDaemon::~PrivateDaemon()
{
    stop();
}

Result<> PrivateDaemon::start()
{
    if (!m_dir.isValid())
        return fail(
            QStringLiteral("audit.private_daemon"),
            QStringLiteral("no temporary directory for the audit's daemon: %1").arg(m_dir.errorString()));
    if (m_program.isEmpty())
        return fail(QStringLiteral("audit.private_daemon"), QStringLiteral("cordond was not found"));
    const QDir dir(m_dir.path());
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("CORDON_SOCKET"), dir.filePath(QStringLiteral("cordond.sock")));
    environment.insert(QStringLiteral("CORDON_DATA_DIR"), dir.filePath(QStringLiteral("data")));
    environment.insert(QStringLiteral("XDG_CONFIG_HOME"), dir.filePath(QStringLiteral("config")));
    environment.insert(QStringLiteral("XDG_STATE_HOME"), dir.filePath(QStringLiteral("state")));
    // Its secret store stays in its own directory, never the desktop keyring.
    environment.insert(QStringLiteral("DBUS_SESSION_BUS_ADDRESS"), QStringLiteral("unix:path=/nonexistent"));
    m_process.setProcessEnvironment(environment);
    m_process.setProgram(m_program);
    // A group of its own: Ctrl-C at the terminal signals the whole foreground group, and the audit, which
    // stops after its row under way, must find its daemon still there to clean up with.
    m_process.setChildProcessModifier([] { ::setpgid(0, 0); });
    m_process.setArguments(m_arguments);
    m_process.setStandardOutputFile(dir.filePath(QStringLiteral("cordond.log")), QIODevice::Append);
    m_process.setStandardErrorFile(dir.filePath(QStringLiteral("cordond.log")), QIODevice::Append);
    m_process.start();
    if (!m_process.waitForStarted(10000))
        return fail(QStringLiteral("audit.private_daemon"),
                    QStringLiteral("cordond could not start: %1").arg(m_process.errorString()));
    m_client = std::make_unique<Daemon::DaemonClient>();
    m_client->setClientName(QStringLiteral("cordon-audit"));
    m_client->setSocketPath(dir.filePath(QStringLiteral("cordond.sock")));
    // It starts alone; the client only waits for its socket.
    for (int attempt = 0; attempt < 100; ++attempt) {
        if (m_client->connectSync(false, 2000))
            return {};
        if (m_process.state() != QProcess::Running)
            break;
        m_process.waitForFinished(100);
    }
    m_client.reset();
    return fail(QStringLiteral("audit.private_daemon"),
                QStringLiteral("the audit's cordond did not answer (its log: %1)")
                    .arg(dir.filePath(QStringLiteral("cordond.log"))));
}

void PrivateDaemon::kill()
{
    m_client.reset();
    if (m_process.state() == QProcess::NotRunning)
        return;
    m_process.kill();
    m_process.waitForFinished(10000);
}

void PrivateDaemon::stop()
{
    if (m_client && m_process.state() == QProcess::Running)
        (void)m_client->callSync(QStringLiteral("daemon.shutdown"), {}, 30000);
    m_client.reset();
    if (m_process.state() != QProcess::NotRunning && !m_process.waitForFinished(30000))
        kill();
}

} // namespace Cordon::Audit
