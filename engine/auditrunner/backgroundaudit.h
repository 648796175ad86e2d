// SPDX-License-Identifier: MIT
// The audit off the caller's thread, for the workbench: a thread of its own with its own connection to the
// daemon runs AuditRunner (which waits on each answer) and reports each row and the end as queued signals,
// so that a window never waits for the daemon.
#pragma once

#include "auditrunner/auditrunner.h"

#include <QJsonObject>
#include <QObject>
#include <QThread>

#include <QMutex>

#include <memory>
#include <optional>

namespace Cordon::Audit {

class BackgroundAudit final : public QObject
{
    Q_OBJECT

public:
    explicit BackgroundAudit(QObject *parent = nullptr);
    // Asks a running audit to stop after its row, and waits for the thread.
    ~BackgroundAudit() override;

    // Starts the audit; false while one is running. `socketPath` empty: the default daemon socket.
    bool start(const AuditRequest &request, const QString &socketPath = {});
    bool isRunning() const { return m_thread && m_thread->isRunning(); }
    // The rows not run yet end No-Go, "cancelled".
    void cancel();

Q_SIGNALS:
    void rowStarted(const QString &id, const QString &title);
    void rowFinished(const QJsonObject &row);
    // The report as stored in the history (AuditReport::toJson()), or the error that stopped the audit.
    void finished(const QJsonObject &report);
    void failed(const QString &code, const QString &message);

private:
    void deliver();

    std::unique_ptr<QThread> m_thread;
    // Shared with the worker, under m_mutex: the runner while it runs (cancel() reaches it), a cancel asked
    // for before it started, and the outcome, delivered once the thread has ended (so that isRunning() is
    // false by then).
    QMutex m_mutex;
    AuditRunner *m_runner = nullptr;
    bool m_cancelRequested = false;
    std::optional<QJsonObject> m_report;
    QString m_errorCode;
    QString m_errorMessage;
};

} // namespace Cordon::Audit
