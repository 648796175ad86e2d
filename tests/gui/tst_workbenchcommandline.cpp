// SPDX-License-Identifier: MIT
// `cordon-workbench --help` and `--version` as a user types them in a terminal: they print and exit at once,
// without a display and without opening a window or starting a daemon.
#include "cliprocess.h"

#include <QProcessEnvironment>
#include <QtTest>

using namespace CordonTest;

class TestWorkbenchCommandLine final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void answersWithoutADisplay_data()
    {
        QTest::addColumn<QString>("option");
        QTest::addColumn<QByteArray>("expected");
        QTest::newRow("--version") << QStringLiteral("--version")
                                   << QByteArray("cordon-workbench " CORDON_TEST_VERSION "\n");
        QTest::newRow("--help") << QStringLiteral("--help")
                                << QByteArray("usage: cordon-workbench [--help] [--version]");
        QTest::newRow("-h") << QStringLiteral("-h")
                            << QByteArray("usage: cordon-workbench [--help] [--version]");
    }

    void answersWithoutADisplay()
    {
        QFETCH(QString, option);
        QFETCH(QByteArray, expected);
        // No display and no platform: a window could not open, so only an answer without one can pass. A
        // socket nobody serves: a daemon started by mistake would show as a file there.
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        for (const char *name : {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"})
            environment.remove(QString::fromLatin1(name));
        QTemporaryDir runtime;
        QVERIFY(runtime.isValid());
        environment.insert(QStringLiteral("CORDON_SOCKET"), runtime.filePath(QStringLiteral("cordond.sock")));
        const CliResult result =
            runProgram(builtProgram(QStringLiteral("cordon-workbench")), {option}, {}, environment);
        QVERIFY2(result.status == 0, result.describe().constData());
        QVERIFY2(result.out.startsWith(expected), result.describe().constData());
        QVERIFY2(result.err.isEmpty(), result.describe().constData());
        QVERIFY(!QFileInfo::exists(runtime.filePath(QStringLiteral("cordond.sock"))));
    }
};

QTEST_GUILESS_MAIN(TestWorkbenchCommandLine)
#include "tst_workbenchcommandline.moc"
