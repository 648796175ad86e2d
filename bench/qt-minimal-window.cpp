// SPDX-License-Identifier: MIT
// The peer of the workbench's launch benchmark: the least a Qt Widgets program does to put a window on the
// screen. A QMainWindow with a menu bar, a status bar and an empty tree view, shown; "interactive" as the
// workbench defines it (app/workbench/main.cpp) minus the daemon: the window exposed, then every event queued
// at that moment handled. Prints one line with the CLOCK_MONOTONIC time and quits.
#include <QApplication>
#include <QMainWindow>
#include <QMenuBar>
#include <QStatusBar>
#include <QTimer>
#include <QTreeView>
#include <QWindow>

#include <chrono>
#include <cstdio>

namespace {

qint64 monotonicNs()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

class ExposeProbe final : public QObject
{
public:
    explicit ExposeProbe(QWindow *window) : m_window(window) { window->installEventFilter(this); }

protected:
    bool eventFilter(QObject *watched, QEvent *event) override
    {
        if (event->type() == QEvent::Expose && !m_done && m_window->isExposed()) {
            m_done = true;
            QTimer::singleShot(0, this, [] {
                std::printf("qt-minimal-window interactive monotonic_ns=%lld\n",
                            static_cast<long long>(monotonicNs()));
                std::fflush(stdout);
                QCoreApplication::quit();
            });
        }
        return QObject::eventFilter(watched, event);
    }

private:
    QWindow *m_window;
    bool m_done = false;
};

} // namespace

int main(int argc, char *argv[])
{
    QApplication app(argc, argv);
    QMainWindow window;
    window.setWindowTitle(QStringLiteral("Qt minimal window"));
    window.menuBar()->addMenu(QStringLiteral("&File"));
    window.setCentralWidget(new QTreeView(&window));
    window.statusBar()->showMessage(QStringLiteral("Ready"));
    window.resize(1360, 840);
    window.show();
    ExposeProbe probe(window.windowHandle());
    if (window.windowHandle()->isExposed())
        QTimer::singleShot(0, &app, [] {
            std::printf("qt-minimal-window interactive monotonic_ns=%lld\n",
                        static_cast<long long>(monotonicNs()));
            QCoreApplication::quit();
        });
    return app.exec();
}
