// SPDX-License-Identifier: MIT
// The idle timer against a real cordond whose clock runs 600 times faster: the countdown moves, keep-alive
// winds it back, and the expired state appears in the timer and the list. 60 idle minutes are 6 seconds at
// this scale; one minute would be 100 ms, gone before a once-a-second countdown could be seen to move.
#include "guitest.h"

#include "containerlistmodel.h"
#include "daemonconnection.h"
#include "idletimer.h"
#include "mainwindow.h"
#include "testutil.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QPushButton>

using namespace Cordon::Ui;

class IdleExpiryTest final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_daemon.start({QStringLiteral("--time-scale"), QStringLiteral("600")})); }

    void countdownMovesAndExpiryIsShownPlainly()
    {
        MainWindow window(MainWindow::Options{false});
        QAbstractItemModelTester tester(&window.containerModel(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        window.show();
        window.start();
        QTRY_VERIFY_WITH_TIMEOUT(window.connection().isConnected(), 10000);

        const auto created = m_daemon.call(
            QStringLiteral("container.create"),
            {{QStringLiteral("policy"),
              QJsonObject{{QStringLiteral("name"), QStringLiteral("short-lived")},
                          {QStringLiteral("expires_after"), QJsonObject{{QStringLiteral("minutes"), 60}}}}}});
        QVERIFY_RESULT(created);
        const QString id =
            created->value(QStringLiteral("container")).toObject().value(QStringLiteral("id")).toString();
        // Pushed by the daemon, without a refresh.
        QTRY_VERIFY(window.containerModel().rowOf(id) >= 0);
        window.selectContainer(id);

        auto *timer = window.findChild<IdleTimer *>();
        QTRY_VERIFY(timer->countdownText().startsWith(QStringLiteral("0:0")));
        const QString first = timer->countdownText();
        QTRY_VERIFY_WITH_TIMEOUT(timer->countdownText() != first &&
                                     timer->countdownText().startsWith(QStringLiteral("0:0")),
                                 3000);
        const QString moved = timer->countdownText();
        QVERIFY2(moved < first, qPrintable(first + QStringLiteral(" -> ") + moved));

        // Keep-alive starts the period again: the countdown goes back up (to 0:06, less whatever a busy host
        // took to answer).
        auto seconds = [&] { return timer->countdownText().section(QLatin1Char(':'), 1).toInt(); };
        QTRY_VERIFY_WITH_TIMEOUT(seconds() <= 4, 5000);
        auto *keepAlive = timer->findChild<QPushButton *>();
        QVERIFY(keepAlive->isEnabled());
        QTest::mouseClick(keepAlive, Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(seconds() >= 5, 3000);

        // The last tenth is a warning, then the container is gone and says so.
        QTRY_VERIFY_WITH_TIMEOUT(timer->isWarning(), 10000);
        QTRY_VERIFY_WITH_TIMEOUT(timer->isExpired(), 10000);
        QCOMPARE(timer->countdownText(), QStringLiteral("Expired"));
        QVERIFY2(timer->stateText().startsWith(QStringLiteral("Expired — files are gone.")),
                 qPrintable(timer->stateText()));
        // In real time: the idle hour at 600x took six seconds.
        QVERIFY2(timer->stateText().contains(
                     QStringLiteral("for 6.0 s, which the demo clock at 600× counts as 60 minutes, so")),
                 qPrintable(timer->stateText()));
        QVERIFY(!keepAlive->isEnabled());
        const int row = window.containerModel().rowOf(id);
        QCOMPARE(window.containerModel().index(row, ContainerListModel::StateColumn).data().toString(),
                 QStringLiteral("Expired"));
        QCOMPARE(window.containerModel().index(row, ContainerListModel::IdleColumn).data().toString(),
                 QStringLiteral("—"));
        m_expiredId = id;
    }

    // The workbench opened again: the container that expired is still listed, marked, until removed.
    void anExpiredContainerIsStillListedAfterARestart()
    {
        QVERIFY(!m_expiredId.isEmpty());
        for (int opening = 0; opening < 2; ++opening) {
            MainWindow window(MainWindow::Options{false});
            window.show();
            window.start();
            QTRY_VERIFY_WITH_TIMEOUT(window.connection().isConnected(), 10000);
            if (opening == 1) {
                // Removed in the first opening: gone for good.
                QTest::qWait(500);
                QCOMPARE(window.containerModel().rowOf(m_expiredId), -1);
                break;
            }
            QTRY_VERIFY_WITH_TIMEOUT(window.containerModel().rowOf(m_expiredId) >= 0, 5000);
            const int row = window.containerModel().rowOf(m_expiredId);
            QCOMPARE(window.containerModel().index(row, ContainerListModel::StateColumn).data().toString(),
                     QStringLiteral("Expired"));
            window.selectContainer(m_expiredId);
            auto *remove = window.findChild<QAction *>(QStringLiteral("deleteContainerAction"));
            QCOMPARE(remove->text(), QStringLiteral("&Remove from List"));
            remove->trigger();
            QTRY_COMPARE(window.containerModel().rowOf(m_expiredId), -1);
            // The daemon has it as deleted now; wait for that before the next opening asks.
            QTRY_COMPARE(
                m_daemon.call(QStringLiteral("container.get"), {{QStringLiteral("id"), m_expiredId}})
                    ->value(QStringLiteral("container"))
                    .toObject()
                    .value(QStringLiteral("state"))
                    .toString(),
                QStringLiteral("deleted"));
        }
    }

    void cleanupTestCase() { QVERIFY(m_daemon.stop()); }

private:
    CordonTest::DaemonFixture m_daemon;
    QString m_expiredId;
};

CORDON_GUI_SANDBOX_TEST_MAIN(IdleExpiryTest)

#include "tst_idleexpiry.moc"
