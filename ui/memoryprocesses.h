// SPDX-License-Identifier: MIT
// The per-process breakdown of a container's memory, on demand: a "Processes" toggle under the memory chart
// that lists the container's processes (`memory.processes`: pid, command, resident memory), largest first,
// and asks again every two seconds while the list is open and on screen. Nothing is asked while it is closed
// or hidden, or while the container is not running.
#pragma once

#include <QJsonArray>
#include <QTimer>
#include <QWidget>

class QLabel;
class QToolButton;
class QTreeWidget;

namespace Cordon::Ui {

class DaemonConnection;

class MemoryProcessesView final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(MemoryProcessesView)

public:
    static constexpr int RefreshMs = 2000;
    enum Column
    {
        PidColumn,
        CommandColumn,
        RssColumn,
    };

    explicit MemoryProcessesView(DaemonConnection &connection, QWidget *parent = nullptr);

    // The container whose processes to list; `running` false (stopped, expired, none) shows why there are
    // none.
    void setContainer(const QString &containerId, bool running);
    const QString &containerId() const { return m_containerId; }

    // Opens or closes the list (the toggle's state).
    void setExpanded(bool expanded);
    bool isExpanded() const;
    // True while the list is refreshed every RefreshMs.
    bool isPolling() const { return m_timer.isActive(); }
    QToolButton *toggle() const { return m_toggle; }
    QTreeWidget *list() const { return m_list; }
    // The last answer, largest first, as the daemon sent it.
    const QJsonArray &processes() const { return m_processes; }
    QString statusText() const;

Q_SIGNALS:
    void refreshed();

protected:
    void showEvent(QShowEvent *event) override;
    void hideEvent(QHideEvent *event) override;

private:
    void updatePolling();
    void refresh();
    void setProcesses(const QJsonArray &processes);

    DaemonConnection &m_connection;
    QString m_containerId;
    bool m_running = false;
    bool m_inFlight = false;
    quint64 m_generation = 0;
    QJsonArray m_processes;
    QTimer m_timer;

    QToolButton *m_toggle;
    QLabel *m_status;
    QTreeWidget *m_list;
};

} // namespace Cordon::Ui
