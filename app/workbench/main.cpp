// SPDX-License-Identifier: MIT
// cordon-workbench: the desktop window over cordond. Everything lives in ui/ (cordon_ui); this only sets up
// the application and shows the window.
#include "daemonconnection.h"
#include "historyview.h"
#include "mainwindow.h"

#include <QApplication>
#include <QDockWidget>
#include <QIcon>
#include <QTimer>
#include <QWindow>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <memory>
#include <string_view>

namespace {

constexpr char HelpText[] =
    "usage: cordon-workbench [--help] [--version] [Qt options]\n"
    "\n"
    "The desktop window of Cordon: containers with their idle countdowns, a code editor with Run, the\n"
    "output and how each run ended, the workspace's files, the network allowlists, memory and history.\n"
    "It starts the per-user daemon cordond when none is running.\n"
    "\n"
    "  -h, --help   print this help and exit\n"
    "  --version    print the version and exit\n"
    "\n"
    "Qt's own options, such as -platform NAME, are accepted too. See cordon-workbench(1).\n";

// --help and --version answer on the terminal and exit, before QApplication: they need no display, and a
// window that opens instead would be no answer.
int answerWithoutWindow(int argc, char *argv[])
{
    for (int i = 1; i < argc; ++i) {
        const std::string_view argument = argv[i];
        if (argument == "--version") {
            std::printf("cordon-workbench %s\n", CORDON_VERSION);
            return 0;
        }
        if (argument == "--help" || argument == "-h") {
            std::fputs(HelpText, stdout);
            return 0;
        }
    }
    return -1;
}

qint64 monotonicNs()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

// For bench/workbench-benchmarks.sh only, opted into with CORDON_WORKBENCH_BENCH=quit (or =report, which
// keeps the window open). "Interactive" is: the window shown and exposed, the daemon's snapshot applied (the
// container list filled), with CORDON_WORKBENCH_BENCH_HISTORY=1 the History dock open and its first page
// of runs in the model, and then every event already queued at that moment (layouts, the first paints)
// handled. At that point one line goes to stdout with CLOCK_MONOTONIC times (steady_clock) of each step.
// With =report, a line every second also says how many memory samples the window has been sent so far.
class InteractiveProbe final : public QObject
{
public:
    InteractiveProbe(Cordon::Ui::MainWindow &window, qint64 started, bool quit, bool history)
        : m_window(window), m_quit(quit), m_waitForHistory(history), m_main(started)
    {
        if (history)
            window.historyDock()->show();
        QObject::connect(&window.connection(), &Cordon::Ui::DaemonConnection::statusChanged, this, [this] {
            if (m_connected == 0 && m_window.connection().isConnected())
                m_connected = monotonicNs();
        });
        // Connected after the window's own slot, so the snapshot is applied when this runs.
        QObject::connect(&window.connection(), &Cordon::Ui::DaemonConnection::subscribed, this, [this] {
            if (m_subscribed == 0)
                m_subscribed = monotonicNs();
            check();
        });
        // With =report the window stays open; the benchmark reads how many samples it was sent meanwhile.
        QObject::connect(&window.connection(), &Cordon::Ui::DaemonConnection::eventReceived, this,
                         [this](const QString &name) {
                             if (name == QLatin1String("memory.sample"))
                                 ++m_samples;
                         });
        m_sampleReport.setInterval(1000);
        QObject::connect(&m_sampleReport, &QTimer::timeout, this, [this] {
            std::printf("cordon-workbench samples=%lld monotonic_ns=%lld\n",
                        static_cast<long long>(m_samples), static_cast<long long>(monotonicNs()));
            std::fflush(stdout);
        });
        if (!quit)
            m_sampleReport.start();
        QObject::connect(window.historyView(), &Cordon::Ui::HistoryView::pageLoaded, this, [this] {
            if (m_history == 0)
                m_history = monotonicNs();
            check();
        });
    }

    void shown()
    {
        m_shown = monotonicNs();
        m_window.windowHandle()->installEventFilter(this);
        if (m_window.windowHandle()->isExposed())
            m_exposed = monotonicNs();
    }

protected:
    bool eventFilter(QObject *watched, QEvent *event) override
    {
        if (event->type() == QEvent::Expose && m_exposed == 0 && m_window.windowHandle()->isExposed()) {
            m_exposed = monotonicNs();
            QTimer::singleShot(0, this, [this] { check(); });
        }
        return QObject::eventFilter(watched, event);
    }

private:
    void check()
    {
        if (m_done || m_exposed == 0 || m_subscribed == 0 || (m_waitForHistory && m_history == 0))
            return;
        m_done = true;
        // Queued behind whatever the last step posted (layout requests, update requests).
        QTimer::singleShot(0, this, [this] {
            std::printf("cordon-workbench interactive monotonic_ns=%lld main_ns=%lld shown_ns=%lld "
                        "exposed_ns=%lld connected_ns=%lld subscribed_ns=%lld history_ns=%lld\n",
                        static_cast<long long>(monotonicNs()), static_cast<long long>(m_main),
                        static_cast<long long>(m_shown), static_cast<long long>(m_exposed),
                        static_cast<long long>(m_connected), static_cast<long long>(m_subscribed),
                        static_cast<long long>(m_history));
            std::fflush(stdout);
            if (m_quit)
                QCoreApplication::quit();
        });
    }

    Cordon::Ui::MainWindow &m_window;
    bool m_quit;
    bool m_waitForHistory;
    bool m_done = false;
    qint64 m_main;
    qint64 m_samples = 0;
    QTimer m_sampleReport;
    qint64 m_shown = 0, m_exposed = 0, m_connected = 0, m_subscribed = 0, m_history = 0;
};

} // namespace

int main(int argc, char *argv[])
{
    if (const int status = answerWithoutWindow(argc, argv); status >= 0)
        return status;
    const qint64 started = monotonicNs();
    // A daemon that goes away mid-write must cost a reconnect, not the window.
    ::signal(SIGPIPE, SIG_IGN);
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("cordon"));
    QApplication::setApplicationName(QStringLiteral("cordon-workbench"));
    QApplication::setApplicationDisplayName(QStringLiteral("Cordon Workbench"));
    QApplication::setApplicationVersion(QStringLiteral(CORDON_VERSION));
    QApplication::setDesktopFileName(QStringLiteral("org.cordon.workbench"));
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/cordon.svg")));

    Cordon::Ui::MainWindow window({});
    std::unique_ptr<InteractiveProbe> probe;
    const QByteArray bench = qgetenv("CORDON_WORKBENCH_BENCH");
    if (bench == "quit" || bench == "report") {
        probe = std::make_unique<InteractiveProbe>(
            window, started, bench == "quit",
            qEnvironmentVariableIntValue("CORDON_WORKBENCH_BENCH_HISTORY") == 1);
    }
    window.show();
    if (probe)
        probe->shown();
    window.start();
    return app.exec();
}
