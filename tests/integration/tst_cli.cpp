// SPDX-License-Identifier: MIT
// The `cordon` command as a user runs it: a real process, real sandboxes, exit statuses and messages.
#include "cliprocess.h"
#include "sandboxtest.h"

#include <QDir>
#include <QHash>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>

#include <sys/stat.h>
#include <unistd.h>

using namespace CordonTest;

class TestCli final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void helpForEveryCommand_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::newRow("top") << QStringList{QStringLiteral("--help")};
        QTest::newRow("run") << QStringList{QStringLiteral("run"), QStringLiteral("--help")};
        QTest::newRow("demo") << QStringList{QStringLiteral("demo"), QStringLiteral("--help")};
        QTest::newRow("doctor") << QStringList{QStringLiteral("doctor"), QStringLiteral("--help")};
        QTest::newRow("cgroup-delegate")
            << QStringList{QStringLiteral("cgroup-delegate"), QStringLiteral("--help")};
    }

    void helpForEveryCommand()
    {
        QFETCH(QStringList, arguments);
        const CliResult result = cordon(arguments);
        QCOMPARE(result.status, 0);
        // One style for every command: lower-case "usage:" naming the command, nothing about Qt.
        QVERIFY2(result.out.startsWith("usage: cordon"), result.out);
        QVERIFY2(!result.out.contains("Qt") && !result.out.contains("--help-all"), result.out);
    }

    void badArgumentsGetClearErrors_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QByteArray>("message");
        QTest::newRow("unknown command")
            << QStringList{QStringLiteral("launch")} << QByteArray("unknown command `launch`");
        QTest::newRow("no command") << QStringList{QStringLiteral("run")} << QByteArray("no command given");
        QTest::newRow("bad memory") << QStringList{QStringLiteral("run"), QStringLiteral("--memory"),
                                                   QStringLiteral("3g"), QStringLiteral("--"),
                                                   QStringLiteral("true")}
                                    << QByteArray("--memory");
        QTest::newRow("bad timeout") << QStringList{QStringLiteral("run"), QStringLiteral("--timeout"),
                                                    QStringLiteral("soon"), QStringLiteral("--"),
                                                    QStringLiteral("true")}
                                     << QByteArray("`soon` is not a duration");
        QTest::newRow("sub-second timeout")
            << QStringList{QStringLiteral("run"), QStringLiteral("--timeout"), QStringLiteral("500ms"),
                           QStringLiteral("--"), QStringLiteral("true")}
            << QByteArray("not a whole number of seconds");
        QTest::newRow("missing input")
            << QStringList{QStringLiteral("run"), QStringLiteral("--input"),
                           QStringLiteral("/nonexistent/x.csv"), QStringLiteral("--"), QStringLiteral("true")}
            << QByteArray("/nonexistent/x.csv");
        QTest::newRow("unknown option")
            << QStringList{QStringLiteral("run"), QStringLiteral("--frobnicate")} << QByteArray("frobnicate");
        QTest::newRow("missing policy") << QStringList{QStringLiteral("run"), QStringLiteral("--policy"),
                                                       QStringLiteral("/nonexistent/p.json"),
                                                       QStringLiteral("--"), QStringLiteral("true")}
                                        << QByteArray("/nonexistent/p.json");
    }

    void badArgumentsGetClearErrors()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QByteArray, message);
        const CliResult result = cordon(arguments);
        QCOMPARE(result.status, 2);
        QVERIFY2(result.err.contains(message), result.err);
    }

    void invalidPolicyNamesTheField()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("p.json"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(R"({"limits": {"pids": 0}})");
        file.close();
        const CliResult result = cordon({QStringLiteral("run"), QStringLiteral("--policy"), path,
                                         QStringLiteral("--"), QStringLiteral("true")});
        QCOMPARE(result.status, 2);
        QVERIFY2(result.err.contains("limits.pids"), result.err);
    }

    // Whole-file reads are bounded: a policy over twice the policy document's limit and stdin over 64 MiB
    // are refused before anything runs, with a message that says what was too large.
    void oversizedPolicyAndStdinAreRefused()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("big.json"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(QByteArray(3 * 1024 * 1024, ' '));
        file.close();
        const CliResult policy = cordon({QStringLiteral("run"), QStringLiteral("--policy"), path,
                                         QStringLiteral("--"), QStringLiteral("true")});
        QCOMPARE(policy.status, 2);
        QVERIFY2(policy.err.contains("big.json` is larger than 2 MiB"), policy.describe().constData());

        const CliResult stdinTooLarge =
            cordon({QStringLiteral("run"), QStringLiteral("--stdin"), QStringLiteral("--"),
                    QStringLiteral("sh"), QStringLiteral("-c"), QStringLiteral("echo ran")},
                   QByteArray(64 * 1024 * 1024 + 1, 'x'));
        QCOMPARE(stdinTooLarge.status, 2);
        QVERIFY2(stdinTooLarge.err.contains("stdin is larger than 64 MiB"),
                 stdinTooLarge.describe().constData());
        QVERIFY(!stdinTooLarge.out.contains("ran"));
    }

    // A policy "file" that is a FIFO (or any other non-regular file) is refused at once by `run` and
    // `create`, instead of waiting for a writer that never comes.
    void policyThatIsNotARegularFileIsRefusedAtOnce()
    {
        QTemporaryDir dir;
        const QString fifo = dir.filePath(QStringLiteral("policy.fifo"));
        QVERIFY(::mkfifo(QFile::encodeName(fifo).constData(), 0600) == 0);
        for (const QStringList &arguments :
             {QStringList{QStringLiteral("run"), QStringLiteral("--policy"), fifo, QStringLiteral("--"),
                          QStringLiteral("true")},
              QStringList{QStringLiteral("create"), QStringLiteral("--policy"), fifo},
              QStringList{QStringLiteral("run"), QStringLiteral("--policy"), dir.path(), QStringLiteral("--"),
                          QStringLiteral("true")}}) {
            const CliResult result = cordon(arguments);
            QCOMPARE(result.status, 2);
            QVERIFY2(result.err.contains("not a regular file"), result.describe().constData());
        }
    }

    // The README's first example, run twice: the second result must not be dropped in silence while the
    // first one stays to be read. Without a choice the run exits 1 and says why; --force replaces the file,
    // --keep-both saves the new one beside it; the two together, either without --output-dir, or an empty
    // --output-dir, are usage errors.
    void anOutputWhoseNameIsTakenIsNeitherDroppedNorSilent()
    {
        QTemporaryDir dir;
        const QString results = dir.filePath(QStringLiteral("results"));
        const auto count = [&](const QString &value, const QStringList &options) {
            return runProgram(
                builtProgram(QStringLiteral("cordon")),
                QStringList{QStringLiteral("run"), QStringLiteral("--output-dir"), results} + options +
                    QStringList{QStringLiteral("--"), QStringLiteral("sh"), QStringLiteral("-c"),
                                QStringLiteral("echo %1 > /mnt/data/outputs/count.txt").arg(value)});
        };
        const auto saved = [&](const QString &name) {
            QFile file(results + QLatin1Char('/') + name);
            return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray("<missing>");
        };
        const CliResult first = count(QStringLiteral("1"), {});
        QVERIFY2(first.status == 0, first.describe().constData());
        QCOMPARE(saved(QStringLiteral("count.txt")), QByteArray("1\n"));

        const CliResult clash = count(QStringLiteral("2"), {});
        QVERIFY2(clash.status == 1, clash.describe().constData());
        QVERIFY2(clash.err.contains("--force replaces them"), clash.describe().constData());
        QCOMPARE(saved(QStringLiteral("count.txt")), QByteArray("1\n"));

        const CliResult forced = count(QStringLiteral("3"), {QStringLiteral("--force")});
        QVERIFY2(forced.status == 0, forced.describe().constData());
        QCOMPARE(saved(QStringLiteral("count.txt")), QByteArray("3\n"));

        const CliResult both = count(QStringLiteral("4"), {QStringLiteral("--keep-both")});
        QVERIFY2(both.status == 0, both.describe().constData());
        QCOMPARE(saved(QStringLiteral("count.txt")), QByteArray("3\n"));
        QCOMPARE(saved(QStringLiteral("count (2).txt")), QByteArray("4\n"));

        const CliResult twoChoices =
            count(QStringLiteral("5"), {QStringLiteral("--force"), QStringLiteral("--keep-both")});
        QCOMPARE(twoChoices.status, 2);
        const CliResult noDirectory = runProgram(
            builtProgram(QStringLiteral("cordon")),
            {QStringLiteral("run"), QStringLiteral("--force"), QStringLiteral("--"), QStringLiteral("true")});
        QCOMPARE(noDirectory.status, 2);
        const CliResult empty = runProgram(builtProgram(QStringLiteral("cordon")),
                                           {QStringLiteral("run"), QStringLiteral("--output-dir"), QString(),
                                            QStringLiteral("--"), QStringLiteral("true")});
        QCOMPARE(empty.status, 2);
        QVERIFY2(empty.err.contains("--output-dir needs a directory"), empty.describe().constData());
    }

    // --output-dir is checked before anything runs: outputs are never produced with nowhere to go.
    void outputDirectoryThatCannotTakeOutputsIsRefusedBeforeTheRun()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("a-file"));
        QFile plain(file);
        QVERIFY(plain.open(QIODevice::WriteOnly));
        plain.close();
        const QString ran = dir.filePath(QStringLiteral("ran"));
        const auto runWithOutputDir = [&](const QString &outputDirectory,
                                          const QProcessEnvironment &environment =
                                              QProcessEnvironment::systemEnvironment()) {
            return runProgram(builtProgram(QStringLiteral("cordon")),
                              {QStringLiteral("run"), QStringLiteral("--output-dir"), outputDirectory,
                               QStringLiteral("--"), QStringLiteral("sh"), QStringLiteral("-c"),
                               QStringLiteral("echo ran; echo x > /mnt/data/outputs/x")},
                              {}, environment);
        };

        const CliResult aFile = runWithOutputDir(file);
        QCOMPARE(aFile.status, 2);
        QVERIFY2(aFile.err.contains("is not a directory"), aFile.describe().constData());
        QVERIFY2(!aFile.out.contains("ran"), aFile.describe().constData());

        const CliResult belowAFile = runWithOutputDir(file + QStringLiteral("/sub/dir"));
        QCOMPARE(belowAFile.status, 2);
        QVERIFY2(belowAFile.err.contains("is not a directory"), belowAFile.describe().constData());

        // Cordon's data folder holds the workspaces of every container: never an export target.
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("CORDON_DATA_DIR"), dir.filePath(QStringLiteral("data")));
        QVERIFY(QDir().mkpath(dir.filePath(QStringLiteral("data/containers"))));
        const CliResult inData =
            runWithOutputDir(dir.filePath(QStringLiteral("data/containers/new")), environment);
        QCOMPARE(inData.status, 2);
        QVERIFY2(inData.err.contains("inside Cordon's data folder"), inData.describe().constData());

        if (::geteuid() != 0) { // root may write anywhere
            const QString locked = dir.filePath(QStringLiteral("locked"));
            QVERIFY(QDir().mkdir(locked));
            QVERIFY(QFile::setPermissions(locked, QFileDevice::ReadOwner | QFileDevice::ExeOwner));
            const CliResult unwritable = runWithOutputDir(locked);
            QCOMPARE(unwritable.status, 2);
            QVERIFY2(unwritable.err.contains("is not writable"), unwritable.describe().constData());
            const CliResult unmakeable = runWithOutputDir(locked + QStringLiteral("/new"));
            QCOMPARE(unmakeable.status, 2);
            QVERIFY2(unmakeable.err.contains("cannot be made in"), unmakeable.describe().constData());
        }

        // A directory still to be made is made, parents included, and gets the outputs.
        const QString fresh = dir.filePath(QStringLiteral("fresh/deeper"));
        const CliResult made = runWithOutputDir(fresh);
        QCOMPARE(made.status, 0);
        QVERIFY2(QFile::exists(fresh + QStringLiteral("/x")), made.describe().constData());
    }

    // Command lines far beyond one protocol datagram (about 200 KiB) reach the run whole: the spawn request
    // travels in a memfd. Each argument may be up to the kernel's MAX_ARG_STRLEN (128 KiB with its NUL).
    void longCommandLinesReachTheRun()
    {
        const QString big(128 * 1024, QLatin1Char('a'));
        QStringList manyArguments{QStringLiteral("run"),
                                  QStringLiteral("--"),
                                  QStringLiteral("sh"),
                                  QStringLiteral("-c"),
                                  QStringLiteral("echo $#; echo \"${#1}\""),
                                  QStringLiteral("sh")};
        for (int i = 0; i < 8; ++i)
            manyArguments << big.left(100 * 1024);
        manyArguments << big.left(131071);
        const CliResult many = cordon(manyArguments);
        QCOMPARE(many.status, 0);
        QCOMPARE(many.out, QByteArray("9\n102400\n"));
    }

    void exitStatusMirrorsTheRun()
    {
        QCOMPARE(cordon({QStringLiteral("run"), QStringLiteral("--"), QStringLiteral("sh"),
                         QStringLiteral("-c"), QStringLiteral("exit 3")})
                     .status,
                 3);
        const CliResult killed =
            cordon({QStringLiteral("run"), QStringLiteral("--timeout"), QStringLiteral("1s"),
                    QStringLiteral("--"), QStringLiteral("sleep"), QStringLiteral("60")});
        QCOMPARE(killed.status, 128 + 9);
        QVERIFY2(killed.err.contains("timeout"), killed.err);
    }

    void outputStreamsAndSummary()
    {
        const CliResult result =
            cordon({QStringLiteral("run"), QStringLiteral("--stdin"), QStringLiteral("--"),
                    QStringLiteral("sh"), QStringLiteral("-c"), QStringLiteral("cat; echo err >&2")},
                   "piped input\n");
        QCOMPARE(result.status, 0);
        QCOMPARE(result.out, QByteArray("piped input\n"));
        QVERIFY2(result.err.startsWith("err\ncordon: ok (exit 0)"), result.err);
        QVERIFY(result.err.contains("peak memory"));
    }

    // `python3 script.py` with script.py on the host: the sandbox cannot see it, and the failed run says how
    // to pass it (without --input, and with one).
    void aHostFileThatIsNotAnInputGetsAHint()
    {
        QTemporaryDir here;
        QFile script(here.filePath(QStringLiteral("script.py")));
        QVERIFY(script.open(QIODevice::WriteOnly));
        script.write("print('hi')\n");
        script.close();
        auto runHere = [&](const QStringList &arguments) {
            QProcess run;
            run.setWorkingDirectory(here.path());
            run.start(builtProgram(QStringLiteral("cordon")), arguments);
            run.waitForFinished(60000);
            return CliResult{run.exitCode(), run.readAllStandardOutput(), run.readAllStandardError()};
        };
        const CliResult missing = runHere({QStringLiteral("run"), QStringLiteral("--"),
                                           QStringLiteral("python3"), QStringLiteral("script.py")});
        QCOMPARE(missing.status, 2);
        QVERIFY2(missing.err.contains(
                     "cordon: hint: `script.py` is a file on this host, which the sandbox cannot "
                     "see; pass it with --input script.py and name it /mnt/data/inputs/script.py"),
                 missing.describe());
        const CliResult misnamed =
            runHere({QStringLiteral("run"), QStringLiteral("--input"), QStringLiteral("script.py"),
                     QStringLiteral("--"), QStringLiteral("python3"), QStringLiteral("script.py")});
        QVERIFY2(misnamed.err.contains(
                     "cordon: hint: `script.py` was passed with --input: inside the sandbox it is "
                     "/mnt/data/inputs/script.py"),
                 misnamed.describe());
        const CliResult right = runHere(
            {QStringLiteral("run"), QStringLiteral("--input"), QStringLiteral("script.py"),
             QStringLiteral("--"), QStringLiteral("python3"), QStringLiteral("/mnt/data/inputs/script.py")});
        QVERIFY2(right.status == 0 && right.out == "hi\n" && !right.err.contains("hint"), right.describe());
    }

    void jsonOutcome()
    {
        QTemporaryDir dir;
        const CliResult result =
            cordon({QStringLiteral("run"), QStringLiteral("--json"), QStringLiteral("--output-dir"),
                    dir.path(), QStringLiteral("--"), QStringLiteral("sh"), QStringLiteral("-c"),
                    QStringLiteral("echo 42 > /mnt/data/outputs/a.txt; ln -s /etc/passwd "
                                   "/mnt/data/outputs/p; echo hi")});
        QCOMPARE(result.status, 0);
        const QJsonObject json = QJsonDocument::fromJson(result.out).object();
        QCOMPARE(json.value(QStringLiteral("error_class")).toString(), QStringLiteral("ok"));
        QCOMPARE(json.value(QStringLiteral("stdout")).toString(), QStringLiteral("hi\n"));
        QCOMPARE(json.value(QStringLiteral("policy_version")).toString().size(), 64);
        QCOMPARE(json.value(QStringLiteral("artifacts")).toArray().size(), 1);
        QCOMPARE(json.value(QStringLiteral("refused_artifacts"))
                     .toArray()
                     .first()
                     .toObject()
                     .value(QStringLiteral("code"))
                     .toString(),
                 QStringLiteral("files.symlink"));
        QFile artifact(dir.filePath(QStringLiteral("a.txt")));
        QVERIFY(artifact.open(QIODevice::ReadOnly));
        QCOMPARE(artifact.readAll(), QByteArray("42\n"));
    }

    void noCgroupsMeansAClearRefusalUnlessDegradedIsAsked()
    {
        // `nobody` has no delegated cgroup subtree: a limited run must refuse, and run only when degraded
        // mode is asked for explicitly. Needs root to switch users.
        if (::geteuid() != 0)
            QSKIP("needs root to run the CLI as a user without cgroup delegation");
        QTemporaryDir dir;
        // `cordon` is the launcher; `run` is the full CLI's, beside it.
        for (const char *program : {"cordon", "cordon-cli", "cordon-init"}) {
            const QString name = QString::fromUtf8(program);
            QVERIFY(QFile::copy(QCoreApplication::applicationDirPath() + QLatin1Char('/') + name,
                                dir.filePath(name)));
            QVERIFY(QFile::setPermissions(dir.filePath(name), QFileDevice::ReadOwner | QFileDevice::ExeOwner |
                                                                  QFileDevice::ReadOther |
                                                                  QFileDevice::ExeOther));
        }
        QVERIFY(QFile::setPermissions(dir.path(), QFileDevice::ReadOwner | QFileDevice::WriteOwner |
                                                      QFileDevice::ExeOwner | QFileDevice::ReadOther |
                                                      QFileDevice::WriteOther | QFileDevice::ExeOther));
        auto asNobody = [&](const QStringList &arguments) {
            QProcess process;
            process.setProgram(QStringLiteral("setpriv"));
            process.setArguments(QStringList{QStringLiteral("--reuid=65534"), QStringLiteral("--regid=65534"),
                                             QStringLiteral("--clear-groups"), QStringLiteral("env"),
                                             QStringLiteral("-i"), QStringLiteral("HOME=") + dir.path(),
                                             QStringLiteral("PATH=/usr/bin:/bin"),
                                             dir.filePath(QStringLiteral("cordon"))} +
                                 arguments);
            process.start();
            process.closeWriteChannel();
            process.waitForFinished(60000);
            return CliResult{process.exitCode(), process.readAllStandardOutput(),
                             process.readAllStandardError()};
        };
        const CliResult refused =
            asNobody({QStringLiteral("run"), QStringLiteral("--"), QStringLiteral("true")});
        QCOMPARE(refused.status, 125);
        QVERIFY2(refused.err.contains("memory and pids limits cannot be enforced"), refused.err);
        QVERIFY2(refused.err.contains("cgroup-delegate"), refused.err);
        const CliResult degraded =
            asNobody({QStringLiteral("run"), QStringLiteral("--allow-degraded"), QStringLiteral("--"),
                      QStringLiteral("sh"), QStringLiteral("-c"), QStringLiteral("echo ran")});
        QVERIFY2(degraded.status == 0, degraded.err.constData());
        QCOMPARE(degraded.out, QByteArray("ran\n"));
        QVERIFY2(degraded.err.contains("not enforced: degraded mode"), degraded.err);
    }

    // The trainer's tour: every demo says in a sentence what happened, the artifact goes to a folder of its
    // own (never the current directory), and --json carries the same.
    void demoTellsWhatHeldAndWritesNothingHere()
    {
        QTemporaryDir here;
        QTemporaryDir outputs;
        QProcess demo;
        demo.setWorkingDirectory(here.path());
        demo.start(builtProgram(QStringLiteral("cordon")), {QStringLiteral("demo"), QStringLiteral("--json"),
                                                            QStringLiteral("--output-dir"), outputs.path()});
        QVERIFY(demo.waitForFinished(180000));
        QCOMPARE(demo.exitCode(), 0);
        const QJsonObject report = QJsonDocument::fromJson(demo.readAllStandardOutput()).object();
        QCOMPARE(report.value(QStringLiteral("all_ran")).toBool(), true);
        QCOMPARE(report.value(QStringLiteral("output_dir")).toString(), QDir(outputs.path()).absolutePath());
        QHash<QString, QString> happened;
        for (const QJsonValue &value : report.value(QStringLiteral("demos")).toArray())
            happened.insert(value.toObject().value(QStringLiteral("title")).toString(),
                            value.toObject().value(QStringLiteral("what_happened")).toString());
        QCOMPARE(happened.size(), 9);
        QVERIFY2(happened.value(QStringLiteral("Read the host's secrets"))
                     .startsWith(QStringLiteral("not one of these host files could be read: /etc/shadow")),
                 qPrintable(happened.value(QStringLiteral("Read the host's secrets"))));
        QVERIFY2(happened.value(QStringLiteral("Fork bomb"))
                     .startsWith(QStringLiteral("the process limit of 256 refused")),
                 qPrintable(happened.value(QStringLiteral("Fork bomb"))));
        QVERIFY2(happened.value(QStringLiteral("Look at host processes"))
                     .contains(QStringLiteral("processes, its own; the host runs")),
                 qPrintable(happened.value(QStringLiteral("Look at host processes"))));
        QVERIFY2(happened.value(QStringLiteral("Tamper with the system"))
                     .endsWith(QStringLiteral("Read-only file system")),
                 qPrintable(happened.value(QStringLiteral("Tamper with the system"))));
        QVERIFY(QFileInfo::exists(outputs.filePath(QStringLiteral("result.txt"))));
        QCOMPARE(QDir(here.path()).entryList(QDir::NoDotAndDotDot | QDir::AllEntries), QStringList());
    }

    void doctorReportsAWorkingSandbox()
    {
        const CliResult result = cordon({QStringLiteral("doctor")});
        QVERIFY2(result.status == 0, QByteArray(result.out + result.err).constData());
        QVERIFY(result.out.contains("user namespaces"));
        QVERIFY(result.out.contains("seccomp"));
        QVERIFY(result.out.contains("started a container and ran /bin/true"));

        // The same, for scripts: every check with its status, and the verdict.
        const CliResult json = cordon({QStringLiteral("doctor"), QStringLiteral("--json")});
        QVERIFY2(json.status == 0, json.describe());
        const QJsonObject report = json.json();
        QCOMPARE(report.value(QStringLiteral("usable")).toBool(), true);
        QVERIFY(report.value(QStringLiteral("verdict")).toString().startsWith(QStringLiteral("Everything")) ||
                report.value(QStringLiteral("verdict")).toString().contains(QStringLiteral("cgroups")));
        QStringList names;
        for (const QJsonValue &check : report.value(QStringLiteral("checks")).toArray())
            names.append(check.toObject().value(QStringLiteral("name")).toString());
        QVERIFY2(names.contains(QStringLiteral("seccomp")) && names.last() == QLatin1String("sandbox"),
                 qPrintable(names.join(u',')));
        // The AppArmor line appears only where AppArmor restricts user namespaces (Ubuntu 23.10 and later).
        QFile restriction(QStringLiteral("/proc/sys/kernel/apparmor_restrict_unprivileged_userns"));
        if (!restriction.open(QIODevice::ReadOnly) || restriction.readAll().trimmed() != "1")
            QVERIFY2(!result.out.contains("apparmor userns"), result.out);
    }
};

CORDON_SANDBOX_TEST_MAIN(TestCli)
#include "tst_cli.moc"
