// SPDX-License-Identifier: MIT
// cordond killed under the window and started again: no crash, the banner appears and goes, the editor's
// text is untouched, and code runs again afterwards. cordond stopped (connected, silent): the banner says it
// is not answering, and goes when it answers again.
#include "guitest.h"

#include "appearance.h"
#include "codeeditor.h"
#include "connectionbanner.h"
#include "containerlistmodel.h"
#include "daemonconnection.h"
#include "mainwindow.h"
#include "messagetone.h"
#include "outcomebanner.h"
#include "runpanel.h"
#include "testutil.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QDeadlineTimer>
#include <QRegularExpression>

#include <csignal>

using namespace Cordon::Ui;

class ReconnectTest final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_daemon.start()); }

    void daemonKilledAndRestarted()
    {
        const auto created = m_daemon.call(
            QStringLiteral("container.create"),
            {{QStringLiteral("policy"), QJsonObject{{QStringLiteral("name"), QStringLiteral("survivor")}}}});
        QVERIFY_RESULT(created);
        const QString id =
            created->value(QStringLiteral("container")).toObject().value(QStringLiteral("id")).toString();

        MainWindow window(MainWindow::Options{false});
        QAbstractItemModelTester tester(&window.containerModel(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        window.show();
        QVERIFY(CordonGuiTest::activate(&window));
        window.start();
        QTRY_VERIFY_WITH_TIMEOUT(window.connection().isConnected(), 10000);
        QTRY_COMPARE(window.currentContainerId(), id);
        auto *banner = window.findChild<ConnectionBanner *>();
        QVERIFY(!banner->isVisible());

        auto *editor = window.findChild<CodeEditor *>();
        editor->clear();
        editor->setFocus();
        const QString typed = QStringLiteral("print('still here')");
        QTest::keyClicks(editor, typed);
        QCOMPARE(editor->text(), typed);

        m_daemon.kill();
        QTRY_VERIFY_WITH_TIMEOUT(banner->isVisible(), 10000);
        QVERIFY2(banner->text().contains(QStringLiteral("Lost connection to cordond — reconnecting…")),
                 qPrintable(banner->text()));
        // Readable in either theme, also after a switch while it is shown (it was near-white on beige in the
        // dark theme): its style sheet is what is painted.
        for (Theme theme : {Theme::Dark, Theme::Light}) {
            Appearance::apply(theme, false);
            const QRegularExpressionMatch background =
                QRegularExpression(QStringLiteral("background: (#[0-9a-f]{6})")).match(banner->styleSheet());
            const QRegularExpressionMatch text =
                QRegularExpression(QStringLiteral("QLabel \\{ color: (#[0-9a-f]{6})"))
                    .match(banner->styleSheet());
            QVERIFY2(background.hasMatch() && text.hasMatch(), qPrintable(banner->styleSheet()));
            QVERIFY2(contrastRatio(QColor(background.captured(1)), QColor(text.captured(1))) >= 4.5,
                     qPrintable(banner->styleSheet()));
        }
        QCOMPARE(editor->text(), typed);
        QVERIFY(!window.findChild<QAction *>(QStringLiteral("runAction"))->isEnabled());
        // The list still shows what it knew; nothing was thrown away while the daemon was gone.
        QVERIFY(window.containerModel().rowOf(id) >= 0);

        QVERIFY(m_daemon.start());
        QTRY_VERIFY_WITH_TIMEOUT(window.connection().isConnected(), 15000);
        QTRY_VERIFY(!banner->isVisible());
        QCOMPARE(editor->text(), typed);
        QCOMPARE(window.currentContainerId(), id);
        // The new daemon brought the container back; code runs in it again.
        QTRY_COMPARE_WITH_TIMEOUT(
            window.containerModel().container(id).value(QStringLiteral("state")).toString(),
            QStringLiteral("running"), 10000);
        QAction *run = window.findChild<QAction *>(QStringLiteral("runAction"));
        QTRY_VERIFY(run->isEnabled());
        run->trigger();
        auto *outcome = window.findChild<RunPanel *>()->banner();
        QTRY_VERIFY_WITH_TIMEOUT(outcome->text().startsWith(QStringLiteral("Exit code 0")), 30000);
    }

    // Connected but silent (stopped with SIGSTOP): a call that waits gets the "not answering" banner after a
    // few seconds, and the banner goes when the daemon answers again; a long call while the daemon answers
    // everything else (a run's wait) gets none.
    void daemonThatStopsAnsweringIsShown()
    {
        const auto created = m_daemon.call(
            QStringLiteral("container.create"),
            {{QStringLiteral("policy"), QJsonObject{{QStringLiteral("name"), QStringLiteral("waiter")}}}});
        QVERIFY_RESULT(created);
        const QString id =
            created->value(QStringLiteral("container")).toObject().value(QStringLiteral("id")).toString();
        MainWindow window(MainWindow::Options{false});
        window.show();
        QVERIFY(CordonGuiTest::activate(&window));
        window.start();
        QTRY_VERIFY_WITH_TIMEOUT(window.connection().isConnected(), 10000);
        auto *banner = window.findChild<ConnectionBanner *>();
        QVERIFY(!banner->isVisible());

        // A run that takes seven seconds, waited for in one call: the daemon keeps answering the rest.
        const auto started =
            m_daemon.call(QStringLiteral("run.exec"),
                          {{QStringLiteral("container"), id},
                           {QStringLiteral("language"), QStringLiteral("python")},
                           {QStringLiteral("code"), QStringLiteral("import time\ntime.sleep(7)\n")}});
        QVERIFY_RESULT(started);
        QObject context;
        bool waited = false;
        window.connection().call(
            QStringLiteral("run.wait"),
            {{QStringLiteral("run_id"),
              started->value(QStringLiteral("run")).toObject().value(QStringLiteral("id"))}},
            &context, [&waited](const Cordon::Result<QJsonObject> &result) { waited = result.has_value(); });
        const QDeadlineTimer runEnds(30000);
        while (!waited && !runEnds.hasExpired()) {
            QVERIFY2(!banner->isVisible(), qPrintable(banner->text()));
            QTest::qWait(100);
        }
        QVERIFY(waited);

        QVERIFY(::kill(pid_t(m_daemon.pid()), SIGSTOP) == 0);
        bool answered = false;
        window.connection().call(QStringLiteral("daemon.status"), {}, &context,
                                 [&answered](const Cordon::Result<QJsonObject> &) { answered = true; });
        QTest::qWait(DaemonConnection::NotAnsweringMs / 2);
        QVERIFY(!banner->isVisible());
        QTRY_VERIFY_WITH_TIMEOUT(banner->isVisible(), DaemonConnection::NotAnsweringMs * 2);
        QVERIFY2(banner->text().contains(QStringLiteral("cordond is not answering")),
                 qPrintable(banner->text()));
        QVERIFY(window.connection().isConnected());
        QVERIFY(!answered);

        QVERIFY(::kill(pid_t(m_daemon.pid()), SIGCONT) == 0);
        QTRY_VERIFY_WITH_TIMEOUT(answered, 10000);
        QTRY_VERIFY(!banner->isVisible());
        QVERIFY(window.connection().isConnected());
    }

    void cleanupTestCase()
    {
        if (m_daemon.pid() > 0)
            ::kill(pid_t(m_daemon.pid()), SIGCONT); // a failed check above must not leave it stopped
        QVERIFY(m_daemon.stop());
    }

private:
    CordonTest::DaemonFixture m_daemon;
};

CORDON_GUI_SANDBOX_TEST_MAIN(ReconnectTest)

#include "tst_reconnect.moc"
