// SPDX-License-Identifier: MIT
// The Network tab's whole task on the screen it is given (CORDON_TEST_SCREEN; ctest runs this at 1280x800,
// 1366x768 and 1920x1080), in the normal look and in presentation mode, the window maximised: the container's
// rules, the selected rule's meaning, the entry field, Apply and the recent decisions are all inside the
// window's visible area at once, none scrolled away or cut by the panel around it.
// CORDON_TEST_GRAB_DIR=DIR also saves what the window shows there, to look at.
#include "guitest.h"

#include "allowlisteditor.h"
#include "allowlistmodel.h"
#include "containerlistmodel.h"
#include "mainwindow.h"
#include "networkpanel.h"
#include "runpanel.h"
#include "testutil.h"
#include "windowtest.h"
#include "workbenchsettings.h"

#include <QDir>
#include <QFile>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QListView>
#include <QPushButton>
#include <QScreen>
#include <QSettings>
#include <QTabWidget>
#include <QTableView>

using namespace Cordon::Ui;

namespace {

QString describe(const QRect &rect)
{
    return QStringLiteral("%1x%2 at %3,%4").arg(rect.width()).arg(rect.height()).arg(rect.x()).arg(rect.y());
}

// The part of `widget` the user can see, in the coordinates of its window: its rectangle cut by every
// widget it lies in (a scroll area's viewport, a splitter's pane, the window itself).
QRect visiblePart(const QWidget *widget)
{
    const QWidget *window = widget->window();
    QRect visible(widget->mapTo(window, QPoint(0, 0)), widget->size());
    for (const QWidget *outer = widget->parentWidget(); outer; outer = outer->parentWidget()) {
        visible &= QRect(outer->mapTo(window, QPoint(0, 0)), outer->size());
        if (outer == window)
            break;
    }
    return visible;
}

// `widget` shown and seen whole.
void verifySeen(const QWidget *widget, const char *what)
{
    QVERIFY2(widget->isVisible(), what);
    const QRect whole(widget->mapTo(widget->window(), QPoint(0, 0)), widget->size());
    QVERIFY2(visiblePart(widget) == whole,
             qPrintable(QStringLiteral("%1: %2 of it seen, in a window %3")
                            .arg(QString::fromLatin1(what), describe(visiblePart(widget)),
                                 describe(widget->window()->rect()))));
}

bool writeOrgFile(const QJsonArray &domains)
{
    const QString path = qEnvironmentVariable("XDG_CONFIG_HOME") + QStringLiteral("/cordon/org-policy.json");
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile file(path);
    return file.open(QIODevice::WriteOnly) &&
           file.write(QJsonDocument(QJsonObject{{QStringLiteral("allowed_domains"), domains}}).toJson()) > 0;
}

} // namespace

class NetworkFitTest final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        const QByteArray wanted = qgetenv("CORDON_TEST_SCREEN");
        const QRect available = QGuiApplication::primaryScreen()->availableGeometry();
        QVERIFY2(wanted.isEmpty() || wanted == QByteArray::number(available.width()) + 'x' +
                                                   QByteArray::number(available.height()),
                 qPrintable(describe(available)));
        QVERIFY(writeOrgFile({QStringLiteral("pypi.org"), QStringLiteral("files.pythonhosted.org"),
                              QStringLiteral("registry.npmjs.org"), QStringLiteral("github.com"),
                              QStringLiteral("*.githubusercontent.com")}));
        QVERIFY(m_daemon.start());
        const QJsonObject network{
            {QStringLiteral("type"), QStringLiteral("allowlist")},
            {QStringLiteral("allowed_domains"),
             QJsonArray{QStringLiteral("pypi.org"), QStringLiteral("files.pythonhosted.org"),
                        QStringLiteral("github.com")}}};
        auto created = m_daemon.createContainer(QStringLiteral("packages"),
                                                {{QStringLiteral("network_policy"), network}});
        QVERIFY_RESULT(created);
        m_containerId = *created;
    }

    void wholeTaskInSight_data()
    {
        QTest::addColumn<bool>("presentation");
        QTest::newRow("normal") << false;
        QTest::newRow("presentation") << true;
    }

    void wholeTaskInSight()
    {
        QFETCH(bool, presentation);
        {
            QSettings settings;
            settings.remove(QStringLiteral("window"));
        }
        const auto window = CordonGuiTest::openConnectedWindow();
        QVERIFY(window);
        window->setPresentationMode(presentation);
        QTRY_VERIFY(window->containerModel().rowCount() > 0);
        window->selectContainer(m_containerId);
        window->showMaximized();
        NetworkPanel *panel = window->networkPanel();
        window->findChild<RunPanel *>()->outputTabs()->setCurrentWidget(panel);
        QTRY_COMPARE(panel->page(), QStringLiteral("allowlist"));
        AllowlistEditor *editor = panel->editor();
        QTRY_COMPARE(editor->model()->rowCount(), 3);
        // The user picks a rule and reads what it allows.
        editor->view()->setCurrentIndex(editor->model()->index(1));
        QTRY_VERIFY(!editor->ruleMeaning().isEmpty());
        QApplication::processEvents();
        QTest::qWait(50);

        const QRect available = window->screen()->availableGeometry();
        const QString grabDir = qEnvironmentVariable("CORDON_TEST_GRAB_DIR");
        if (!grabDir.isEmpty()) {
            const QString name =
                QStringLiteral("network-%1x%2-%3.png")
                    .arg(available.width())
                    .arg(available.height())
                    .arg(presentation ? QStringLiteral("presentation") : QStringLiteral("normal"));
            QVERIFY(window->grab().save(QDir(grabDir).filePath(name)));
        }
        QVERIFY2(available.contains(window->frameGeometry()),
                 qPrintable(
                     QStringLiteral("%1 on %2").arg(describe(window->frameGeometry()), describe(available))));
        verifySeen(editor->entryField(), "the entry field");
        verifySeen(editor->findChild<QLabel *>(QStringLiteral("allowlistRuleMeaning")), "the rule's meaning");
        verifySeen(panel->applyButton(), "Apply");
        verifySeen(panel->revertButton(), "Revert");
        verifySeen(panel->decisionView(), "the recent decisions");
        verifySeen(panel->allowHostButton(), "Allow This Host");
        if (QTest::currentTestFailed())
            return;
        // Every rule of the list seen, and room for a few decisions under the table's header.
        const QListView *list = editor->view();
        QVERIFY2(list->visualRect(editor->model()->index(2)).bottom() < list->viewport()->height(),
                 qPrintable(QStringLiteral("the third rule at %1 in a list %2 high")
                                .arg(list->visualRect(editor->model()->index(2)).bottom())
                                .arg(list->viewport()->height())));
        const QTableView *decisions = panel->decisionView();
        QVERIFY2(decisions->viewport()->height() >= 3 * decisions->verticalHeader()->defaultSectionSize(),
                 qPrintable(QStringLiteral("room for decisions: %1 px, a row is %2")
                                .arg(decisions->viewport()->height())
                                .arg(decisions->verticalHeader()->defaultSectionSize())));
        // The meaning's two lines are not cut either.
        const auto *meaning = editor->findChild<QLabel *>(QStringLiteral("allowlistRuleMeaning"));
        QVERIFY2(meaning->height() >= meaning->heightForWidth(meaning->width()),
                 qPrintable(QStringLiteral("the meaning is %1 px high and needs %2")
                                .arg(meaning->height())
                                .arg(meaning->heightForWidth(meaning->width()))));

        window->setPresentationMode(false);
    }

    void cleanupTestCase()
    {
        WorkbenchSettings::setPresentation(false);
        QVERIFY(m_daemon.stop());
    }

private:
    CordonTest::DaemonFixture m_daemon;
    QString m_containerId;
};

CORDON_GUI_TEST_MAIN(NetworkFitTest)

#include "tst_networkfit.moc"
