// SPDX-License-Identifier: MIT
// Real runs in real sandboxes: code in, files in and out, exit statuses, and every limit ending the way the
// outcome says it did.
#include "hostprocesses.h"
#include "sandboxtest.h"
#include "testutil.h"

#include "containers/container.h"

#include <QCryptographicHash>
#include <QDir>
#include <QDirIterator>
#include <QFile>

#include <csignal>
#include <dirent.h>
#include <unistd.h>

using namespace CordonTest;
using Cordon::Containers::ErrorClass;

namespace {

QByteArray sha256Hex(const QByteArray &data)
{
    return QCryptographicHash::hash(data, QCryptographicHash::Sha256).toHex();
}

// Host processes whose command line contains `needle` (to prove a timeout left nothing behind).
} // namespace

class TestRuns final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void pythonWithInputsAndOutputs()
    {
        QTemporaryDir host;
        const QString input = host.filePath(QStringLiteral("numbers.csv"));
        QFile file(input);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("3\n4\n5\n");
        file.close();

        Cordon::Containers::OneShotRequest request;
        request.policy = testPolicy();
        request.inputs = {input};
        request.outputDirectory = host.filePath(QStringLiteral("out"));
        request.command =
            python(QStringLiteral("import os\n"
                                  "total = sum(int(l) for l in open('/mnt/data/inputs/numbers.csv'))\n"
                                  "open('/mnt/data/outputs/total.txt', 'w').write(str(total))\n"
                                  "os.makedirs('/mnt/data/outputs/nested')\n"
                                  "open('/mnt/data/outputs/nested/cwd.txt', 'w').write(os.getcwd())\n"
                                  "print('total', total)\n"));
        const auto outcome = Cordon::Containers::runToCompletion(std::move(request));
        QVERIFY2(outcome.errorClass == ErrorClass::Ok, describe(outcome));
        QCOMPARE(outcome.exitCode, 0);
        QCOMPARE(outcome.stdoutData, QByteArray("total 12\n"));

        QFile total(host.filePath(QStringLiteral("out/total.txt")));
        QVERIFY(total.open(QIODevice::ReadOnly));
        QCOMPARE(total.readAll(), QByteArray("12"));
        QFile cwd(host.filePath(QStringLiteral("out/nested/cwd.txt")));
        QVERIFY(cwd.open(QIODevice::ReadOnly));
        QCOMPARE(cwd.readAll(), QByteArray("/mnt/data"));
        QCOMPARE(outcome.artifacts.size(), 2);
        bool found = false;
        for (const auto &artifact : outcome.artifacts) {
            if (artifact.path == QLatin1String("total.txt")) {
                found = true;
                QCOMPARE(artifact.sha256.toLatin1(), sha256Hex("12"));
                QCOMPARE(artifact.size, 2);
            }
        }
        QVERIFY(found);
    }

    void shellWithStdin()
    {
        const auto outcome =
            run(sh(QStringLiteral("tr a-z A-Z; echo done >&2")), testPolicy(), QByteArray("hello sandbox\n"));
        QVERIFY2(outcome.errorClass == ErrorClass::Ok, describe(outcome));
        QCOMPARE(outcome.stdoutData, QByteArray("HELLO SANDBOX\n"));
        QCOMPARE(outcome.stderrData, QByteArray("done\n"));
    }

    void exitStatusIsMirrored()
    {
        const auto outcome = run(sh(QStringLiteral("exit 7")));
        QCOMPARE(outcome.errorClass, ErrorClass::NonzeroExit);
        QCOMPARE(outcome.exitCode, 7);
        QCOMPARE(outcome.shellStatus(), 7);
    }

    void signalIsReported()
    {
        const auto outcome = run(sh(QStringLiteral("kill -SEGV $$")));
        QCOMPARE(outcome.errorClass, ErrorClass::Killed);
        QCOMPARE(outcome.signal, SIGSEGV);
        QCOMPARE(outcome.shellStatus(), 128 + SIGSEGV);
    }

    // The sandbox is up; the program is not there: exit 127 with the reason, as a shell says it.
    void missingProgramEndsWithStatus127()
    {
        const auto outcome = run({QStringLiteral("/usr/bin/no-such-program")});
        QCOMPARE(outcome.errorClass, ErrorClass::NonzeroExit);
        QCOMPARE(outcome.exitCode, 127);
        QCOMPARE(outcome.shellStatus(), 127);
        QVERIFY2(
            outcome.message.startsWith(QLatin1String("executable not found: `/usr/bin/no-such-program`")),
            qPrintable(outcome.message));
        QVERIFY(outcome.setupStage.isEmpty());
    }

    void badMountIsASetupFailureNamingThePath()
    {
        auto policy = testPolicy();
        policy.mounts.push_back({"/nonexistent/cordon-dataset", "/mnt/datasets", true});
        const auto outcome = run({QStringLiteral("/bin/true")}, policy);
        QCOMPARE(outcome.errorClass, ErrorClass::SetupFailed);
        QVERIFY2(outcome.message.contains(QLatin1String("/nonexistent/cordon-dataset")),
                 qPrintable(outcome.message));
        QCOMPARE(outcome.setupErrno, ENOENT);
    }

    void memoryBombEndsAsOom()
    {
        auto policy = testPolicy();
        policy.memoryLimitBytes = 128LL * 1024 * 1024;
        const auto outcome =
            run(python(QStringLiteral("b = []\nwhile True: b.append(bytearray(16 * 1024 * 1024))")), policy);
        QVERIFY2(outcome.errorClass == ErrorClass::Oom, describe(outcome));
        QCOMPARE(outcome.signal, SIGKILL);
        QVERIFY(outcome.oomKills >= 1);
        // The peak reached the limit (it is what stopped the run) and went no further than accounting slack.
        QVERIFY2(outcome.peakMemoryBytes >= policy.memoryLimitBytes / 2 &&
                     outcome.peakMemoryBytes <= policy.memoryLimitBytes * 11 / 10,
                 qPrintable(QString::number(outcome.peakMemoryBytes)));
        // The host (this process) is unaffected and the next run works.
        QCOMPARE(run(sh(QStringLiteral("echo alive"))).stdoutData, QByteArray("alive\n"));
    }

    // The workspace is a tmpfs charged to the container's memory cgroup: files and processes share the memory
    // limit, so a workspace_mb larger than the memory cannot be filled past it, and the host's memory stays
    // bounded by the tier. Writing past the memory ends in the OOM killer, never in the host's memory.
    void workspaceFilesCountTowardTheMemoryLimit()
    {
        auto policy = testPolicy();
        policy.memoryLimitBytes = 128LL * 1024 * 1024;
        policy.limits.workspaceMb = 1024;
        const auto outcome =
            run(sh(QStringLiteral("i=0; while [ $i -lt 40 ]; do "
                                  "dd if=/dev/zero of=/mnt/data/f$i bs=1M count=8 2>/dev/null || exit 3; "
                                  "i=$((i+1)); done; echo all written")),
                policy);
        QVERIFY2(outcome.errorClass == ErrorClass::Oom, describe(outcome));
        QVERIFY(!outcome.stdoutData.contains("all written"));
        QVERIFY2(outcome.peakMemoryBytes <= policy.memoryLimitBytes * 11 / 10,
                 qPrintable(QString::number(outcome.peakMemoryBytes)));
    }

    void forkBombIsContainedByThePidsLimit()
    {
        auto policy = testPolicy();
        policy.limits.pids = 24;
        const auto outcome = run(python(QStringLiteral("import os, time\n"
                                                       "n = 0\n"
                                                       "try:\n"
                                                       "    while n < 1000:\n"
                                                       "        if os.fork() == 0:\n"
                                                       "            time.sleep(30); os._exit(0)\n"
                                                       "        n += 1\n"
                                                       "except OSError as e:\n"
                                                       "    print(n, e.errno)\n")),
                                 policy);
        QVERIFY2(outcome.errorClass == ErrorClass::Ok, describe(outcome));
        const QList<QByteArray> fields = outcome.stdoutData.trimmed().split(' ');
        QCOMPARE(fields.size(), 2);
        QVERIFY2(fields[0].toInt() < 24, outcome.stdoutData);
        QCOMPARE(fields[1].toInt(), EAGAIN);
        // The kernel's own count says the limit held (pids.events), so the run can report it.
        QVERIFY2(outcome.pidsLimitHits >= 1, describe(outcome));
        QCOMPARE(outcome.pidsLimit, 24);
        QCOMPARE(outcome.toJson().value(QStringLiteral("pids_limit_hits")).toInteger(),
                 outcome.pidsLimitHits);
    }

    void timeoutKillsTheWholeTree()
    {
        auto policy = testPolicy();
        policy.limits.runTimeoutS = 1;
        // Durations unique to this test process: the same test may run in parallel as another user.
        const QByteArray first = QByteArray::number(900000 + ::getpid() % 50000);
        const QByteArray second = QByteArray::number(950000 + ::getpid() % 50000);
        const auto outcome = run(sh(QStringLiteral("sleep %1 & (sleep %2 &) ; echo started; wait")
                                        .arg(QString::fromLatin1(first), QString::fromLatin1(second))),
                                 policy);
        QCOMPARE(outcome.errorClass, ErrorClass::Timeout);
        QCOMPARE(outcome.stdoutData, QByteArray("started\n"));
        QVERIFY2(outcome.wallMs < 10000, qPrintable(QString::number(outcome.wallMs)));
        QCOMPARE(countHostProcesses("sleep " + first), 0);
        QCOMPARE(countHostProcesses("sleep " + second), 0);
    }

    void outputFloodIsCapped()
    {
        auto policy = testPolicy();
        policy.limits.outputMb = 1;
        const auto outcome = run(
            python(QStringLiteral("import sys\nfor _ in range(40): sys.stdout.write('x' * (512 * 1024))\n")),
            policy);
        QVERIFY2(outcome.errorClass == ErrorClass::Ok, describe(outcome));
        QVERIFY(outcome.stdoutTruncated);
        QCOMPARE(outcome.stdoutData.size(), 1024 * 1024);
        QCOMPARE(outcome.stdoutBytes, 40LL * 512 * 1024);
        QVERIFY(!outcome.stderrTruncated);
    }

    void environmentIsClean()
    {
        qputenv("CORDON_TEST_API_KEY", "sk-secret-value");
        auto policy = testPolicy();
        policy.env.emplace("GREETING", "hi");
        const auto outcome = run({QStringLiteral("/usr/bin/env")}, policy);
        QVERIFY2(outcome.errorClass == ErrorClass::Ok, describe(outcome));
        QVERIFY(!outcome.stdoutData.contains("sk-secret-value"));
        QVERIFY(!outcome.stdoutData.contains("CORDON_TEST_API_KEY"));
        QVERIFY(outcome.stdoutData.contains("GREETING=hi\n"));
        QVERIFY(outcome.stdoutData.contains("HOME=/mnt/data\n"));
        QVERIFY(outcome.stdoutData.contains("PATH=/usr/local/bin:/usr/bin:/bin\n"));
    }

    void workspaceIsRemovedAfterTheRun()
    {
        const auto outcome = run(sh(QStringLiteral("echo data > /mnt/data/scratch.txt")));
        QVERIFY2(outcome.errorClass == ErrorClass::Ok, describe(outcome));
        const QDir containers(Cordon::toQt(Cordon::Containers::dataDirectory()) +
                              QStringLiteral("/containers"));
        QCOMPARE(containers.entryList(QDir::AllEntries | QDir::NoDotAndDotDot), QStringList());
    }

    void oneShotContainersTakeNoCodeRuns()
    {
        // A one-shot run has no code/ directory and no /mnt/code mount.
        const auto outcome = run(sh(QStringLiteral("test -e /mnt/code && exit 1; exit 0")));
        QVERIFY2(outcome.errorClass == ErrorClass::Ok, describe(outcome));
    }

    void measuresCpuTime()
    {
        const auto outcome = run(python(QStringLiteral("x = 0\nfor i in range(3_000_000): x += i\n")));
        QVERIFY2(outcome.errorClass == ErrorClass::Ok, describe(outcome));
        QVERIFY(outcome.cpuMs > 0);
        QVERIFY(outcome.wallMs >= outcome.cpuMs / 2);
        QVERIFY(outcome.peakMemoryBytes > 1024 * 1024);
    }
};

CORDON_SANDBOX_TEST_MAIN(TestRuns)
#include "tst_runs.moc"
