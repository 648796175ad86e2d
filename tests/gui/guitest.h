// SPDX-License-Identifier: MIT
// Shared set-up for the workbench's GUI tests: a QApplication on the offscreen platform, private settings
// (XDG_CONFIG_HOME) and data (CORDON_DATA_DIR) directories, and, for tests that run code, the same check as
// tests/common/sandboxtest.h: skip (77) when this host cannot start a sandbox, unless CORDON_MUST_WORK=1.
#pragma once

#include "containers/oneshotrun.h"
#include "daemonfixture.h"

#include <QAbstractButton>
#include <QApplication>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <cstdio>

namespace CordonGuiTest {

enum class Needs
{
    Nothing,
    Sandbox,
};

// Makes `window` the active window, as a click on it would: keyboard shortcuts reach only the active window,
// and a closed dialog does not hand activation back on the offscreen platform.
inline bool activate(QWidget *window)
{
    window->activateWindow();
    QApplication::setActiveWindow(window);
    return QTest::qWaitForWindowActive(window);
}

template<typename TestClass> int guiTestMain(int argc, char *argv[], Needs needs)
{
    // Before QApplication: QSettings and the daemon read these once.
    QTemporaryDir config;
    QTemporaryDir data;
    qputenv("XDG_CONFIG_HOME", config.path().toLocal8Bit());
    qputenv("CORDON_DATA_DIR", data.path().toLocal8Bit());
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    // CORDON_TEST_SCREEN=WIDTHxHEIGHT gives the offscreen platform one screen of that size, all of it
    // available (its own default is 800x800), through the platform's JSON configuration.
    QTemporaryDir platform;
    const QList<QByteArray> screen = qgetenv("CORDON_TEST_SCREEN").split('x');
    if (screen.size() == 2) {
        const QByteArray json =
            QByteArray("{\"screens\": [{\"name\": \"test\", \"x\": 0, \"y\": 0, \"width\": ") + screen.at(0) +
            QByteArray(", \"height\": ") + screen.at(1) + QByteArray("}]}");
        QFile screenConfig(platform.filePath(QStringLiteral("offscreen.json")));
        if (!screenConfig.open(QIODevice::WriteOnly) || screenConfig.write(json) != json.size())
            return 1;
        screenConfig.close();
        qputenv("QT_QPA_PLATFORM",
                QByteArray("offscreen:configfile=") + screenConfig.fileName().toLocal8Bit());
    }
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("cordon-tests"));
    QApplication::setApplicationName(QStringLiteral("cordon-workbench-tests"));
    if (needs == Needs::Sandbox) {
        Cordon::Containers::OneShotRequest probe;
        probe.command = {QStringLiteral("/bin/true")};
        const auto outcome = Cordon::Containers::runToCompletion(std::move(probe));
        if (outcome.errorClass != Cordon::Containers::ErrorClass::Ok) {
            std::fprintf(stderr, "cannot start a sandbox on this host: %s\n", qPrintable(outcome.message));
            return qEnvironmentVariableIntValue("CORDON_MUST_WORK") == 1 ? 1 : 77;
        }
    }
    TestClass test;
    return QTest::qExec(&test, argc, argv);
}

} // namespace CordonGuiTest

#define CORDON_GUI_TEST_MAIN(TestClass)                                                                      \
    int main(int argc, char *argv[])                                                                         \
    {                                                                                                        \
        return CordonGuiTest::guiTestMain<TestClass>(argc, argv, CordonGuiTest::Needs::Nothing);             \
    }

#define CORDON_GUI_SANDBOX_TEST_MAIN(TestClass)                                                              \
    int main(int argc, char *argv[])                                                                         \
    {                                                                                                        \
        return CordonGuiTest::guiTestMain<TestClass>(argc, argv, CordonGuiTest::Needs::Sandbox);             \
    }
