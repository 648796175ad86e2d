// SPDX-License-Identifier: MIT
// The container's processes beside its memory: "Processes: 12 of 256" as a bar, from the same samples the
// memory chart draws (memory.sample carries pids, pids_limit and pids_limit_hits). When the kernel has
// refused forks at the limit during the run under way the bar takes the colour of a limit that held and says
// so, so a fork bomb's lesson is visible while it runs; once no run is under way it is an ordinary gauge
// again (the banner keeps the lesson), however many forks were refused since the container started.
#pragma once

#include <QHash>
#include <QWidget>

class QLabel;
class QProgressBar;

namespace Cordon::Ui {

class MemoryHistory;
struct MemorySample;

class ProcessGauge final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ProcessGauge)

public:
    explicit ProcessGauge(MemoryHistory &history, QWidget *parent = nullptr);

    // The container shown; empty shows nothing known.
    void setContainer(const QString &containerId);
    // A run of the container began or ended (run.started, run.finished, from any client): refused forks
    // count from the first start of runs that overlap.
    void runStarted(const QString &containerId);
    void runFinished(const QString &containerId);

    // "Processes: 12 of 256", then " · the limit refused 3 forks" once it has; for tests and screen readers.
    QString text() const;
    bool limitReached() const { return m_limitReached; }

private:
    void showSample(const MemorySample *sample);
    void paint(bool alarm);

    MemoryHistory &m_history;
    QString m_containerId;
    QLabel *m_label;
    QProgressBar *m_bar;
    bool m_limitReached = false;
    struct RunsUnderWay
    {
        int count = 0;
        qint64 refusedBefore = 0; // the container's pids_limit_hits when the first of them began
    };
    QHash<QString, RunsUnderWay> m_runs;
};

} // namespace Cordon::Ui
