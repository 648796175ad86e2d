// SPDX-License-Identifier: MIT
// A common laptop screen, 1366x768, in the normal look and in presentation mode: every line of the welcome
// page is there whole (no label cut short at the bottom or the sides, no button outside the page), and the
// container list keeps room for names however narrow the splitter makes it.
#include "guitest.h"

#include "appearance.h"
#include "auditview.h"
#include "containerlistmodel.h"
#include "daemonconnection.h"
#include "mainwindow.h"
#include "testutil.h"
#include "welcomepage.h"
#include "windowtest.h"

#include <QDockWidget>
#include <QHeaderView>
#include <QJsonArray>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QTreeView>
#include <QTreeWidget>

using namespace Cordon::Ui;

class SmallScreenTest final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_daemon.start()); }

    void welcomeIsWhole_data()
    {
        QTest::addColumn<bool>("presentation");
        QTest::newRow("normal") << false;
        QTest::newRow("presentation") << true;
    }

    void welcomeIsWhole()
    {
        QFETCH(bool, presentation);
        const auto window = CordonGuiTest::openConnectedWindow();
        QVERIFY(window);
        window->setPresentationMode(presentation);
        window->resize(1366, 768);
        auto *welcome = window->findChild<WelcomePage *>();
        QVERIFY(welcome);
        QTRY_VERIFY(welcome->isVisible());
        QApplication::processEvents();
        const QRect page = welcome->rect();
        for (QLabel *label : welcome->findChildren<QLabel *>()) {
            if (!label->isVisible() || label->text().isEmpty())
                continue;
            const QRect where(label->mapTo(welcome, QPoint(0, 0)), label->size());
            QVERIFY2(page.contains(where), qPrintable(label->text()));
            if (label->wordWrap())
                QVERIFY2(label->height() >= label->heightForWidth(label->width()),
                         qPrintable(QStringLiteral("%1: %2 px tall, needs %3")
                                        .arg(label->text())
                                        .arg(label->height())
                                        .arg(label->heightForWidth(label->width()))));
            else
                QVERIFY2(label->width() >= label->sizeHint().width(), qPrintable(label->text()));
        }
        for (QPushButton *button : welcome->findChildren<QPushButton *>()) {
            const QRect where(button->mapTo(welcome, QPoint(0, 0)), button->size());
            QVERIFY2(page.contains(where), qPrintable(button->text()));
            QVERIFY2(button->width() >= button->sizeHint().width(), qPrintable(button->text()));
        }
        window->setPresentationMode(false);
    }

    void namesKeepTheirRoom_data()
    {
        QTest::addColumn<bool>("presentation");
        QTest::newRow("normal") << false;
        QTest::newRow("presentation") << true;
    }

    void namesKeepTheirRoom()
    {
        QFETCH(bool, presentation);
        if (m_daemon.call(QStringLiteral("container.list"))
                ->value(QStringLiteral("containers"))
                .toArray()
                .isEmpty())
            QVERIFY_RESULT(m_daemon.createContainer(QStringLiteral("a-readable-name")));
        const auto window = CordonGuiTest::openConnectedWindow();
        QVERIFY(window);
        window->setPresentationMode(presentation);
        window->resize(1366, 768);
        QTRY_VERIFY(window->containerModel().rowCount() > 0);
        auto *list = window->findChild<QTreeView *>(QStringLiteral("containerList"));
        QVERIFY(list);
        // The window fits the screen: the panels' minimum widths add up to no more than it has.
        QApplication::processEvents();
        QVERIFY2(window->width() <= 1366, qPrintable(QString::number(window->width())));
        // The user drags the list as narrow as it goes: the name column still shows about a dozen characters.
        auto *splitter = window->findChild<QSplitter *>(QStringLiteral("mainSplitter"));
        QVERIFY(splitter);
        QList<int> sizes = splitter->sizes();
        sizes[1] += sizes[0];
        sizes[0] = 0;
        splitter->setSizes(sizes);
        QApplication::processEvents();
        const int nameWidth = list->header()->sectionSize(ContainerListModel::NameColumn);
        QVERIFY2(nameWidth >= list->fontMetrics().averageCharWidth() * 8,
                 qPrintable(QString::number(nameWidth)));
        // And no other column is pushed out of sight for it.
        int total = 0;
        for (int column = 0; column < list->model()->columnCount(); ++column) {
            if (!list->isColumnHidden(column))
                total += list->header()->sectionSize(column);
        }
        QVERIFY2(total <= list->viewport()->width(),
                 qPrintable(QStringLiteral("%1 > %2").arg(total).arg(list->viewport()->width())));
        // Nor is the list itself cut off by the panel it sits in.
        QVERIFY2(list->parentWidget()->rect().contains(list->geometry()),
                 qPrintable(QStringLiteral("list %1 px wide in a %2 px panel")
                                .arg(list->geometry().right())
                                .arg(list->parentWidget()->width())));
        window->setPresentationMode(false);
    }

    // The History and the Go/No-Go Audit open below the panels: the window still fits the screen's height,
    // and the audit's rows keep room for a few lines.
    void docksFitTheHeight_data()
    {
        QTest::addColumn<bool>("presentation");
        QTest::newRow("normal") << false;
        QTest::newRow("presentation") << true;
    }

    void docksFitTheHeight()
    {
        QFETCH(bool, presentation);
        const auto window = CordonGuiTest::openConnectedWindow();
        QVERIFY(window);
        window->setPresentationMode(presentation);
        for (QDockWidget *dock : {window->historyDock(), window->auditDock()}) {
            dock->show();
            dock->raise();
            window->resize(1366, 768);
            QApplication::processEvents();
            QVERIFY2(
                window->height() <= 768 && window->width() <= 1366,
                qPrintable(QStringLiteral("%1 with %2: %3x%4")
                               .arg(presentation ? QStringLiteral("presentation") : QStringLiteral("normal"),
                                    dock->objectName())
                               .arg(window->width())
                               .arg(window->height())));
        }
        QVERIFY2(window->auditView()->rows()->height() >=
                     3 * window->auditView()->rows()->fontMetrics().height(),
                 qPrintable(QString::number(window->auditView()->rows()->height())));
        window->setPresentationMode(false);
    }

    void cleanupTestCase() { QVERIFY(m_daemon.stop()); }

private:
    CordonTest::DaemonFixture m_daemon;
};

CORDON_GUI_TEST_MAIN(SmallScreenTest)

#include "tst_smallscreen.moc"
