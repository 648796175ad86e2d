// SPDX-License-Identifier: MIT
// The workbench window: containers on the left, the editor and the run's output in the centre, the idle
// timer and the live memory chart on the right; a welcome page instead of the editor until there is a
// container; a banner while cordond is out of reach. Layout, geometry and splitters are remembered.
#pragma once

#include <QHash>
#include <QJsonObject>
#include <QMainWindow>

#include <functional>

class QAction;
class QDockWidget;
class QScrollArea;
class QLabel;
class QSplitter;
class QStackedWidget;
class QTreeView;

namespace Cordon::Ui {

class ConnectionBanner;
class ContainerListModel;
class DaemonConnection;
class DesktopNotifier;
class FileBrowser;
class AuditView;
class HistoryView;
class IdleTimer;
class InspectDialog;
class MemoryChart;
class MemoryHistory;
class MemoryProcessesView;
class NetworkPanel;
class ProcessGauge;
class RunPanel;
class WelcomePage;
class DemoClock;
struct DemoScript;

class MainWindow final : public QMainWindow
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(MainWindow)

public:
    struct Options
    {
        // Start cordond when none runs; tests that restart the daemon themselves turn this off.
        bool autoStartDaemon = true;
    };

    explicit MainWindow(Options options, QWidget *parent = nullptr);
    ~MainWindow() override;

    // Connects to the daemon (after the window is shown, so that it appears at once).
    void start();

    DaemonConnection &connection() const { return *m_connection; }
    ContainerListModel &containerModel() const { return *m_model; }
    QString currentContainerId() const { return m_currentId; }
    void selectContainer(const QString &id);
    FileBrowser *fileBrowser() const { return m_fileBrowser; }
    NetworkPanel *networkPanel() const { return m_networkPanel; }
    ProcessGauge *processGauge() const { return m_processGauge; }
    HistoryView *historyView() const { return m_historyView; }
    QDockWidget *historyDock() const { return m_historyDock; }
    AuditView *auditView() const { return m_auditView; }
    QDockWidget *auditDock() const { return m_auditDock; }

    // The demo of the welcome page: a 1 GiB container named "demo" with a first program in the editor.
    void createDemoContainer();
    void showCreateDialog();
    void showSettings();
    void showSecrets();
    // The Demo menu's programs: loads one into the selected container's editor (creating or starting a
    // container first when there is none running) and runs it.
    void runDemo(const DemoScript &script);
    // Inspect the current container (Ctrl+I); the dialog follows it while open.
    InspectDialog *inspectCurrent();
    // Help menu: the built-in documentation (F1), the keyboard shortcuts, the welcome page.
    void showDocumentation();
    void showShortcuts();
    void showWelcomePage();
    void copyCurrentId();
    void setPresentationMode(bool presentation);
    DesktopNotifier *notifier() const { return m_notifier; }

protected:
    void closeEvent(QCloseEvent *event) override;

private:
    void buildActions();
    void buildDemoMenu();
    void buildLayout();
    void restoreLayout();
    void saveLayout();

    void onSubscribed(const QJsonObject &snapshot);
    void onEvent(const QString &name, const QJsonObject &payload);
    void onCurrentChanged();
    void onContainerChanged(const QJsonObject &container);
    void notifyGrace(const QJsonObject &container);
    void notifyExpiring(const QString &id, qint64 expiresAt);
    // Creates a 1 GiB container named "demo" and hands its id on.
    void createDemo(std::function<void(const QString &id)> then);
    void loadAndRun(const QString &id, const DemoScript &script);
    void refreshCurrent();
    void refreshContainer(const QString &id);
    void updateActions();
    void updateStatus();
    void updatePages();
    // Keeps the container list wide enough for its visible columns and a readable name.
    void fitListWidth();

    void startCurrent();
    void stopCurrent();
    void deleteCurrent();
    void showListMenu(const QPoint &position);
    void showAbout();
    void keepAlive(const QString &id);
    void containerCall(const QString &method, const QString &id);

    DaemonConnection *m_connection;
    ContainerListModel *m_model;
    MemoryHistory *m_history;
    DemoClock *m_demoClock;
    QString m_currentId;
    bool m_haveList = false;
    DesktopNotifier *m_notifier;
    QHash<QString, qint64> m_expiryWarnings; // container id -> the deadline a notification warned of
    QHash<QString, qint64> m_graceNotified;  // container id -> the grace period (grace_since) announced

    ConnectionBanner *m_banner;
    QSplitter *m_mainSplitter;
    QTreeView *m_list;
    QLabel *m_listEmpty;
    QStackedWidget *m_centre;
    WelcomePage *m_welcome;
    QScrollArea *m_welcomeScroll = nullptr;
    RunPanel *m_runPanel;
    IdleTimer *m_idleTimer;
    MemoryChart *m_chart;
    MemoryProcessesView *m_processes;
    ProcessGauge *m_processGauge;
    FileBrowser *m_fileBrowser;
    NetworkPanel *m_networkPanel;
    HistoryView *m_historyView;
    QDockWidget *m_historyDock;
    AuditView *m_auditView;
    QDockWidget *m_auditDock;
    QLabel *m_statusLabel;

    QAction *m_newAction = nullptr;
    QAction *m_startAction = nullptr;
    QAction *m_stopAction = nullptr;
    QAction *m_deleteAction = nullptr;
    QAction *m_keepAliveAction = nullptr;
    QAction *m_quitAction = nullptr;
    QAction *m_settingsAction = nullptr;
    QAction *m_secretsAction = nullptr;
    QAction *m_inspectAction = nullptr;
    QAction *m_copyIdAction = nullptr;
    bool m_showingWelcome = false; // Help › Welcome Page over a non-empty list, until a container is chosen
    QAction *m_presentationAction = nullptr;
};

} // namespace Cordon::Ui
