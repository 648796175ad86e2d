// SPDX-License-Identifier: MIT
#include "mainwindow.h"

#include "appearance.h"
#include "auditview.h"
#include "codeeditor.h"
#include "connectionbanner.h"
#include "containerlistmodel.h"
#include "core/formatting.h"
#include "createcontainerdialog.h"
#include "daemonconnection.h"
#include "democlock.h"
#include "demoscripts.h"
#include "desktopnotifier.h"
#include "filebrowser.h"
#include "fitscrollarea.h"
#include "helpdialogs.h"
#include "historyview.h"
#include "idletimer.h"
#include "inspectdialog.h"
#include "memorychart.h"
#include "memoryhistory.h"
#include "memoryprocesses.h"
#include "networkpanel.h"
#include "outputconsole.h"
#include "paletteicon.h"
#include "processgauge.h"
#include "rundetaildialog.h"
#include "rundetailview.h"
#include "runpanel.h"
#include "screenfit.h"
#include "secretsdialog.h"
#include "settingsdialog.h"
#include "welcomepage.h"
#include "workbenchsettings.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QCloseEvent>
#include <QDateTime>
#include <QDir>
#include <QDockWidget>
#include <QGroupBox>
#include <QHeaderView>
#include <QJsonArray>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QSplitter>
#include <QStackedWidget>
#include <QStatusBar>
#include <QStyle>
#include <QTabWidget>
#include <QTimer>
#include <QToolBar>
#include <QTreeView>
#include <QVBoxLayout>

namespace Cordon::Ui {

namespace {

// Holds one widget at the holder's size, and asks for no more than that widget's minimum: a scroll area
// gives a layout that wraps text (the idle timer's) its preferred height for the width, which is taller
// than the column needs, and would scroll where everything fits.
class MinimumHolder final : public QWidget
{
public:
    MinimumHolder(QWidget *content, QWidget *parent) : QWidget(parent), m_content(content)
    {
        content->setParent(this);
    }
    QSize minimumSizeHint() const override { return m_content->minimumSizeHint(); }
    QSize sizeHint() const override { return m_content->minimumSizeHint(); }

protected:
    void resizeEvent(QResizeEvent *) override { m_content->setGeometry(rect()); }

private:
    QWidget *m_content;
};

// `content` in a scroll area that scrolls up and down only, without a frame of its own.
QScrollArea *verticalScroller(QWidget *content, QWidget *parent)
{
    auto *scroll = new QScrollArea(parent);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll->setWidget(content);
    return scroll;
}

QString demoProgram()
{
    return MainWindow::tr("# A first program: it prints, tries the network (there is none, so the\n"
                          "# error goes to stderr, in red), then holds 40 MiB more every half\n"
                          "# second so the memory chart climbs. Edit it, run it with Ctrl+Return.\n"
                          "import os, socket, sys, time\n"
                          "\n"
                          "print(\"Hello from\", socket.gethostname(), flush=True)\n"
                          "print(\"uid inside:\", os.getuid(), flush=True)\n"
                          "try:\n"
                          "    socket.create_connection((\"example.org\", 80), timeout=2)\n"
                          "except OSError as error:\n"
                          "    print(\"network:\", error, file=sys.stderr)\n"
                          "\n"
                          "blocks = []\n"
                          "for step in range(1, 7):\n"
                          "    blocks.append(bytearray(40 * 1024 * 1024))\n"
                          "    print(f\"holding {step * 40} MiB\", flush=True)\n"
                          "    time.sleep(0.5)\n"
                          "print(\"done\")\n");
}

QString stateOf(const QJsonObject &container)
{
    return container.value(QStringLiteral("state")).toString();
}

} // namespace

MainWindow::MainWindow(Options options, QWidget *parent)
    : QMainWindow(parent), m_connection(new DaemonConnection(this)), m_model(new ContainerListModel(this)),
      m_history(new MemoryHistory(this)), m_demoClock(new DemoClock(*m_connection, *m_model, this)),
      m_notifier(new DesktopNotifier(this))
{
    m_connection->setAutoStart(options.autoStartDaemon);
    setWindowTitle(tr("Cordon Workbench"));
    setWindowIcon(QIcon(QStringLiteral(":/icons/cordon.svg")));
    setObjectName(QStringLiteral("mainWindow"));
    buildLayout();
    buildActions();
    restoreLayout();
    Appearance::apply(WorkbenchSettings::theme(), m_presentationAction->isChecked());
    for (int column : {int(ContainerListModel::IdColumn), int(ContainerListModel::MemoryColumn)})
        m_list->setColumnHidden(column, m_presentationAction->isChecked());
    fitListWidth();
    // New rows bring their widths (a longer state, a bigger tier); fonts change with presentation mode.
    // Queued: the header sizes its columns to the new contents first.
    connect(m_model, &QAbstractItemModel::rowsInserted, this, &MainWindow::fitListWidth,
            Qt::QueuedConnection);
    connect(m_model, &QAbstractItemModel::modelReset, this, &MainWindow::fitListWidth, Qt::QueuedConnection);
    connect(Appearance::notifier(), &AppearanceNotifier::fontsChanged, this, &MainWindow::fitListWidth,
            Qt::QueuedConnection);

    connect(m_notifier, &DesktopNotifier::actionInvoked, this, [this](const QString &id, const QString &key) {
        if (key == QLatin1String("keep-alive")) {
            keepAlive(id);
            return;
        }
        // The notification itself was clicked: show that container.
        showNormal();
        raise();
        activateWindow();
        selectContainer(id);
    });
    connect(m_demoClock, &DemoClock::scaleChanged, this, &MainWindow::updateStatus);
    connect(m_demoClock, &DemoClock::message, this,
            [this](const QString &text) { statusBar()->showMessage(text, 10000); });
    connect(m_connection, &DaemonConnection::subscribed, this, &MainWindow::onSubscribed);
    connect(m_connection, &DaemonConnection::eventReceived, this, &MainWindow::onEvent);
    connect(m_connection, &DaemonConnection::eventReceived, m_networkPanel, &NetworkPanel::onEvent);
    connect(m_connection, &DaemonConnection::statusChanged, this, [this] {
        updateActions();
        updateStatus();
    });
    connect(m_list->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            &MainWindow::onCurrentChanged);
    connect(m_model, &QAbstractItemModel::rowsInserted, this, &MainWindow::updatePages);
    connect(m_model, &QAbstractItemModel::rowsRemoved, this, &MainWindow::updatePages);
    connect(m_model, &QAbstractItemModel::dataChanged, this, [this](const QModelIndex &topLeft) {
        // The countdown ticks change the idle column only; the panels keep their own clocks.
        if (topLeft.column() != ContainerListModel::IdleColumn &&
            m_model->data(topLeft, ContainerListModel::IdRole).toString() == m_currentId)
            refreshCurrent();
    });
    connect(m_welcome, &WelcomePage::demoRequested, this, &MainWindow::createDemoContainer);
    connect(m_welcome, &WelcomePage::newContainerRequested, this, &MainWindow::showCreateDialog);
    connect(m_idleTimer, &IdleTimer::keepAliveRequested, this, &MainWindow::keepAlive);
    connect(m_runPanel, &RunPanel::runFinished, this, &MainWindow::refreshContainer);
    // A run may have written, changed or removed files.
    connect(m_runPanel, &RunPanel::runFinished, m_fileBrowser, &FileBrowser::refresh);
    updatePages();
    updateActions();
    updateStatus();
}

MainWindow::~MainWindow() = default;

void MainWindow::start()
{
    m_connection->open();
}

void MainWindow::buildLayout()
{
    m_banner = new ConnectionBanner(*m_connection, this);

    auto *left = new QWidget(this);
    auto *listTitle = new QLabel(tr("Containers"), left);
    QFont titleFont = listTitle->font();
    titleFont.setBold(true);
    listTitle->setFont(titleFont);
    m_list = new QTreeView(left);
    m_list->setObjectName(QStringLiteral("containerList"));
    m_list->setAccessibleName(tr("Containers"));
    m_list->setModel(m_model);
    m_list->setRootIsDecorated(false);
    m_list->setUniformRowHeights(true);
    m_list->setAlternatingRowColors(true);
    m_list->setSelectionMode(QAbstractItemView::SingleSelection);
    m_list->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_list->setAllColumnsShowFocus(true);
    m_list->setFrameShape(QFrame::NoFrame);
    m_list->header()->setStretchLastSection(false);
    m_list->header()->setSectionResizeMode(ContainerListModel::NameColumn, QHeaderView::Stretch);
    for (int column : {int(ContainerListModel::IdColumn), int(ContainerListModel::StateColumn),
                       int(ContainerListModel::MemoryColumn), int(ContainerListModel::IdleColumn)})
        m_list->header()->setSectionResizeMode(column, QHeaderView::ResizeToContents);
    m_list->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_list, &QWidget::customContextMenuRequested, this, &MainWindow::showListMenu);
    // Choosing a container (even the one already current) leaves the welcome page shown from the Help menu.
    connect(m_list, &QAbstractItemView::clicked, this, [this] {
        if (m_showingWelcome) {
            m_showingWelcome = false;
            updatePages();
        }
    });
    m_listEmpty = new QLabel(tr("No containers yet.\nCreate one with Ctrl+N."), left);
    m_listEmpty->setAlignment(Qt::AlignCenter);
    m_listEmpty->setWordWrap(true);
    m_listEmpty->setForegroundRole(QPalette::PlaceholderText);
    auto *leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    leftLayout->setSpacing(0);
    auto *titleRow = new QHBoxLayout;
    titleRow->setContentsMargins(10, 8, 10, 8);
    titleRow->addWidget(listTitle);
    leftLayout->addLayout(titleRow);
    leftLayout->addWidget(m_list, 1);
    leftLayout->addWidget(m_listEmpty, 1);

    m_centre = new QStackedWidget(this);
    m_welcome = new WelcomePage(m_centre);
    m_welcome->setObjectName(QStringLiteral("welcomePage"));
    m_runPanel = new RunPanel(*m_connection, m_centre);
    m_runPanel->setObjectName(QStringLiteral("runPanel"));
    m_fileBrowser = new FileBrowser(*m_connection, m_runPanel);
    m_fileBrowser->setObjectName(QStringLiteral("fileBrowser"));
    m_runPanel->outputTabs()->addTab(m_fileBrowser, tr("Files"));
    m_networkPanel = new NetworkPanel(*m_connection, m_runPanel);
    m_runPanel->outputTabs()->addTab(m_networkPanel, tr("Network"));
    // The welcome page and the right column scroll rather than make the window taller than a 1366x768
    // screen when the History or the Audit is open below them.
    m_welcomeScroll = verticalScroller(m_welcome, this);
    m_centre->addWidget(m_welcomeScroll);
    m_centre->addWidget(m_runPanel);

    auto *right = new QWidget(this);
    auto *idleBox = new QGroupBox(tr("Idle timer"), right);
    m_idleTimer = new IdleTimer(idleBox);
    m_idleTimer->setObjectName(QStringLiteral("idleTimer"));
    auto *idleLayout = new QVBoxLayout(idleBox);
    idleLayout->addWidget(m_idleTimer);
    auto *memoryBox = new QGroupBox(tr("Memory"), right);
    m_chart = new MemoryChart(*m_history, memoryBox);
    m_chart->setObjectName(QStringLiteral("memoryChart"));
    // Below this the axis labels turn into dots; with a dock open below on a small screen, the column
    // scrolls.
    m_chart->setMinimumHeight(220);
    // The per-process breakdown, on demand under the chart: closed, it asks the daemon nothing.
    m_processes = new MemoryProcessesView(*m_connection, memoryBox);
    m_processes->setObjectName(QStringLiteral("memoryProcesses"));
    // Processes beside memory: the other limit a run can meet.
    m_processGauge = new ProcessGauge(*m_history, memoryBox);
    m_processGauge->setObjectName(QStringLiteral("processGauge"));
    auto *memoryLayout = new QVBoxLayout(memoryBox);
    memoryLayout->addWidget(m_chart, 1);
    memoryLayout->addWidget(m_processGauge);
    memoryLayout->addWidget(m_processes);
    auto *rightLayout = new QVBoxLayout(right);
    rightLayout->setContentsMargins(8, 8, 8, 8);
    rightLayout->setSpacing(10);
    rightLayout->addWidget(idleBox);
    rightLayout->addWidget(memoryBox, 1);

    m_mainSplitter = new QSplitter(Qt::Horizontal, this);
    m_mainSplitter->setObjectName(QStringLiteral("mainSplitter"));
    m_mainSplitter->addWidget(left);
    m_mainSplitter->addWidget(m_centre);
    // The column scrolls only when a dock below leaves it less than its minimum (1366x768, presentation).
    QScrollArea *rightScroll = verticalScroller(new MinimumHolder(right, this), this);
    m_mainSplitter->addWidget(rightScroll);
    m_mainSplitter->setStretchFactor(0, 0);
    m_mainSplitter->setStretchFactor(1, 1);
    m_mainSplitter->setStretchFactor(2, 0);
    m_mainSplitter->setChildrenCollapsible(false);
    m_mainSplitter->setSizes({300, 720, 380});
    // No fixed minimum for the left side: an explicit one overrides its layout's, and the list, kept wide
    // enough for its columns (fitListWidth), was then cut off by a narrower panel.
    m_listEmpty->setMinimumWidth(200);
    right->setMinimumWidth(300);
    rightScroll->setMinimumWidth(300 + rightScroll->style()->pixelMetric(QStyle::PM_ScrollBarExtent));

    auto *central = new QWidget(this);
    auto *layout = new QVBoxLayout(central);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(m_banner);
    layout->addWidget(m_mainSplitter, 1);
    setCentralWidget(central);

    m_historyView = new HistoryView(*m_connection, this);
    m_historyView->setObjectName(QStringLiteral("historyView"));
    const auto containerName = [this](const QString &id) {
        return m_model->container(id).value(QStringLiteral("name")).toString();
    };
    m_historyView->setContainerNames(containerName);
    m_historyDock = new QDockWidget(tr("History"), this);
    m_historyDock->setObjectName(QStringLiteral("historyDock"));
    // The docks take their height from the panels above, never from the screen: their minimum is a few lines
    // and the view scrolls below that (the History's detail alone wants 330 px in presentation mode).
    m_historyDock->setWidget(new FitScrollArea(m_historyView, m_historyDock));
    m_historyDock->setAllowedAreas(Qt::BottomDockWidgetArea | Qt::RightDockWidgetArea);
    addDockWidget(Qt::BottomDockWidgetArea, m_historyDock);
    m_historyDock->hide();

    // The Go/No-Go audit of the selected container's policy.
    m_auditView = new AuditView(*m_connection, this);
    m_auditView->setObjectName(QStringLiteral("auditView"));
    m_auditDock = new QDockWidget(tr("Go/No-Go Audit"), this);
    m_auditDock->setObjectName(QStringLiteral("auditDock"));
    m_auditDock->setWidget(new FitScrollArea(m_auditView, m_auditDock));
    m_auditDock->setAllowedAreas(Qt::BottomDockWidgetArea | Qt::RightDockWidgetArea);
    addDockWidget(Qt::BottomDockWidgetArea, m_auditDock);
    tabifyDockWidget(m_historyDock, m_auditDock);
    // Opened below the panels, a dock takes at most half the window's height, however tall its view would
    // like to be (the History in presentation mode asks for 390 px, which left the editor two lines on a
    // 1280x800 projector); dragged taller, it stays so until it is opened again. After the layout has given
    // it its height.
    for (QDockWidget *dock : {m_historyDock, m_auditDock}) {
        connect(dock, &QDockWidget::visibilityChanged, this, [this, dock](bool visible) {
            if (!visible)
                return;
            QTimer::singleShot(0, dock, [this, dock] {
                if (!dock->isFloating() && dockWidgetArea(dock) == Qt::BottomDockWidgetArea &&
                    dock->height() > height() / 2)
                    resizeDocks({dock}, {height() / 2}, Qt::Vertical);
            });
        });
    }
    m_auditDock->hide();
    // A row's run opens whole, in a window of its own: the History may not list it (filtered, paged).
    connect(m_auditView, &AuditView::runRequested, this, [this, containerName](const QString &runId) {
        RunDetailDialog::open(*m_connection, runId, containerName, this);
    });
    connect(m_auditView, &AuditView::auditRunsRequested, this, [this](const QString &auditId) {
        m_historyDock->show();
        m_historyDock->raise();
        m_historyView->showAuditRuns(auditId);
    });
    // A file written where the user chose says so, with its path, where every other outcome is said.
    connect(m_historyView->detail(), &RunDetailView::exported, this, [this](const QString &path) {
        statusBar()->showMessage(tr("Run exported to %1").arg(QDir::toNativeSeparators(path)), 15000);
    });
    connect(m_auditView, &AuditView::exported, this, [this](const QString &path) {
        statusBar()->showMessage(tr("Audit report exported to %1").arg(QDir::toNativeSeparators(path)),
                                 15000);
    });

    m_statusLabel = new QLabel(this);
    statusBar()->addPermanentWidget(m_statusLabel);
}

void MainWindow::buildActions()
{
    m_newAction = new QAction(paletteIcon(QStringLiteral("container-new")), tr("&New Container…"), this);
    m_newAction->setObjectName(QStringLiteral("newContainerAction"));
    m_newAction->setShortcut(QKeySequence::New);
    m_newAction->setToolTip(tr("Create a container (Ctrl+N)"));
    m_startAction = new QAction(paletteIcon(QStringLiteral("container-start")), tr("&Start"), this);
    m_startAction->setObjectName(QStringLiteral("startContainerAction"));
    m_startAction->setToolTip(tr("Start the selected container again; its files are still there"));
    m_stopAction = new QAction(paletteIcon(QStringLiteral("container-stop")), tr("St&op"), this);
    m_stopAction->setObjectName(QStringLiteral("stopContainerAction"));
    m_stopAction->setToolTip(tr("Stop the selected container: its processes end, its files are kept"));
    m_deleteAction = new QAction(paletteIcon(QStringLiteral("container-delete")), tr("&Delete…"), this);
    m_deleteAction->setObjectName(QStringLiteral("deleteContainerAction"));
    m_deleteAction->setShortcut(QKeySequence::Delete);
    m_deleteAction->setToolTip(tr("Delete the selected container and its files (Del)"));
    m_keepAliveAction = new QAction(paletteIcon(QStringLiteral("keep-alive")), tr("&Keep Alive"), this);
    m_keepAliveAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_K));
    m_keepAliveAction->setToolTip(tr("Restart the selected container's idle timer (Ctrl+K)"));
    m_inspectAction = new QAction(tr("&Inspect…"), this);
    m_inspectAction->setObjectName(QStringLiteral("inspectContainerAction"));
    m_inspectAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_I));
    m_inspectAction->setToolTip(
        tr("The selected container's id, times, limits, allowlist and policy (Ctrl+I)"));
    m_copyIdAction = new QAction(tr("Copy Container &ID"), this);
    m_copyIdAction->setObjectName(QStringLiteral("copyContainerIdAction"));
    m_copyIdAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C));
    m_copyIdAction->setToolTip(tr("Copy the selected container's id, for the cordon command line"));
    m_settingsAction = new QAction(tr("&Preferences…"), this);
    m_settingsAction->setObjectName(QStringLiteral("settingsAction"));
    m_settingsAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Comma));
    m_settingsAction->setMenuRole(QAction::PreferencesRole);
    m_settingsAction->setToolTip(tr("Defaults for new containers, the theme, the organisation allowlist and "
                                    "the data location (Ctrl+,)"));
    m_secretsAction = new QAction(tr("&Secrets…"), this);
    m_secretsAction->setObjectName(QStringLiteral("secretsAction"));
    m_secretsAction->setToolTip(tr("The secrets this computer holds for containers: set, remove, and which "
                                   "containers use each (values are never shown)"));
    m_quitAction = new QAction(tr("&Quit"), this);
    m_quitAction->setShortcut(QKeySequence::Quit);
    // Delete would otherwise fire while the user deletes text in the editor.
    m_deleteAction->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    m_list->addAction(m_deleteAction);

    connect(m_newAction, &QAction::triggered, this, &MainWindow::showCreateDialog);
    connect(m_startAction, &QAction::triggered, this, &MainWindow::startCurrent);
    connect(m_stopAction, &QAction::triggered, this, &MainWindow::stopCurrent);
    connect(m_deleteAction, &QAction::triggered, this, &MainWindow::deleteCurrent);
    connect(m_keepAliveAction, &QAction::triggered, this, [this] { keepAlive(m_currentId); });
    connect(m_settingsAction, &QAction::triggered, this, &MainWindow::showSettings);
    connect(m_secretsAction, &QAction::triggered, this, &MainWindow::showSecrets);
    connect(m_inspectAction, &QAction::triggered, this, &MainWindow::inspectCurrent);
    connect(m_copyIdAction, &QAction::triggered, this, &MainWindow::copyCurrentId);
    connect(m_quitAction, &QAction::triggered, this, &QWidget::close);

    QMenu *containerMenu = menuBar()->addMenu(tr("&Container"));
    containerMenu->addAction(m_newAction);
    containerMenu->addSeparator();
    containerMenu->addAction(m_startAction);
    containerMenu->addAction(m_stopAction);
    containerMenu->addAction(m_keepAliveAction);
    containerMenu->addAction(m_inspectAction);
    containerMenu->addSeparator();
    containerMenu->addAction(m_deleteAction);
    containerMenu->addSeparator();
    containerMenu->addAction(m_quitAction);
    // Where desktop applications keep them: copying in Edit, and Preferences at its end.
    QMenu *editMenu = menuBar()->addMenu(tr("&Edit"));
    editMenu->addAction(m_copyIdAction);
    editMenu->addSeparator();
    editMenu->addAction(m_secretsAction);
    editMenu->addAction(m_settingsAction);
    QMenu *runMenu = menuBar()->addMenu(tr("&Run"));
    runMenu->addAction(m_runPanel->runAction());
    runMenu->addAction(m_runPanel->stopAction());
    runMenu->addSeparator();
    runMenu->addAction(m_runPanel->clearAction());
    addAction(m_runPanel->runAction());
    addAction(m_runPanel->stopAction());
    addAction(m_runPanel->clearAction());

    QMenu *viewMenu = menuBar()->addMenu(tr("&View"));
    auto focusAction = [&](const QString &text, int key, QWidget *target) {
        QAction *action = viewMenu->addAction(text);
        action->setShortcut(QKeySequence(Qt::CTRL | key));
        connect(action, &QAction::triggered, target, [target] { target->setFocus(Qt::ShortcutFocusReason); });
    };
    focusAction(tr("Go to &Containers"), Qt::Key_1, m_list);
    focusAction(tr("Go to &Editor"), Qt::Key_2, m_runPanel->editor());
    // The selected container's console: each container has its own.
    QAction *inputAction = viewMenu->addAction(tr("Go to Program &Input"));
    inputAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_3));
    connect(inputAction, &QAction::triggered, this,
            [this] { m_runPanel->console()->inputLine()->setFocus(Qt::ShortcutFocusReason); });
    QAction *filesAction = viewMenu->addAction(tr("Go to &Files"));
    filesAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_4));
    connect(filesAction, &QAction::triggered, this, [this] {
        m_runPanel->outputTabs()->setCurrentWidget(m_fileBrowser);
        m_fileBrowser->view()->setFocus(Qt::ShortcutFocusReason);
    });
    QAction *networkAction = viewMenu->addAction(tr("Go to &Network"));
    networkAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_5));
    connect(networkAction, &QAction::triggered, this, [this] {
        m_runPanel->outputTabs()->setCurrentWidget(m_networkPanel);
        m_networkPanel->setFocus(Qt::ShortcutFocusReason);
    });
    viewMenu->addSeparator();
    QAction *historyAction = m_historyDock->toggleViewAction();
    historyAction->setText(tr("&History"));
    historyAction->setObjectName(QStringLiteral("historyAction"));
    historyAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_H));
    historyAction->setToolTip(tr("Show past runs with their code, outcome, files and output (Ctrl+H)"));
    viewMenu->addAction(historyAction);
    QAction *auditAction = m_auditDock->toggleViewAction();
    auditAction->setText(tr("Go/No-Go &Audit"));
    auditAction->setObjectName(QStringLiteral("auditAction"));
    auditAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_G));
    auditAction->setToolTip(
        tr("Prove the selected container's policy with live probes, and sign the report (Ctrl+G)"));
    viewMenu->addAction(auditAction);

    buildDemoMenu();

    QMenu *helpMenu = menuBar()->addMenu(tr("&Help"));
    QAction *userGuideAction = helpMenu->addAction(tr("&User Guide"), this, &MainWindow::showDocumentation);
    userGuideAction->setObjectName(QStringLiteral("userGuideAction"));
    userGuideAction->setShortcut(QKeySequence::HelpContents);
    QAction *shortcutsAction =
        helpMenu->addAction(tr("&Keyboard Shortcuts"), this, &MainWindow::showShortcuts);
    shortcutsAction->setObjectName(QStringLiteral("shortcutsAction"));
    shortcutsAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Slash));
    QAction *welcomeAction = helpMenu->addAction(tr("&Welcome Page"), this, &MainWindow::showWelcomePage);
    welcomeAction->setObjectName(QStringLiteral("welcomeAction"));
    helpMenu->addSeparator();
    QAction *aboutAction = helpMenu->addAction(tr("&About Cordon Workbench"), this, &MainWindow::showAbout);
    aboutAction->setObjectName(QStringLiteral("aboutAction"));
    aboutAction->setMenuRole(QAction::AboutRole);

    QToolBar *toolbar = addToolBar(tr("Main"));
    toolbar->setObjectName(QStringLiteral("mainToolbar"));
    toolbar->setMovable(false);
    toolbar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    toolbar->setIconSize(QSize(18, 18));
    toolbar->addAction(m_newAction);
    toolbar->addSeparator();
    toolbar->addAction(m_startAction);
    toolbar->addAction(m_stopAction);
    toolbar->addAction(m_keepAliveAction);
    toolbar->addAction(m_deleteAction);
    toolbar->addSeparator();
    toolbar->addAction(historyAction);
}

void MainWindow::buildDemoMenu()
{
    QMenu *demoMenu = menuBar()->addMenu(tr("&Demo"));
    demoMenu->setObjectName(QStringLiteral("demoMenu"));
    demoMenu->setToolTipsVisible(true);
    const QList<DemoScript> scripts = DemoScripts::all();
    for (int index = 0; index < scripts.size(); ++index) {
        const DemoScript &script = scripts.at(index);
        QAction *action = demoMenu->addAction(tr("Run %1").arg(script.title));
        action->setObjectName(QStringLiteral("demo-") + script.id);
        action->setToolTip(script.shows);
        action->setStatusTip(script.shows);
        // Alt+1 … Alt+5: a trainer in front of a class should not have to open the menu.
        action->setShortcut(QKeySequence(Qt::ALT | (Qt::Key_1 + index)));
        connect(action, &QAction::triggered, this, [this, script] { runDemo(script); });
    }
    demoMenu->addSeparator();
    demoMenu->addAction(m_demoClock->fastClockAction());
    demoMenu->addAction(m_demoClock->markAction());
    m_presentationAction = demoMenu->addAction(tr("&Presentation Mode (Large Fonts)"));
    m_presentationAction->setObjectName(QStringLiteral("presentationAction"));
    m_presentationAction->setCheckable(true);
    m_presentationAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P));
    m_presentationAction->setToolTip(tr("Every font half as large again, for a projector (Ctrl+Shift+P)"));
    m_presentationAction->setChecked(WorkbenchSettings::presentation());
    connect(m_presentationAction, &QAction::toggled, this, &MainWindow::setPresentationMode);
    addAction(m_presentationAction);
}

void MainWindow::restoreLayout()
{
    QSettings settings;
    // Inside the screen it opens on, whatever was saved: a geometry from a larger screen or another monitor
    // would leave the title bar or the right column out of reach, and the first start's size is more than a
    // 1366x768 laptop has.
    if (restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray())) {
        ScreenFit::fitWindow(this);
    } else {
        resize(1360, 840);
        ScreenFit::fitWindow(this, ScreenFit::Placement::Centre);
    }
    restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
    m_mainSplitter->restoreState(settings.value(QStringLiteral("window/mainSplitter")).toByteArray());
    m_runPanel->splitter()->restoreState(
        settings.value(QStringLiteral("window/editorSplitter")).toByteArray());
}

void MainWindow::saveLayout()
{
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/state"), saveState());
    settings.setValue(QStringLiteral("window/mainSplitter"), m_mainSplitter->saveState());
    settings.setValue(QStringLiteral("window/editorSplitter"), m_runPanel->splitter()->saveState());
    settings.setValue(QStringLiteral("window/lastContainer"), m_currentId);
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    m_runPanel->saveCode();
    saveLayout();
    event->accept();
}

void MainWindow::onSubscribed(const QJsonObject &snapshot)
{
    m_model->resetFrom(snapshot.value(QStringLiteral("containers")).toArray());
    m_history->resetFrom(snapshot.value(QStringLiteral("memory_backlog")).toArray());
    // Expired containers stay in the list, marked, until removed: also those that expired while the
    // workbench was closed (removing one deletes it, so it is not listed again).
    m_connection->call(QStringLiteral("container.list"), {{QStringLiteral("include_deleted"), true}}, this,
                       [this](Result<QJsonObject> result) {
                           if (!result)
                               return;
                           for (const QJsonValue &value :
                                result->value(QStringLiteral("containers")).toArray()) {
                               const QJsonObject container = value.toObject();
                               if (stateOf(container) == QLatin1String("expired") &&
                                   m_model->rowOf(container.value(QStringLiteral("id")).toString()) < 0)
                                   m_model->update(container);
                           }
                       });
    for (const QJsonValue &container : snapshot.value(QStringLiteral("containers")).toArray())
        notifyGrace(container.toObject());
    m_haveList = true;
    m_demoClock->setScaleFromDaemon(
        m_connection->helloResult().value(QStringLiteral("time_scale")).toDouble(1));
    if (m_currentId.isEmpty() || m_model->rowOf(m_currentId) < 0) {
        const QString last = QSettings().value(QStringLiteral("window/lastContainer")).toString();
        if (m_model->rowOf(last) >= 0)
            selectContainer(last);
        else if (m_model->rowCount() > 0)
            selectContainer(m_model->data(m_model->index(0, 0), ContainerListModel::IdRole).toString());
    }
    refreshCurrent();
    updatePages();
    updateStatus();
}

void MainWindow::onEvent(const QString &name, const QJsonObject &payload)
{
    if (name == QLatin1String("container.changed")) {
        onContainerChanged(payload.value(QStringLiteral("container")).toObject());
    } else if (name == QLatin1String("memory.sample")) {
        m_history->add(payload.value(QStringLiteral("container")).toString(),
                       MemorySample::fromJson(payload));
    } else if (name == QLatin1String("run.finished") || name == QLatin1String("run.started")) {
        m_historyView->markStale();
        // Runs started elsewhere (the CLI) change the container's active runs, which the list shows.
        const QString container =
            payload.value(QStringLiteral("run")).toObject().value(QStringLiteral("container")).toString();
        if (name == QLatin1String("run.started"))
            m_processGauge->runStarted(container);
        else
            m_processGauge->runFinished(container);
        if (m_model->rowOf(container) >= 0)
            refreshContainer(container);
    } else if (name == QLatin1String("container.expiring_soon")) {
        notifyExpiring(payload.value(QStringLiteral("container")).toString(),
                       payload.value(QStringLiteral("expires_at")).toInteger());
    }
}

void MainWindow::notifyExpiring(const QString &id, qint64 expiresAt)
{
    const QJsonObject container = m_model->container(id);
    if (container.isEmpty())
        return;
    const QString name = container.value(QStringLiteral("name")).toString();
    statusBar()->showMessage(tr("“%1” expires soon: use it or keep it alive to keep its files.").arg(name),
                             10000);
    // The idle timer is easy to miss when the window is behind others: the desktop says it too.
    const qint64 left = qMax<qint64>(0, expiresAt - QDateTime::currentMSecsSinceEpoch());
    m_notifier->notify(
        id, tr("“%1” expires in %2").arg(Format::displayName(name), Format::countdown(left)),
        tr("When it expires, its processes are stopped and every file in its workspace is "
           "deleted. Use it or keep it alive to keep them."),
        {{QStringLiteral("keep-alive"), tr("Keep Alive")}, {QStringLiteral("default"), tr("Show")}});
    m_expiryWarnings.insert(id, expiresAt);
}

// A container whose idle deadline passed while no daemon ran is in its grace period: the desktop says so
// once, with Keep Alive, since the workbench was likely closed when it began.
void MainWindow::notifyGrace(const QJsonObject &container)
{
    const QString id = container.value(QStringLiteral("id")).toString();
    const qint64 since = container.value(QStringLiteral("grace_since")).toInteger();
    if (since <= 0 || m_graceNotified.value(id) == since)
        return;
    m_graceNotified.insert(id, since);
    const qint64 expiresAt = container.value(QStringLiteral("expires_at")).toInteger();
    const QString name = Format::displayName(container.value(QStringLiteral("name")).toString());
    statusBar()->showMessage(
        tr("“%1” was idle past its deadline while no daemon ran: a grace period keeps its files for now.")
            .arg(name),
        10000);
    m_notifier->notify(
        id, tr("“%1” is in its grace period").arg(name),
        tr("It was idle past its deadline while no daemon ran. Its files are deleted in %1 unless it is "
           "used or kept alive.")
            .arg(Format::countdown(qMax<qint64>(0, expiresAt - QDateTime::currentMSecsSinceEpoch()))),
        {{QStringLiteral("keep-alive"), tr("Keep Alive")}, {QStringLiteral("default"), tr("Show")}});
    m_expiryWarnings.insert(id, expiresAt);
}

void MainWindow::onContainerChanged(const QJsonObject &container)
{
    m_model->update(container);
    notifyGrace(container);
    const QString id = container.value(QStringLiteral("id")).toString();
    const auto warning = m_expiryWarnings.constFind(id);
    if (warning == m_expiryWarnings.cend())
        return;
    const QString state = stateOf(container);
    if (state == QLatin1String("expired")) {
        m_expiryWarnings.remove(id);
        m_notifier->notify(
            id,
            tr("“%1” expired").arg(Format::displayName(container.value(QStringLiteral("name")).toString())),
            tr("It was idle too long: its processes were stopped and its files deleted."));
    } else if (state != QLatin1String("running") && state != QLatin1String("stopped")) {
        m_expiryWarnings.remove(id);
        m_notifier->withdraw(id);
    } else if (container.value(QStringLiteral("expires_at")).toInteger() > *warning) {
        // Kept alive or used again: the warning no longer holds.
        m_expiryWarnings.remove(id);
        m_notifier->withdraw(id);
    }
}

void MainWindow::selectContainer(const QString &id)
{
    const int row = m_model->rowOf(id);
    if (row < 0)
        return;
    m_list->selectionModel()->setCurrentIndex(m_model->index(row, 0), QItemSelectionModel::ClearAndSelect |
                                                                          QItemSelectionModel::Rows);
}

void MainWindow::onCurrentChanged()
{
    if (m_showingWelcome) {
        m_showingWelcome = false;
        updatePages();
    }
    const QModelIndex current = m_list->selectionModel()->currentIndex();
    m_currentId =
        current.isValid() ? m_model->data(current, ContainerListModel::IdRole).toString() : QString();
    refreshCurrent();
}

void MainWindow::refreshCurrent()
{
    const QJsonObject container = m_model->container(m_currentId);
    m_runPanel->setContainer(container);
    m_fileBrowser->setContainer(container);
    m_networkPanel->setContainer(container);
    m_historyView->setCurrentContainer(m_currentId);
    m_auditView->setCurrentContainer(m_currentId, container.value(QStringLiteral("name")).toString(),
                                     container.value(QStringLiteral("policy")).toObject());
    m_idleTimer->setContainer(container);
    m_chart->setContainer(m_currentId, container.value(QStringLiteral("memory_limit")).toInteger(),
                          stateOf(container) == QLatin1String("running"));
    m_processes->setContainer(m_currentId, stateOf(container) == QLatin1String("running"));
    m_processGauge->setContainer(stateOf(container) == QLatin1String("running") ? m_currentId : QString());
    updateActions();
}

void MainWindow::refreshContainer(const QString &id)
{
    // The run moved the idle deadline; the daemon does not always announce that on its own.
    m_connection->call(QStringLiteral("container.get"), {{QStringLiteral("id"), id}}, this,
                       [this](Result<QJsonObject> result) {
                           if (result)
                               m_model->update(result->value(QStringLiteral("container")).toObject());
                       });
}

void MainWindow::updatePages()
{
    const bool empty = m_model->rowCount() == 0;
    m_centre->setCurrentWidget(empty || m_showingWelcome ? static_cast<QWidget *>(m_welcomeScroll)
                                                         : m_runPanel);
    m_list->setVisible(!empty);
    m_listEmpty->setVisible(empty);
    updateActions();
}

void MainWindow::updateActions()
{
    const bool connected = m_connection->isConnected();
    const QString state = stateOf(m_model->container(m_currentId));
    const bool live = state == QLatin1String("running") || state == QLatin1String("stopped");
    m_newAction->setEnabled(connected);
    m_startAction->setEnabled(connected && state == QLatin1String("stopped"));
    m_stopAction->setEnabled(connected && state == QLatin1String("running"));
    m_keepAliveAction->setEnabled(connected && live);
    m_deleteAction->setEnabled(connected && !m_currentId.isEmpty());
    m_inspectAction->setEnabled(!m_currentId.isEmpty());
    m_copyIdAction->setEnabled(!m_currentId.isEmpty());
    m_demoClock->setCurrentContainer(m_currentId);
    m_deleteAction->setText(state == QLatin1String("expired") ? tr("&Remove from List") : tr("&Delete…"));
    m_idleTimer->setKeepAliveEnabled(connected);
    m_welcome->setConnected(connected);
}

void MainWindow::updateStatus()
{
    switch (m_connection->status()) {
    case DaemonConnection::Status::Connecting:
        m_statusLabel->setText(tr("Connecting to cordond…"));
        return;
    case DaemonConnection::Status::Reconnecting:
        m_statusLabel->setText(tr("Not connected"));
        return;
    case DaemonConnection::Status::Connected:
        break;
    }
    const QJsonObject hello = m_connection->helloResult();
    QString text =
        tr("Connected to cordond %1").arg(hello.value(QStringLiteral("daemon_version")).toString());
    if (m_demoClock->scale() > 1)
        text += tr(" · idle time runs %1× faster for demo containers").arg(m_demoClock->scale());
    m_statusLabel->setText(text);
}

void MainWindow::showCreateDialog()
{
    if (!m_connection->isConnected())
        return;
    auto *dialog = new CreateContainerDialog(*m_connection, this);
    dialog->setObjectName(QStringLiteral("createContainerDialog"));
    dialog->setTakenNames(m_model->liveNames());
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this, [this, dialog] {
        const QJsonObject created = dialog->createdContainer();
        m_model->update(created);
        selectContainer(created.value(QStringLiteral("id")).toString());
        m_runPanel->editor()->setFocus();
    });
    dialog->open();
}

void MainWindow::showSettings()
{
    auto *dialog = new SettingsDialog(*m_connection, this);
    dialog->setObjectName(QStringLiteral("settingsDialog"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->open();
}

void MainWindow::showSecrets()
{
    auto *dialog = new SecretsDialog(*m_connection, this);
    dialog->setObjectName(QStringLiteral("secretsDialog"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->open();
}

void MainWindow::createDemoContainer()
{
    createDemo([this](const QString &id) {
        selectContainer(id);
        m_runPanel->setCode(QStringLiteral("python"), demoProgram());
        m_runPanel->editor()->setFocus();
    });
}

void MainWindow::createDemo(std::function<void(const QString &id)> then)
{
    if (!m_connection->isConnected())
        return;
    m_welcome->setError(QString());
    m_welcome->setBusy(true);
    statusBar()->showMessage(tr("Creating a demo container…"));
    // "demo" while no other container has that name; otherwise the daemon picks a readable one.
    QJsonObject policy{{QStringLiteral("memory_limit"), QStringLiteral("1g")}};
    if (!m_model->liveNames().contains(QStringLiteral("demo")))
        policy.insert(QStringLiteral("name"), QStringLiteral("demo"));
    // A demo follows the demo clock; a container the user creates otherwise never does.
    m_connection->call(
        QStringLiteral("container.create"),
        {{QStringLiteral("policy"), policy}, {QStringLiteral("demo"), true}}, this,
        [this, then = std::move(then)](Result<QJsonObject> result) {
            m_welcome->setBusy(false);
            statusBar()->clearMessage();
            if (!result) {
                const QString text =
                    tr("The demo container was not created: %1").arg(toQt(result.error().describe()));
                m_welcome->setError(text);
                statusBar()->showMessage(text, 10000);
                return;
            }
            const QJsonObject created = result->value(QStringLiteral("container")).toObject();
            m_model->update(created);
            then(created.value(QStringLiteral("id")).toString());
        });
}

void MainWindow::runDemo(const DemoScript &script)
{
    const QJsonObject container = m_model->container(m_currentId);
    const QString state = stateOf(container);
    if (state == QLatin1String("stopped")) {
        const QString id = m_currentId;
        statusBar()->showMessage(tr("Starting the container…"));
        m_connection->call(
            QStringLiteral("container.start"), {{QStringLiteral("id"), id}}, this,
            [this, id, script](Result<QJsonObject> result) {
                statusBar()->clearMessage();
                if (!result) {
                    statusBar()->showMessage(
                        tr("The container did not start: %1").arg(toQt(result.error().describe())), 10000);
                    return;
                }
                m_model->update(result->value(QStringLiteral("container")).toObject());
                loadAndRun(id, script);
            });
        return;
    }
    if (state != QLatin1String("running")) {
        createDemo([this, script](const QString &id) { loadAndRun(id, script); });
        return;
    }
    if (m_runPanel->isRunning()) {
        statusBar()->showMessage(tr("A run is still going: stop it first (Shift+F5)."), 10000);
        return;
    }
    const QString code = m_runPanel->editor()->text();
    if (code.trimmed().isEmpty() || DemoScripts::isDemoCode(code)) {
        loadAndRun(m_currentId, script);
        return;
    }
    // The editor holds the user's own code: replacing it unasked would lose work.
    auto *box = new QMessageBox(QMessageBox::Question, tr("Run Demo"),
                                tr("Replace the code in the editor with the “%1” demo?").arg(script.title),
                                QMessageBox::Cancel, this);
    box->setInformativeText(tr("The code now in the editor of “%1” is not kept.")
                                .arg(container.value(QStringLiteral("name")).toString()));
    QPushButton *replace = box->addButton(tr("&Replace and Run"), QMessageBox::AcceptRole);
    box->setDefaultButton(replace);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setObjectName(QStringLiteral("replaceCodeConfirmation"));
    const QString id = m_currentId;
    connect(box, &QMessageBox::finished, this, [this, box, replace, id, script] {
        if (box->clickedButton() == replace)
            loadAndRun(id, script);
    });
    box->open();
}

void MainWindow::loadAndRun(const QString &id, const DemoScript &script)
{
    selectContainer(id);
    if (m_currentId != id)
        return; // gone meanwhile
    m_runPanel->setCode(script.language, script.code());
    statusBar()->showMessage(script.shows, 15000);
    if (m_runPanel->runAction()->isEnabled())
        m_runPanel->runAction()->trigger();
}

void MainWindow::setPresentationMode(bool presentation)
{
    {
        const QSignalBlocker blocker(m_presentationAction);
        m_presentationAction->setChecked(presentation);
    }
    WorkbenchSettings::setPresentation(presentation);
    Appearance::apply(Appearance::theme(), presentation);
    // Large fonts leave the list no room for every column: a class reads names, and the memory tier stays in
    // the editor's header.
    for (int column : {int(ContainerListModel::IdColumn), int(ContainerListModel::MemoryColumn)})
        m_list->setColumnHidden(column, presentation);
    fitListWidth();
}

void MainWindow::fitListWidth()
{
    // The other columns size to their contents and the name takes the rest: without a floor, a narrow
    // splitter squeezed the names to "d…" first. The list may not get narrower than every visible column
    // plus room for about ten characters of name.
    int needed = m_list->fontMetrics().averageCharWidth() * 10;
    for (int column = 0; column < m_model->columnCount(); ++column) {
        if (column == ContainerListModel::NameColumn || m_list->isColumnHidden(column))
            continue;
        // Sized now, not when the view next lays itself out, so that the sum is right.
        m_list->resizeColumnToContents(column);
        needed += m_list->header()->sectionSize(column);
    }
    needed += 2 * m_list->frameWidth() + m_list->verticalScrollBar()->sizeHint().width();
    m_list->setMinimumWidth(needed);
}

void MainWindow::containerCall(const QString &method, const QString &id)
{
    if (id.isEmpty())
        return;
    statusBar()->showMessage(method == QLatin1String("container.start") ? tr("Starting the container…")
                                                                        : tr("Working…"));
    m_connection->call(
        method, {{QStringLiteral("id"), id}}, this, [this, method](Result<QJsonObject> result) {
            statusBar()->clearMessage();
            if (!result) {
                auto *box = new QMessageBox(QMessageBox::Warning, tr("Cordon Workbench"),
                                            tr("The daemon refused: %1").arg(toQt(result.error().message())),
                                            QMessageBox::Ok, this);
                box->setInformativeText(toQt(result.error().hint()));
                box->setAttribute(Qt::WA_DeleteOnClose);
                box->open();
                return;
            }
            m_model->update(result->value(QStringLiteral("container")).toObject());
        });
}

void MainWindow::startCurrent()
{
    containerCall(QStringLiteral("container.start"), m_currentId);
}

void MainWindow::stopCurrent()
{
    containerCall(QStringLiteral("container.stop"), m_currentId);
}

void MainWindow::keepAlive(const QString &id)
{
    containerCall(QStringLiteral("container.keepalive"), id);
}

void MainWindow::deleteCurrent()
{
    const QJsonObject container = m_model->container(m_currentId);
    if (container.isEmpty())
        return;
    const QString id = m_currentId;
    if (stateOf(container) == QLatin1String("expired")) {
        // Nothing is left to lose: its files went when it expired.
        containerCall(QStringLiteral("container.delete"), id);
        m_runPanel->discardCode(id);
        m_model->remove(id);
        return;
    }
    auto *box =
        new QMessageBox(QMessageBox::Question, tr("Delete Container"),
                        tr("Delete “%1” (%2)?")
                            .arg(Format::displayName(container.value(QStringLiteral("name")).toString()), id),
                        QMessageBox::Cancel, this);
    box->setInformativeText(
        tr("Its processes are stopped and every file in /mnt/data is deleted. This cannot be "
           "undone. The code in the editor is forgotten too."));
    QPushButton *confirm = box->addButton(tr("&Delete"), QMessageBox::DestructiveRole);
    box->setDefaultButton(QMessageBox::Cancel);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setObjectName(QStringLiteral("deleteConfirmation"));
    connect(box, &QMessageBox::finished, this, [this, box, confirm, id] {
        if (box->clickedButton() != confirm)
            return;
        m_runPanel->discardCode(id);
        containerCall(QStringLiteral("container.delete"), id);
    });
    box->open();
}

void MainWindow::showListMenu(const QPoint &position)
{
    const QModelIndex index = m_list->indexAt(position);
    if (index.isValid())
        selectContainer(m_model->data(index, ContainerListModel::IdRole).toString());
    QMenu menu(this);
    menu.setObjectName(QStringLiteral("containerContextMenu"));
    if (m_currentId.isEmpty() || !index.isValid()) {
        menu.addAction(m_newAction);
    } else {
        menu.addAction(m_copyIdAction);
        menu.addAction(m_inspectAction);
        menu.addSeparator();
        // Start or Stop, whichever applies: both disabled would only be noise.
        menu.addAction(m_stopAction->isEnabled() ? m_stopAction : m_startAction);
        menu.addAction(m_keepAliveAction);
        menu.addAction(m_demoClock->markAction());
        menu.addSeparator();
        menu.addAction(m_deleteAction);
    }
    menu.exec(m_list->viewport()->mapToGlobal(position));
}

InspectDialog *MainWindow::inspectCurrent()
{
    const QJsonObject container = m_model->container(m_currentId);
    if (container.isEmpty())
        return nullptr;
    // One window per container: asking again raises it.
    for (InspectDialog *open : findChildren<InspectDialog *>()) {
        if (open->containerId() == m_currentId) {
            open->raise();
            open->activateWindow();
            return open;
        }
    }
    auto *dialog = new InspectDialog(*m_connection, container, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(m_model, &QAbstractItemModel::dataChanged, dialog, [this, dialog](const QModelIndex &topLeft) {
        // The countdown ticks every second and changes nothing Inspect shows.
        if (topLeft.column() == ContainerListModel::IdleColumn)
            return;
        const QJsonObject latest = m_model->container(dialog->containerId());
        if (!latest.isEmpty())
            dialog->update(latest);
    });
    dialog->show();
    return dialog;
}

void MainWindow::copyCurrentId()
{
    if (m_currentId.isEmpty())
        return;
    QGuiApplication::clipboard()->setText(m_currentId);
    statusBar()->showMessage(tr("Copied %1").arg(m_currentId), 4000);
}

void MainWindow::showDocumentation()
{
    if (auto *open = findChild<DocumentationDialog *>()) {
        open->showTopic(0);
        open->raise();
        open->activateWindow();
        return;
    }
    auto *dialog = new DocumentationDialog(this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->show();
}

void MainWindow::showShortcuts()
{
    auto *dialog = new ShortcutsDialog(menuBar()->actions(), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->show();
}

void MainWindow::showWelcomePage()
{
    m_showingWelcome = true;
    updatePages();
}

void MainWindow::showAbout()
{
    const QString daemon =
        m_connection->isConnected()
            ? m_connection->helloResult().value(QStringLiteral("daemon_version")).toString()
            : QString();
    auto *box = new QMessageBox(QMessageBox::NoIcon, tr("About Cordon Workbench"), aboutText(daemon),
                                QMessageBox::Close, this);
    box->setObjectName(QStringLiteral("aboutBox"));
    box->setIconPixmap(windowIcon().pixmap(64, 64));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

} // namespace Cordon::Ui
