// SPDX-License-Identifier: MIT
#include "runcontroller.h"

#include "daemonconnection.h"

namespace Cordon::Ui {

RunController::RunController(DaemonConnection &connection, QObject *parent)
    : QObject(parent), m_connection(connection)
{
    connect(&m_connection, &DaemonConnection::eventReceived, this, &RunController::onEvent);
    connect(&m_connection, &DaemonConnection::subscribed, this, &RunController::onReconnected);
    connect(&m_connection, &DaemonConnection::statusChanged, this, [this](DaemonConnection::Status status) {
        if (status != DaemonConnection::Status::Connected && m_phase == Phase::Running) {
            setPhase(Phase::Orphaned);
            Q_EMIT finished(OutcomeSummary::connectionLost(), {});
        }
    });
}

void RunController::run(const QString &containerId, const QString &language, const QString &code,
                        qint64 memoryLimit, qint64 pidsLimit)
{
    if (m_phase == Phase::Starting || m_phase == Phase::Running)
        return;
    m_containerId = containerId;
    m_memoryLimit = memoryLimit;
    m_pidsLimit = pidsLimit;
    m_runId.clear();
    m_early.clear();
    setPhase(Phase::Starting);
    const QJsonObject params{{QStringLiteral("container"), containerId},
                             {QStringLiteral("language"), language},
                             {QStringLiteral("code"), code},
                             {QStringLiteral("stdin_open"), true}};
    m_connection.call(QStringLiteral("run.exec"), params, this, [this](Result<QJsonObject> result) {
        if (m_phase != Phase::Starting)
            return;
        if (!result) {
            finish(OutcomeSummary::refused(toQt(result.error().code()), toQt(result.error().message())));
            return;
        }
        const QJsonObject run = result->value(QStringLiteral("run")).toObject();
        m_runId = run.value(QStringLiteral("id")).toString();
        setPhase(Phase::Running);
        Q_EMIT started(m_runId);
        const QList<QJsonObject> early = std::exchange(m_early, {});
        for (const QJsonObject &data : early)
            onEvent(QStringLiteral("run.output"), data);
        waitForEnd();
    });
}

void RunController::waitForEnd()
{
    // The daemon sends every run.output event of a run before it answers run.wait on the same connection,
    // so once the answer is here the console has all the output.
    m_connection.call(
        QStringLiteral("run.wait"), {{QStringLiteral("run_id"), m_runId}}, this,
        [this, runId = m_runId](Result<QJsonObject> result) {
            if (runId != m_runId || m_phase == Phase::Idle)
                return;
            if (!result) {
                if (result.error().code() == "daemon.disconnected")
                    return; // statusChanged has orphaned the run; run.get follows later
                finish(OutcomeSummary::refused(toQt(result.error().code()), toQt(result.error().message())));
                return;
            }
            const QJsonObject run = result->value(QStringLiteral("run")).toObject();
            finish(OutcomeSummary::fromRun(run, m_memoryLimit, m_pidsLimit), run);
        });
}

void RunController::onReconnected()
{
    if (m_phase != Phase::Orphaned)
        return;
    m_connection.call(
        QStringLiteral("run.get"), {{QStringLiteral("run_id"), m_runId}}, this,
        [this](Result<QJsonObject> result) {
            if (m_phase != Phase::Orphaned)
                return;
            if (!result) {
                finish(OutcomeSummary::refused(toQt(result.error().code()), toQt(result.error().message())));
                return;
            }
            const QJsonObject run = result->value(QStringLiteral("run")).toObject();
            if (run.value(QStringLiteral("state")).toString() == QLatin1String("running")) {
                // A daemon that lived on (only the connection dropped), or a new one that adopted the
                // container with its runs: keep waiting.
                setPhase(Phase::Running);
                waitForEnd();
                return;
            }
            finish(OutcomeSummary::fromRun(run, m_memoryLimit, m_pidsLimit), run);
        });
}

void RunController::cancel()
{
    if (m_phase == Phase::Running)
        m_connection.call(QStringLiteral("run.cancel"), {{QStringLiteral("run_id"), m_runId}}, this,
                          [](const Result<QJsonObject> &) {});
}

void RunController::sendInput(const QByteArray &data)
{
    if (m_phase != Phase::Running)
        return;
    m_connection.call(
        QStringLiteral("run.stdin"),
        {{QStringLiteral("run_id"), m_runId}, {QStringLiteral("data"), QString::fromLatin1(data.toBase64())}},
        this, [](const Result<QJsonObject> &) {});
}

void RunController::endInput()
{
    if (m_phase != Phase::Running)
        return;
    m_connection.call(QStringLiteral("run.stdin"),
                      {{QStringLiteral("run_id"), m_runId}, {QStringLiteral("eof"), true}}, this,
                      [](const Result<QJsonObject> &) {});
}

void RunController::onEvent(const QString &name, const QJsonObject &data)
{
    if (name != QLatin1String("run.output"))
        return;
    if (m_phase == Phase::Starting) {
        if (data.value(QStringLiteral("container")).toString() == m_containerId)
            m_early.append(data);
        return;
    }
    if (m_phase != Phase::Running || data.value(QStringLiteral("run_id")).toString() != m_runId)
        return;
    Q_EMIT output(data.value(QStringLiteral("stream")).toString() == QLatin1String("stderr"),
                  QByteArray::fromBase64(data.value(QStringLiteral("data")).toString().toLatin1()));
}

void RunController::finish(const OutcomeSummary &summary, const QJsonObject &run)
{
    setPhase(Phase::Idle);
    Q_EMIT finished(summary, run);
}

void RunController::setPhase(Phase phase)
{
    const bool wasRunning = isRunning();
    m_phase = phase;
    if (wasRunning != isRunning())
        Q_EMIT runningChanged(isRunning());
}

} // namespace Cordon::Ui
