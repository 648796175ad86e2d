// SPDX-License-Identifier: MIT
// The live memory chart against a real cordond: samples arrive twice a second and become points; a window
// opened later starts with the daemon's backlog instead of an empty chart; a stopped container's figures say
// they are the last measured, not current; and a stretch without samples falls to zero instead of joining
// its two ends.
#include "guitest.h"

#include "containerlistmodel.h"
#include "daemonconnection.h"
#include "mainwindow.h"
#include "memorychart.h"
#include "memoryhistory.h"
#include "testutil.h"
#include "windowtest.h"

#include <QAbstractItemModelTester>
#include <QChartView>
#include <QDateTime>

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

    void stoppedFiguresAreMarked()
    {
        const auto opened = CordonGuiTest::openConnectedWindow();
        QVERIFY(opened);
        MainWindow &window = *opened;
        QTRY_COMPARE(window.currentContainerId(), m_id);
        auto *chart = window.findChild<MemoryChart *>();
        QTRY_VERIFY_WITH_TIMEOUT(chart->summaryText().startsWith(QStringLiteral("Now ")), 10000);
        QVERIFY_RESULT(m_daemon.call(QStringLiteral("container.stop"), {{QStringLiteral("id"), m_id}}));
        QTRY_VERIFY2_WITH_TIMEOUT(
            chart->summaryText().startsWith(QStringLiteral("Not running · last measured ")),
            qPrintable(chart->summaryText() + QLatin1Char(' ') +
                       window.containerModel().container(m_id).value(QStringLiteral("state")).toString()),
            10000);
        QVERIFY_RESULT(m_daemon.call(QStringLiteral("container.start"), {{QStringLiteral("id"), m_id}}));
        QTRY_VERIFY_WITH_TIMEOUT(chart->summaryText().startsWith(QStringLiteral("Now ")), 10000);
    }

    void gapFallsToZero()
    {
        MemoryHistory history;
        MemoryChart chart(history);
        const QString id = QStringLiteral("gappy");
        const qint64 start = QDateTime::currentMSecsSinceEpoch() - 90 * 1000;
        auto sample = [&](qint64 at, qint64 mib) {
            MemorySample made;
            made.at = start + at;
            made.current = mib << 20;
            made.peak = 100 << 20;
            made.limit = qint64(1) << 30;
            return made;
        };
        // Two seconds at 100 MiB, a minute stopped, then 50 MiB again: once as history, once live.
        for (qint64 at = 0; at <= 2000; at += 500)
            history.add(id, sample(at, 100));
        chart.setContainer(id, qint64(1) << 30);
        history.add(id, sample(62000, 50));
        const QList<QPointF> live = chart.usagePoints();
        chart.setContainer(QString(), 0);
        chart.setContainer(id, qint64(1) << 30);
        const QList<QPointF> replayed = chart.usagePoints();
        for (const QList<QPointF> &points : {live, replayed}) {
            QCOMPARE(points.size(), 5 + 2 + 1);
            QCOMPARE(points.at(4), QPointF(double(start + 2000), 100));
            QCOMPARE(points.at(5), QPointF(double(start + 2001), 0));
            QCOMPARE(points.at(6), QPointF(double(start + 61999), 0));
            QCOMPARE(points.at(7), QPointF(double(start + 62000), 50));
        }
        // Samples half a second apart are joined directly, as before.
        history.add(id, sample(62500, 60));
        QCOMPARE(chart.usagePoints().size(), 9);
        QCOMPARE(chart.usagePoints().constLast(), QPointF(double(start + 62500), 60));
    }

    // In a short pane (the Audit docked below at 1366x768) the value axis keeps fewer round labels instead
    // of cutting all of them to "…": each label has about two lines of height.
    void aShortChartKeepsFewerRoundLabels()
    {
        MainWindow window(MainWindow::Options{false});
        window.show();
        window.start();
        QTRY_VERIFY_WITH_TIMEOUT(window.connection().isConnected(), 10000);
        QTRY_COMPARE(window.currentContainerId(), m_id);
        auto *chart = window.findChild<MemoryChart *>();
        QVERIFY(chart);
        auto *view = chart->findChild<QChartView *>();
        QVERIFY(view);
        QTRY_VERIFY_WITH_TIMEOUT(chart->usagePointCount() > 0, 10000);
        const auto fits = [view, chart] {
            const int line = view->fontMetrics().height();
            const int room = int(view->chart()->plotArea().height());
            return chart->valueTickCount() >= 2 && (chart->valueTickCount() - 1) * line * 2 <= room + line;
        };
        view->setFixedHeight(480);
        QTRY_VERIFY(fits());
        const int tall = chart->valueTickCount();
        view->setFixedHeight(150);
        QTRY_VERIFY2(fits(), qPrintable(QString::number(chart->valueTickCount())));
        QVERIFY2(chart->valueTickCount() < tall,
                 qPrintable(QStringLiteral("%1 of %2").arg(chart->valueTickCount()).arg(tall)));
        view->setFixedHeight(480);
        QTRY_COMPARE(chart->valueTickCount(), tall);
    }

    void cleanupTestCase() { QVERIFY(m_daemon.stop()); }

private:
    CordonTest::DaemonFixture m_daemon;
    QString m_id;
};

CORDON_GUI_SANDBOX_TEST_MAIN(MemoryChartTest)

#include "tst_memorychart.moc"
