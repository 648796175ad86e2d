// SPDX-License-Identifier: MIT
// The daemon-backed `cordon` commands as a user runs them: a real cordond (on a private socket, its idle
// clock 600 times faster), the real CLI as a separate process, real containers; exit statuses, stdout and
// the messages on stderr.
#include "cliprocess.h"
#include "daemon/daemonclient.h"
#include "sandboxtest.h"
#include "testutil.h"

#include <QCryptographicHash>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QTemporaryDir>
#include <QTemporaryFile>
#include <QThread>

#include <csignal>
#include <fcntl.h>
#include <sys/stat.h>

using namespace CordonTest;

namespace {

QString cordonPath()
{
    return QCoreApplication::applicationDirPath() + QStringLiteral("/cordon");
}

// The full Qt CLI that `cordon` (a launcher without Qt) runs for everything but a plain exec.
QString fullCliPath()
{
    return QCoreApplication::applicationDirPath() + QStringLiteral("/cordon-cli");
}

// What differs between two runs of the same command: run ids, times and memory.
QByteArray normalized(QByteArray text)
{
    static const QRegularExpression runId(QStringLiteral("run [0-9a-f]{16}"));
    static const QRegularExpression logs(QStringLiteral("logs [0-9a-f]{16}"));
    static const QRegularExpression usage(QStringLiteral("wall \\d+ ms, cpu \\d+ ms, peak memory [^\\n]*"));
    QString result = QString::fromUtf8(text);
    result.replace(runId, QStringLiteral("run RUN"));
    result.replace(logs, QStringLiteral("logs RUN"));
    result.replace(usage, QStringLiteral("USAGE"));
    return result.toUtf8();
}

QString sha256Hex(const QByteArray &data)
{
    return QString::fromLatin1(QCryptographicHash::hash(data, QCryptographicHash::Sha256).toHex());
}

QByteArray readFile(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray("<unreadable>");
}

// The executable a running process is, and what it has mapped.
std::pair<QByteArray, QByteArray> imageOf(const QProcess &process)
{
    const QString proc = QStringLiteral("/proc/%1/").arg(process.processId());
    return {QFile::symLinkTarget(proc + QStringLiteral("exe")).toUtf8(),
            readFile(proc + QStringLiteral("maps"))};
}

bool writeFile(const QString &path, const QByteArray &content)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(content) == content.size();
}

} // namespace

class TestDaemonCli final : public QObject
{
    Q_OBJECT

private:
    // Short on purpose: a unix socket path has to fit in 108 bytes.
    QTemporaryDir m_socketDir{QDir::tempPath() + QStringLiteral("/cdcli-XXXXXX")};
    QProcess m_daemon;
    QString m_container; // the long-lived container most tests share
    QString m_backgroundPid;
    // `cordon` copied alone, without cordon-cli beside it: it can only do what it does without Qt.
    QTemporaryDir m_loneDir{QDir::tempPath() + QStringLiteral("/cdlone-XXXXXX")};

    // `program exec CTR -- /bin/sh -c script` started, once the script said "started".
    bool startRun(QProcess &process, const QString &program, const QString &script)
    {
        process.setProgram(program);
        process.setArguments({QStringLiteral("exec"), m_container, QStringLiteral("--"),
                              QStringLiteral("/bin/sh"), QStringLiteral("-c"), script});
        process.start();
        return process.waitForStarted(5000) && process.waitForReadyRead(10000) &&
               process.readAllStandardOutput() == "started\n";
    }

    QString loneLauncher()
    {
        const QString path = m_loneDir.filePath(QStringLiteral("cordon"));
        if (!QFileInfo::exists(path) && !QFile::copy(cordonPath(), path))
            return {};
        QFile::setPermissions(path, QFileDevice::ReadOwner | QFileDevice::ExeOwner);
        return path;
    }

    CliResult exec(const QStringList &command, const QByteArray &input = {})
    {
        return cordon(QStringList{QStringLiteral("exec"), m_container, QStringLiteral("--")} + command,
                      input);
    }

    CliResult sh(const QString &script)
    {
        return exec({QStringLiteral("/bin/sh"), QStringLiteral("-c"), script});
    }

    QJsonObject containerJson(const QString &id)
    {
        return cordon({QStringLiteral("inspect"), QStringLiteral("--json"), id})
            .json()
            .value(QStringLiteral("container"))
            .toObject();
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_socketDir.isValid());
        const QString daemon = QCoreApplication::applicationDirPath() + QStringLiteral("/cordond");
        QVERIFY2(
            QFileInfo(daemon).isExecutable(),
            qPrintable(QStringLiteral("cordond is missing beside this test (%1): build the cordond target, "
                                      "and make tests/run-unprivileged.sh copy it")
                           .arg(daemon)));
        qputenv("CORDON_SOCKET", QFile::encodeName(m_socketDir.filePath(QStringLiteral("d.sock"))));
        // Every command must talk to the daemon started here: one the CLI started by itself would have the
        // wrong clock and hide a crash of this one.
        qputenv("CORDON_DAEMON", "/nonexistent/cordond");

        m_daemon.setProgram(daemon);
        m_daemon.setArguments(args({"--time-scale", "600", "--expiring-soon", "1"}));
        const CliResult status = startDaemonAndWait(m_daemon);
        QVERIFY2(status.status == 0, status.describe());
        QVERIFY2(status.out.contains("time scale:  600"), status.out);

        // Idle for a week on a 600x clock: ~17 minutes, longer than this test.
        const CliResult created = cordon(args({"create", "--name", "main", "--idle", "7d"}));
        QVERIFY2(created.status == 0, created.describe());
        m_container = QString::fromUtf8(created.out).trimmed();
        QVERIFY2(QRegularExpression(QStringLiteral("^[0-9a-f]{16}$")).match(m_container).hasMatch(),
                 created.out);
    }

    void cleanupTestCase()
    {
        const CliResult kept = cordon(args({"create", "--name", "kept-at-stop"}));
        QVERIFY2(kept.status == 0, kept.describe());
        const QString keptId = QString::fromUtf8(kept.out).trimmed();
        const CliResult stopped = cordon(args({"daemon", "stop"}));
        const bool exited = m_daemon.waitForFinished(30000);
        if (!exited) {
            m_daemon.kill();
            m_daemon.waitForFinished(5000);
        }
        QVERIFY2(stopped.status == 0, stopped.describe());
        QVERIFY2(stopped.out.contains("stopped"), stopped.out);
        // Until when each container's files are kept, said for the container the tests used.
        QVERIFY2(
            stopped.out.contains((keptId + QStringLiteral(" (kept-at-stop): files kept until ")).toUtf8()),
            stopped.out);
        QVERIFY(exited);
    }

    void helpForEveryCommand_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QByteArray>("usage");
        for (const char *command : {"create", "ls", "inspect", "exec", "cp", "files", "rm", "stop", "start",
                                    "keepalive", "logs", "history", "events"})
            QTest::newRow(command) << QStringList{QString::fromUtf8(command), QStringLiteral("--help")}
                                   << QByteArray("usage: cordon ") + command;
        QTest::newRow("files rm") << args({"files", "rm", "--help"}) << QByteArray("usage: cordon files rm");
        QTest::newRow("history purge")
            << args({"history", "purge", "--help"}) << QByteArray("usage: cordon history purge");
        QTest::newRow("daemon") << args({"daemon", "--help"}) << QByteArray("usage: cordon daemon");
        for (const char *action : {"status", "start", "stop", "time-scale"})
            QTest::newRow(action) << QStringList{QStringLiteral("daemon"), QString::fromUtf8(action),
                                                 QStringLiteral("--help")}
                                  << QByteArray("usage: cordon daemon ") + action;
        QTest::newRow("top") << args({"--help"}) << QByteArray("exec");
    }

    void helpForEveryCommand()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QByteArray, usage);
        const CliResult result = cordon(arguments);
        QVERIFY2(result.status == 0, result.describe());
        QVERIFY2(result.out.contains(usage), result.out);
        QVERIFY(result.err.isEmpty());
    }

    void badArgumentsExitTwo_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QByteArray>("message");
        QTest::newRow("exec without container") << args({"exec"}) << QByteArray("no container given");
        QTest::newRow("exec without command") << args({"exec", "abc"}) << QByteArray("no command given");
        QTest::newRow("exec code without language")
            << args({"exec", "--code", "print(1)", "abc"}) << QByteArray("--code needs --language");
        QTest::newRow("exec unknown language")
            << args({"exec", "--language", "ruby", "--code", "1", "abc"}) << QByteArray("unknown --language");
        QTest::newRow("exec bad timeout")
            << args({"exec", "--timeout", "soon", "abc", "true"}) << QByteArray("`soon` is not a duration");
        QTest::newRow("create bad memory") << args({"create", "--memory", "3g"}) << QByteArray("--memory");
        QTest::newRow("create bad idle")
            << args({"create", "--idle", "90s"}) << QByteArray("not a whole number of minutes");
        QTest::newRow("create missing policy")
            << args({"create", "--policy", "/nonexistent/p.json"}) << QByteArray("/nonexistent/p.json");
        QTest::newRow("ls extra") << args({"ls", "extra"}) << QByteArray("unexpected argument `extra`");
        QTest::newRow("unknown option") << args({"ls", "--frobnicate"}) << QByteArray("frobnicate");
        QTest::newRow("ls two formats") << args({"ls", "-q", "--names"}) << QByteArray("only one of");
        QTest::newRow("inspect two") << args({"inspect", "a", "b"}) << QByteArray("exactly one");
        QTest::newRow("cp one side") << args({"cp", "x"}) << QByteArray("give a source and a destination");
        QTest::newRow("cp no container")
            << args({"cp", "a", "b"}) << QByteArray("neither side names a container");
        QTest::newRow("files bad scope")
            << args({"files", "--scope", "etc", "abc"}) << QByteArray("unknown --scope `etc`");
        QTest::newRow("rm nothing") << args({"rm"}) << QByteArray("at least one container");
        QTest::newRow("history bad class")
            << args({"history", "--class", "weird"}) << QByteArray("unknown --class `weird`");
        QTest::newRow("history bad limit") << args({"history", "--limit", "0"}) << QByteArray("--limit");
        QTest::newRow("purge without age") << args({"history", "purge"}) << QByteArray("--older-than");
        // Everything that has ended, asked from no terminal: it must be said with --yes.
        QTest::newRow("purge everything unasked")
            << args({"history", "purge", "--older-than", "0d"}) << QByteArray("add --yes to mean it");
        QTest::newRow("events bad limit") << args({"events", "--limit", "9999"}) << QByteArray("--limit");
        QTest::newRow("daemon unknown")
            << args({"daemon", "reload"}) << QByteArray("unknown action `reload`");
        QTest::newRow("daemon restart stray")
            << args({"daemon", "restart", "--max-runs", "4"}) << QByteArray("Unknown option 'max-runs'");
        QTest::newRow("time scale") << args({"daemon", "time-scale", "0"}) << QByteArray("1 to 3600");
        QTest::newRow("unknown command") << args({"launch"}) << QByteArray("unknown command `launch`");
    }

    void badArgumentsExitTwo()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QByteArray, message);
        const CliResult result = cordon(arguments);
        QVERIFY2(result.status == 2, result.describe());
        QVERIFY2(result.err.contains(message), result.err);
        QVERIFY2(result.out.isEmpty(), result.out);
    }

    void createdContainerIsListedRunning()
    {
        const CliResult listed = cordon(args({"ls"}));
        QVERIFY2(listed.status == 0, listed.describe());
        QVERIFY2(listed.out.startsWith("ID "), listed.out);
        QVERIFY(listed.out.contains("IDLE LEFT"));
        // The table shows the short id (8 digits), which every command accepts as a prefix.
        QVERIFY2(QRegularExpression(QStringLiteral("\\n") + m_container.left(8) +
                                    QStringLiteral("  +main\\s+running\\s+1\\.0 GiB\\s+16m"))
                     .match(QString::fromUtf8(listed.out))
                     .hasMatch(),
                 listed.out);
        QCOMPARE(containerJson(m_container.left(8)).value(QStringLiteral("id")).toString(), m_container);

        const QJsonObject json = cordon(args({"ls", "--json"})).json();
        bool found = false;
        for (const QJsonValue &value : json.value(QStringLiteral("containers")).toArray()) {
            const QJsonObject container = value.toObject();
            if (container.value(QStringLiteral("id")).toString() == m_container) {
                found = true;
                QCOMPARE(container.value(QStringLiteral("state")).toString(), QStringLiteral("running"));
            }
        }
        QVERIFY(found);
        // The name and a unique prefix name the container too.
        QCOMPARE(containerJson(QStringLiteral("main")).value(QStringLiteral("id")).toString(), m_container);
        QCOMPARE(containerJson(m_container.left(10)).value(QStringLiteral("id")).toString(), m_container);
    }

    // The bare lists that scripts and the shell completions (packaging/completions/) read.
    void lsPrintsBareIdsAndNames()
    {
        const CliResult ids = cordon(args({"ls", "--quiet", "--no-start"}));
        QVERIFY2(ids.status == 0, ids.describe());
        QVERIFY2(ids.err.isEmpty(), ids.err);
        const QList<QByteArray> idLines = ids.out.split('\n');
        QVERIFY2(ids.out.endsWith('\n') && idLines.contains(m_container.toUtf8()), ids.out);
        for (const QByteArray &line : idLines)
            QVERIFY2(line.isEmpty() || QRegularExpression(QStringLiteral("^[0-9a-f]{16}$"))
                                           .match(QString::fromUtf8(line))
                                           .hasMatch(),
                     ids.out);
        QCOMPARE(cordon(args({"ls", "-q"})).out, ids.out);

        const CliResult names = cordon(args({"ls", "--names"}));
        QVERIFY2(names.status == 0, names.describe());
        QVERIFY2(names.out.split('\n').contains("main"), names.out);
        QCOMPARE(names.out.count('\n'), ids.out.count('\n'));
    }

    // A fork bomb in a long-lived container: the process limit holds, and the summary, the run record and the
    // container's event history say so.
    void forkBombReportsTheProcessLimitHolding()
    {
        QTemporaryFile policy;
        QVERIFY(policy.open());
        policy.write(R"({"name": "forky", "limits": {"pids": 32}})");
        policy.close();
        const CliResult created =
            cordon({QStringLiteral("create"), QStringLiteral("--policy"), policy.fileName()});
        QVERIFY2(created.status == 0, created.describe());
        const CliResult bomb =
            cordon({QStringLiteral("exec"), QStringLiteral("forky"), QStringLiteral("--"),
                    QStringLiteral("/bin/sh"), QStringLiteral("-c"),
                    QStringLiteral(
                        "i=0; while [ $i -lt 100 ]; do sleep 30 & i=$((i+1)); done 2>/dev/null; echo done")});
        QVERIFY2(bomb.err.contains("cordon: contained: the process limit of 32 refused "), bomb.describe());
        const CliResult history = cordon(args({"history", "--json", "--container", "forky"}));
        const QJsonObject run = history.json().value(QStringLiteral("runs")).toArray().first().toObject();
        QVERIFY2(run.value(QStringLiteral("pids_limit_hits")).toInteger() >= 1, history.out);
        // The sampler notices the counter move and records it once.
        QTRY_VERIFY_WITH_TIMEOUT(
            cordon(args({"events", "--container", "forky", "--kind", "container.pids_limit_reached"}))
                .out.contains("container.pids_limit_reached"),
            10000);
        QCOMPARE(cordon({QStringLiteral("rm"), QStringLiteral("--force"), QStringLiteral("forky")}).status,
                 0);
    }

    void execStreamsOutputAndMirrorsTheStatus()
    {
        const CliResult python =
            cordon({QStringLiteral("exec"), QStringLiteral("--language"), QStringLiteral("python"),
                    QStringLiteral("--code"),
                    QStringLiteral("import sys\nprint('hello from python')\nsys.exit(3)"), m_container});
        QVERIFY2(python.status == 3, python.describe());
        QCOMPARE(python.out, QByteArray("hello from python\n"));
        QVERIFY2(python.err.startsWith("cordon: nonzero_exit (exit 3)"), python.err);
        QVERIFY2(python.err.contains("peak memory"), python.err);

        const CliResult streams = sh(QStringLiteral("echo out; echo err >&2"));
        QVERIFY2(streams.status == 0, streams.describe());
        QCOMPARE(streams.out, QByteArray("out\n"));
        QVERIFY2(streams.err.startsWith("err\ncordon: ok (exit 0)"), streams.err);

        const CliResult killed = sh(QStringLiteral("kill -9 $$"));
        QVERIFY2(killed.status == 128 + 9, killed.describe());
        QVERIFY2(killed.err.contains("killed (signal 9)"), killed.err);

        // A command that is not there: the sandbox was set up, so it is the program's failure, 127 as in a
        // shell and in docker; one that cannot be executed is 126.
        const CliResult missing = exec({QStringLiteral("no-such-program")});
        QVERIFY2(missing.status == 127, missing.describe());
        QVERIFY2(
            missing.err.startsWith("cordon: nonzero_exit (exit 127): executable not found: `no-such-program` "
                                   "is in no folder of the container's PATH"),
            missing.err);
        const CliResult notExecutable = exec({QStringLiteral("/etc/hostname")});
        QVERIFY2(notExecutable.status == 126, notExecutable.describe());
        QVERIFY2(notExecutable.err.contains("cannot execute `/etc/hostname`: Permission denied"),
                 notExecutable.err);
    }

    // Two large runs at once in one container: each client receives its own run's output only, so neither is
    // cut off for output it never asked for. Through the launcher (a full id) and the Qt CLI (a name prefix).
    void concurrentExecsReceiveOnlyTheirOwnOutput()
    {
        const auto start = [&](const QString &reference, char letter) {
            auto *process = new QProcess(this);
            process->start(
                builtProgram(QStringLiteral("cordon")),
                {QStringLiteral("exec"), reference, QStringLiteral("--"), QStringLiteral("sh"),
                 QStringLiteral("-c"),
                 QStringLiteral("head -c 12000000 /dev/zero | tr '\\0' %1").arg(QLatin1Char(letter))});
            return process;
        };
        QProcess *first = start(m_container, 'a');
        QProcess *second = start(m_container.left(8), 'b');
        for (QProcess *process : {first, second}) {
            QVERIFY(process->waitForFinished(120000));
            const QByteArray out = process->readAllStandardOutput();
            const QByteArray err = process->readAllStandardError();
            QVERIFY2(process->exitCode() == 0, err.constData());
            QCOMPARE(out.size(), 12000000);
            const char mine = process == first ? 'a' : 'b';
            QVERIFY2(out.count(mine) == out.size(), "another run's output reached this client");
            delete process;
        }
    }

    // Stored output at and beyond its cap, and binary output: every answer stays under the frame limit
    // (text previews, base64 pages), `cordon exec` ends with the run's own status, and `cordon logs` prints
    // the stored bytes exactly.
    void largeAndBinaryOutputComeOutWhole()
    {
        const CliResult flood = cordon({QStringLiteral("exec"), QStringLiteral("--json"), m_container,
                                        QStringLiteral("--"), QStringLiteral("sh"), QStringLiteral("-c"),
                                        QStringLiteral("head -c 20000000 /dev/zero | tr '\\0' x")});
        QVERIFY2(flood.status == 0, flood.err.right(2000).constData());
        const QJsonObject floodRun = flood.json().value(QStringLiteral("run")).toObject();
        QVERIFY2(floodRun.value(QStringLiteral("stdout_paged")).toBool(), flood.out.left(300).constData());
        QVERIFY(floodRun.value(QStringLiteral("stdout_truncated")).toBool());
        const qint64 stored = floodRun.value(QStringLiteral("stdout_bytes")).toInteger();
        QCOMPARE(stored, 16LL * 1024 * 1024);
        const CliResult floodLogs =
            cordon({QStringLiteral("logs"), floodRun.value(QStringLiteral("id")).toString()});
        QVERIFY2(floodLogs.status == 0, floodLogs.err.constData());
        QCOMPARE(floodLogs.out.size(), stored);
        QCOMPARE(floodLogs.out.count('x'), stored);

        const CliResult binary = cordon({QStringLiteral("exec"), QStringLiteral("--json"), m_container,
                                         QStringLiteral("--"), QStringLiteral("head"), QStringLiteral("-c"),
                                         QStringLiteral("5000000"), QStringLiteral("/dev/zero")});
        QVERIFY2(binary.status == 0, binary.err.right(2000).constData());
        const QJsonObject binaryRun = binary.json().value(QStringLiteral("run")).toObject();
        QCOMPARE(binaryRun.value(QStringLiteral("stdout_bytes")).toInteger(), 5000000);
        const CliResult binaryLogs =
            cordon({QStringLiteral("logs"), binaryRun.value(QStringLiteral("id")).toString()});
        QVERIFY2(binaryLogs.status == 0, binaryLogs.err.constData());
        QCOMPARE(binaryLogs.out, QByteArray(5000000, '\0'));
    }

    void execForwardsStdin()
    {
        const CliResult counted = cordon({QStringLiteral("exec"), QStringLiteral("--stdin"), m_container,
                                          QStringLiteral("--"), QStringLiteral("wc"), QStringLiteral("-l")},
                                         "one\ntwo\nthree\n");
        QVERIFY2(counted.status == 0, counted.describe());
        QCOMPARE(counted.out.trimmed(), QByteArray("3"));
        // Without --stdin the run reads end-of-file at once, whatever our stdin holds.
        const CliResult closed = exec({QStringLiteral("wc"), QStringLiteral("-c")}, "ignored");
        QCOMPARE(closed.out.trimmed(), QByteArray("0"));
    }

    // The launcher's own exec (no Qt) against the full CLI's, on the same commands: the same output, stderr
    // and status, but for run ids and measurements. The launcher runs alone in a directory without
    // cordon-cli, so a case it handed to the full CLI would fail there instead of passing by accident.
    void launcherExecMatchesTheQtCli_data()
    {
        QTest::addColumn<QStringList>("arguments"); // after `exec`; CTR stands for the shared container
        QTest::newRow("stdout and stderr") << args({"CTR", "--", "/bin/sh", "-c", "echo out; echo err >&2"});
        QTest::newRow("exit 3") << args({"CTR", "/bin/sh", "-c", "printf 'no newline'; exit 3"});
        QTest::newRow("signal") << args({"CTR", "--", "/bin/sh", "-c", "kill -9 $$"});
        QTest::newRow("missing command") << args({"CTR", "--", "/nonexistent/program"});
        QTest::newRow("unknown id") << args({"0123456789abcdef", "true"});
        QTest::newRow("name") << args({"main", "--", "/bin/sh", "-c", "echo by name"});
        QTest::newRow("prefix") << args({"PFX", "--", "/bin/sh", "-c", "echo by prefix"});
        QTest::newRow("python") << args(
            {"--language", "python", "--code", "import sys\nprint('py')\nsys.exit(4)", "CTR"});
        QTest::newRow("options with =")
            << args({"--language=bash", "--code=echo \"$BASH_VERSINFO\" >&2", "CTR"});
        QTest::newRow("utf-8 and binary")
            << args({"CTR", "/bin/sh", "-c", "printf '\\303\\251\\000\\377\\n'"});
    }

    void launcherExecMatchesTheQtCli()
    {
        QFETCH(QStringList, arguments);
        arguments.replaceInStrings(QRegularExpression(QStringLiteral("^CTR$")), m_container);
        arguments.replaceInStrings(QRegularExpression(QStringLiteral("^PFX$")), m_container.left(10));
        arguments.prepend(QStringLiteral("exec"));
        const QString lone = loneLauncher();
        QVERIFY(!lone.isEmpty());
        const CliResult qt = runProgram(fullCliPath(), arguments);
        const CliResult launcher = runProgram(lone, arguments);
        QVERIFY2(!launcher.err.contains("cordon-cli"), launcher.describe());
        QCOMPARE(launcher.status, qt.status);
        QCOMPARE(launcher.out, qt.out);
        QCOMPARE(normalized(launcher.err), normalized(qt.err));
        QVERIFY2(qt.err.contains("cordon: ") && qt.status != -1, qt.describe());
    }

    void launcherLoadsNoQt()
    {
        // Whatever the launcher maps while a run is going on: no Qt library, and it does not run cordon-cli.
        QProcess process;
        QVERIFY(startRun(process, cordonPath(), QStringLiteral("echo started; sleep 2")));
        const auto [exe, maps] = imageOf(process);
        QVERIFY(process.waitForFinished(10000));
        QCOMPARE(process.exitCode(), 0);
        QVERIFY2(maps.contains("/cordon\n"), maps); // the maps were read: the program itself is in them
        QVERIFY2(!maps.contains("libQt6"), maps);
        QVERIFY2(!maps.contains(".so"), maps); // a static PIE: not even libc is loaded
        QVERIFY2(exe.endsWith("/cordon"), exe);
    }

    void launcherRunsEveryOneShotItself_data()
    {
        QTest::addColumn<QStringList>("options");
        QTest::newRow("plain") << QStringList{};
        QTest::newRow("--stdin") << args({"--stdin"});
        QTest::newRow("--memory --timeout") << args({"--memory", "1g", "--timeout", "30s"});
    }

    // Every `cordon run` is the launcher's own (app/cordon-launcher/runcommand.h): no shared library is
    // mapped while the run goes on, and no other program runs it.
    void launcherRunsEveryOneShotItself()
    {
        QFETCH(QStringList, options);
        QProcess process;
        process.setProgram(cordonPath());
        process.setArguments(QStringList{QStringLiteral("run")} + options +
                             args({"--", "/bin/sh", "-c", "echo started; sleep 2"}));
        process.start();
        process.closeWriteChannel();
        QVERIFY(process.waitForStarted(5000) && process.waitForReadyRead(10000));
        QCOMPARE(process.readAllStandardOutput(), QByteArray("started\n"));
        const auto [exe, maps] = imageOf(process);
        QVERIFY(process.waitForFinished(20000));
        QCOMPARE(process.exitCode(), 0);
        QVERIFY2(exe.endsWith("/cordon"), exe);
        QVERIFY2(maps.contains("/cordon\n"), maps);
        QVERIFY2(!maps.contains(".so"), maps);
    }

    void launcherCancelsOnCtrlC()
    {
        QProcess process;
        QElapsedTimer clock;
        clock.start();
        QVERIFY(startRun(process, loneLauncher(), QStringLiteral("echo started; sleep 60")));
        ::kill(static_cast<pid_t>(process.processId()), SIGINT);
        QVERIFY(process.waitForFinished(20000));
        QVERIFY2(clock.elapsed() < 20000, "the run was not cancelled");
        const QByteArray err = process.readAllStandardError();
        QCOMPARE(process.exitStatus(), QProcess::NormalExit);
        QVERIFY2(err.startsWith("\ncordon: cancelling the run (Ctrl-C again to stop waiting for it)\n"), err);
        QVERIFY2(err.contains("cordon: killed (signal 9)"), err);
        QCOMPARE(process.exitCode(), 128 + 9);
    }

    void launcherHandsTheRestToTheQtCli_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QByteArray>("output"); // what the full CLI prints, on stdout or stderr
        QTest::newRow("--json") << args({"exec", "--json", "CTR", "true"})
                                << QByteArray("\"error_class\": \"ok\"");
        QTest::newRow("--stdin") << args({"exec", "--stdin", "CTR", "cat"}) << QByteArray("piped");
        QTest::newRow("--help") << args({"exec", "--help"}) << QByteArray("usage: cordon exec");
        QTest::newRow("usage error") << args({"exec", "CTR"}) << QByteArray("no command given");
        QTest::newRow("bad language")
            << args({"exec", "--language", "ruby", "--code", "1", "CTR"}) << QByteArray("unknown --language");
        QTest::newRow("empty id") << args({"exec", "", "true"}) << QByteArray("an empty container id");
        QTest::newRow("another command") << args({"ls"}) << QByteArray("main");
    }

    // Each of these is left to the full CLI: through `cordon` it works as before, and the lone launcher
    // says clearly that cordon-cli is missing instead of doing something else.
    void launcherHandsTheRestToTheQtCli()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QByteArray, output);
        arguments.replaceInStrings(QRegularExpression(QStringLiteral("^CTR$")), m_container);
        const CliResult full = cordon(arguments, "piped");
        QVERIFY2(QByteArray(full.out + full.err).contains(output), full.describe());
        const CliResult lone = runProgram(loneLauncher(), arguments, "piped");
        QCOMPARE(lone.status, 125);
        QVERIFY2(lone.out.isEmpty(), lone.describe());
        const QByteArray missing = "cordon: error: `cordon-cli`, which runs every command except "
                                   "`cordon run` and a plain `cordon exec`, "
                                   "is not at `" +
                                   m_loneDir.filePath(QStringLiteral("cordon-cli")).toUtf8();
        QVERIFY2(lone.err.startsWith(missing), lone.describe());
        QVERIFY2(lone.err.contains("cordon: hint: Install cordon and cordon-cli together"), lone.describe());
    }

    void filesAndProcessesPersistBetweenExecs()
    {
        const CliResult first =
            sh(QStringLiteral("echo kept > /mnt/data/notes.txt; sleep 300 >/dev/null 2>&1 & echo $!"));
        QVERIFY2(first.status == 0, first.describe());
        m_backgroundPid = QString::fromUtf8(first.out).trimmed();
        QVERIFY2(!m_backgroundPid.isEmpty(), first.out);

        const CliResult second =
            sh(QStringLiteral("cat /mnt/data/notes.txt; cat /proc/%1/comm").arg(m_backgroundPid));
        QVERIFY2(second.status == 0, second.describe());
        QCOMPARE(second.out, QByteArray("kept\nsleep\n"));
    }

    void uploadIsReadableInside()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("local.csv"));
        QVERIFY(writeFile(path, "alpha,beta\n1,2\n"));
        const CliResult uploaded =
            cordon({QStringLiteral("cp"), path, m_container + QStringLiteral(":data.csv")});
        QVERIFY2(uploaded.status == 0, uploaded.describe());
        QVERIFY2(uploaded.out.contains("/mnt/data/inputs/data.csv"), uploaded.out);
        QVERIFY2(uploaded.out.contains(sha256Hex("alpha,beta\n1,2\n").toLatin1()), uploaded.out);

        const CliResult read = exec({QStringLiteral("cat"), QStringLiteral("/mnt/data/inputs/data.csv")});
        QVERIFY2(read.status == 0, read.describe());
        QCOMPARE(read.out, QByteArray("alpha,beta\n1,2\n"));
        // inputs/ is read-only inside.
        QVERIFY(sh(QStringLiteral("echo x > /mnt/data/inputs/data.csv")).status != 0);

        const CliResult missing = cordon(
            {QStringLiteral("cp"), dir.filePath(QStringLiteral("absent")), m_container + QLatin1Char(':')});
        QVERIFY2(missing.status == 2, missing.describe());
        QVERIFY2(missing.err.contains("does not exist"), missing.err);

        // A file whose name is not UTF-8 (byte 0xff) is refused, not uploaded under a name with U+FFFD; the
        // shell passes the raw bytes, as a user's shell would.
        const QByteArray raw = QFile::encodeName(dir.path()) + "/bad\xff.txt";
        {
            const int fd = ::open(raw.constData(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
            QVERIFY(fd >= 0);
            ::close(fd);
        }
        const CliResult notUtf8 = runProgram(
            QStringLiteral("/bin/sh"),
            {QStringLiteral("-c"), QStringLiteral("\"$0\" cp \"$1/$(printf 'bad\\377.txt')\" \"$2:\""),
             builtProgram(QStringLiteral("cordon")), dir.path(), m_container});
        ::unlink(raw.constData()); // QTemporaryDir cannot name it to remove it
        QVERIFY2(notUtf8.status == 2, notUtf8.describe());
        QVERIFY2(notUtf8.err.contains("is not valid UTF-8"), notUtf8.err);
        QVERIFY(!sh(QStringLiteral("ls /mnt/data/inputs")).out.contains("bad"));
    }

    void downloadRefusesAPlantedSymlink()
    {
        const CliResult planted = sh(QStringLiteral(
            "echo 42 > /mnt/data/outputs/result.txt; ln -s /etc/passwd /mnt/data/outputs/leak"));
        QVERIFY2(planted.status == 0, planted.describe());
        QVERIFY2(planted.err.contains("artifact result.txt"), planted.err);

        QTemporaryDir dir;
        const QString all = dir.filePath(QStringLiteral("all"));
        const CliResult everything = cordon({QStringLiteral("cp"), m_container + QLatin1Char(':'), all});
        QVERIFY2(everything.status == 1, everything.describe());
        QVERIFY2(everything.out.contains("outputs/result.txt -> "), everything.out);
        QVERIFY2(everything.err.contains("refused outputs/leak: symbolic link"), everything.err);
        QCOMPARE(readFile(all + QStringLiteral("/result.txt")), QByteArray("42\n"));
        const QFileInfo leak(all + QStringLiteral("/leak"));
        QVERIFY(!leak.exists() && !leak.isSymLink());

        const QString one = dir.filePath(QStringLiteral("one"));
        const CliResult single = cordon(
            {QStringLiteral("cp"), m_container + QStringLiteral(":/mnt/data/outputs/result.txt"), one});
        QVERIFY2(single.status == 0, single.describe());
        QCOMPARE(readFile(one + QStringLiteral("/result.txt")), QByteArray("42\n"));

        // The same name again: refused and kept, unless --force, which replaces the file and only a file.
        QVERIFY(sh(QStringLiteral("echo 43 > /mnt/data/outputs/result.txt")).status == 0);
        const CliResult again =
            cordon({QStringLiteral("cp"), m_container + QStringLiteral(":outputs/result.txt"), one});
        QVERIFY2(again.status == 1 && again.err.contains("already has this name"), again.describe());
        QVERIFY2(again.err.contains("--keep-both saves the download beside them"), again.describe());
        QCOMPARE(readFile(one + QStringLiteral("/result.txt")), QByteArray("42\n"));
        const CliResult forced = cordon({QStringLiteral("cp"), QStringLiteral("--force"),
                                         m_container + QStringLiteral(":outputs/result.txt"), one});
        QVERIFY2(forced.status == 0, forced.describe());
        QCOMPARE(readFile(one + QStringLiteral("/result.txt")), QByteArray("43\n"));
        // A symlink of that name at the destination is not written through, even with --force.
        const QString victim = dir.filePath(QStringLiteral("victim"));
        QVERIFY(QFile(victim).open(QIODevice::WriteOnly));
        const QString guarded = dir.filePath(QStringLiteral("guarded"));
        QVERIFY(QDir().mkpath(guarded));
        QVERIFY(QFile::link(victim, guarded + QStringLiteral("/result.txt")));
        const CliResult throughLink = cordon({QStringLiteral("cp"), QStringLiteral("--force"),
                                              m_container + QStringLiteral(":outputs/result.txt"), guarded});
        QVERIFY2(throughLink.status == 1, throughLink.describe());
        QCOMPARE(readFile(victim), QByteArray());
        QVERIFY(QFileInfo(guarded + QStringLiteral("/result.txt")).isSymLink());
        const CliResult forcedUpload =
            cordon({QStringLiteral("cp"), QStringLiteral("--force"), victim, m_container + QLatin1Char(':')});
        QVERIFY2(forcedUpload.status == 2 && forcedUpload.err.contains("--force is for downloads"),
                 forcedUpload.describe());
        // --keep-both: the copy takes the next free name, twice, and says where it went; the symlink and the
        // file it points at stay as they were.
        const CliResult kept = cordon({QStringLiteral("cp"), QStringLiteral("--keep-both"),
                                       m_container + QStringLiteral(":outputs/result.txt"), guarded});
        QVERIFY2(kept.status == 0 && kept.out.contains("guarded/result (2).txt"), kept.describe());
        const CliResult keptAgain = cordon({QStringLiteral("cp"), QStringLiteral("--keep-both"),
                                            m_container + QStringLiteral(":outputs/result.txt"), guarded});
        QVERIFY2(keptAgain.status == 0 && keptAgain.out.contains("guarded/result (3).txt"),
                 keptAgain.describe());
        QCOMPARE(readFile(guarded + QStringLiteral("/result (2).txt")), QByteArray("43\n"));
        QCOMPARE(readFile(guarded + QStringLiteral("/result (3).txt")), QByteArray("43\n"));
        QCOMPARE(readFile(victim), QByteArray());
        QVERIFY(QFileInfo(guarded + QStringLiteral("/result.txt")).isSymLink());
        const CliResult both =
            cordon({QStringLiteral("cp"), QStringLiteral("--force"), QStringLiteral("--keep-both"),
                    m_container + QStringLiteral(":outputs/result.txt"), guarded});
        QVERIFY2(both.status == 2 && both.err.contains("choose one of --force and --keep-both"),
                 both.describe());
        // The refused single-file download above is on record, not only the ones that copied something.
        const CliResult refusedEvent =
            cordon({QStringLiteral("events"), QStringLiteral("--kind"), QStringLiteral("file.downloaded"),
                    QStringLiteral("--container"), m_container});
        QVERIFY2(refusedEvent.out.contains("Downloaded nothing from outputs: 1 refused"), refusedEvent.out);
        QVERIFY(sh(QStringLiteral("echo 42 > /mnt/data/outputs/result.txt")).status ==
                0); // as the next tests expect

        const CliResult symlink =
            cordon({QStringLiteral("cp"), m_container + QStringLiteral(":outputs/leak"), one});
        QVERIFY2(symlink.status == 1, symlink.describe());
        QVERIFY2(symlink.err.contains("leak") && symlink.err.contains("symbolic link"), symlink.err);

        // Outside outputs/ only on explicit request.
        const QString work = dir.filePath(QStringLiteral("work"));
        const CliResult refused =
            cordon({QStringLiteral("cp"), m_container + QStringLiteral(":/mnt/data/notes.txt"), work});
        QVERIFY2(refused.status == 2, refused.describe());
        QVERIFY2(refused.err.contains("--workspace"), refused.err);
        const CliResult allowed = cordon({QStringLiteral("cp"), QStringLiteral("--workspace"),
                                          m_container + QStringLiteral(":/mnt/data/notes.txt"), work});
        QVERIFY2(allowed.status == 0, allowed.describe());
        QCOMPARE(readFile(work + QStringLiteral("/notes.txt")), QByteArray("kept\n"));
    }

    void filesListsSizesAndHashes()
    {
        const CliResult listed = cordon({QStringLiteral("files"), m_container});
        QVERIFY2(listed.status == 0, listed.describe());
        QVERIFY2(listed.out.startsWith("SCOPE"), listed.out);
        QVERIFY2(QRegularExpression(QStringLiteral("inputs\\s+data\\.csv\\s+15 B\\s+") +
                                    sha256Hex("alpha,beta\n1,2\n"))
                     .match(QString::fromUtf8(listed.out))
                     .hasMatch(),
                 listed.out);
        QVERIFY2(QRegularExpression(QStringLiteral("outputs\\s+result\\.txt\\s+3 B\\s+") + sha256Hex("42\n"))
                     .match(QString::fromUtf8(listed.out))
                     .hasMatch(),
                 listed.out);
        QVERIFY2(listed.err.contains("not listed: outputs/leak"), listed.err);

        const QJsonObject json = cordon({QStringLiteral("files"), QStringLiteral("--json"),
                                         QStringLiteral("--scope"), QStringLiteral("outputs"), m_container})
                                     .json();
        const QJsonArray files = json.value(QStringLiteral("files")).toArray();
        QCOMPARE(files.size(), 1);
        QCOMPARE(files.first().toObject().value(QStringLiteral("size")).toInteger(), 3);
        QCOMPARE(files.first().toObject().value(QStringLiteral("sha256")).toString(), sha256Hex("42\n"));

        const CliResult removed = cordon(
            {QStringLiteral("files"), QStringLiteral("rm"), m_container, QStringLiteral("outputs/leak")});
        QVERIFY2(removed.status == 0, removed.describe());
        QVERIFY2(!cordon({QStringLiteral("files"), m_container}).err.contains("leak"), "leak still listed");
        // Again: it is gone, and saying "deleted" would hide a typo or the wrong scope.
        const CliResult again = cordon(
            {QStringLiteral("files"), QStringLiteral("rm"), m_container, QStringLiteral("outputs/leak")});
        QVERIFY2(again.status == 1, again.describe());
        QVERIFY2(again.err.contains("cordon: error: outputs/leak does not exist in container"), again.err);
        QVERIFY2(!again.out.contains("deleted"), again.out);
    }

    void stopAndStartKeepFilesButEndProcesses()
    {
        QVERIFY(!m_backgroundPid.isEmpty());
        // What a workspace holds besides plain files, which a stop saves from the tmpfs and a start restores:
        // an executable script, a symlink (kept as a link, even one pointing out of the workspace), an empty
        // directory, a read-only directory with a file in it, an output, and a sparse file that must not
        // become its apparent size on the host's disk.
        const CliResult prepared = sh(QStringLiteral(
            "set -e; printf '#!/bin/sh\necho script ran\n' > /mnt/data/tool.sh; chmod 750 /mnt/data/tool.sh; "
            "ln /mnt/data/tool.sh /mnt/data/tool-link.sh; "
            "ln -s /etc/hostname /mnt/data/host-link; mkdir -p /mnt/data/empty /mnt/data/ro; "
            "echo frozen > /mnt/data/ro/f; chmod 555 /mnt/data/ro; echo out > /mnt/data/outputs/kept.txt; "
            "truncate -s 400M /mnt/data/sparse; printf tail | dd of=/mnt/data/sparse bs=1 seek=1000000 "
            "conv=notrunc 2>/dev/null"));
        QVERIFY2(prepared.status == 0, prepared.describe());
        // `stop` says the files are kept only once they are: it waits for the save, and then they are on
        // disk.
        const CliResult stopped = cordon({QStringLiteral("stop"), m_container});
        QVERIFY2(stopped.status == 0, stopped.describe());
        QVERIFY2(
            stopped.out.startsWith((m_container + QStringLiteral(" stopped; its files are kept (")).toUtf8()),
            stopped.out);
        QVERIFY2(stopped.out.contains(" until "), stopped.out);
        QVERIFY(QFileInfo::exists(qEnvironmentVariable("CORDON_DATA_DIR") + QStringLiteral("/containers/") +
                                  m_container + QStringLiteral("/work/ro/f")));
        QCOMPARE(containerJson(m_container).value(QStringLiteral("state")).toString(),
                 QStringLiteral("stopped"));

        const CliResult refused = exec({QStringLiteral("true")});
        QVERIFY2(refused.status == 125, refused.describe());
        QVERIFY2(refused.err.contains("start it first"), refused.err);
        QVERIFY2(refused.err.contains("cordon: hint: Start it with `cordon start ID`"), refused.err);

        const CliResult started = cordon({QStringLiteral("start"), m_container});
        QVERIFY2(started.status == 0, started.describe());
        QVERIFY2(started.out.contains(" running, expires in"), started.out);
        const CliResult after =
            sh(QStringLiteral("cat /mnt/data/notes.txt; for p in /proc/[0-9]*; do cat $p/comm; "
                              "done | grep -c sleep"));
        QCOMPARE(after.out, QByteArray("kept\n0\n"));
        const CliResult restored = sh(QStringLiteral(
            "/mnt/data/tool.sh; stat -c '%a %F' /mnt/data/tool.sh /mnt/data/empty /mnt/data/ro; "
            "readlink /mnt/data/host-link; cat /mnt/data/ro/f /mnt/data/outputs/kept.txt; "
            "stat -c '%s %b' /mnt/data/sparse; dd if=/mnt/data/sparse bs=1 skip=1000000 count=4 "
            "2>/dev/null; echo; stat -c %h /mnt/data/tool.sh; "
            "[ $(stat -c %i /mnt/data/tool.sh) = $(stat -c %i /mnt/data/tool-link.sh) ] && echo linked"));
        QVERIFY2(restored.status == 0, restored.describe());
        const QByteArrayList lines = restored.out.split('\n');
        QCOMPARE(lines.value(0), QByteArray("script ran"));
        QCOMPARE(lines.value(1), QByteArray("750 regular file"));
        QCOMPARE(lines.value(2), QByteArray("755 directory"));
        QCOMPARE(lines.value(3), QByteArray("555 directory"));
        QCOMPARE(lines.value(4), QByteArray("/etc/hostname"));
        QCOMPARE(lines.value(5), QByteArray("frozen"));
        QCOMPARE(lines.value(6), QByteArray("out"));
        const QByteArrayList sizes = lines.value(7).split(' ');
        QCOMPARE(sizes.value(0), QByteArray("419430400"));
        QVERIFY2(sizes.value(1).toLongLong() < 64, lines.value(7)); // 512-byte blocks: the hole stayed a hole
        QCOMPARE(lines.value(8), QByteArray("tail"));
        // A hard link stays one file with two names, not two copies.
        QCOMPARE(lines.value(9), QByteArray("2"));
        QCOMPARE(lines.value(10), QByteArray("linked"));
        // The host's saved copy kept the hole too, and the restore did not follow the link.
        const QString dataDir =
            cordon(args({"daemon", "status", "--json"})).json().value(QStringLiteral("data_dir")).toString();
        const QString work = dataDir + QStringLiteral("/containers/") + m_container + QStringLiteral("/work");
        struct stat sparse = {};
        QCOMPARE(::stat(QFile::encodeName(work + QStringLiteral("/sparse")).constData(), &sparse), 0);
        QVERIFY2(sparse.st_blocks < 1024, QByteArray::number(qint64(sparse.st_blocks)));
        QVERIFY(QFileInfo(work + QStringLiteral("/host-link")).isSymLink());
        QVERIFY2(sh(QStringLiteral("chmod 755 /mnt/data/ro; rm -rf /mnt/data/ro /mnt/data/sparse "
                                   "/mnt/data/tool-link.sh"))
                         .status == 0,
                 "clean up");

        const CliResult kept = cordon({QStringLiteral("keepalive"), m_container});
        QVERIFY2(kept.status == 0, kept.describe());
        QVERIFY2(kept.out.contains(" running, expires in 16m"), kept.out);
    }

    void idempotencyKeyRunsOnce()
    {
        const QStringList command = {QStringLiteral("exec"),
                                     QStringLiteral("--json"),
                                     QStringLiteral("--key"),
                                     QStringLiteral("only-once"),
                                     m_container,
                                     QStringLiteral("--"),
                                     QStringLiteral("/bin/sh"),
                                     QStringLiteral("-c"),
                                     QStringLiteral("echo ran >> /mnt/data/count.txt; echo done")};
        const CliResult first = cordon(command);
        const CliResult second = cordon(command);
        QVERIFY2(first.status == 0, first.describe());
        QVERIFY2(second.status == 0, second.describe());
        const QJsonObject firstRun = first.json().value(QStringLiteral("run")).toObject();
        const QJsonObject secondRun = second.json().value(QStringLiteral("run")).toObject();
        QVERIFY(!firstRun.value(QStringLiteral("id")).toString().isEmpty());
        QCOMPARE(secondRun.value(QStringLiteral("id")).toString(),
                 firstRun.value(QStringLiteral("id")).toString());
        QCOMPARE(secondRun.value(QStringLiteral("stdout")).toString(), QStringLiteral("done\n"));
        QCOMPARE(exec({QStringLiteral("cat"), QStringLiteral("/mnt/data/count.txt")}).out,
                 QByteArray("ran\n"));

        // The run's output again, from the history.
        const CliResult logs =
            cordon({QStringLiteral("logs"), firstRun.value(QStringLiteral("id")).toString()});
        QVERIFY2(logs.status == 0, logs.describe());
        QCOMPARE(logs.out, QByteArray("done\n"));
        QVERIFY2(logs.err.startsWith("cordon: ok (exit 0)"), logs.err);
    }

    void historyShowsRunsWithClasses()
    {
        const CliResult json =
            cordon({QStringLiteral("history"), QStringLiteral("--json"), QStringLiteral("--container"),
                    m_container, QStringLiteral("--limit"), QStringLiteral("500")});
        QVERIFY2(json.status == 0, json.describe());
        QSet<QString> classes;
        for (const QJsonValue &run : json.json().value(QStringLiteral("runs")).toArray())
            classes.insert(run.toObject().value(QStringLiteral("error_class")).toString());
        for (const char *expected : {"ok", "nonzero_exit", "killed"})
            QVERIFY2(classes.contains(QString::fromUtf8(expected)), expected);
        // One run for the repeated key.
        int keyed = 0;
        for (const QJsonValue &run : json.json().value(QStringLiteral("runs")).toArray())
            keyed += run.toObject().value(QStringLiteral("idempotency_key")).toString() ==
                     QLatin1String("only-once");
        QCOMPARE(keyed, 1);

        const CliResult oom =
            cordon({QStringLiteral("history"), QStringLiteral("--class"), QStringLiteral("nonzero_exit"),
                    QStringLiteral("--container"), m_container});
        QVERIFY2(oom.status == 0, oom.describe());
        QVERIFY2(oom.out.startsWith("RUN "), oom.out);
        QVERIFY2(oom.out.contains("nonzero_exit"), oom.out);
        QVERIFY2(oom.out.contains("python "), oom.out);
        QVERIFY2(!oom.out.contains(" ok "), oom.out);
        // The container by the name people gave it, not its id.
        QVERIFY2(QRegularExpression(QStringLiteral("\\n[0-9a-f]{16}  main  "))
                     .match(QString::fromUtf8(oom.out))
                     .hasMatch(),
                 oom.out);

        const CliResult page = cordon(args({"history", "--limit", "1"}));
        QVERIFY2(page.err.contains("--offset 1 shows the next ones"), page.err);
    }

    // The containers a Go/No-Go audit makes (container.create's origin) and their runs are left out of
    // `cordon ls` and `cordon history` unless --audits asks for them; `ls -a` keeps an ended one's name.
    void auditContainersAndRunsNeedTheAuditsFlag()
    {
        Cordon::Daemon::DaemonClient client;
        QVERIFY(client.connectSync(false, 5000));
        auto made =
            client.callSync(QStringLiteral("container.create"),
                            {{QStringLiteral("policy"),
                              QJsonObject{{QStringLiteral("name"), QStringLiteral("audit-probe-box")}}},
                             {QStringLiteral("origin"), QStringLiteral("audit:au-cli")}});
        QVERIFY_RESULT(made);
        const QString audit =
            made->value(QStringLiteral("container")).toObject().value(QStringLiteral("id")).toString();
        const CliResult probe = cordon({QStringLiteral("exec"), audit, QStringLiteral("--"),
                                        QStringLiteral("/bin/echo"), QStringLiteral("audit-probe-ran")});
        QVERIFY2(probe.status == 0, probe.describe());

        const CliResult names = cordon(args({"ls", "--names"}));
        QVERIFY2(names.status == 0, names.describe());
        QVERIFY2(!names.out.contains("audit-probe-box"), names.out);
        QVERIFY2(names.out.split('\n').contains("main"), names.out);
        const CliResult withAudits = cordon(args({"ls", "--names", "--audits"}));
        QVERIFY2(withAudits.out.split('\n').contains("audit-probe-box"), withAudits.out);

        const CliResult history = cordon(args({"history", "--limit", "500"}));
        QVERIFY2(history.status == 0, history.describe());
        QVERIFY2(!history.out.contains("audit-probe-box"), history.out);
        const CliResult auditHistory = cordon(args({"history", "--limit", "500", "--audits"}));
        QVERIFY2(auditHistory.out.contains("audit-probe-box"), auditHistory.out);
        const CliResult found =
            cordon(args({"history", "--search", "AUDIT-PROBE-RAN", "--audits", "--json"}));
        QCOMPARE(found.json().value(QStringLiteral("total")).toInteger(), 1);

        // Deleted, it keeps its name in `ls -a --audits` and in the history.
        QVERIFY2(cordon({QStringLiteral("rm"), QStringLiteral("-f"), audit}).status == 0, "rm");
        const CliResult all = cordon(args({"ls", "-a", "--audits"}));
        QVERIFY2(QRegularExpression(audit.left(8) + QStringLiteral("  +audit-probe-box\\s+deleted"))
                     .match(QString::fromUtf8(all.out))
                     .hasMatch(),
                 all.out);
        QVERIFY2(!cordon(args({"ls", "-a"})).out.contains("audit-probe-box"), "ls -a without --audits");
    }

    void eventsListAndFollow()
    {
        const CliResult listed =
            cordon({QStringLiteral("events"), QStringLiteral("--json"), QStringLiteral("--limit"),
                    QStringLiteral("500"), QStringLiteral("--container"), m_container});
        QVERIFY2(listed.status == 0, listed.describe());
        QSet<QString> kinds;
        for (const QJsonValue &event : listed.json().value(QStringLiteral("events")).toArray())
            kinds.insert(event.toObject().value(QStringLiteral("kind")).toString());
        for (const char *expected :
             {"container.created", "run.started", "run.finished", "file.uploaded", "file.downloaded",
              "container.stopped", "container.started", "workspace.saved"})
            QVERIFY2(kinds.contains(QString::fromUtf8(expected)), expected);
        const CliResult family =
            cordon({QStringLiteral("events"), QStringLiteral("--kind"), QStringLiteral("container."),
                    QStringLiteral("--container"), m_container});
        QVERIFY2(family.out.contains("container.created"), family.out);
        QVERIFY2(!family.out.contains("run.started"), family.out);
        // In words, not raw JSON.
        QVERIFY2(family.out.contains("WHAT HAPPENED"), family.out);
        QVERIFY2(family.out.contains("Created under policy "), family.out);
        QVERIFY2(family.out.contains("Stopped; its files are kept"), family.out);
        QVERIFY2(!family.out.contains("{\"policy_version\""), family.out);
        // Downloads with both counts (the one with the planted symlink).
        const CliResult downloads =
            cordon({QStringLiteral("events"), QStringLiteral("--kind"), QStringLiteral("file.downloaded"),
                    QStringLiteral("--container"), m_container});
        QVERIFY2(downloads.out.contains("Downloaded from outputs: 1 copied, 1 refused"), downloads.out);

        // --follow prints what happens after it started, and ends cleanly on SIGTERM or Ctrl-C.
        QProcess follow;
        follow.start(cordonPath(),
                     args({"events", "--follow", "--limit", "1", "--kind", "container.created"}));
        QByteArray seen;
        QElapsedTimer clock;
        clock.start();
        while (!seen.contains("TIME") && clock.elapsed() < 10000 && follow.waitForReadyRead(10000))
            seen += follow.readAllStandardOutput();
        QVERIFY2(seen.contains("TIME"), seen);
        const CliResult created = cordon(args({"create", "--name", "followed"}));
        QVERIFY2(created.status == 0, created.describe());
        const QByteArray id = created.out.trimmed().left(8); // the table's short id
        while (!seen.contains(id) && clock.elapsed() < 20000 && follow.waitForReadyRead(10000))
            seen += follow.readAllStandardOutput();
        QVERIFY2(seen.contains("container.created") && seen.contains(id), seen);
        ::kill(static_cast<pid_t>(follow.processId()), SIGINT);
        QVERIFY(follow.waitForFinished(10000));
        QCOMPARE(follow.exitStatus(), QProcess::NormalExit);
        QCOMPARE(follow.exitCode(), 0);
        QCOMPARE(cordon({QStringLiteral("rm"), QStringLiteral("--force"), QString::fromUtf8(id)}).status, 0);
    }

    void idleContainerExpiresUnderTheTimeScale()
    {
        // One idle minute on the 600x clock is 0.1 s.
        const CliResult created = cordon(args({"create", "--name", "brief", "--idle", "1m"}));
        QVERIFY2(created.status == 0, created.describe());
        const QString id = QString::fromUtf8(created.out).trimmed();
        QString state;
        QElapsedTimer clock;
        clock.start();
        while (clock.elapsed() < 10000) {
            QThread::msleep(200);
            state = containerJson(id).value(QStringLiteral("state")).toString();
            if (state == QLatin1String("expired"))
                break;
        }
        QCOMPARE(state, QStringLiteral("expired"));
        QVERIFY2(clock.elapsed() < 5000, "expiry took far longer than 0.1 s of idle time");
        const CliResult all = cordon(args({"ls", "--all"}));
        QVERIFY2(QRegularExpression(id.left(8) + QStringLiteral("\\s+brief\\s+expired"))
                     .match(QString::fromUtf8(all.out))
                     .hasMatch(),
                 all.out);
        QVERIFY2(!cordon(args({"ls"})).out.contains(id.left(8).toUtf8()),
                 "an expired container is listed without --all");

        const CliResult files = cordon({QStringLiteral("files"), id});
        QVERIFY2(files.status == 1, files.describe());
        QVERIFY2(files.err.contains("its files were deleted"), files.err);

        // By name, too: the answer says it expired, when, and that its files are gone (not "no container").
        const CliResult inspected = cordon(args({"inspect", "brief"}));
        QVERIFY2(inspected.status == 0, inspected.describe());
        QVERIFY2(
            QRegularExpression(
                QStringLiteral("Expired:\\s+\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d \\(files removed\\)"))
                .match(QString::fromUtf8(inspected.out))
                .hasMatch(),
            inspected.out);
        for (const QString &program : {cordonPath(), loneLauncher()}) {
            const CliResult ran = runProgram(program, args({"exec", "brief", "true"}));
            QCOMPARE(ran.status, 125);
            QVERIFY2(QRegularExpression(
                         QStringLiteral("container `brief` \\(%1\\) expired at \\d{4}-\\d\\d-\\d\\d "
                                        "\\d\\d:\\d\\d:\\d\\d after 1 min without activity; its files "
                                        "were deleted")
                             .arg(id))
                         .match(QString::fromUtf8(ran.err))
                         .hasMatch(),
                     ran.describe());
            QVERIFY2(ran.err.contains("cordon: hint: Create a new one"), ran.err);
        }
        // A new container may take the name; the name then means the new one.
        const CliResult again = cordon(args({"create", "--name", "brief"}));
        QVERIFY2(again.status == 0, again.describe());
        QCOMPARE(containerJson(QStringLiteral("brief")).value(QStringLiteral("id")).toString(),
                 QString::fromUtf8(again.out).trimmed());
        QCOMPARE(cordon({QStringLiteral("rm"), QStringLiteral("--force"), QStringLiteral("brief")}).status,
                 0);
        QVERIFY(!QFileInfo::exists(qEnvironmentVariable("CORDON_DATA_DIR") + QStringLiteral("/containers/") +
                                   id));
    }

    void namesAreUniqueAndReadableByDefault()
    {
        const CliResult first = cordon(args({"create", "--idle", "7d"}));
        const CliResult second = cordon(args({"create", "--idle", "7d"}));
        QVERIFY2(first.status == 0 && second.status == 0, QByteArray(first.describe() + second.describe()));
        const QString a =
            containerJson(QString::fromUtf8(first.out).trimmed()).value(QStringLiteral("name")).toString();
        const QString b =
            containerJson(QString::fromUtf8(second.out).trimmed()).value(QStringLiteral("name")).toString();
        QVERIFY2(QRegularExpression(QStringLiteral("^[a-z]+-[a-z]+$")).match(a).hasMatch(), qPrintable(a));
        QVERIFY(a != b);
        const CliResult duplicate = cordon({QStringLiteral("create"), QStringLiteral("--name"), a});
        QVERIFY2(duplicate.status == 1, duplicate.describe());
        QVERIFY2(duplicate.err.contains(QStringLiteral("a container named `%1` already exists (%2, running)")
                                            .arg(a, QString::fromUtf8(first.out).trimmed())
                                            .toUtf8()),
                 duplicate.err);
        QVERIFY2(duplicate.err.contains("cordon: hint: Choose another --name"), duplicate.err);
        // A policy file that names the container counts as a name given.
        QTemporaryFile policy;
        QVERIFY(policy.open());
        policy.write(QStringLiteral("{\"name\": \"%1\"}").arg(b).toUtf8());
        policy.close();
        QCOMPARE(cordon({QStringLiteral("create"), QStringLiteral("--policy"), policy.fileName()}).status, 1);
        for (const QByteArray &id : {first.out.trimmed(), second.out.trimmed()})
            QCOMPARE(cordon({QStringLiteral("rm"), QStringLiteral("--force"), QString::fromUtf8(id)}).status,
                     0);
    }

    void inspectSaysEveryLimitInWordsAndPrintsThePolicy()
    {
        QTemporaryFile policy;
        QVERIFY(policy.open());
        policy.write(R"({"name": "worded", "limits": {"pids": 32, "run_timeout_s": 120},
                        "mounts": [{"host": "/usr/share", "target": "/mnt/share"}]})");
        policy.close();
        const CliResult created =
            cordon({QStringLiteral("create"), QStringLiteral("--policy"), policy.fileName()});
        QVERIFY2(created.status == 0, created.describe());
        const CliResult shown = cordon(args({"inspect", "worded"}));
        QVERIFY2(shown.status == 0, shown.describe());
        for (const char *line :
             {"  Memory:       1 GiB; a run that needs more is killed by the kernel",
              "  Processes:    at most 32 processes and threads at once",
              "  Run time:     2 minutes per run, then the run is killed",
              "  /tmp:         256 MiB, in memory", "  Workspace:    512 MiB in /mnt/data",
              "  Output:       16 MiB of stdout and stderr kept per run",
              "  Network:      off: no network at all", "  Mount:        /usr/share at /mnt/share, read-only",
              "    \"pids\": 32,", "        \"run_timeout_s\": 120,",
              // Files are memory: what /mnt/data holds, beside the limit it counts toward.
              " in /mnt/data, counted in its 1.0 GiB memory limit\n"})
            QVERIFY2(shown.out.contains(line),
                     QByteArray(QByteArray(line) + "\n--- not in ---\n" + shown.out));
        QCOMPARE(cordon({QStringLiteral("rm"), QStringLiteral("--force"), QStringLiteral("worded")}).status,
                 0);
    }

    void rmRefusesRunningContainersWithoutForce()
    {
        const CliResult created = cordon(args({"create", "--name", "doomed", "--idle", "7d"}));
        QVERIFY2(created.status == 0, created.describe());
        const QString id = QString::fromUtf8(created.out).trimmed();
        const CliResult refused = cordon({QStringLiteral("rm"), id});
        QVERIFY2(refused.status == 1, refused.describe());
        QVERIFY2(refused.err.contains("is running") && refused.err.contains("--force"), refused.err);
        QCOMPARE(containerJson(id).value(QStringLiteral("state")).toString(), QStringLiteral("running"));

        const CliResult removed = cordon({QStringLiteral("rm"), QStringLiteral("--force"), id});
        QVERIFY2(removed.status == 0, removed.describe());
        QCOMPARE(removed.out, (id + QLatin1Char('\n')).toUtf8());
        const CliResult inspected = cordon({QStringLiteral("inspect"), id});
        QVERIFY2(inspected.status == 0, inspected.describe());
        QVERIFY2(inspected.out.contains("State:         deleted"), inspected.out);
        QVERIFY(!QFileInfo::exists(qEnvironmentVariable("CORDON_DATA_DIR") + QStringLiteral("/containers/") +
                                   id));

        // A stopped container needs no --force.
        QCOMPARE(cordon({QStringLiteral("stop"), m_container}).status, 0);
        const CliResult last = cordon({QStringLiteral("rm"), m_container});
        QVERIFY2(last.status == 0, last.describe());
        QCOMPARE(containerJson(m_container).value(QStringLiteral("state")).toString(),
                 QStringLiteral("deleted"));
    }

    // --no-wait says the files are being saved, not that they are kept. A running daemon's clock is not
    // changed by `daemon start --time-scale` while it holds containers: their deadlines stay as they are.
    void stopWithoutWaitingAndTheClockOfARunningDaemon()
    {
        const CliResult created = cordon(args({"create", "--name", "clockless"}));
        QVERIFY2(created.status == 0, created.describe());
        const QString id = QString::fromUtf8(created.out).trimmed();
        const qint64 deadline = containerJson(id).value(QStringLiteral("expires_at")).toInteger();
        const CliResult refused = cordon(args({"daemon", "start", "--time-scale", "60"}));
        QVERIFY2(refused.status == 1, refused.describe());
        QVERIFY2(refused.err.contains("--time-scale applies to a daemon it starts"), refused.err);
        QCOMPARE(containerJson(id).value(QStringLiteral("expires_at")).toInteger(), deadline);
        const CliResult stopped = cordon({QStringLiteral("stop"), QStringLiteral("--no-wait"), id});
        QVERIFY2(stopped.status == 0, stopped.describe());
        QCOMPARE(stopped.out, (id + QStringLiteral(" stopped; saving its files\n")).toUtf8());
        QVERIFY2(cordon({QStringLiteral("rm"), id}).status == 0, "rm");
    }

    void unknownContainersAreNamed_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<int>("status");
        QTest::newRow("inspect") << args({"inspect", "0123456789abcdef"}) << 1;
        QTest::newRow("stop") << args({"stop", "0123456789abcdef"}) << 1;
        QTest::newRow("files") << args({"files", "0123456789abcdef"}) << 1;
        QTest::newRow("cp") << args({"cp", "0123456789abcdef:", "/tmp"}) << 1;
        // exec says 125 for every way the program did not run, as `cordon run` does.
        QTest::newRow("exec") << args({"exec", "0123456789abcdef", "true"}) << 125;
    }

    void unknownContainersAreNamed()
    {
        QFETCH(QStringList, arguments);
        QFETCH(int, status);
        const CliResult result = cordon(arguments);
        QVERIFY2(result.status == status, result.describe());
        QVERIFY2(result.err.contains("cordon: error: no container with id `0123456789abcdef`"), result.err);
        QVERIFY2(result.err.contains("cordon: hint: `cordon ls --all`"), result.err);
    }

    void noDaemonIsExitStatus125()
    {
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        const QString nowhere = m_socketDir.filePath(QStringLiteral("nowhere.sock"));
        environment.insert(QStringLiteral("CORDON_SOCKET"), nowhere);
        environment.insert(QStringLiteral("CORDON_DAEMON"), QStringLiteral("/nonexistent"));
        const CliResult listed = cordon(args({"ls"}), {}, environment);
        QVERIFY2(listed.status == 125, listed.describe());
        QVERIFY2(listed.err.contains(nowhere.toUtf8()), listed.err);
        QVERIFY2(listed.err.contains("/nonexistent"), listed.err);
        QVERIFY2(listed.err.contains("cordon: hint: "), listed.err);
        QVERIFY(listed.out.isEmpty());
        // With no daemon to talk to, `cordon exec` leaves it to the full CLI, which reports it (and would
        // have started one).
        const CliResult executed = cordon(args({"exec", "0123456789abcdef", "true"}), {}, environment);
        QVERIFY2(executed.status == 125, executed.describe());
        QVERIFY2(executed.err.contains(nowhere.toUtf8()), executed.err);
        const CliResult lone =
            runProgram(loneLauncher(), args({"exec", "0123456789abcdef", "true"}), {}, environment);
        QVERIFY2(lone.status == 125 && lone.err.contains("`cordon-cli`"), lone.describe());

        // Neither does `ls --no-start` (what shell completion runs): it never tries CORDON_DAEMON.
        const CliResult quiet = cordon(args({"ls", "--quiet", "--no-start"}), {}, environment);
        QVERIFY2(quiet.status == 125, quiet.describe());
        QVERIFY2(quiet.err.contains("no daemon is listening") && !quiet.err.contains("/nonexistent"),
                 quiet.err);
        QVERIFY(quiet.out.isEmpty());

        // status never starts a daemon: it says there is none.
        const CliResult status = cordon(args({"daemon", "status"}), {}, environment);
        QVERIFY2(status.status == 125, status.describe());
        QVERIFY2(status.err.contains("no daemon is listening"), status.err);
        const CliResult stop = cordon(args({"daemon", "stop"}), {}, environment);
        QVERIFY2(stop.status == 0 && stop.out.contains("not running"), stop.describe());
    }

    // A daemon that exits at once (here: a damaged history) is reported with its own words, by every client
    // that starts one: the Qt CLI, `cordon daemon start`, and the launcher starting one for a one-shot run's
    // network. They used to wait out the start timeout and say only that it did not answer.
    void aDaemonThatCannotStartSaysWhy()
    {
        QTemporaryDir data;
        QFile history(data.filePath(QStringLiteral("history.db")));
        QVERIFY(history.open(QIODevice::WriteOnly));
        history.write(QByteArray(8192, 'x'));
        history.close();
        QTemporaryFile policy;
        QVERIFY(policy.open());
        policy.write(R"({"network_policy": {"type": "allowlist", "allowed_domains": []}})");
        policy.flush();
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        const QString socket = m_socketDir.filePath(QStringLiteral("broken.sock"));
        environment.insert(QStringLiteral("CORDON_SOCKET"), socket);
        environment.insert(QStringLiteral("CORDON_DATA_DIR"), data.path());
        environment.remove(QStringLiteral("CORDON_DAEMON"));
        for (const QStringList &arguments :
             {args({"ls"}), args({"daemon", "start"}),
              QStringList{QStringLiteral("run"), QStringLiteral("--policy"), policy.fileName(),
                          QStringLiteral("--"), QStringLiteral("true")}}) {
            const CliResult result = cordon(arguments, {}, environment);
            QVERIFY2(result.status == 125, result.describe());
            QVERIFY2(result.err.contains("not a database"), result.describe());
            QVERIFY2(!result.err.contains("did not answer") && !result.err.contains("within 5 s"),
                     result.describe());
        }
        QFile log(socket + QStringLiteral(".log"));
        QVERIFY(log.open(QIODevice::ReadOnly));
        QVERIFY(log.readAll().contains("not a database"));
    }

    void daemonStatusReportsItself()
    {
        const CliResult status = cordon(args({"daemon", "status", "--json"}));
        QVERIFY2(status.status == 0, status.describe());
        QCOMPARE(status.json().value(QStringLiteral("pid")).toInteger(), m_daemon.processId());
        QCOMPARE(status.json().value(QStringLiteral("time_scale")).toDouble(), 600.0);
        // The workbench's Settings show where the data is: the daemon's own directory, not a guess.
        const QString dataDir = status.json().value(QStringLiteral("data_dir")).toString();
        QVERIFY2(QFileInfo(dataDir).isDir(), qPrintable(dataDir));
        if (qEnvironmentVariableIsSet("CORDON_DATA_DIR"))
            QCOMPARE(dataDir, qEnvironmentVariable("CORDON_DATA_DIR"));
        const CliResult again = cordon(args({"daemon", "start"}));
        QVERIFY2(again.status == 0 && again.out.contains("already running"), again.describe());
    }
};

CORDON_SANDBOX_TEST_MAIN(TestDaemonCli)
#include "tst_daemoncli.moc"
