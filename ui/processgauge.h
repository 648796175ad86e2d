// SPDX-License-Identifier: MIT
// The container's processes beside its memory: "Processes: 12 of 256" as a bar, from the same samples the
// memory chart draws (memory.sample carries pids, pids_limit and pids_limit_hits). When the kernel has
// refused forks at the limit the bar turns red and says so, so a fork bomb's lesson is visible while it runs,
// not only in the banner afterwards.
#pragma once

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
};

} // namespace Cordon::Ui
