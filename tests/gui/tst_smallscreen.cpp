// SPDX-License-Identifier: MIT
// A common laptop screen, 1366x768, in the normal look and in presentation mode: every line of the welcome
// page is there whole (no label cut short at the bottom or the sides, no button outside the page).
#include "guitest.h"

#include "appearance.h"
#include "mainwindow.h"
#include "welcomepage.h"
#include "windowtest.h"

#include <QLabel>
#include <QPushButton>

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

    void cleanupTestCase() { QVERIFY(m_daemon.stop()); }

private:
    CordonTest::DaemonFixture m_daemon;
};

CORDON_GUI_TEST_MAIN(SmallScreenTest)

#include "tst_smallscreen.moc"
