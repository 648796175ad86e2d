// SPDX-License-Identifier: MIT
// The outcome banner's colours: one fixed tint per kind of outcome, the same on the tenth run as on the
// first, in the light and the dark palette. The banner once mixed its accent into its own palette, which the
// previous run's style sheet had already tinted, so after a few runs an OOM looked like a success.
#include "appearance.h"
#include "outcomebanner.h"

#include <QApplication>
#include <QImage>
#include <QtTest>

using namespace Cordon::Ui;

namespace {

OutcomeSummary summaryOf(OutcomeSummary::Severity severity, const QString &headline)
{
    OutcomeSummary summary;
    summary.severity = severity;
    summary.headline = headline;
    summary.explanation = QStringLiteral("explanation");
    return summary;
}

} // namespace

class TestOutcomeBanner final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void tintIsTheSameOnEveryRun_data()
    {
        QTest::addColumn<bool>("dark");
        QTest::newRow("light") << false;
        QTest::newRow("dark") << true;
    }

    void tintIsTheSameOnEveryRun()
    {
        QFETCH(bool, dark);
        Appearance::apply(dark ? Theme::Dark : Theme::Light, false);
        OutcomeBanner banner;
        banner.resize(480, 90);
        banner.show();
        // A corner inside the margins, away from the words and the left border: the background alone.
        auto tint = [&banner] { return banner.grab().toImage().pixelColor(banner.width() - 3, 3); };

        banner.setSummary(summaryOf(OutcomeSummary::Severity::Failure, QStringLiteral("Out of memory")));
        const QColor failure = tint();
        banner.setSummary(summaryOf(OutcomeSummary::Severity::Success, QStringLiteral("Exit code 0")));
        const QColor success = tint();
        banner.setSummary(summaryOf(OutcomeSummary::Severity::Running, QStringLiteral("Running…")));
        const QColor running = tint();
        // Tinted from the theme's base colour: dark stays dark, light stays light.
        for (const QColor &colour : {failure, success, running})
            QVERIFY2(dark ? colour.lightness() < 100 : colour.lightness() > 180, qPrintable(colour.name()));
        QVERIFY2(failure != success && success != running && failure != running,
                 qPrintable(failure.name() + QLatin1Char(' ') + success.name() + QLatin1Char(' ') +
                            running.name()));

        for (int run = 2; run <= 10; ++run) {
            banner.setSummary(summaryOf(OutcomeSummary::Severity::Running, QStringLiteral("Running…")));
            QCOMPARE(tint().name(), running.name());
            const bool failed = run % 2 == 0;
            banner.setSummary(
                failed ? summaryOf(OutcomeSummary::Severity::Failure, QStringLiteral("Exit code 3"))
                       : summaryOf(OutcomeSummary::Severity::Success, QStringLiteral("Exit code 0")));
            QCOMPARE(tint().name(), (failed ? failure : success).name());
        }
    }

    void presentationHeadlineSaysWhatHeld()
    {
        OutcomeSummary oom = summaryOf(OutcomeSummary::Severity::Failure, QStringLiteral("Out of memory"));
        oom.contained = QStringLiteral("Contained: out of memory at 1 GiB");
        OutcomeBanner banner;
        Appearance::apply(Theme::Light, true);
        banner.setSummary(oom);
        QVERIFY2(banner.text().startsWith(QStringLiteral("Contained: out of memory at 1 GiB\nexplanation")),
                 qPrintable(banner.text()));
        Appearance::apply(Theme::Light, false);
        banner.setSummary(oom);
        QVERIFY2(banner.text().startsWith(QStringLiteral("Out of memory\n")), qPrintable(banner.text()));
    }
};

QTEST_MAIN(TestOutcomeBanner)
#include "tst_outcomebanner.moc"
