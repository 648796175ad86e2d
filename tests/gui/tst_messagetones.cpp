// SPDX-License-Identifier: MIT
// Message colours follow the palette (ui/messagetone.h): every tone reads at WCAG AA (4.5:1) in the light and
// the dark theme, as text on the window and on the base, and as a banner's text on its tint. And the process
// gauge counts the forks refused during the run under way, not since the container started.
#include "guitest.h"

#include "appearance.h"
#include "memoryhistory.h"
#include "messagetone.h"
#include "processgauge.h"

#include <QApplication>
#include <QtTest>

using namespace Cordon::Ui;

class TestMessageTones : public QObject
{
    Q_OBJECT

private slots:
    void everyToneReadsInBothThemes_data()
    {
        QTest::addColumn<int>("theme");
        QTest::newRow("light") << int(Theme::Light);
        QTest::newRow("dark") << int(Theme::Dark);
    }

    void everyToneReadsInBothThemes()
    {
        QFETCH(int, theme);
        Appearance::apply(Theme(theme), false);
        const QPalette palette = QApplication::palette();
        for (Tone tone :
             {Tone::Success, Tone::Failure, Tone::Running, Tone::Warning, Tone::Contained, Tone::Neutral}) {
            const ToneColours colours = toneColours(tone, palette);
            const QString which = QStringLiteral("tone %1").arg(int(tone));
            QVERIFY2(contrastRatio(colours.accent, palette.color(QPalette::Base)) >= 4.5, qPrintable(which));
            QVERIFY2(contrastRatio(colours.accent, palette.color(QPalette::Window)) >= 4.5,
                     qPrintable(which));
            QVERIFY2(contrastRatio(colours.text, colours.background) >= 4.5, qPrintable(which));
            // A tint, not the text's own colour: the banner still says which tone it is.
            QVERIFY(colours.background != palette.color(QPalette::Base));
        }
        // The contrast itself, against the WCAG figures: black on white is 21, a colour on itself 1.
        QCOMPARE(qRound(contrastRatio(Qt::black, Qt::white)), 21);
        QCOMPARE(contrastRatio(QColor(0x77, 0x77, 0x77), QColor(0x77, 0x77, 0x77)), 1.0);
        Appearance::apply(Theme::Light, false);
    }

    void theGaugeCountsTheRunUnderWayOnly()
    {
        MemoryHistory history;
        ProcessGauge gauge(history);
        const QString id = QStringLiteral("c1");
        gauge.setContainer(id);
        const auto sample = [&](qint64 pids, qint64 refused) {
            MemorySample made;
            made.at = QDateTime::currentMSecsSinceEpoch();
            made.pids = pids;
            made.pidsLimit = 256;
            made.pidsLimitHits = refused;
            history.add(id, made);
        };
        sample(3, 40); // forks an earlier run had refused
        QVERIFY(!gauge.limitReached());
        QCOMPARE(gauge.text(), QStringLiteral("Processes: 3 of 256"));

        gauge.runStarted(id);
        sample(120, 40);
        QVERIFY2(!gauge.limitReached(), qPrintable(gauge.text()));
        sample(256, 52);
        QVERIFY(gauge.limitReached());
        QCOMPARE(gauge.text(), QStringLiteral("Processes: 256 of 256 · the limit refused 12 forks"));
        gauge.runFinished(id);
        QVERIFY(!gauge.limitReached());
        sample(2, 52);
        QCOMPARE(gauge.text(), QStringLiteral("Processes: 2 of 256"));
    }
};

CORDON_GUI_TEST_MAIN(TestMessageTones)
#include "tst_messagetones.moc"
