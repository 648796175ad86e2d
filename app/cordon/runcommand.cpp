// SPDX-License-Identifier: MIT
// cordon run [options] -- CMD...: a throw-away container for one command; the exit status mirrors the run.
#include "clioutput.h"
#include "cliparse.h"
#include "commands.h"
#include "policyfile.h"

#include "containers/oneshotrun.h"
#include "core/plainbridge.h"
#include "daemon/lite/signalpipe.h"
#include "sandbox/policy/containerpolicy.h"
#include "sandbox/duration.h"
#include "sandbox/oneshotrun.h"

#include <QCommandLineParser>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>

#include <cstdio>
#include <unistd.h>

namespace Cordon::Cli {

namespace {

constexpr qint64 MaxStdinBytes = 64LL * 1024 * 1024;

Result<QByteArray> readAllStdin()
{
    QByteArray data;
    char buffer[65536];
    for (;;) {
        const size_t n = std::fread(buffer, 1, sizeof buffer, stdin);
        if (n == 0)
            break;
        data.append(buffer, static_cast<qsizetype>(n));
        if (data.size() > MaxStdinBytes)
            return fail(QStringLiteral("cli.stdin_too_large"), QStringLiteral("stdin is larger than 64 MiB"));
    }
    return data;
}

} // namespace

int runCommand(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Run a command in a throw-away sandbox: new namespaces, read-only root, no network, seccomp, cgroup\n"
        "limits. Inputs are copied to /mnt/data/inputs (read-only); /mnt/data/outputs is copied out "
        "afterwards.\n"
        "The exit status mirrors the run: its exit code, 128+signal, or 125 when the sandbox could not be "
        "set up."));
    parser.setOptionsAfterPositionalArgumentsMode(QCommandLineParser::ParseAsPositionalArguments);
    parser.addHelpOption();
    const QCommandLineOption policyOption(
        QStringLiteral("policy"), QStringLiteral("Container policy JSON file."), QStringLiteral("file"));
    const QCommandLineOption memoryOption(QStringLiteral("memory"),
                                          QStringLiteral("Memory limit: 1g, 4g, 16g, 64g or bytes."),
                                          QStringLiteral("tier"));
    const QCommandLineOption timeoutOption(QStringLiteral("timeout"),
                                           QStringLiteral("Wall-time limit, e.g. 30s or 5m (whole seconds)."),
                                           QStringLiteral("duration"));
    const QCommandLineOption inputOption(
        QStringLiteral("input"), QStringLiteral("Copy a host file into /mnt/data/inputs (repeatable)."),
        QStringLiteral("path"));
    const QCommandLineOption outputOption(QStringLiteral("output-dir"),
                                          QStringLiteral("Copy /mnt/data/outputs here after the run."),
                                          QStringLiteral("dir"));
    const QCommandLineOption jsonOption(QStringLiteral("json"),
                                        QStringLiteral("Print the outcome (with captured output) as JSON."));
    const QCommandLineOption stdinOption(
        QStringLiteral("stdin"), QStringLiteral("Pass this program's stdin to the run (else /dev/null)."));
    const QCommandLineOption degradedOption(
        QStringLiteral("allow-degraded"),
        QStringLiteral("Run even when this host cannot enforce memory and pids limits (no cgroups)."));
    parser.addOptions({policyOption, memoryOption, timeoutOption, inputOption, outputOption, jsonOption,
                       stdinOption, degradedOption});
    parser.addPositionalArgument(QStringLiteral("command"), QStringLiteral("The command and its arguments."),
                                 QStringLiteral("-- CMD [ARGS...]"));
    if (const auto status = parseCommandLine(parser, arguments, QStringLiteral("cordon run")))
        return *status;

    Containers::OneShotRequest request;
    request.command = parser.positionalArguments();
    if (request.command.isEmpty()) {
        printErr(
            QStringLiteral("cordon run: no command given. Example: cordon run -- python3 -c 'print(1)'\n"));
        return UsageError;
    }
    auto policy = loadPolicyFile(parser.value(policyOption));
    if (!policy) {
        printError(policy.error());
        return UsageError;
    }
    request.policy = std::move(*policy);
    if (parser.isSet(memoryOption)) {
        auto memory = Policy::parseMemoryLimit(toPlain(parser.value(memoryOption)));
        if (!memory) {
            printError(memory.error().wrap("--memory"));
            return UsageError;
        }
        request.policy.memoryLimitBytes = *memory;
    }
    if (parser.isSet(timeoutOption)) {
        auto millis = parseDurationMillis(toPlain(parser.value(timeoutOption)));
        if (!millis) {
            printError(millis.error().wrap("--timeout"));
            return UsageError;
        }
        request.policy.limits.runTimeoutS = Containers::OneShot::timeoutSeconds(*millis);
    }
    for (const QString &input : parser.values(inputOption)) {
        const QFileInfo info(input);
        if (!info.isFile()) {
            printErr(QStringLiteral("cordon run: --input `%1` is not a readable regular file\n").arg(input));
            return UsageError;
        }
        request.inputs.append(info.absoluteFilePath());
    }
    request.outputDirectory = parser.value(outputOption);
    request.allowDegraded = parser.isSet(degradedOption);
    if (parser.isSet(stdinOption)) {
        auto data = readAllStdin();
        if (!data) {
            printError(data.error());
            return UsageError;
        }
        request.stdinData = std::move(*data);
    }

    // Kept for the hint after a failed run: the command as given, and the names the inputs have inside.
    std::vector<std::string> command;
    for (const QString &argument : std::as_const(request.command))
        command.push_back(argument.toStdString());
    std::vector<std::string> inputNames;
    for (const QString &input : std::as_const(request.inputs))
        inputNames.push_back(QFileInfo(input).fileName().toStdString());

    // Ctrl-C (or SIGTERM, SIGHUP) cancels the run and still removes the container.
    request.interruptFd = Lite::interruptSignalPipe();
    const bool json = parser.isSet(jsonOption);
    std::function<void(Containers::OutputStream, const QByteArray &)> echo;
    if (!json) {
        echo = [](Containers::OutputStream stream, const QByteArray &chunk) {
            FILE *target = stream == Containers::OutputStream::Stdout ? stdout : stderr;
            std::fwrite(chunk.constData(), 1, static_cast<size_t>(chunk.size()), target);
            std::fflush(target);
        };
    }
    const Containers::RunOutcome outcome = Containers::runToCompletion(std::move(request), echo);
    if (json)
        printOut(QString::fromUtf8(QJsonDocument(outcome.toJson()).toJson(QJsonDocument::Indented)));
    else
        printErr(summarize(outcome));
    if (!json && outcome.errorClass != Containers::ErrorClass::Ok)
        printErr(QString::fromStdString(Lite::hostFileHint(command, inputNames)));
    return outcome.shellStatus();
}

} // namespace Cordon::Cli
