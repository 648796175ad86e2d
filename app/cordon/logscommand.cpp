// SPDX-License-Identifier: MIT
// cordon logs RUN: the captured stdout and stderr of a finished run, from the history, and its summary.
#include "cliformat.h"
#include "clioutput.h"
#include "commands.h"
#include "daemoncli.h"

#include <cstdio>

namespace Cordon::Cli {

int logsCommand(const QStringList &arguments)
{
    const QString command = QStringLiteral("cordon logs");
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Print what a run wrote: its stdout to stdout, its "
                                                    "stderr and the summary to stderr, as `cordon exec`\n"
                                                    "did. Output is kept up to the policy's output limit, as "
                                                    "UTF-8 text. `cordon history` lists run ids."));
    parser.addHelpOption();
    const QCommandLineOption jsonOption(
        QStringLiteral("json"),
        QStringLiteral("Print the daemon's result (the run, with its output) as JSON."));
    parser.addOption(jsonOption);
    parser.addPositionalArgument(QStringLiteral("run"), QStringLiteral("The run's id."),
                                 QStringLiteral("RUN_ID"));
    if (auto done = parseCommandLine(parser, arguments, command))
        return *done;
    if (parser.positionalArguments().size() != 1)
        return usageError(command, QStringLiteral("give exactly one run id"));

    DaemonSession session;
    if (auto connected = session.connect(); !connected)
        return reportError(connected.error());
    auto found = session.call(QStringLiteral("run.get"),
                              {{QStringLiteral("run_id"), parser.positionalArguments().first()}});
    if (!found)
        return reportError(found.error());
    if (parser.isSet(jsonOption)) {
        printJson(*found);
        return 0;
    }
    const QJsonObject run = found->value(QStringLiteral("run")).toObject();
    if (run.value(QStringLiteral("state")).toString() == QLatin1String("running")) {
        printErr(summarizeRun(run, {}) +
                 QStringLiteral("cordon: its output is shown here once it has ended\n"));
        return 0;
    }
    const QByteArray out = run.value(QStringLiteral("stdout")).toString().toUtf8();
    const QByteArray err = run.value(QStringLiteral("stderr")).toString().toUtf8();
    std::fwrite(out.constData(), 1, static_cast<size_t>(out.size()), stdout);
    std::fflush(stdout);
    std::fwrite(err.constData(), 1, static_cast<size_t>(err.size()), stderr);
    // The memory limit for the summary: known while the daemon still holds the container.
    QJsonObject container;
    if (auto owner =
            session.call(QStringLiteral("container.get"),
                         {{QStringLiteral("id"), run.value(QStringLiteral("container")).toString()}}))
        container = owner->value(QStringLiteral("container")).toObject();
    printErr(summarizeRun(run, container));
    return 0;
}

} // namespace Cordon::Cli
