// SPDX-License-Identifier: MIT
// The workbench on the screen it is given (CORDON_TEST_SCREEN; ctest runs this at 1280x720, 1366x768 and
// 1920x1080), in the normal look and in presentation mode: every dialog lies inside the available area with
// its buttons in sight, also after the New Container dialog grows for an allowlist; the main window opens
// inside it, from fresh settings and from a geometry saved on a larger screen; and presentation mode shows
// the whole right column, with the History and the Audit open too.
#include "guitest.h"

#include "containerlistmodel.h"
#include "createcontainerdialog.h"
#include "csvuploaddialog.h"
#include "elidedlabel.h"
#include "helpdialogs.h"
#include "inspectdialog.h"
#include "mainwindow.h"
#include "scanfindingsdialog.h"
#include "secretsdialog.h"
#include "settingsdialog.h"
#include "testutil.h"
#include "windowtest.h"
#include "workbenchsettings.h"

#include <QDialogButtonBox>
#include <QDockWidget>
#include <QJsonArray>
#include <QJsonObject>
#include <QMenuBar>
#include <QPointer>
#include <QRadioButton>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QToolButton>

using namespace Cordon::Ui;

namespace {

QString describe(const QRect &rect)
{
    return QStringLiteral("%1x%2 at %3,%4").arg(rect.width()).arg(rect.height()).arg(rect.x()).arg(rect.y());
}

QRect globalRect(const QWidget *widget)
{
    return QRect(widget->mapToGlobal(QPoint(0, 0)), widget->size());
}

// Findings enough to fill any screen: forty lines of one file kept back.
QJsonArray manyFindings()
{
    QJsonArray findings;
    for (int line = 1; line <= 40; ++line)
        findings.append(QJsonObject{{QStringLiteral("path"), QStringLiteral("outputs/deploy.env")},
                                    {QStringLiteral("line"), line},
                                    {QStringLiteral("rule"), QStringLiteral("aws.access_key_id")},
                                    {QStringLiteral("severity"), QStringLiteral("block")},
                                    {QStringLiteral("excerpt"), QStringLiteral("AKIA**************PL")}});
    return {QJsonObject{{QStringLiteral("path"), QStringLiteral("outputs/deploy.env")},
                        {QStringLiteral("action"), QStringLiteral("blocked")},
                        {QStringLiteral("findings"), findings}}};
}

} // namespace

class ScreenFitTest final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_daemon.start());
        const QByteArray wanted = qgetenv("CORDON_TEST_SCREEN");
        const QRect available = QGuiApplication::primaryScreen()->availableGeometry();
        // The platform took the size asked for: otherwise every check below would be about its 800x800.
        QVERIFY2(wanted.isEmpty() || wanted == QByteArray::number(available.width()) + 'x' +
                                                   QByteArray::number(available.height()),
                 qPrintable(describe(available)));
        auto created = m_daemon.createContainer(QStringLiteral("fit-check"));
        QVERIFY_RESULT(created);
        m_containerId = *created;
        m_csv = m_files.filePath(QStringLiteral("people.csv"));
        QFile csv(m_csv);
        QVERIFY(csv.open(QIODevice::WriteOnly));
        csv.write("name,email\nAda,ada@example.org\nGrace,grace@example.org\n");
    }

    void dialogsFit_data()
    {
        QTest::addColumn<QString>("dialog");
        QTest::addColumn<bool>("presentation");
        for (const char *dialog : {"create", "create-allowlist", "create-everything", "settings", "secrets",
                                   "inspect", "csv-upload", "scan-findings", "documentation", "shortcuts"}) {
            QTest::addRow("%s normal", dialog) << QString::fromLatin1(dialog) << false;
            QTest::addRow("%s presentation", dialog) << QString::fromLatin1(dialog) << true;
        }
    }

    void dialogsFit()
    {
        QFETCH(QString, dialog);
        QFETCH(bool, presentation);
        const auto window = CordonGuiTest::openConnectedWindow();
        QVERIFY(window);
        window->setPresentationMode(presentation);
        QTRY_VERIFY(window->containerModel().rowCount() > 0);
        const QPointer<QDialog> shown = open(*window, dialog);
        QVERIFY(shown);
        QVERIFY(QTest::qWaitForWindowExposed(shown));
        if (dialog.startsWith(QLatin1String("create-"))) {
            // After it is shown, as the user does it: the dialog grows where it stands.
            const int heightBefore = shown->height();
            auto *allowlist = shown->findChild<QRadioButton *>(QStringLiteral("networkAllowlistButton"));
            QVERIFY(allowlist);
            allowlist->click();
            if (dialog == QLatin1String("create-everything")) {
                const auto toggles = shown->findChildren<QToolButton *>();
                for (QToolButton *toggle : toggles) {
                    if (toggle->isCheckable() &&
                        toggle->text() == CreateContainerDialog::tr("Advanced limits"))
                        toggle->click();
                }
            }
            // It grows (the allowlist editor is taller than the two choices it comes under), unless it had
            // the screen's height already, and settles.
            QTRY_VERIFY2(shown->height() > heightBefore ||
                             shown->frameGeometry().height() >=
                                 shown->screen()->availableGeometry().height() - 8,
                         qPrintable(describe(shown->frameGeometry())));
            QTest::qWait(50);
        }
        QApplication::processEvents();
        verifyInside(shown);
        if (QTest::currentTestFailed())
            return;
        // Re-centred over the window whenever there is room to be.
        const QRect available = shown->screen()->availableGeometry();
        const QRect frame = shown->frameGeometry();
        if (frame.height() < available.height() - 2 && frame.width() < available.width() - 2) {
            const QPoint offset = frame.center() - window->frameGeometry().center();
            QVERIFY2(
                std::abs(offset.y()) <= 2 || frame.top() == available.top() ||
                    frame.bottom() == available.bottom(),
                qPrintable(
                    QStringLiteral("%1 over %2").arg(describe(frame), describe(window->frameGeometry()))));
        }
        shown->close();
        delete shown;
        window->setPresentationMode(false);
    }

    // On a large screen nothing scrolls that need not: the New Container dialog with its allowlist shows
    // everything at once.
    void largeScreenDoesNotScroll()
    {
        const QRect available = QGuiApplication::primaryScreen()->availableGeometry();
        if (available.height() < 1000)
            QSKIP("for screens of 1000 pixels and more");
        const auto window = CordonGuiTest::openConnectedWindow();
        QVERIFY(window);
        const QPointer<QDialog> shown = open(*window, QStringLiteral("create"));
        QVERIFY(QTest::qWaitForWindowExposed(shown));
        shown->findChild<QRadioButton *>(QStringLiteral("networkAllowlistButton"))->click();
        auto *scroll = shown->findChild<QScrollArea *>(QStringLiteral("dialogFitScroll"));
        QVERIFY(scroll);
        QTRY_VERIFY(scroll->widget()->height() >= scroll->widget()->sizeHint().height());
        QApplication::processEvents();
        QVERIFY(!scroll->verticalScrollBar()->isVisible());
        verifyInside(shown);
        delete shown;
    }

    void freshWindowFits_data()
    {
        QTest::addColumn<bool>("presentation");
        QTest::newRow("normal") << false;
        QTest::newRow("presentation") << true;
    }

    // No settings yet: the first start's 1360x840 is more than a 1366x768 laptop has.
    void freshWindowFits()
    {
        QFETCH(bool, presentation);
        forgetLayout();
        WorkbenchSettings::setPresentation(presentation);
        const auto window = CordonGuiTest::openConnectedWindow();
        QVERIFY(window);
        QApplication::processEvents();
        verifyWindowInside(*window);
        window->setPresentationMode(false);
    }

    // A geometry saved on a 1920x1080 screen, restored on this one: inside it, and where it was when it fits.
    void savedGeometryFits()
    {
        forgetLayout();
        const QRect saved(300, 150, 1600, 880);
        QByteArray geometry;
        {
            MainWindow larger(MainWindow::Options{false});
            larger.setGeometry(saved);
            geometry = larger.saveGeometry();
        }
        QSettings().setValue(QStringLiteral("window/geometry"), geometry);
        const auto window = CordonGuiTest::openConnectedWindow();
        QVERIFY(window);
        QApplication::processEvents();
        verifyWindowInside(*window);
        if (QTest::currentTestFailed())
            return;
        const QRect available = window->screen()->availableGeometry();
        if (available.contains(saved.adjusted(-10, -40, 10, 10))) {
            // Where it was, give or take the frame the window system draws around it.
            QCOMPARE(window->size(), saved.size());
            QVERIFY2((window->pos() - saved.topLeft()).manhattanLength() <= 8,
                     qPrintable(describe(window->geometry())));
        } else
            QVERIFY2(window->geometry() != saved, "the test's geometry fits this screen");
    }

    void presentationHasNoOverflow_data()
    {
        QTest::addColumn<bool>("docks");
        QTest::newRow("panels") << false;
        QTest::newRow("history and audit open") << true;
    }

    // Presentation mode with a container chosen, the window maximised: everything in the right column is
    // inside the window, nothing pushed past its right edge, and the History and the Audit take their height
    // from the panels.
    void presentationHasNoOverflow()
    {
        QFETCH(bool, docks);
        forgetLayout();
        const auto window = CordonGuiTest::openConnectedWindow();
        QVERIFY(window);
        window->setPresentationMode(true);
        QTRY_VERIFY(window->containerModel().rowCount() > 0);
        window->selectContainer(m_containerId);
        window->showMaximized();
        if (docks) {
            for (QDockWidget *dock : {window->historyDock(), window->auditDock()}) {
                dock->show();
                dock->raise();
            }
        }
        QApplication::processEvents();
        QTest::qWait(50);
        verifyWindowInside(*window);
        if (QTest::currentTestFailed())
            return;
        // The dock in front took at most half the height, and left the panels the rest.
        if (docks)
            QTRY_VERIFY2(
                window->auditDock()->height() <= window->height() / 2 + 1,
                qPrintable(
                    QStringLiteral("%1 of %2").arg(window->auditDock()->height()).arg(window->height())));
        const QRect inside = window->rect();
        for (const char *name : {"idleTimer", "memoryChart", "processGauge", "memoryProcesses", "runPanel"}) {
            auto *widget = window->findChild<QWidget *>(QString::fromLatin1(name));
            QVERIFY2(widget, name);
            const QRect where(widget->mapTo(window.get(), QPoint(0, 0)), widget->size());
            QVERIFY2(where.left() >= inside.left() && where.right() <= inside.right(),
                     qPrintable(QStringLiteral("%1: %2 in a window %3 wide")
                                    .arg(QString::fromLatin1(name), describe(where))
                                    .arg(inside.width())));
            QVERIFY2(widget->width() >= widget->minimumSizeHint().width(),
                     qPrintable(QStringLiteral("%1 is %2 wide, needs %3")
                                    .arg(QString::fromLatin1(name))
                                    .arg(widget->width())
                                    .arg(widget->minimumSizeHint().width())));
        }
        // The class reads the container's name whole: where the title with its memory tier does not fit,
        // the name alone is shown.
        auto *title = window->findChild<ElidedLabel *>(QStringLiteral("runPanelTitle"));
        QVERIFY(title);
        const QString name =
            window->containerModel().container(m_containerId).value(QStringLiteral("name")).toString();
        QVERIFY2(title->shownText() == title->text() || title->shownText() == name,
                 qPrintable(QStringLiteral("shows \"%1\" of \"%2\"").arg(title->shownText(), title->text())));
        window->setPresentationMode(false);
    }

    void cleanupTestCase()
    {
        WorkbenchSettings::setPresentation(false);
        QVERIFY(m_daemon.stop());
    }

private:
    QPointer<QDialog> open(MainWindow &window, const QString &name)
    {
        QDialog *dialog = nullptr;
        if (name.startsWith(QLatin1String("create"))) {
            window.showCreateDialog();
            // showCreateDialog opens it at once: nothing to wait for.
            return window.findChild<CreateContainerDialog *>();
        }
        if (name == QLatin1String("settings"))
            dialog = new SettingsDialog(window.connection(), &window);
        else if (name == QLatin1String("secrets"))
            dialog = new SecretsDialog(window.connection(), &window);
        else if (name == QLatin1String("inspect"))
            dialog = new InspectDialog(window.connection(), window.containerModel().container(m_containerId),
                                       &window);
        else if (name == QLatin1String("csv-upload"))
            dialog = new CsvUploadDialog(window.connection(), m_csv, &window);
        else if (name == QLatin1String("scan-findings"))
            dialog = new ScanFindingsDialog(manyFindings(), &window);
        else if (name == QLatin1String("documentation"))
            dialog = new DocumentationDialog(&window);
        else if (name == QLatin1String("shortcuts"))
            dialog = new ShortcutsDialog(window.menuBar()->actions(), &window);
        if (dialog)
            dialog->open();
        return dialog;
    }

    // The frame inside the available area, and every button of the dialog's button boxes inside the dialog
    // (not scrolled away) and on the screen.
    static void verifyInside(QDialog *dialog)
    {
        const QRect available = dialog->screen()->availableGeometry();
        QVERIFY2(available.contains(dialog->frameGeometry()),
                 qPrintable(
                     QStringLiteral("%1 on %2").arg(describe(dialog->frameGeometry()), describe(available))));
        const auto boxes = dialog->findChildren<QDialogButtonBox *>();
        QVERIFY(!boxes.isEmpty());
        for (const QDialogButtonBox *box : boxes) {
            const auto buttons = box->buttons();
            for (const QAbstractButton *button : buttons) {
                if (!button->isVisible())
                    continue;
                const QRect where = globalRect(button);
                QVERIFY2(available.contains(where) && globalRect(dialog).contains(where),
                         qPrintable(QStringLiteral("%1: %2 in %3")
                                        .arg(button->text(), describe(where), describe(globalRect(dialog)))));
            }
        }
    }

    static void verifyWindowInside(const MainWindow &window)
    {
        const QRect available = window.screen()->availableGeometry();
        QVERIFY2(available.contains(window.frameGeometry()),
                 qPrintable(
                     QStringLiteral("%1 on %2").arg(describe(window.frameGeometry()), describe(available))));
    }

    static void forgetLayout()
    {
        QSettings settings;
        settings.remove(QStringLiteral("window"));
        settings.sync();
    }

    CordonTest::DaemonFixture m_daemon;
    QTemporaryDir m_files;
    QString m_containerId;
    QString m_csv;
};

CORDON_GUI_TEST_MAIN(ScreenFitTest)

#include "tst_screenfit.moc"
