// SPDX-License-Identifier: MIT
// Nothing acknowledged is lost when cordond is killed: containers take uploads, appending execs, a stop and
// start (a save), a long run and a process left in the background, while a thread kills the daemon with
// SIGKILL at a random moment of each cycle (during a run, an upload or a save, whatever is under way). After
// each restart every exec that returned and every upload that was acknowledged is there, the background
// process is alive, and the long run ends with its real outcome and all of its output.
// CORDON_CRASH_CYCLES sets the number of cycles (bench/crash-cycles.sh runs many; the figure is in
// docs/benchmarks.md).
#include "core/plainbridge.h"
#include "daemonfixture.h"
#include "hostprocesses.h"
#include "sandboxtest.h"
#include "store/historystore.h"
#include "testutil.h"

#include <QDir>
#include <QJsonArray>
#include <QRandomGenerator>

#include <atomic>
#include <csignal>
#include <thread>

#include <unistd.h>

using namespace CordonTest;

namespace {

QJsonObject shell(const QString &script)
{
    return {{QStringLiteral("command"), QJsonArray{QStringLiteral("/bin/sh"), QStringLiteral("-c"), script}}};
}

// Kills `pid` with SIGKILL after `delayMs`, from a thread of its own: whatever the test is waiting for
// then is cut off half-way.
class DelayedKill
{
public:
    DelayedKill(qint64 pid, int delayMs)
        : m_thread([this, pid, delayMs] {
              for (int waited = 0; waited < delayMs && !m_cancelled; waited += 5)
                  std::this_thread::sleep_for(std::chrono::milliseconds(5));
              if (!m_cancelled)
                  ::kill(static_cast<pid_t>(pid), SIGKILL);
              m_fired = !m_cancelled;
          })
    {}
    ~DelayedKill()
    {
        m_cancelled = true;
        m_thread.join();
    }
    bool fired() const { return m_fired; }

private:
    std::atomic<bool> m_cancelled = false;
    std::atomic<bool> m_fired = false;
    std::thread m_thread;
};

} // namespace

class TestDaemonCrash final : public QObject
{
    Q_OBJECT

private:
    DaemonFixture m_daemon;

    // The lines of the container's log and the names of its inputs, as it has them now.
    QStringList lines(const QString &container, const QString &script)
    {
        auto read = m_daemon.runToEnd(container, shell(script));
        if (!read) {
            qWarning() << Cordon::toQt(read.error().message());
            return {QStringLiteral("<unreadable>")};
        }
        return read->value(QStringLiteral("stdout")).toString().split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    }

private Q_SLOTS:
    void cleanupTestCase() { QVERIFY(m_daemon.stop()); }

    void acknowledgedWorkSurvivesKills()
    {
        const int asked = qEnvironmentVariableIntValue("CORDON_CRASH_CYCLES");
        const int cycles = asked > 0 ? asked : 6;
        QVERIFY(m_daemon.start({QStringLiteral("--max-runs"), QStringLiteral("16")}));
        const QStringList containers{*m_daemon.createContainer(QStringLiteral("crash-a")),
                                     *m_daemon.createContainer(QStringLiteral("crash-b"))};
        const QByteArray marker = QByteArray::number(800000 + ::getpid() % 90000);
        auto background = m_daemon.runToEnd(
            containers[0], shell(QStringLiteral("sleep 300%1 &").arg(QString::fromLatin1(marker))));
        QVERIFY_RESULT(background);
        // Long enough to outlast every cycle; it prints a line every 100 ms.
        const int ticks = 30 + cycles * 20;
        auto longRun = m_daemon.call(
            QStringLiteral("run.exec"),
            {{QStringLiteral("container"), containers[0]},
             {QStringLiteral("command"),
              QJsonArray{
                  QStringLiteral("/bin/sh"), QStringLiteral("-c"),
                  QStringLiteral("i=0; while [ $i -lt %1 ]; do echo tick$i; sleep 0.1; i=$((i+1)); done; "
                                 "exit 4")
                      .arg(ticks)}}});
        QVERIFY_RESULT(longRun);
        // A workspace whose save takes a while (tens of milliseconds), so that a kill can land inside it.
        auto ballast = m_daemon.runToEnd(
            containers[1], shell(QStringLiteral("head -c 64M /dev/urandom > /mnt/data/ballast")));
        QVERIFY_RESULT(ballast);
        QCOMPARE(ballast->value(QStringLiteral("error_class")).toString(), QStringLiteral("ok"));
        const QString longRunId =
            longRun->value(QStringLiteral("run")).toObject().value(QStringLiteral("id")).toString();

        QHash<QString, QStringList> execs;   // container -> lines whose exec returned
        QHash<QString, QStringList> uploads; // container -> names whose upload was acknowledged
        int execsAcknowledged = 0;
        int uploadsAcknowledged = 0;
        int stopsAcknowledged = 0;
        for (int cycle = 0; cycle < cycles; ++cycle) {
            // Even cycles end at a random moment; odd ones inside a save, after 15 operations.
            const bool inSave = cycle % 2 == 1;
            const int killAfterMs = inSave ? 600000 : 150 + int(QRandomGenerator::global()->bounded(600));
            DelayedKill killer(m_daemon.pid(), killAfterMs);
            for (int op = 0; !killer.fired() && !(inSave && op == 15); ++op) {
                const QString &container = containers[op % 2];
                const QString tag = QStringLiteral("c%1-%2").arg(cycle).arg(op);
                if (op % 7 == 6) {
                    // A stop saves the workspace; the start restores it. Either may be cut off.
                    if (!m_daemon.call(QStringLiteral("container.stop"),
                                       {{QStringLiteral("id"), containers[1]}}))
                        break;
                    ++stopsAcknowledged;
                    if (!m_daemon.call(QStringLiteral("container.start"),
                                       {{QStringLiteral("id"), containers[1]}}))
                        break;
                } else if (op % 3 == 2) {
                    const QString name = tag + QStringLiteral(".txt");
                    auto uploaded = m_daemon.call(QStringLiteral("file.upload"),
                                                  {{QStringLiteral("container"), container},
                                                   {QStringLiteral("name"), name},
                                                   {QStringLiteral("content"), QStringLiteral("aGVsbG8K")}});
                    if (!uploaded)
                        break;
                    uploads[container].append(name);
                    ++uploadsAcknowledged;
                } else {
                    auto ran = m_daemon.runToEnd(container,
                                                 shell(QStringLiteral("echo %1 >> /mnt/data/log").arg(tag)));
                    if (!ran)
                        break;
                    if (ran->value(QStringLiteral("error_class")).toString() != QLatin1String("ok")) {
                        qWarning() << "an exec did not end ok:" << *ran;
                        continue;
                    }
                    execs[container].append(tag);
                    ++execsAcknowledged;
                }
            }
            // The stop answers at once, and the kill follows it while the save is under way.
            if (inSave && !killer.fired() &&
                m_daemon.call(QStringLiteral("container.stop"), {{QStringLiteral("id"), containers[1]}}))
                ++stopsAcknowledged;
            m_daemon.kill(); // reaps the killed daemon (or kills it, if every call failed before the thread)
            QVERIFY(m_daemon.start({QStringLiteral("--max-runs"), QStringLiteral("16")}));
            // The stopped container is started again if the kill came between its stop and its start.
            (void)m_daemon.call(QStringLiteral("container.start"), {{QStringLiteral("id"), containers[1]}});
            for (const QString &container : containers) {
                const QStringList logged = lines(container, QStringLiteral("cat /mnt/data/log 2>/dev/null"));
                const QStringList present = lines(container, QStringLiteral("ls /mnt/data/inputs"));
                for (const QString &tag : std::as_const(execs[container]))
                    QVERIFY2(logged.contains(tag),
                             qPrintable(QStringLiteral("cycle %1: the acknowledged exec %2 in %3 is gone")
                                            .arg(cycle)
                                            .arg(tag, container)));
                for (const QString &name : std::as_const(uploads[container]))
                    QVERIFY2(present.contains(name),
                             qPrintable(QStringLiteral("cycle %1: the acknowledged upload %2 in %3 is gone")
                                            .arg(cycle)
                                            .arg(name, container)));
            }
            QCOMPARE(countHostProcesses("sleep 300" + marker + " "), 1);
        }

        // The kills of the odd cycles landed inside a save, and a next daemon finished it (a 64 MiB save
        // takes far longer than the kill that follows the stop's answer).
        auto resumed = m_daemon.call(QStringLiteral("history.events"),
                                     {{QStringLiteral("container"), containers[1]},
                                      {QStringLiteral("kind"), QStringLiteral("workspace.save_resumed")}});
        QVERIFY_RESULT(resumed);
        QVERIFY2(resumed->value(QStringLiteral("total")).toInteger() >= 1,
                 "no kill landed inside a save: the test did not test that");

        auto ended =
            m_daemon.call(QStringLiteral("run.wait"), {{QStringLiteral("run_id"), longRunId}}, 120000);
        QVERIFY_RESULT(ended);
        const QJsonObject run = ended->value(QStringLiteral("run")).toObject();
        QCOMPARE(run.value(QStringLiteral("state")).toString(), QStringLiteral("finished"));
        QCOMPARE(run.value(QStringLiteral("exit_code")).toInt(), 4);
        QStringList expected;
        for (int i = 0; i < ticks; ++i)
            expected.append(QStringLiteral("tick%1").arg(i));
        QCOMPARE(run.value(QStringLiteral("stdout")).toString(),
                 expected.join(QLatin1Char('\n')) + QLatin1Char('\n'));

        auto store = Cordon::Store::HistoryStore::open(Cordon::toQt(Cordon::Containers::dataDirectory()) +
                                                       QStringLiteral("/history.db"));
        QVERIFY_RESULT(store);
        auto intact = (*store)->integrityCheck();
        QVERIFY_RESULT(intact);
        QVERIFY(*intact);
        // The figure docs/benchmarks.md quotes; every one of them was checked above.
        qInfo("%d kills: %d acknowledged execs, %d acknowledged uploads, %d stops: 0 lost", cycles,
              execsAcknowledged, uploadsAcknowledged, stopsAcknowledged);
        for (const QString &container : containers)
            QVERIFY_RESULT(
                m_daemon.call(QStringLiteral("container.delete"), {{QStringLiteral("id"), container}}));
        QTRY_COMPARE_WITH_TIMEOUT(countHostProcesses("sleep 300" + marker + " "), 0, 5000);
    }
};

CORDON_SANDBOX_TEST_MAIN(TestDaemonCrash)
#include "tst_daemoncrash.moc"
