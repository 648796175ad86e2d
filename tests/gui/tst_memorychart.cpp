// SPDX-License-Identifier: MIT
// The live memory chart against a real cordond: samples arrive twice a second and become points; a window
// opened later starts with the daemon's backlog instead of an empty chart.
#include "guitest.h"

#include "containerlistmodel.h"
#include "daemonconnection.h"
#include "mainwindow.h"
#include "memorychart.h"
#include "testutil.h"

#include <QAbstractItemModelTester>

using namespace Cordon::Ui;

class MemoryChartTest final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_daemon.start());
        const auto created =
            m_daemon.call(QStringLiteral("container.create"),
                          {{QStringLiteral("policy"),
                            QJsonObject{{QStringLiteral("name"), QStringLiteral("charted")},
                                        {QStringLiteral("memory_limit"), QStringLiteral("1g")}}}});
        QVERIFY_RESULT(created);
        m_id = created->value(QStringLiteral("container")).toObject().value(QStringLiteral("id")).toString();
    }

    void samplesBecomePoints()
    {
        MainWindow window(MainWindow::Options{false});
        QAbstractItemModelTester tester(&window.containerModel(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        window.show();
        window.start();
        QTRY_VERIFY_WITH_TIMEOUT(window.connection().isConnected(), 10000);
        QTRY_COMPARE(window.currentContainerId(), m_id);
        auto *chart = window.findChild<MemoryChart *>();
        QVERIFY(chart);
        QCOMPARE(chart->containerId(), m_id);
        const int before = chart->usagePointCount();
        // 2 Hz: four more points take about two seconds.
        QTRY_VERIFY_WITH_TIMEOUT(chart->usagePointCount() >= before + 4, 10000);
        QVERIFY2(chart->summaryText().contains(QStringLiteral("limit 1 GiB")),
                 qPrintable(chart->summaryText()));
        QVERIFY2(chart->summaryText().startsWith(QStringLiteral("Now ")), qPrintable(chart->summaryText()));
        QCOMPARE(chart->oomMarkCount(), 0);
    }

    void laterWindowStartsWithTheBacklog()
    {
        MainWindow window(MainWindow::Options{false});
        window.show();
        window.start();
        QTRY_VERIFY_WITH_TIMEOUT(window.connection().isConnected(), 10000);
        QTRY_COMPARE(window.currentContainerId(), m_id);
        // Several seconds of samples are there at once, before the next one can have arrived.
        QVERIFY2(window.findChild<MemoryChart *>()->usagePointCount() >= 4,
                 qPrintable(QString::number(window.findChild<MemoryChart *>()->usagePointCount())));
    }

    void oomKillIsMarked()
    {
        MainWindow window(MainWindow::Options{false});
        window.show();
        window.start();
        QTRY_VERIFY_WITH_TIMEOUT(window.connection().isConnected(), 10000);
        QTRY_COMPARE(window.currentContainerId(), m_id);
        auto *chart = window.findChild<MemoryChart *>();
        QVERIFY_RESULT(
            m_daemon.call(QStringLiteral("run.exec"),
                          {{QStringLiteral("container"), m_id},
                           {QStringLiteral("language"), QStringLiteral("python")},
                           {QStringLiteral("code"),
                            QStringLiteral("import time\nb = []\nwhile True:\n    b.append(bytearray(32 << "
                                           "20))\n    time.sleep(0.05)\n")}}));
        QTRY_VERIFY_WITH_TIMEOUT(chart->oomMarkCount() >= 1, 30000);
        QVERIFY2(chart->summaryText().contains(QStringLiteral("OOM kill")), qPrintable(chart->summaryText()));
    }

    void cleanupTestCase() { QVERIFY(m_daemon.stop()); }

private:
    CordonTest::DaemonFixture m_daemon;
    QString m_id;
};

CORDON_GUI_SANDBOX_TEST_MAIN(MemoryChartTest)

#include "tst_memorychart.moc"
