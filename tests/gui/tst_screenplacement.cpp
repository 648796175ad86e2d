// SPDX-License-Identifier: MIT
// ScreenFit's geometry on literal rectangles: a window's frame is moved into the available area, and shrunk
// only when it is larger, with its top-left corner (the title bar) kept reachable.
#include "screenfit.h"

#include <QTest>

using namespace Cordon::Ui;

class ScreenPlacementTest final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void placeInside_data()
    {
        QTest::addColumn<QRect>("frame");
        QTest::addColumn<QRect>("available");
        QTest::addColumn<QRect>("placed");
        // A 1366x768 laptop with a 32-pixel panel at the top.
        const QRect laptop(0, 32, 1366, 736);
        QTest::newRow("inside stays") << QRect(100, 100, 800, 600) << laptop << QRect(100, 100, 800, 600);
        QTest::newRow("past the right edge")
            << QRect(900, 100, 800, 600) << laptop << QRect(566, 100, 800, 600);
        QTest::newRow("below the bottom") << QRect(100, 400, 800, 600) << laptop << QRect(100, 168, 800, 600);
        QTest::newRow("under the panel") << QRect(100, 0, 800, 600) << laptop << QRect(100, 32, 800, 600);
        QTest::newRow("left of the screen")
            << QRect(-300, 100, 800, 600) << laptop << QRect(0, 100, 800, 600);
        QTest::newRow("saved on 1920x1080")
            << QRect(300, 150, 1604, 884) << laptop << QRect(0, 32, 1366, 736);
        QTest::newRow("on a monitor since unplugged")
            << QRect(2200, 100, 1000, 700) << laptop << QRect(366, 68, 1000, 700);
        QTest::newRow("taller only") << QRect(200, 40, 900, 900) << laptop << QRect(200, 32, 900, 736);
        QTest::newRow("a second screen to the right")
            << QRect(1500, 50, 800, 600) << QRect(1366, 0, 1280, 720) << QRect(1500, 50, 800, 600);
    }

    void placeInside()
    {
        QFETCH(QRect, frame);
        QFETCH(QRect, available);
        QFETCH(QRect, placed);
        QCOMPARE(ScreenFit::placeInside(frame, available), placed);
        QVERIFY(available.contains(ScreenFit::placeInside(frame, available)));
    }

    void centredInside()
    {
        const QRect screen(0, 0, 1280, 720);
        // Over a window in the middle: centred on it (QRect rounds an even size's centre down).
        QCOMPARE(ScreenFit::centredInside(QSize(400, 300), QPoint(640, 360), screen),
                 QRect(441, 211, 400, 300));
        // Over a window near the bottom: as low as it can go, whole.
        QCOMPARE(ScreenFit::centredInside(QSize(400, 600), QPoint(640, 600), screen),
                 QRect(441, 120, 400, 600));
        // Taller than the screen: the screen's height, from its top.
        QCOMPARE(ScreenFit::centredInside(QSize(500, 820), QPoint(640, 360), screen),
                 QRect(391, 0, 500, 720));
    }
};

QTEST_MAIN(ScreenPlacementTest)

#include "tst_screenplacement.moc"
