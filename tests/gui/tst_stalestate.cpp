// SPDX-License-Identifier: MIT
// Nothing stale is shown as current, against a real cordond: each container has its own output page (one
// container's outcome never sits under another's code, and a run keeps writing to its own page while another
// container is looked at); the preview's header goes with the file it names (another container, a deleted
// file); and the outcome banner is tinted again when the theme changes while it is shown.
#include "guitest.h"

#include "appearance.h"
#include "containerlistmodel.h"
#include "daemonconnection.h"
#include "filebrowser.h"
#include "mainwindow.h"
#include "outcomebanner.h"
#include "outputconsole.h"
#include "runpanel.h"
#include "testutil.h"
#include "workspacefilemodel.h"

#include <QApplication>

using namespace Cordon::Ui;

class StaleStateTest final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_daemon.start());
        const auto first = m_daemon.createContainer(QStringLiteral("stale-a"));
        QVERIFY_RESULT(first);
        m_first = *first;
        const auto second = m_daemon.createContainer(QStringLiteral("stale-b"));
        QVERIFY_RESULT(second);
        m_second = *second;
        m_window = std::make_unique<MainWindow>(MainWindow::Options{false});
        m_panel = m_window->findChild<RunPanel *>();
        QVERIFY(m_panel);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
        m_window->start();
        QTRY_VERIFY_WITH_TIMEOUT(m_window->connection().isConnected(), 10000);
        QTRY_VERIFY_WITH_TIMEOUT(m_window->containerModel().rowCount() == 2, 10000);
    }

    void outputBelongsToItsContainer()
    {
        select(m_first);
        run(QStringLiteral("import sys\nprint('from-a')\nsys.exit(3)\n"));
        QVERIFY2(m_panel->banner()->text().startsWith(QStringLiteral("Exit code 3")),
                 qPrintable(m_panel->banner()->text()));

        // The other container shows its own (empty) output, not the first one's outcome.
        select(m_second);
        QVERIFY(m_panel->banner()->isHidden());
        QVERIFY2(!m_panel->console()->plainText().contains(QStringLiteral("from-a")),
                 qPrintable(m_panel->console()->plainText()));

        // And back: the first one's outcome is still there.
        select(m_first);
        QVERIFY2(m_panel->banner()->text().startsWith(QStringLiteral("Exit code 3")),
                 qPrintable(m_panel->banner()->text()));
        QVERIFY(m_panel->console()->plainText().contains(QStringLiteral("from-a")));
    }

    void runKeepsWritingToItsOwnPage()
    {
        select(m_first);
        m_panel->setCode(QStringLiteral("python"),
                         QStringLiteral("import time\ntime.sleep(1.5)\nprint('late-a', flush=True)\n"));
        m_panel->runAction()->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(m_panel->isRunning(), 10000);
        select(m_second);
        QTRY_VERIFY_WITH_TIMEOUT(!m_panel->isRunning(), 30000);
        QTest::qWait(100);
        QVERIFY2(!m_panel->console()->plainText().contains(QStringLiteral("late-a")),
                 qPrintable(m_panel->console()->plainText()));
        QVERIFY(m_panel->banner()->isHidden());
        select(m_first);
        QTRY_VERIFY(m_panel->console()->plainText().contains(QStringLiteral("late-a")));
        QVERIFY2(m_panel->banner()->text().startsWith(QStringLiteral("Exit code 0")),
                 qPrintable(m_panel->banner()->text()));
    }

    void bannerFollowsTheTheme()
    {
        select(m_first);
        QVERIFY(!m_panel->banner()->isHidden());
        Appearance::apply(Theme::Light, false);
        const QColor light = m_panel->banner()->background();
        QVERIFY2(light.lightness() > 180, qPrintable(light.name()));
        Appearance::apply(Theme::Dark, false);
        QTRY_VERIFY2(m_panel->banner()->background().lightness() < 90,
                     qPrintable(m_panel->banner()->background().name()));
        // A theme switch is not a new run: the same outcome, tinted for the new palette.
        QVERIFY(m_panel->banner()->text().startsWith(QStringLiteral("Exit code 0")));
        Appearance::apply(Theme::Light, false);
        QTRY_COMPARE(m_panel->banner()->background(), light);
    }

    void previewHeaderGoesWithItsFile()
    {
        select(m_first);
        run(QStringLiteral("open('/mnt/data/outputs/note.txt', 'w').write('hello\\n')\n"));
        FileBrowser *files = m_window->fileBrowser();
        QTRY_VERIFY_WITH_TIMEOUT(
            files->model()->indexOf(QStringLiteral("outputs"), QStringLiteral("note.txt")).isValid(), 10000);
        files->preview(files->model()->indexOf(QStringLiteral("outputs"), QStringLiteral("note.txt")));
        QTRY_COMPARE_WITH_TIMEOUT(files->previewKind(), QStringLiteral("text"), 10000);
        QVERIFY2(files->previewCaption().startsWith(QStringLiteral("outputs/note.txt")),
                 qPrintable(files->previewCaption()));

        // Another container: no header naming the first one's file.
        select(m_second);
        QCOMPARE(files->previewCaption(), QString());
        QCOMPARE(files->previewKind(), QStringLiteral("message"));

        // The file deleted behind the browser's back: the next listing takes its preview away.
        select(m_first);
        QTRY_VERIFY_WITH_TIMEOUT(
            files->model()->indexOf(QStringLiteral("outputs"), QStringLiteral("note.txt")).isValid(), 10000);
        files->preview(files->model()->indexOf(QStringLiteral("outputs"), QStringLiteral("note.txt")));
        QTRY_COMPARE_WITH_TIMEOUT(files->previewKind(), QStringLiteral("text"), 10000);
        QVERIFY_RESULT(m_daemon.call(QStringLiteral("file.delete"),
                                     {{QStringLiteral("container"), m_first},
                                      {QStringLiteral("scope"), QStringLiteral("outputs")},
                                      {QStringLiteral("path"), QStringLiteral("note.txt")}}));
        files->refresh();
        QTRY_COMPARE_WITH_TIMEOUT(files->previewCaption(), QString(), 10000);
        QCOMPARE(files->previewKind(), QStringLiteral("message"));
    }

    void cleanupTestCase()
    {
        m_window.reset();
        QVERIFY(m_daemon.stop());
    }

private:
    void select(const QString &id)
    {
        m_window->selectContainer(id);
        QTRY_COMPARE(m_window->currentContainerId(), id);
    }

    void run(const QString &code)
    {
        m_panel->setCode(QStringLiteral("python"), code);
        QTRY_VERIFY_WITH_TIMEOUT(m_panel->runAction()->isEnabled(), 10000);
        m_panel->runAction()->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(m_panel->isRunning(), 10000);
        QTRY_VERIFY_WITH_TIMEOUT(!m_panel->isRunning(), 30000);
        QTRY_VERIFY(!m_panel->banner()->text().startsWith(QStringLiteral("Running")));
    }

    CordonTest::DaemonFixture m_daemon;
    std::unique_ptr<MainWindow> m_window;
    RunPanel *m_panel = nullptr;
    QString m_first;
    QString m_second;
};

CORDON_GUI_SANDBOX_TEST_MAIN(StaleStateTest)

#include "tst_stalestate.moc"
