// SPDX-License-Identifier: MIT
// The workbench against a real cordond: create a container through the dialog, type code into the editor,
// run it with the shortcut, and read the output and the outcome banner the user sees.
#include "guitest.h"

#include "codeeditor.h"
#include "containerlistmodel.h"
#include "createcontainerdialog.h"
#include "daemonconnection.h"
#include "mainwindow.h"
#include "memorychart.h"
#include "outcomebanner.h"
#include "outputconsole.h"
#include "runpanel.h"
#include "welcomepage.h"

#include <QAbstractItemModelTester>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QLineEdit>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QStatusBar>
#include <QTextBlock>

using namespace Cordon::Ui;

class WorkbenchRunTest final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_daemon.start());
        m_window = std::make_unique<MainWindow>(MainWindow::Options{false});
        m_tester = std::make_unique<QAbstractItemModelTester>(
            &m_window->containerModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
        m_window->start();
        QTRY_VERIFY_WITH_TIMEOUT(m_window->connection().isConnected(), 10000);
    }

    void firstRunShowsTheWelcome()
    {
        auto *welcome = m_window->findChild<WelcomePage *>();
        QVERIFY(welcome);
        QTRY_VERIFY(welcome->isVisible());
        QVERIFY(welcome->demoButton()->isEnabled());
        QCOMPARE(m_window->containerModel().rowCount(), 0);
    }

    void createThroughTheDialog()
    {
        QAction *newContainer = m_window->findChild<QAction *>(QStringLiteral("newContainerAction"));
        QVERIFY(newContainer && newContainer->isEnabled());
        QTest::keySequence(m_window.get(), newContainer->shortcut());
        QPointer<CreateContainerDialog> dialog;
        QTRY_VERIFY((dialog = m_window->findChild<CreateContainerDialog *>()) && dialog->isVisible());

        auto *name = dialog->findChild<QLineEdit *>();
        name->selectAll();
        QTest::keyClicks(name, QStringLiteral("gui-test"));
        auto *memory = dialog->findChild<QComboBox *>();
        QCOMPARE(memory->currentText(), QStringLiteral("1 GiB"));
        auto *idle = dialog->findChild<QSpinBox *>();
        idle->setValue(30);
        QCOMPARE(dialog->policy().value(QStringLiteral("name")).toString(), QStringLiteral("gui-test"));

        // A name the policy refuses is explained in the dialog and cannot be submitted.
        QPushButton *create = dialog->findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok);
        name->setText(QStringLiteral(".."));
        QVERIFY(!create->isEnabled());
        name->setText(QStringLiteral("gui-test"));
        QVERIFY(create->isEnabled());

        QTest::mouseClick(create, Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(dialog.isNull(), 30000);
        QTRY_COMPARE(m_window->containerModel().rowCount(), 1);
        const QModelIndex row = m_window->containerModel().index(0, ContainerListModel::NameColumn);
        QCOMPARE(row.data().toString(), QStringLiteral("gui-test"));
        QCOMPARE(m_window->containerModel().index(0, ContainerListModel::StateColumn).data().toString(),
                 QStringLiteral("Running"));
        QCOMPARE(m_window->containerModel().index(0, ContainerListModel::MemoryColumn).data().toString(),
                 QStringLiteral("1 GiB"));
        QCOMPARE(m_window->currentContainerId(), row.data(ContainerListModel::IdRole).toString());
        QVERIFY(!m_window->findChild<WelcomePage *>()->isVisible());
    }

    void typeRunAndReadTheOutcome()
    {
        // The dialog had the focus; shortcuts reach only the active window.
        QVERIFY(CordonGuiTest::activate(m_window.get()));
        auto *editor = m_window->findChild<CodeEditor *>();
        editor->clear();
        editor->setFocus();
        QTRY_VERIFY(editor->hasFocus());
        for (const QString &line :
             {QStringLiteral("import sys"), QStringLiteral("print('out-line')"),
              QStringLiteral("print('err-line', file=sys.stderr)"), QStringLiteral("sys.exit(3)")}) {
            QTest::keyClicks(editor, line);
            QTest::keyClick(editor, Qt::Key_Return);
        }
        QVERIFY(editor->text().contains(QStringLiteral("print('err-line', file=sys.stderr)\nsys.exit(3)")));

        QTest::keyClick(editor, Qt::Key_Return, Qt::ControlModifier);
        auto *console = m_window->findChild<RunPanel *>()->console();
        auto *banner = m_window->findChild<RunPanel *>()->banner();
        QTRY_VERIFY_WITH_TIMEOUT(banner->text().startsWith(QStringLiteral("Exit code 3")), 30000);
        QVERIFY2(banner->text().contains(
                     QStringLiteral("nonzero_exit — the program reported a failure with exit code 3")),
                 qPrintable(banner->text()));
        QVERIFY2(banner->text().contains(QStringLiteral("peak memory")), qPrintable(banner->text()));
        QTRY_VERIFY(console->plainText().contains(QStringLiteral("out-line")));
        QVERIFY(console->plainText().contains(QStringLiteral("err-line")));

        // stdout and stderr are told apart by colour.
        auto *view = console->findChild<QPlainTextEdit *>();
        auto colourOf = [&](const QString &text) {
            for (QTextBlock block = view->document()->begin(); block.isValid(); block = block.next()) {
                for (auto it = block.begin(); !it.atEnd(); ++it) {
                    if (it.fragment().text().contains(text))
                        return it.fragment().charFormat().foreground().color();
                }
            }
            return QColor();
        };
        QVERIFY(colourOf(QStringLiteral("out-line")).isValid());
        QVERIFY(colourOf(QStringLiteral("err-line")).isValid());
        QVERIFY(colourOf(QStringLiteral("out-line")) != colourOf(QStringLiteral("err-line")));
    }

    void interactiveInput()
    {
        auto *editor = m_window->findChild<CodeEditor *>();
        editor->setText(QStringLiteral("name = input('who? ')\nprint('hello', name)\n"));
        QTest::keyClick(editor, Qt::Key_F5);
        auto *console = m_window->findChild<RunPanel *>()->console();
        QTRY_VERIFY_WITH_TIMEOUT(console->inputLine()->isEnabled(), 30000);
        QTest::keyClicks(console->inputLine(), QStringLiteral("Ada"));
        QTest::keyClick(console->inputLine(), Qt::Key_Return);
        QTRY_VERIFY_WITH_TIMEOUT(console->plainText().contains(QStringLiteral("hello Ada")), 30000);
        auto *banner = m_window->findChild<RunPanel *>()->banner();
        QTRY_VERIFY(banner->text().startsWith(QStringLiteral("Exit code 0")));
        QVERIFY(banner->text().contains(QStringLiteral("ok — the run finished successfully")));
        QVERIFY(!console->inputLine()->isEnabled());
    }

    void outOfMemoryIsExplained()
    {
        auto *editor = m_window->findChild<CodeEditor *>();
        editor->setText(
            QStringLiteral("blocks = []\nwhile True:\n    blocks.append(bytearray(64 * 1024 * 1024))\n"));
        QTest::keyClick(editor, Qt::Key_Return, Qt::ControlModifier);
        auto *banner = m_window->findChild<RunPanel *>()->banner();
        QTRY_VERIFY_WITH_TIMEOUT(banner->text().startsWith(QStringLiteral("Out of memory")), 30000);
        QVERIFY2(banner->text().contains(
                     QStringLiteral("oom — the run exceeded its 1 GiB memory limit and was killed")),
                 qPrintable(banner->text()));
    }

    // The run's peak memory is said once on the screen, in the banner: the chart beside it gives the
    // container's use now and its limit, not a second peak (the container's since it started) that differs.
    void onePeakMemoryFigureOnTheScreen()
    {
        auto *chart = m_window->findChild<MemoryChart *>();
        QVERIFY(chart && chart->isVisible());
        QTRY_VERIFY_WITH_TIMEOUT(chart->summaryText().startsWith(QStringLiteral("Now ")), 10000);
        QStringList shown{m_window->statusBar()->currentMessage()};
        const auto labels = m_window->findChildren<QLabel *>();
        for (const QLabel *label : labels) {
            if (label->isVisible())
                shown.append(label->text());
        }
        const auto markers = chart->findChild<QChartView *>()->chart()->legend()->markers();
        for (const QLegendMarker *marker : markers) {
            if (marker->isVisible())
                shown.append(marker->label());
        }
        const QStringList withPeak = shown.filter(QStringLiteral("peak"), Qt::CaseInsensitive);
        QVERIFY2(withPeak.size() == 1, qPrintable(withPeak.join(QStringLiteral(" | "))));
        const QString banner = m_window->findChild<RunPanel *>()->banner()->text();
        QVERIFY2(banner.contains(withPeak.first()), qPrintable(banner));
    }

    void stopRunWithTheShortcut()
    {
        auto *editor = m_window->findChild<CodeEditor *>();
        editor->setText(QStringLiteral("import time\nprint('sleeping', flush=True)\ntime.sleep(120)\n"));
        QTest::keyClick(editor, Qt::Key_F5);
        auto *console = m_window->findChild<RunPanel *>()->console();
        QTRY_VERIFY_WITH_TIMEOUT(console->plainText().contains(QStringLiteral("sleeping")), 30000);
        QAction *stop = m_window->findChild<QAction *>(QStringLiteral("stopRunAction"));
        QVERIFY(stop->isEnabled());
        QTest::keyClick(editor, Qt::Key_F5, Qt::ShiftModifier);
        auto *banner = m_window->findChild<RunPanel *>()->banner();
        QTRY_VERIFY_WITH_TIMEOUT(banner->text().startsWith(QStringLiteral("Signal SIGKILL")), 30000);
        QVERIFY2(banner->text().contains(QStringLiteral("stopped on request")), qPrintable(banner->text()));
        QVERIFY(!stop->isEnabled());
    }

    void stopAndStartTheContainer()
    {
        const QString id = m_window->currentContainerId();
        auto state = [&] {
            return m_window->containerModel().container(id).value(QStringLiteral("state")).toString();
        };
        QAction *run = m_window->findChild<QAction *>(QStringLiteral("runAction"));
        QAction *stopContainer = m_window->findChild<QAction *>(QStringLiteral("stopContainerAction"));
        QAction *startContainer = m_window->findChild<QAction *>(QStringLiteral("startContainerAction"));
        QVERIFY(stopContainer->isEnabled());
        QVERIFY(!startContainer->isEnabled());
        stopContainer->trigger();
        QTRY_COMPARE_WITH_TIMEOUT(state(), QStringLiteral("stopped"), 10000);
        QVERIFY(startContainer->isEnabled());
        startContainer->trigger();
        QTRY_COMPARE_WITH_TIMEOUT(state(), QStringLiteral("running"), 30000);
        QVERIFY(run->isEnabled());
    }

    // Run on a stopped container asks to start it: Cancel leaves it stopped, Start and Run starts it and
    // runs the code.
    void runOnAStoppedContainerAsksToStartIt()
    {
        QVERIFY(CordonGuiTest::activate(m_window.get()));
        const QString id = m_window->currentContainerId();
        auto state = [&] {
            return m_window->containerModel().container(id).value(QStringLiteral("state")).toString();
        };
        m_window->findChild<QAction *>(QStringLiteral("stopContainerAction"))->trigger();
        QTRY_COMPARE_WITH_TIMEOUT(state(), QStringLiteral("stopped"), 10000);
        QAction *run = m_window->findChild<QAction *>(QStringLiteral("runAction"));
        QTRY_VERIFY(run->isEnabled());
        QVERIFY2(run->toolTip().contains(QStringLiteral("it asks first")), qPrintable(run->toolTip()));
        m_window->findChild<CodeEditor *>()->setText(QStringLiteral("print('started for me')\n"));
        const auto question = [this]() -> QMessageBox * {
            QMessageBox *box = nullptr;
            const bool shown = QTest::qWaitFor([&] {
                box = m_window->findChild<QMessageBox *>(QStringLiteral("startToRunQuestion"));
                return box && box->isVisible();
            });
            return shown ? box : nullptr;
        };

        run->trigger();
        QMessageBox *box = question();
        QVERIFY(box);
        QVERIFY2(box->text().contains(QStringLiteral("gui-test is stopped")), qPrintable(box->text()));
        box->button(QMessageBox::Cancel)->click();
        QTest::qWait(300);
        QCOMPARE(state(), QStringLiteral("stopped"));

        run->trigger();
        box = question();
        QVERIFY(box);
        box->findChild<QPushButton *>(QStringLiteral("startAndRunButton"))->click();
        QTRY_COMPARE_WITH_TIMEOUT(state(), QStringLiteral("running"), 30000);
        auto *banner = m_window->findChild<RunPanel *>()->banner();
        QTRY_VERIFY_WITH_TIMEOUT(banner->text().startsWith(QStringLiteral("Exit code 0")), 30000);
        QTRY_VERIFY(m_window->findChild<RunPanel *>()->console()->plainText().contains(
            QStringLiteral("started for me")));
    }

    void codeIsKeptPerContainer()
    {
        // What was typed is in the settings, under the container's id, as soon as the editor is idle.
        auto *editor = m_window->findChild<CodeEditor *>();
        editor->setText(QStringLiteral("print('remember me')\n"));
        const QString id = m_window->currentContainerId();
        QTRY_COMPARE(QSettings().value(QStringLiteral("code/%1/code").arg(id)).toString(),
                     QStringLiteral("print('remember me')\n"));
        // A new window (a restart) shows it again.
        m_window->close();
        MainWindow again(MainWindow::Options{false});
        again.show();
        again.start();
        QTRY_VERIFY_WITH_TIMEOUT(again.currentContainerId() == id, 10000);
        QCOMPARE(again.findChild<CodeEditor *>()->text(), QStringLiteral("print('remember me')\n"));
    }

    void deleteAfterConfirmation()
    {
        m_window->show();
        QVERIFY(CordonGuiTest::activate(m_window.get()));
        QTRY_VERIFY(m_window->connection().isConnected());
        const QString id = m_window->currentContainerId();
        QAction *remove = m_window->findChild<QAction *>(QStringLiteral("deleteContainerAction"));
        QVERIFY(remove->isEnabled());
        remove->trigger();
        QPointer<QMessageBox> confirmation;
        QTRY_VERIFY(
            (confirmation = m_window->findChild<QMessageBox *>(QStringLiteral("deleteConfirmation"))) &&
            confirmation->isVisible());
        QVERIFY2(confirmation->text().contains(QStringLiteral("gui-test")), qPrintable(confirmation->text()));
        // Cancel is the default: Enter alone deletes nothing.
        QCOMPARE(confirmation->defaultButton(), confirmation->button(QMessageBox::Cancel));
        QPushButton *confirm = nullptr;
        for (QAbstractButton *button : confirmation->buttons()) {
            if (confirmation->buttonRole(button) == QMessageBox::DestructiveRole)
                confirm = qobject_cast<QPushButton *>(button);
        }
        QVERIFY(confirm);
        QTest::mouseClick(confirm, Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(m_window->containerModel().rowOf(id), -1, 10000);
        QTRY_VERIFY(m_window->findChild<WelcomePage *>()->isVisible());
        QVERIFY(!QSettings().contains(QStringLiteral("code/%1/code").arg(id)));
    }

    void cleanupTestCase()
    {
        m_tester.reset();
        m_window.reset();
        QVERIFY(m_daemon.stop());
    }

private:
    CordonTest::DaemonFixture m_daemon;
    std::unique_ptr<MainWindow> m_window;
    std::unique_ptr<QAbstractItemModelTester> m_tester;
};

CORDON_GUI_SANDBOX_TEST_MAIN(WorkbenchRunTest)

#include "tst_workbenchrun.moc"
