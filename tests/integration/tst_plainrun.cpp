// SPDX-License-Identifier: MIT
// `cordon run`, which the `cordon` launcher runs itself, without Qt (app/cordon-launcher/runcommand.h, the
// sandbox library's one-shot run): it must need nothing but cordon-init, leave nothing behind, contain every
// attack the engine's runs contain, and end each run as the engine classes it.
#include "cliprocess.h"
#include "sandboxtest.h"

#include <QDir>
#include <QElapsedTimer>
#include <QProcess>
#include <QRegularExpression>
#include <QTcpServer>
#include <QTemporaryDir>

#include <csignal>

using namespace CordonTest;

namespace {

CliResult plainRun(const QStringList &command)
{
    return runProgram(builtProgram(QStringLiteral("cordon")),
                      QStringList{QStringLiteral("run"), QStringLiteral("--")} + command);
}

QStringList entriesOf(const QString &path)
{
    return QDir(path).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden | QDir::System);
}

} // namespace

class TestPlainRun final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void needsNothingButCordonInit()
    {
        // The launcher and cordon-init alone: every `cordon run` works, options included. So none went
        // through Qt at all.
        QTemporaryDir dir;
        for (const char *program : {"cordon", "cordon-init"})
            QVERIFY(QFile::copy(builtProgram(QString::fromLatin1(program)),
                                dir.filePath(QString::fromLatin1(program))));
        for (const char *program : {"cordon", "cordon-init"})
            QVERIFY(QFile::setPermissions(dir.filePath(QString::fromLatin1(program)),
                                          QFileDevice::ReadOwner | QFileDevice::ExeOwner));
        const QString launcher = dir.filePath(QStringLiteral("cordon"));
        const CliResult plain =
            runProgram(launcher, {QStringLiteral("run"), QStringLiteral("--"), QStringLiteral("sh"),
                                  QStringLiteral("-c"), QStringLiteral("echo out; echo err >&2; exit 4")});
        QCOMPARE(plain.status, 4);
        QCOMPARE(plain.out, QByteArray("out\n"));
        QVERIFY2(plain.err.startsWith("err\ncordon: nonzero_exit (exit 4): "), plain.err);
        QVERIFY2(plain.err.contains("peak memory"), plain.err);
        // No `--` is needed before a command that is not an option.
        QCOMPARE(runProgram(launcher, {QStringLiteral("run"), QStringLiteral("true")}).status, 0);

        const CliResult json =
            runProgram(launcher, {QStringLiteral("run"), QStringLiteral("--json"), QStringLiteral("--"),
                                  QStringLiteral("echo"), QStringLiteral("hi")});
        QCOMPARE(json.status, 0);
        QVERIFY2(json.out.contains("\"error_class\": \"ok\"") && json.out.contains("\"stdout\": \"hi\\n\""),
                 json.out);
        const CliResult piped =
            runProgram(launcher,
                       {QStringLiteral("run"), QStringLiteral("--stdin"), QStringLiteral("--memory"),
                        QStringLiteral("1g"), QStringLiteral("--"), QStringLiteral("cat")},
                       "piped\n");
        QCOMPARE(piped.status, 0);
        QCOMPARE(piped.out, QByteArray("piped\n"));
    }

    void statusMirrorsTheRun_data()
    {
        QTest::addColumn<QStringList>("command");
        QTest::addColumn<int>("status");
        QTest::newRow("ok") << sh(QStringLiteral("echo out; echo err >&2")) << 0;
        QTest::newRow("nonzero exit") << sh(QStringLiteral("exit 7")) << 7;
        QTest::newRow("signal") << sh(QStringLiteral("kill -TERM $$")) << 128 + 15;
        QTest::newRow("no such program") << QStringList{QStringLiteral("/nonexistent/program")} << 127;
        QTest::newRow("not executable") << QStringList{QStringLiteral("/etc/hostname")} << 126;
        // 20 MiB against the default 16 MiB cap: cut, and the cut reported.
        QTest::newRow("output flood") << sh(QStringLiteral("head -c 20971520 /dev/zero | tr '\\0' x")) << 0;
        // A process left behind when the run's own process exits does not hold the run open.
        QTest::newRow("background process") << sh(QStringLiteral("sleep 300 & echo started")) << 0;
        // The default 1g tier: an OOM kill, reported as such.
        QTest::newRow("memory bomb") << python(
                                            QStringLiteral("b = []\nwhile True: b.append(b'x' * (64 << 20))"))
                                     << 128 + 9;
        // The pids limit (256) contains a fork bomb: the shell's fork fails (dash exits 2 on that), and the
        // run ends although its processes are still there (they are killed).
        QTest::newRow("fork bomb")
            << sh(QStringLiteral("i=0; while [ $i -lt 400 ]; do sleep 30 & i=$((i+1)); done 2>/dev/null; "
                                 "echo forked"))
            << 2;
    }

    void statusMirrorsTheRun()
    {
        QFETCH(QStringList, command);
        QFETCH(int, status);
        const CliResult plain = plainRun(command);
        QVERIFY2(plain.status == status, plain.err.right(2000));
        QVERIFY2(plain.err.contains("cordon: wall "), plain.err.right(2000));
    }

    void endsAsTheEngineClassesIt()
    {
        const CliResult flood = plainRun(sh(QStringLiteral("head -c 20971520 /dev/zero")));
        QCOMPARE(flood.out.size(), 16 * 1024 * 1024);
        QVERIFY2(flood.err.contains("cordon: stdout was cut at 16 MiB (the run wrote 20 MiB)"), flood.err);
        const CliResult oom =
            plainRun(python(QStringLiteral("b = []\nwhile True: b.append(b'x' * (64 << 20))")));
        QVERIFY2(oom.err.contains("cordon: oom (signal 9)"), oom.err);
        const CliResult forkBomb = plainRun(
            sh(QStringLiteral("i=0; while [ $i -lt 400 ]; do sleep 30 & i=$((i+1)); done 2>/dev/null")));
        QVERIFY2(forkBomb.err.contains("cordon: contained: the process limit of 256 refused "), forkBomb.err);
        const CliResult missing = plainRun({QStringLiteral("/nonexistent/program")});
        QVERIFY2(missing.err.contains(
                     "cordon: nonzero_exit (exit 127): executable not found: `/nonexistent/program` "
                     "does not exist in the container"),
                 missing.err);
    }

    void setupFailureIsNamed()
    {
        // A cordon-init that takes both requests and exits without setting anything up: the run ends with
        // that named, and the status says it never ran.
        QTemporaryDir dir;
        const QString init = dir.filePath(QStringLiteral("cordon-init"));
        QFile script(init);
        QVERIFY(script.open(QIODevice::WriteOnly));
        script.write("#!/bin/sh\nsleep 0.2\nexit 3\n");
        script.close();
        QVERIFY(script.setPermissions(QFileDevice::ReadOwner | QFileDevice::ExeOwner));
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("CORDON_INIT"), init);
        const QStringList arguments{QStringLiteral("run"), QStringLiteral("--"), QStringLiteral("true")};
        const CliResult plain =
            runProgram(builtProgram(QStringLiteral("cordon")), arguments, {}, environment);
        QCOMPARE(plain.status, 125);
        QVERIFY2(
            plain.err.startsWith("cordon: setup_failed (cordon-init exited before finishing setup (exit code "
                                 "3)): "),
            plain.err);
    }

    // The attacks of tst_isolation that a shell inside can make, through the plain path: each must fail.
    void containsAttacks_data()
    {
        QTest::addColumn<QString>("script");
        QTest::newRow("read /etc/shadow") << QStringLiteral("cat /etc/shadow");
        // Any entry of the host's /root or /home listed is an escape.
        QTest::newRow("read the host's home") << QStringLiteral("ls -A /root /home 2>/dev/null | grep -q .");
        QTest::newRow("write /usr") << QStringLiteral("touch /usr/cordon-was-here");
        QTest::newRow("mount") << QStringLiteral("mount -t tmpfs none /tmp");
        QTest::newRow("new user namespace") << QStringLiteral("unshare -U true");
        QTest::newRow("device node") << QStringLiteral("mknod /tmp/sda b 8 0");
        QTest::newRow("write /proc/sys") << QStringLiteral("echo 1 > /proc/sys/kernel/sysrq");
        // The pid namespace shows cordon-init, the shell and ls: more would be the host's.
        QTest::newRow("host processes")
            << QStringLiteral("n=$(ls -d /proc/[0-9]* | wc -l); [ \"$n\" -gt 5 ]");
        QTest::newRow("DNS") << QStringLiteral("getent hosts debian.org");
    }

    void containsAttacks()
    {
        QFETCH(QString, script);
        const CliResult result = plainRun(sh(script));
        QVERIFY2(result.status != 0 && result.status != 125, result.err);
        QVERIFY2(result.err.contains("cordon: nonzero_exit"), result.err);
    }

    // The seccomp program of the plain path, attacked with calls that the sandbox filter answers EPERM (and
    // that would get another errno, or succeed, without it): the same program as every engine run installs.
    void seccompDeniesTheTable_data()
    {
        QTest::addColumn<QString>("call"); // syscall number and arguments, x86_64
        QTest::newRow("keyctl") << QStringLiteral("250, 0, -3, 0, 0, 0");
        QTest::newRow("bpf") << QStringLiteral("321, 0xffff, 0, 0, 0, 0");
        QTest::newRow("io_uring_setup") << QStringLiteral("425, 0, 0, 0, 0, 0");
        QTest::newRow("perf_event_open") << QStringLiteral("298, 0, 0, -1, -1, 0");
        QTest::newRow("userfaultfd") << QStringLiteral("323, 3, 0, 0, 0, 0");
        QTest::newRow("ptrace attach PID 1") << QStringLiteral("101, 16, 1, 0, 0, 0");
        QTest::newRow("unshare user namespace") << QStringLiteral("272, 0x10000000, 0, 0, 0, 0");
        QTest::newRow("setns") << QStringLiteral("308, 0, 0, 0, 0, 0");
        QTest::newRow("mount") << QStringLiteral("165, 0, 0, 0, 0, 0");
        QTest::newRow("TIOCSTI") << QStringLiteral("16, 0, 0x5412, 0, 0, 0");
        QTest::newRow("raw packet socket") << QStringLiteral("41, 17, 3, 0, 0, 0");
        QTest::newRow("kexec_load") << QStringLiteral("246, 0, 0, 0, 0, 0");
    }

    void seccompDeniesTheTable()
    {
        QFETCH(QString, call);
        const QString script = QStringLiteral("import ctypes, errno, sys\n"
                                              "libc = ctypes.CDLL(None, use_errno=True)\n"
                                              "r = libc.syscall(%1)\n"
                                              "e = ctypes.get_errno()\n"
                                              "print(r, errno.errorcode.get(e, e))\n"
                                              "sys.exit(%2 if r == -1 and e == errno.EPERM else 1)\n")
                                   .arg(call)
                                   .arg(Contained);
        const CliResult result = plainRun(python(script));
        QVERIFY2(result.status == Contained, result.describe());
        QCOMPARE(result.out, QByteArray("-1 EPERM\n"));
    }

    void inheritsNoDescriptors()
    {
        // Only the run's stdin, stdout and stderr (and ls's own directory) are open inside.
        const CliResult result = plainRun(sh(QStringLiteral("ls /proc/self/fd")));
        QCOMPARE(result.status, 0);
        QCOMPARE(result.out, QByteArray("0\n1\n2\n3\n"));
    }

    void cannotReachTheHostsLoopback()
    {
        QTcpServer server;
        QVERIFY(server.listen(QHostAddress::LocalHost));
        const QString script = QStringLiteral("import socket\n"
                                              "s = socket.create_connection(('127.0.0.1', %1), timeout=2)\n"
                                              "s.sendall(b'escaped')\n")
                                   .arg(server.serverPort());
        const CliResult result = plainRun(python(script));
        QCOMPARE(result.status, 1);
        QVERIFY2(result.err.contains("ConnectionRefusedError"), result.err);
        QVERIFY(!server.waitForNewConnection(200));
    }

    void ctrlCCancelsAndCleansUp()
    {
        const QString containers =
            QString::fromLocal8Bit(qgetenv("CORDON_DATA_DIR")) + QStringLiteral("/containers");
        const QStringList before = entriesOf(containers);
        QProcess process;
        process.setProgram(builtProgram(QStringLiteral("cordon")));
        process.setArguments({QStringLiteral("run"), QStringLiteral("--"), QStringLiteral("sh"),
                              QStringLiteral("-c"), QStringLiteral("echo started; sleep 60")});
        QElapsedTimer clock;
        clock.start();
        process.start();
        QVERIFY(process.waitForStarted(5000) && process.waitForReadyRead(10000));
        ::kill(static_cast<pid_t>(process.processId()), SIGINT);
        QVERIFY(process.waitForFinished(20000));
        QVERIFY2(clock.elapsed() < 20000, "the run was not cancelled");
        QCOMPARE(process.exitStatus(), QProcess::NormalExit);
        QCOMPARE(process.exitCode(), 128 + 9);
        const QByteArray err = process.readAllStandardError();
        QVERIFY2(err.contains("cordon: killed (signal 9)"), err);
        QVERIFY2(err.contains("cordon: note: cancelled"), err);
        QCOMPARE(entriesOf(containers), before);
    }

    void leavesNothingBehind()
    {
        const QString containers =
            QString::fromLocal8Bit(qgetenv("CORDON_DATA_DIR")) + QStringLiteral("/containers");
        const QStringList before = entriesOf(containers);
        QCOMPARE(plainRun(sh(QStringLiteral("echo x > /mnt/data/outputs/a; mkdir -p /mnt/data/d/e; "
                                            "chmod 000 /mnt/data/d; sleep 300 &")))
                     .status,
                 0);
        QCOMPARE(entriesOf(containers), before);
    }
};

CORDON_SANDBOX_TEST_MAIN(TestPlainRun)
#include "tst_plainrun.moc"
