// SPDX-License-Identifier: MIT
// cordon-workbench: the desktop window over cordond. Everything lives in ui/ (cordon_ui); this only sets up
// the application and shows the window.
#include "mainwindow.h"

#include <QApplication>
#include <QIcon>

#include <csignal>

int main(int argc, char *argv[])
{
    // A daemon that goes away mid-write must cost a reconnect, not the window.
    ::signal(SIGPIPE, SIG_IGN);
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("cordon"));
    QApplication::setApplicationName(QStringLiteral("cordon-workbench"));
    QApplication::setApplicationDisplayName(QStringLiteral("Cordon Workbench"));
    QApplication::setApplicationVersion(QStringLiteral(CORDON_VERSION));
    QApplication::setDesktopFileName(QStringLiteral("cordon-workbench"));
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/cordon.svg")));

    Cordon::Ui::MainWindow window({});
    window.show();
    window.start();
    return app.exec();
}
