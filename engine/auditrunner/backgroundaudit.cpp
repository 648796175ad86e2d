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
    const QMutexLocker lock(&m_mutex);
    m_cancelRequested = true;
    if (m_runner != nullptr)
        m_runner->cancel();
}

bool BackgroundAudit::start(const AuditRequest &request, const QString &socketPath)
{
    if (isRunning())
        return false;
    if (m_thread)
        m_thread->wait();
    {
        const QMutexLocker lock(&m_mutex);
        m_cancelRequested = false;
        m_report.reset();
        m_errorCode.clear();
        m_errorMessage.clear();
    }
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
        auto connected = client.connectSync(false, 10000);
        Result<AuditReport> report = connected ? Result<AuditReport>(AuditReport{}) : fail(connected.error());
        if (connected) {
            {
                const QMutexLocker lock(&m_mutex);
                m_runner = &runner;
                if (m_cancelRequested) // asked for while connecting
                    runner.cancel();
            }
            report = runner.run(request);
            const QMutexLocker lock(&m_mutex);
            m_runner = nullptr;
        }
        const QMutexLocker lock(&m_mutex);
        if (report) {
            m_report = toQt(report->toJson()).toObject();
        } else {
            m_errorCode = toQt(report.error().code());
            m_errorMessage = toQt(report.error().message());
        }
    }));
    connect(m_thread.get(), &QThread::finished, this, &BackgroundAudit::deliver);
    m_thread->start();
    return true;
}

void BackgroundAudit::deliver()
{
    std::optional<QJsonObject> report;
    QString code;
    QString message;
    {
        const QMutexLocker lock(&m_mutex);
        report = std::move(m_report);
        m_report.reset();
        code = m_errorCode;
        message = m_errorMessage;
    }
    if (report)
        Q_EMIT finished(*report);
    else
        Q_EMIT failed(code, message);
}

} // namespace Cordon::Audit
