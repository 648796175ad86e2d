// SPDX-License-Identifier: MIT
// The words of the outcome banner, for every way a run can end (docs/protocol.md, `run`).
#include "guitest.h"

#include "outcomesummary.h"

#include <QJsonObject>

using namespace Cordon::Ui;

class OutcomeSummaryTest final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void words_data()
    {
        QTest::addColumn<QJsonObject>("run");
        QTest::addColumn<QString>("headline");
        QTest::addColumn<QString>("explanation");
        QTest::addColumn<QString>("details");
        const qint64 gib = qint64(1) << 30;
        auto finished = [&](const QString &errorClass, int exitCode, int signal) {
            return QJsonObject{{QStringLiteral("state"), QStringLiteral("finished")},
                               {QStringLiteral("error_class"), errorClass},
                               {QStringLiteral("exit_code"), exitCode},
                               {QStringLiteral("signal"), signal},
                               {QStringLiteral("wall_ms"), 1250},
                               {QStringLiteral("peak_memory_bytes"), qint64(35) * 1024 * 1024},
                               {QStringLiteral("memory_limit_bytes"), gib}};
        };
        QTest::newRow("ok") << finished(QStringLiteral("ok"), 0, 0) << QStringLiteral("Exit code 0")
                            << QStringLiteral("ok — the run finished successfully")
                            << QStringLiteral("Took 1.3 s · peak memory 35 MiB of 1 GiB");
        QTest::newRow("nonzero") << finished(QStringLiteral("nonzero_exit"), 2, 0)
                                 << QStringLiteral("Exit code 2")
                                 << QStringLiteral(
                                        "nonzero_exit — the program reported a failure with exit code 2")
                                 << QStringLiteral("Took 1.3 s · peak memory 35 MiB of 1 GiB");
        QJsonObject notFound = finished(QStringLiteral("nonzero_exit"), 127, 0);
        notFound.insert(
            QStringLiteral("message"),
            QStringLiteral("executable not found: `node` is in no folder of the container's PATH"));
        QTest::newRow("not found") << notFound << QStringLiteral("Exit code 127")
                                   << QStringLiteral(
                                          "nonzero_exit — executable not found: `node` is in no folder "
                                          "of the container's PATH")
                                   << QStringLiteral("Took 1.3 s · peak memory 35 MiB of 1 GiB");
        QTest::newRow("oom") << finished(QStringLiteral("oom"), -1, 9)
                             << QStringLiteral("Out of memory · Signal SIGKILL")
                             << QStringLiteral("oom — the run exceeded its 1 GiB memory limit and was killed")
                             << QStringLiteral("Took 1.3 s · peak memory 35 MiB of 1 GiB");
        QJsonObject full = finished(QStringLiteral("oom"), -1, 9);
        full.insert(
            QStringLiteral("message"),
            QStringLiteral("workspace full: its files hold 900 MiB of the container's 1 GiB memory limit"));
        QTest::newRow("workspace full")
            << full << QStringLiteral("Workspace full · Signal SIGKILL")
            << QStringLiteral(
                   "oom — workspace full: its files hold 900 MiB of the container's 1 GiB memory limit")
            << QStringLiteral("Took 1.3 s · peak memory 35 MiB of 1 GiB");
        QTest::newRow("timeout") << finished(QStringLiteral("timeout"), -1, 9)
                                 << QStringLiteral("Timed out · Signal SIGKILL")
                                 << QStringLiteral(
                                        "timeout — the run took longer than its time limit and was "
                                        "stopped with all its processes")
                                 << QStringLiteral("Took 1.3 s · peak memory 35 MiB of 1 GiB");
        QTest::newRow("killed") << finished(QStringLiteral("killed"), -1, 11)
                                << QStringLiteral("Signal SIGSEGV")
                                << QStringLiteral("killed — the program was ended by SIGSEGV")
                                << QStringLiteral("Took 1.3 s · peak memory 35 MiB of 1 GiB");
        QJsonObject cancelled = finished(QStringLiteral("killed"), -1, 9);
        cancelled.insert(QStringLiteral("message"), QStringLiteral("cancelled"));
        QTest::newRow("cancelled") << cancelled << QStringLiteral("Signal SIGKILL")
                                   << QStringLiteral("killed — stopped on request: the run and everything it "
                                                     "started got SIGKILL")
                                   << QStringLiteral("Took 1.3 s · peak memory 35 MiB of 1 GiB");
        QJsonObject setup = finished(QStringLiteral("setup_failed"), -1, 0);
        setup.insert(QStringLiteral("message"),
                     QStringLiteral("run setup failed at chdir: No such file or directory"));
        QTest::newRow("setup") << setup << QStringLiteral("Did not run")
                               << QStringLiteral(
                                      "setup_failed — run setup failed at chdir: No such file or directory")
                               << QString();
        QTest::newRow("interrupted") << QJsonObject{{QStringLiteral("state"), QStringLiteral("interrupted")}}
                                     << QStringLiteral("Outcome unknown")
                                     << QStringLiteral(
                                            "interrupted — cordond stopped before the run ended, so how it "
                                            "would have ended is not known")
                                     << QString();
    }

    void containedSaysWhatHeld()
    {
        const qint64 gib = qint64(1) << 30;
        auto run = [&](const QString &errorClass) {
            return QJsonObject{{QStringLiteral("state"), QStringLiteral("finished")},
                               {QStringLiteral("error_class"), errorClass},
                               {QStringLiteral("exit_code"), -1},
                               {QStringLiteral("signal"), 9},
                               {QStringLiteral("memory_limit_bytes"), gib},
                               {QStringLiteral("timeout_s"), 30}};
        };
        QCOMPARE(OutcomeSummary::fromRun(run(QStringLiteral("oom"))).contained,
                 QStringLiteral("Contained: out of memory at 1 GiB"));
        QCOMPARE(OutcomeSummary::fromRun(run(QStringLiteral("timeout"))).contained,
                 QStringLiteral("Contained: time limit of 30 s reached"));
        // Nothing held where the program ended by itself or was stopped.
        QCOMPARE(OutcomeSummary::fromRun(run(QStringLiteral("ok"))).contained, QString());
        QCOMPARE(OutcomeSummary::fromRun(run(QStringLiteral("killed"))).contained, QString());

        // A fork bomb ends however its shell ends; the kernel's count of refused forks says the limit held.
        QJsonObject forkBomb = run(QStringLiteral("nonzero_exit"));
        forkBomb.insert(QStringLiteral("exit_code"), 2);
        forkBomb.insert(QStringLiteral("signal"), 0);
        forkBomb.insert(QStringLiteral("pids_limit_hits"), 14);
        const OutcomeSummary contained = OutcomeSummary::fromRun(forkBomb, gib, 256);
        QCOMPARE(contained.contained, QStringLiteral("Contained: process limit 256 reached"));
        QVERIFY2(contained.details.contains(QStringLiteral("the process limit refused 14 forks")),
                 qPrintable(contained.details));
        // What held comes first, in normal mode too, the exit status second.
        QCOMPARE(contained.headline, QStringLiteral("Contained: process limit 256 reached · Exit code 2"));
        QCOMPARE(contained.severity, OutcomeSummary::Severity::Failure);
        // An OOM's headline names its limit already.
        QVERIFY(OutcomeSummary::fromRun(run(QStringLiteral("oom")))
                    .headline.startsWith(QStringLiteral("Out of memory")));
        // A fork bomb that caught its refused forks exits 0: never the green "ok" of a run that met no limit.
        QJsonObject caught = forkBomb;
        caught.insert(QStringLiteral("error_class"), QStringLiteral("ok"));
        caught.insert(QStringLiteral("exit_code"), 0);
        const OutcomeSummary held = OutcomeSummary::fromRun(caught, gib, 256);
        QCOMPARE(held.severity, OutcomeSummary::Severity::Contained);
        QCOMPARE(held.headline, QStringLiteral("Contained: process limit 256 reached · Exit code 0"));
        QCOMPARE(OutcomeSummary::fromRun(run(QStringLiteral("ok"))).severity,
                 OutcomeSummary::Severity::Success);

        // What the run tried on the network, by verdict.
        QJsonObject networked = run(QStringLiteral("ok"));
        networked.insert(QStringLiteral("network"), QJsonObject{{QStringLiteral("allowed"), 2},
                                                                {QStringLiteral("denied"), 1},
                                                                {QStringLiteral("errors"), 0}});
        QVERIFY2(OutcomeSummary::fromRun(networked).details.endsWith(
                     QStringLiteral(" · network: 2 allowed, 1 denied by policy, 0 failed upstream")),
                 qPrintable(OutcomeSummary::fromRun(networked).details));
    }

    void words()
    {
        QFETCH(QJsonObject, run);
        QFETCH(QString, headline);
        QFETCH(QString, explanation);
        QFETCH(QString, details);
        const OutcomeSummary summary = OutcomeSummary::fromRun(run);
        QCOMPARE(summary.headline, headline);
        QCOMPARE(summary.explanation, explanation);
        QCOMPARE(summary.details, details);
    }

    void containerLimitStandsIn()
    {
        const QJsonObject run{{QStringLiteral("state"), QStringLiteral("finished")},
                              {QStringLiteral("error_class"), QStringLiteral("oom")},
                              {QStringLiteral("signal"), 9}};
        QCOMPARE(OutcomeSummary::fromRun(run, qint64(4) << 30).explanation,
                 QStringLiteral("oom — the run exceeded its 4 GiB memory limit and was killed"));
    }
};

CORDON_GUI_TEST_MAIN(OutcomeSummaryTest)

#include "tst_outcomesummary.moc"
