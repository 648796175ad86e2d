// SPDX-License-Identifier: MIT
#include "auditrunner/backgroundaudit.h"

#include "core/plainbridge.h"

namespace Cordon::Audit {

BackgroundAudit::BackgroundAudit(QObject *parent) : QObject(parent) {}

BackgroundAudit::~BackgroundAudit()
{
    cancel();
    if (m_thread) {
        m_thread->quit();
        m_thread->wait();
    }
}

void BackgroundAudit::cancel()
{
    if (AuditRunner *runner = m_runner.load(); runner != nullptr)
        runner->cancel();
}

bool BackgroundAudit::start(const AuditRequest &request, const QString &socketPath)
{
    if (isRunning())
        return false;
    if (m_thread)
        m_thread->wait();
    m_thread.reset(QThread::create([this, request, socketPath] {
        // Everything the audit touches is made here, on its thread: the client's socket and event loop
        // belong to it.
        Daemon::DaemonClient client;
        client.setClientName(QStringLiteral("cordon-workbench-audit"));
        if (!socketPath.isEmpty())
            client.setSocketPath(socketPath);
        AuditRunner runner(client);
        connect(&runner, &AuditRunner::rowStarted, this, &BackgroundAudit::rowStarted, Qt::QueuedConnection);
        connect(&runner, &AuditRunner::rowFinished, this, &BackgroundAudit::rowFinished,
                Qt::QueuedConnection);
        m_runner = &runner;
        auto connected = client.connectSync(false, 10000);
        Result<AuditReport> report =
            connected ? runner.run(request) : Result<AuditReport>(fail(connected.error()));
        m_runner = nullptr;
        if (report) {
            const QJsonObject json = toQt(report->toJson()).toObject();
            QMetaObject::invokeMethod(
                this, [this, json] { Q_EMIT finished(json); }, Qt::QueuedConnection);
        } else {
            const QString code = toQt(report.error().code());
            const QString message = toQt(report.error().message());
            QMetaObject::invokeMethod(
                this, [this, code, message] { Q_EMIT failed(code, message); }, Qt::QueuedConnection);
        }
    }));
    m_thread->start();
    return true;
}

} // namespace Cordon::Audit
