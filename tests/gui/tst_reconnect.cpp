// SPDX-License-Identifier: MIT
// cordond killed under the window and started again: no crash, the banner appears and goes, the editor's
// text is untouched, and code runs again afterwards.
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
#include <QRegularExpression>

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

    void cleanupTestCase() { QVERIFY(m_daemon.stop()); }

private:
    CordonTest::DaemonFixture m_daemon;
};

CORDON_GUI_SANDBOX_TEST_MAIN(ReconnectTest)

#include "tst_reconnect.moc"
