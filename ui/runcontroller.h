// SPDX-License-Identifier: MIT
// One run at a time from the editor: `run.exec` with stdin kept open, the run's `run.output` events passed on
// by stream, `run.wait` for the outcome, `run.stdin` and `run.cancel` on request. When the connection drops
// during a run, the outcome is fetched with `run.get` once the workbench is connected again.
#pragma once

#include "outcomesummary.h"

#include <QJsonObject>
#include <QList>
#include <QObject>

namespace Cordon::Ui {

class DaemonConnection;

class RunController final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(RunController)

public:
    explicit RunController(DaemonConnection &connection, QObject *parent = nullptr);

    // Starting or running; a run orphaned by a lost connection does not block the next one.
    bool isRunning() const { return m_phase == Phase::Starting || m_phase == Phase::Running; }
    const QString &runId() const { return m_runId; }
    const QString &containerId() const { return m_containerId; }

    // `memoryLimit` and `pidsLimit` are the container's, for the outcome's words ("exceeded its 1 GiB memory
    // limit", "Contained: process limit 256 reached").
    void run(const QString &containerId, const QString &language, const QString &code, qint64 memoryLimit,
             qint64 pidsLimit = 0);
    void cancel();
    void sendInput(const QByteArray &data);
    void endInput();

Q_SIGNALS:
    void started(const QString &runId);
    void output(bool isStderr, const QByteArray &bytes);
    // The run ended (or could not start, or its end could not be learned): the banner's words, and the run
    // object when there is one.
    void finished(const Cordon::Ui::OutcomeSummary &summary, const QJsonObject &run);
    void runningChanged(bool running);

private:
    enum class Phase
    {
        Idle,
        Starting, // run.exec sent, no run id yet
        Running,  // run.wait pending
        Orphaned, // the connection dropped; waiting to reconnect and ask run.get
    };

    void onEvent(const QString &name, const QJsonObject &data);
    void onReconnected();
    void waitForEnd();
    void finish(const OutcomeSummary &summary, const QJsonObject &run = {});
    void setPhase(Phase phase);

    DaemonConnection &m_connection;
    Phase m_phase = Phase::Idle;
    QString m_containerId;
    QString m_runId;
    qint64 m_memoryLimit = 0;
    qint64 m_pidsLimit = 0;
    // Output events that arrived before run.exec answered; kept until we know which run is ours.
    QList<QJsonObject> m_early;
};

} // namespace Cordon::Ui
