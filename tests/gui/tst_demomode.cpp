// SPDX-License-Identifier: MIT
// The trainer's Demo menu against a real cordond: every demo program runs into the limit it is meant to show
// (the kernel's OOM kill, the pids limit, no network, no host files) or leaves its artifacts in outputs/; the
// user's own code is not replaced without asking; the fast idle clock changes the daemon's clock and the
// countdown of demo containers only, and asks before it touches any other; presentation mode scales the
// fonts and scales them back.
#include "guitest.h"
#include "windowtest.h"

#include "appearance.h"
#include "codeeditor.h"
#include "containerlistmodel.h"
#include "daemonconnection.h"
#include "demoscripts.h"
#include "filebrowser.h"
#include "mainwindow.h"
#include "outcomebanner.h"
#include "outputconsole.h"
#include "processgauge.h"
#include "runpanel.h"
#include "testutil.h"
#include "workspacefilemodel.h"

#include <Qsci/qscilexer.h>

#include <QChart>
#include <QChartView>
#include <QDir>
#include <QMenuBar>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPointer>
#include <QPushButton>

using namespace Cordon::Ui;

class DemoModeTest final : public QObject
{
    Q_OBJECT

    QAction *demoAction(const QString &id) const
    {
        return m_window->findChild<QAction *>(QStringLiteral("demo-") + id);
    }
    OutcomeBanner *banner() const { return m_window->findChild<RunPanel *>()->banner(); }
    OutputConsole *console() const { return m_window->findChild<RunPanel *>()->console(); }
    CodeEditor *editor() const { return m_window->findChild<CodeEditor *>(); }

    // Runs a demo from the menu and waits until the run has ended; returns the console's text.
    QString runDemo(const QString &id)
    {
        QAction *action = demoAction(id);
        if (!action)
            return QStringLiteral("no action demo-") + id;
        banner()->clear();
        action->trigger();
        if (!QTest::qWaitFor(
                [&] {
                    return !banner()->text().isEmpty() &&
                           !banner()->text().startsWith(QStringLiteral("Running"));
                },
                60000))
            return QStringLiteral("the run did not end: ") + banner()->text();
        // The last output batch follows the outcome within a flush interval.
        QTest::qWait(2 * OutputConsole::FlushIntervalMs);
        return console()->plainText();
    }

    double timeScale()
    {
        const auto status =
            CordonGuiTest::callAndWait(m_window->connection(), QStringLiteral("daemon.status"));
        return status ? status->value(QStringLiteral("time_scale")).toDouble() : -1;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_daemon.start());
        m_window = CordonGuiTest::openConnectedWindow();
        QVERIFY(m_window);
    }

    void cleanupTestCase()
    {
        m_window.reset();
        QVERIFY(m_daemon.stop());
    }

    void theMenuListsEveryProgram()
    {
        const QList<DemoScript> scripts = DemoScripts::all();
        QCOMPARE(scripts.size(), 5);
        for (const DemoScript &script : scripts) {
            QVERIFY2(demoAction(script.id), qPrintable(script.id));
            QVERIFY2(script.code().contains(QStringLiteral("# Demo:")), qPrintable(script.id));
            QVERIFY(DemoScripts::isDemoCode(script.code()));
        }
        QVERIFY(!DemoScripts::isDemoCode(QStringLiteral("print('mine')\n")));
    }

    void aDemoWithoutAContainerCreatesOneAndLeavesArtifacts()
    {
        QCOMPARE(m_window->containerModel().rowCount(), 0);
        const QString output = runDemo(QStringLiteral("write-artifact"));
        QCOMPARE(m_window->containerModel().rowCount(), 1);
        QCOMPARE(m_window->containerModel()
                     .container(m_window->currentContainerId())
                     .value(QStringLiteral("name")),
                 QJsonValue(QStringLiteral("demo")));
        QVERIFY2(banner()->text().startsWith(QStringLiteral("Exit code 0")), qPrintable(banner()->text()));
        QVERIFY2(output.contains(QStringLiteral("wrote outputs/wave.csv")), qPrintable(output));
        QVERIFY2(output.contains(QStringLiteral("wrote outputs/wave.png")), qPrintable(output));
        // The program is in the editor for the class to read.
        QVERIFY(editor()->text().contains(QStringLiteral("# Demo: writing an artifact.")));
        // The Files tab lists both artifacts once the run has ended.
        WorkspaceFileModel *files = m_window->fileBrowser()->model();
        QTRY_VERIFY_WITH_TIMEOUT(
            files->indexOf(QStringLiteral("outputs"), QStringLiteral("wave.csv")).isValid() &&
                files->indexOf(QStringLiteral("outputs"), QStringLiteral("wave.png")).isValid(),
            10000);
    }

    void theMemoryBombEndsInAnOomKill()
    {
        runDemo(QStringLiteral("memory-bomb"));
        QVERIFY2(banner()->text().startsWith(QStringLiteral("Out of memory")), qPrintable(banner()->text()));
        QVERIFY2(console()->plainText().contains(QStringLiteral("holding 64 MiB")),
                 qPrintable(console()->plainText()));
    }

    void theForkBombMeetsThePidsLimit()
    {
        const QString output = runDemo(QStringLiteral("fork-bomb"));
        QVERIFY2(output.contains(QStringLiteral("fork refused after")), qPrintable(output));
        QVERIFY2(output.contains(QStringLiteral("the container's pids limit held")), qPrintable(output));
        QVERIFY2(output.contains(QStringLiteral("processes stopped again")), qPrintable(output));
        // The banner says first that the limit held, from the kernel's count, not from the program's own
        // words, and the exit code second: the program caught its refused forks and exited 0.
        QVERIFY2(
            banner()->text().startsWith(QStringLiteral("Contained: process limit 256 reached · Exit code 0")),
            qPrintable(banner()->text()));
        QVERIFY2(banner()->text().contains(QStringLiteral("the process limit refused")),
                 qPrintable(banner()->text()));
        // The gauge beside the memory chart counts the run under way only: once it has ended it is an
        // ordinary gauge again, not red for the rest of the container's life.
        QTRY_VERIFY2_WITH_TIMEOUT(!m_window->processGauge()->limitReached() &&
                                      m_window->processGauge()->text().contains(QStringLiteral(" of 256")),
                                  qPrintable(m_window->processGauge()->text()), 10000);
        QVERIFY2(!m_window->processGauge()->text().contains(QStringLiteral("refused")),
                 qPrintable(m_window->processGauge()->text()));
    }

    void theNetworkProbeFindsNoWayOut()
    {
        const QString output = runDemo(QStringLiteral("network-probe"));
        QVERIFY2(output.contains(QStringLiteral("resolve example.org: blocked")), qPrintable(output));
        QVERIFY2(output.contains(QStringLiteral("connect to 1.1.1.1:443: blocked")), qPrintable(output));
        QVERIFY2(output.contains(QStringLiteral("network is off")), qPrintable(output));
    }

    void theForbiddenFilesAreNotThere()
    {
        const QString output = runDemo(QStringLiteral("forbidden-file"));
        QVERIFY2(output.contains(QStringLiteral("read /etc/shadow: blocked")), qPrintable(output));
        // The user's real home, by its host path: not there at all.
        QVERIFY2(output.contains(QStringLiteral("read %1: blocked").arg(QDir::homePath())),
                 qPrintable(output));
        QVERIFY2(output.contains(
                     QStringLiteral("looking for your files from the host, under %1").arg(QDir::homePath())),
                 qPrintable(output));
        QVERIFY2(output.contains(QStringLiteral("write /usr/bin/python3: blocked")), qPrintable(output));
        QVERIFY2(!output.contains(QStringLiteral("READABLE")), qPrintable(output));
        QVERIFY2(!output.contains(QStringLiteral("WRITABLE")), qPrintable(output));
    }

    void theUsersOwnCodeIsNotReplacedUnasked()
    {
        const QString mine = QStringLiteral("print('my own work')\n");
        editor()->setText(mine);
        demoAction(QStringLiteral("fork-bomb"))->trigger();
        QPointer<QMessageBox> box;
        QTRY_VERIFY((box = m_window->findChild<QMessageBox *>(QStringLiteral("replaceCodeConfirmation"))) &&
                    box->isVisible());
        box->button(QMessageBox::Cancel)->click();
        QTRY_VERIFY(box.isNull() || !box->isVisible());
        QCOMPARE(editor()->text(), mine);
    }

    void theFastClockShortensTheCountdown()
    {
        const QString id = m_window->currentContainerId();
        auto expiresAt = [&] {
            return m_window->containerModel().container(id).value(QStringLiteral("expires_at")).toInteger();
        };
        const qint64 before = expiresAt();
        QAction *fast = m_window->findChild<QAction *>(QStringLiteral("fastClockAction"));
        QVERIFY(fast && !fast->isChecked());
        fast->trigger();
        QCOMPARE(fast->isChecked(), true);
        QTRY_COMPARE_WITH_TIMEOUT(timeScale(), 60.0, 10000);
        // The 20 idle minutes still to go became 20 seconds, pushed to the list without a refresh.
        QTRY_VERIFY_WITH_TIMEOUT(expiresAt() < before - 10 * 60 * 1000, 10000);
        fast->trigger();
        QTRY_COMPARE_WITH_TIMEOUT(timeScale(), 1.0, 10000);
        QTRY_VERIFY_WITH_TIMEOUT(expiresAt() > before - 60 * 1000, 10000);
    }

    // The fast clock is for demos: a user's own container keeps its deadline unless the trainer, asked,
    // includes it; cancelling leaves the clock as it was.
    void theFastClockAsksBeforeItTouchesAUsersContainer()
    {
        const QString demo = m_window->currentContainerId();
        QVERIFY(m_window->containerModel().container(demo).value(QStringLiteral("demo")).toBool());
        auto created = CordonGuiTest::callAndWait(
            m_window->connection(), QStringLiteral("container.create"),
            {{QStringLiteral("policy"),
              QJsonObject{{QStringLiteral("name"), QStringLiteral("mine")},
                          {QStringLiteral("memory_limit"), QStringLiteral("1g")}}}});
        QVERIFY_RESULT(created);
        const QString mine =
            created->value(QStringLiteral("container")).toObject().value(QStringLiteral("id")).toString();
        QTRY_VERIFY(m_window->containerModel().rowOf(mine) >= 0);
        m_window->selectContainer(mine);
        auto expiresAt = [&](const QString &id) {
            return m_window->containerModel().container(id).value(QStringLiteral("expires_at")).toInteger();
        };
        const qint64 mineBefore = expiresAt(mine);
        const qint64 demoBefore = expiresAt(demo);
        QAction *fast = m_window->findChild<QAction *>(QStringLiteral("fastClockAction"));
        QAction *mark = m_window->findChild<QAction *>(QStringLiteral("markDemoAction"));
        QVERIFY(fast && mark && !fast->isChecked());
        QVERIFY(mark->isEnabled() && !mark->isChecked());

        auto answer = [&](const QString &button) {
            QPointer<QMessageBox> box;
            if (!QTest::qWaitFor([&] {
                    box = m_window->findChild<QMessageBox *>(QStringLiteral("demoClockQuestion"));
                    return box && box->isVisible();
                }))
                return false;
            if (!box->informativeText().contains(QStringLiteral("mine")))
                return false;
            if (button.isEmpty())
                box->button(QMessageBox::Cancel)->click();
            else
                box->findChild<QPushButton *>(button)->click();
            return QTest::qWaitFor([&] { return box.isNull() || !box->isVisible(); });
        };

        // Cancel: nothing changes, and the menu says so.
        fast->trigger();
        QVERIFY(answer(QString()));
        QCOMPARE(fast->isChecked(), false);
        QCOMPARE(timeScale(), 1.0);

        // Demo containers only: the demo's countdown shrinks, the user's deadline does not move.
        fast->trigger();
        QVERIFY(answer(QStringLiteral("demosOnlyButton")));
        QTRY_COMPARE_WITH_TIMEOUT(timeScale(), 60.0, 10000);
        QTRY_VERIFY_WITH_TIMEOUT(expiresAt(demo) < demoBefore - 10 * 60 * 1000, 10000);
        QTest::qWait(500);
        QCOMPARE(expiresAt(mine), mineBefore);
        QCOMPARE(m_window->containerModel().container(mine).value(QStringLiteral("time_scale")).toDouble(),
                 1.0);
        fast->trigger(); // off again, no question
        QTRY_COMPARE_WITH_TIMEOUT(timeScale(), 1.0, 10000);
        QCOMPARE(expiresAt(mine), mineBefore);

        // Include: the user's container becomes a demo, on the trainer's word.
        fast->trigger();
        QVERIFY(answer(QStringLiteral("includeButton")));
        QTRY_VERIFY_WITH_TIMEOUT(expiresAt(mine) < mineBefore - 10 * 60 * 1000, 10000);
        QTRY_VERIFY(m_window->containerModel().container(mine).value(QStringLiteral("demo")).toBool());
        QTRY_VERIFY(mark->isChecked());
        // Unmarked, it is back on real time while the clock stays fast.
        mark->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(expiresAt(mine) > QDateTime::currentMSecsSinceEpoch() + 10 * 60 * 1000,
                                 10000);
        QCOMPARE(timeScale(), 60.0);
        fast->trigger();
        QTRY_COMPARE_WITH_TIMEOUT(timeScale(), 1.0, 10000);
        m_window->selectContainer(demo);
    }

    void presentationModeScalesTheFonts()
    {
        const qreal appBefore = QApplication::font().pointSizeF();
        const qreal editorBefore = editor()->lexer()->defaultFont().pointSizeF();
        const qreal consoleBefore = console()->findChild<QPlainTextEdit *>()->font().pointSizeF();
        QAction *presentation = m_window->findChild<QAction *>(QStringLiteral("presentationAction"));
        QChart *chart = m_window->findChild<QChartView *>()->chart();
        const qreal axisBefore = chart->axes().first()->labelsFont().pointSizeF();
        presentation->trigger();
        QVERIFY(Appearance::presentation());
        QTRY_COMPARE(chart->axes().first()->labelsFont().pointSizeF(),
                     axisBefore * Appearance::PresentationScale);
        QCOMPARE(QApplication::font().pointSizeF(), appBefore * Appearance::PresentationScale);
        QTRY_COMPARE(editor()->lexer()->defaultFont().pointSizeF(),
                     editorBefore * Appearance::PresentationScale);
        QTRY_COMPARE(console()->findChild<QPlainTextEdit *>()->font().pointSizeF(),
                     consoleBefore * Appearance::PresentationScale);
        presentation->trigger();
        QCOMPARE(QApplication::font().pointSizeF(), appBefore);
        QTRY_COMPARE(editor()->lexer()->defaultFont().pointSizeF(), editorBefore);
    }

private:
    CordonTest::DaemonFixture m_daemon;
    std::unique_ptr<MainWindow> m_window;
};

CORDON_GUI_SANDBOX_TEST_MAIN(DemoModeTest)
#include "tst_demomode.moc"
