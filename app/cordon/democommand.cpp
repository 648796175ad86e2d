// SPDX-License-Identifier: MIT
// cordon demo: runs a handful of hostile programs in sandboxes and shows what stopped each of them. It is the
// quickest way to see Cordon's isolation at work (and what a trainer shows a class).
#include "clioutput.h"
#include "commands.h"
#include "daemoncli.h"

#include "containers/oneshotrun.h"

#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>

#include <functional>

namespace Cordon::Cli {

namespace {

// One hostile program, what should stop it, and how to tell what did from its outcome.
struct Demo
{
    const char *title;
    const char *expectation;
    QStringList command;
    std::function<QString(const Containers::RunOutcome &)> tell;
    int timeoutS = 30;
};

QString lastLine(const QByteArray &bytes)
{
    const QString text = QString::fromUtf8(bytes).trimmed();
    const QString line = text.section(QLatin1Char('\n'), -1).trimmed();
    return line.size() > 100 ? line.left(97) + QStringLiteral("...") : line;
}

QStringList sh(const QString &script)
{
    return {QStringLiteral("/bin/sh"), QStringLiteral("-c"), script};
}

QStringList python(const char *script)
{
    return {QStringLiteral("python3"), QStringLiteral("-c"), QString::fromUtf8(script)};
}

// What the program printed, as the sentence for demos whose program words its own result.
QString said(const Containers::RunOutcome &outcome)
{
    const QString line = lastLine(outcome.stdoutData.isEmpty() ? outcome.stderrData : outcome.stdoutData);
    return line.isEmpty() ? QStringLiteral("it printed nothing") : line;
}

int hostProcessCount()
{
    return int(QDir(QStringLiteral("/proc")).entryList({QStringLiteral("[0-9]*")}, QDir::Dirs).size());
}

QList<Demo> demos()
{
    // Real host paths: the files an attacker wants are the user's own, not the sandbox's.
    const QString home = QDir::homePath();
    // Those that exist on this host, so that "could not be read" is about real files.
    QStringList secrets;
    const QStringList candidates = {QStringLiteral("/etc/shadow"),
                                    home + QStringLiteral("/.ssh/id_rsa"),
                                    home + QStringLiteral("/.ssh/id_ed25519"),
                                    home + QStringLiteral("/.bash_history"),
                                    home + QStringLiteral("/.gitconfig"),
                                    home + QStringLiteral("/.config/cordon/org-policy.json")};
    for (const QString &path : candidates)
        if (QFileInfo::exists(path))
            secrets.append(path);
    if (secrets.isEmpty())
        secrets.append(QStringLiteral("/etc/shadow"));
    QString readSecrets = QStringLiteral("read=0; for f in");
    for (const QString &path : secrets)
        readSecrets += QStringLiteral(" '") + path + QLatin1Char('\'');
    readSecrets +=
        QStringLiteral("; do if cat \"$f\" >/dev/null 2>&1; then read=$((read+1)); echo \"READ $f\"; "
                       "fi; done; echo \"$read of %1 host files could be read\"")
            .arg(secrets.size());
    const int hostProcesses = hostProcessCount();
    return {
        {"Read the host's secrets", "none of the host's files can be read: they are not in the sandbox",
         sh(readSecrets),
         [secrets](const Containers::RunOutcome &outcome) {
             const QString line = said(outcome);
             if (!line.startsWith(QLatin1String("0 of")))
                 return line;
             return QStringLiteral("not one of these host files could be read: %1")
                 .arg(secrets.join(QStringLiteral(", ")));
         }},
        {"Phone home", "no route: the network namespace has only loopback",
         python("import socket\n"
                "try:\n"
                "    socket.create_connection(('93.184.216.34', 80), timeout=3)\n"
                "    print('connected to 93.184.216.34')\n"
                "except OSError as e:\n"
                "    print('connecting to 93.184.216.34 failed: ' + e.strerror)\n"),
         said},
        {"Tamper with the system", "the root file system is read-only",
         // The shell's own error, not a sentence of ours: the evidence is what the kernel answered.
         sh(QStringLiteral(
             "if out=$( (echo evil > /usr/bin/python3) 2>&1); then echo 'wrote /usr/bin/python3'; "
             "else echo \"writing /usr/bin/python3 was refused: ${out##*: }\"; fi")),
         said},
        {"Escape via a new user namespace", "seccomp refuses unshare",
         sh(QStringLiteral("if out=$(unshare -U true 2>&1); then echo 'created a user namespace'; "
                           "else echo \"unshare -U was refused: ${out##*: }\"; fi")),
         said},
        {"Look at host processes", "only the sandbox's own processes are visible",
         sh(QStringLiteral("ls /proc | grep -c '^[0-9]'")),
         [hostProcesses](const Containers::RunOutcome &outcome) {
             return QStringLiteral("the sandbox sees %1 processes, its own; the host runs %2")
                 .arg(lastLine(outcome.stdoutData))
                 .arg(hostProcesses);
         }},
        {"Memory bomb (1 GiB tier)", "killed by the OOM killer at the memory limit",
         python("b = []\nwhile True: b.append(bytearray(64 * 1024 * 1024))"),
         [](const Containers::RunOutcome &outcome) {
             return outcome.errorClass == Containers::ErrorClass::Oom
                        ? QStringLiteral("the kernel killed it at %1, the limit")
                              .arg(formatBytes(outcome.memoryLimitBytes))
                        : QStringLiteral("it was not killed for memory (%1)")
                              .arg(Containers::errorClassName(outcome.errorClass));
         }},
        {"Fork bomb", "fork fails at the process limit; the host is unaffected",
         // Children that outlive the loop: with short ones a slow (or busy) host would let early children exit
         // before the later ones start, and the limit would never be met. The run ends with the shell; the
         // container's teardown kills the rest.
         sh(QStringLiteral(
             "i=0; while [ $i -lt 2000 ]; do sleep 30 & i=$((i+1)); done 2>/dev/null; echo forked")),
         [](const Containers::RunOutcome &outcome) {
             if (outcome.pidsLimitHits <= 0)
                 return QStringLiteral("the process limit was never reached");
             return QStringLiteral("the process limit of %1 refused %2")
                 .arg(outcome.pidsLimit)
                 .arg(outcome.pidsLimitHits == 1 ? QStringLiteral("a fork")
                                                 : QStringLiteral("%1 forks").arg(outcome.pidsLimitHits));
         }},
        {"Run forever", "killed with all its children at the wall-time limit",
         sh(QStringLiteral("sleep 600")),
         [](const Containers::RunOutcome &outcome) {
             return outcome.errorClass == Containers::ErrorClass::Timeout
                        ? QStringLiteral("stopped after %1 s with everything it started")
                              .arg(outcome.wallMs / 1000.0, 0, 'f', 1)
                        : QStringLiteral("it was not stopped by the time limit (%1)")
                              .arg(Containers::errorClassName(outcome.errorClass));
         },
         2},
        {"Write an artifact", "copied out safely to the output folder",
         sh(QStringLiteral("echo 'hello from the sandbox' > /mnt/data/outputs/result.txt && echo written")),
         [](const Containers::RunOutcome &outcome) {
             return outcome.artifacts.isEmpty() ? QStringLiteral("nothing was copied out")
                                                : QStringLiteral("%1 was copied out (%2, sha256 %3)")
                                                      .arg(outcome.artifacts.first().path,
                                                           formatBytes(outcome.artifacts.first().size),
                                                           outcome.artifacts.first().sha256.left(12));
         }},
    };
}

} // namespace

int demoCommand(const QStringList &arguments)
{
    const QString command = QStringLiteral("cordon demo");
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Run hostile programs in sandboxes and show what contained them. The artifact the last one writes\n"
        "is copied to a new temporary folder, or to --output-dir."));
    parser.addHelpOption();
    const QCommandLineOption degradedOption(
        QStringLiteral("allow-degraded"),
        QStringLiteral("Run without cgroup limits when the host has none."));
    const QCommandLineOption outputOption(QStringLiteral("output-dir"),
                                          QStringLiteral("Copy the artifact here (created if missing)."),
                                          QStringLiteral("dir"));
    const QCommandLineOption jsonOption(QStringLiteral("json"),
                                        QStringLiteral("Print each demo's outcome and sentence as JSON."));
    parser.addOptions({degradedOption, outputOption, jsonOption});
    if (const auto status = parseCommandLine(parser, arguments, command))
        return *status;
    if (!parser.positionalArguments().isEmpty())
        return usageError(
            command, QStringLiteral("unexpected argument `%1`").arg(parser.positionalArguments().first()));

    // Never the current directory: a demo must not leave files where the user happens to stand.
    QString outputs = parser.value(outputOption);
    if (outputs.isEmpty()) {
        QTemporaryDir made(QDir::tempPath() + QStringLiteral("/cordon-demo-XXXXXX"));
        if (!made.isValid())
            return usageError(command,
                              QStringLiteral("cannot create a temporary folder: %1").arg(made.errorString()));
        made.setAutoRemove(false);
        outputs = made.path();
    } else if (!QDir().mkpath(outputs)) {
        return usageError(command, QStringLiteral("cannot create `%1`").arg(outputs));
    }
    outputs = QDir(outputs).absolutePath();

    const bool json = parser.isSet(jsonOption);
    if (!json)
        printOut(QStringLiteral("Cordon demo: each program below runs in its own throw-away sandbox.\n\n"));
    int unexpected = 0;
    QJsonArray results;
    for (const Demo &demo : demos()) {
        Containers::OneShotRequest request;
        request.command = demo.command;
        request.policy.limits.runTimeoutS = demo.timeoutS;
        request.allowDegraded = parser.isSet(degradedOption);
        if (QLatin1String(demo.title) == QLatin1String("Write an artifact"))
            request.outputDirectory = outputs;
        const Containers::RunOutcome outcome = Containers::runToCompletion(std::move(request));
        const bool setupFailed = outcome.errorClass == Containers::ErrorClass::SetupFailed;
        if (setupFailed)
            ++unexpected;
        const QString sentence = setupFailed ? QStringLiteral("the sandbox did not start: ") + outcome.message
                                             : demo.tell(outcome);
        if (json) {
            results.append(QJsonObject{{QStringLiteral("title"), QLatin1String(demo.title)},
                                       {QStringLiteral("expected"), QLatin1String(demo.expectation)},
                                       {QStringLiteral("what_happened"), sentence},
                                       {QStringLiteral("run"), outcome.toJson()}});
            continue;
        }
        printOut(
            QStringLiteral(
                "* %1\n    expected: %2\n    happened: %3\n    outcome:  %4 in %5 ms, peak memory %6\n\n")
                .arg(QLatin1String(demo.title), QLatin1String(demo.expectation), sentence,
                     Containers::errorClassName(outcome.errorClass))
                .arg(outcome.wallMs)
                .arg(formatBytes(outcome.peakMemoryBytes)));
    }
    if (json) {
        printJson(QJsonObject{{QStringLiteral("demos"), results},
                              {QStringLiteral("output_dir"), outputs},
                              {QStringLiteral("all_ran"), unexpected == 0}});
        return unexpected == 0 ? 0 : 1;
    }
    printOut(
        unexpected == 0
            ? QStringLiteral("All demos ran inside the sandbox. The artifact is in %1\n").arg(outputs)
            : QStringLiteral("%1 demo(s) could not start a sandbox: run `cordon doctor`.\n").arg(unexpected));
    return unexpected == 0 ? 0 : 1;
}

} // namespace Cordon::Cli
