// SPDX-License-Identifier: MIT
// cordon demo: runs a handful of hostile programs in sandboxes and shows what stopped each of them. It is the
// quickest way to see Cordon's isolation at work (and what a trainer shows a class).
#include "clioutput.h"
#include "commands.h"
#include "daemoncli.h"

#include "containers/oneshotrun.h"

#include <QCommandLineParser>
#include <QDir>

namespace Cordon::Cli {

namespace {

struct Demo
{
    const char *title;
    const char *expectation;
    QStringList command;
    int timeoutS = 30;
};

QString firstLine(const QByteArray &bytes)
{
    const QString text = QString::fromUtf8(bytes).trimmed();
    const QString line = text.section(QLatin1Char('\n'), -1).trimmed();
    return line.size() > 100 ? line.left(97) + QStringLiteral("...") : line;
}

QStringList sh(const char *script)
{
    return {QStringLiteral("/bin/sh"), QStringLiteral("-c"), QString::fromUtf8(script)};
}

QStringList python(const char *script)
{
    return {QStringLiteral("python3"), QStringLiteral("-c"), QString::fromUtf8(script)};
}

} // namespace

int demoCommand(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Run hostile programs in sandboxes and show what contained them."));
    parser.addHelpOption();
    const QCommandLineOption degradedOption(
        QStringLiteral("allow-degraded"),
        QStringLiteral("Run without cgroup limits when the host has none."));
    parser.addOption(degradedOption);
    if (const auto status = parseCommandLine(parser, arguments, QStringLiteral("cordon demo")))
        return *status;

    const QString outputs = QDir::current().absoluteFilePath(QStringLiteral("cordon-demo-outputs"));
    const QList<Demo> demos = {
        {"Read the host's secrets", "no such file: the host's /etc and home are not in the sandbox",
         sh("cat /etc/shadow; ls /root /home 2>&1; cat ~/.ssh/id_rsa")},
        {"Phone home", "no route: the network namespace has only loopback",
         python("import socket; socket.create_connection(('93.184.216.34', 80), timeout=3)")},
        {"Tamper with the system", "read-only file system", sh("echo evil > /usr/bin/python3")},
        {"Escape via a new user namespace", "operation not permitted (seccomp)", sh("unshare -U true")},
        {"Look at host processes", "only the sandbox's own processes are visible",
         sh("ls /proc | grep -c '^[0-9]'")},
        {"Memory bomb (1 GiB tier)", "killed by the OOM killer at the memory limit",
         python("b = []\nwhile True: b.append(bytearray(64 * 1024 * 1024))")},
        {"Fork bomb", "fork fails at the pids limit; the host is unaffected",
         sh("i=0; while [ $i -lt 2000 ]; do sleep 2 & i=$((i+1)); done 2>&1 | tail -1")},
        {"Run forever", "killed with all its children at the wall-time limit", sh("sleep 600"), 2},
        {"Write an artifact", "copied out safely to ./cordon-demo-outputs",
         sh("echo 'hello from the sandbox' > /mnt/data/outputs/result.txt && echo written")},
    };

    printOut(QStringLiteral("Cordon demo: each program below runs in its own throw-away sandbox.\n\n"));
    int unexpected = 0;
    for (const Demo &demo : demos) {
        Containers::OneShotRequest request;
        request.command = demo.command;
        request.policy.limits.runTimeoutS = demo.timeoutS;
        request.allowDegraded = parser.isSet(degradedOption);
        if (QLatin1String(demo.title) == QLatin1String("Write an artifact"))
            request.outputDirectory = outputs;
        const Containers::RunOutcome outcome = Containers::runToCompletion(std::move(request));
        const QString evidence =
            outcome.errorClass == Containers::ErrorClass::SetupFailed
                ? outcome.message
                : firstLine(outcome.stderrData.isEmpty() ? outcome.stdoutData : outcome.stderrData);
        if (outcome.errorClass == Containers::ErrorClass::SetupFailed)
            ++unexpected;
        printOut(
            QStringLiteral("* %1\n    expected: %2\n    outcome:  %3 (%4 ms, peak %5)\n    said:     %6\n\n")
                .arg(QLatin1String(demo.title), QLatin1String(demo.expectation),
                     Containers::errorClassName(outcome.errorClass))
                .arg(outcome.wallMs)
                .arg(formatBytes(outcome.peakMemoryBytes),
                     evidence.isEmpty() ? QStringLiteral("(nothing)") : evidence));
    }
    printOut(
        unexpected == 0
            ? QStringLiteral("All demos ran inside the sandbox.\n")
            : QStringLiteral("%1 demo(s) could not start a sandbox: run `cordon doctor`.\n").arg(unexpected));
    return unexpected == 0 ? 0 : 1;
}

} // namespace Cordon::Cli
