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
    // Paged from the daemon as the bytes the run wrote (binary included), not the answer's text preview.
    const QString runId = run.value(QStringLiteral("id")).toString();
    for (const auto &[stream, file] :
         {std::pair{QStringLiteral("stdout"), stdout}, std::pair{QStringLiteral("stderr"), stderr}}) {
        qint64 offset = 0;
        for (;;) {
            auto page = session.call(QStringLiteral("run.output"), {{QStringLiteral("run_id"), runId},
                                                                    {QStringLiteral("stream"), stream},
                                                                    {QStringLiteral("offset"), offset}});
            if (!page)
                return reportError(page.error());
            const QByteArray bytes =
                QByteArray::fromBase64(page->value(QStringLiteral("data")).toString().toLatin1());
            std::fwrite(bytes.constData(), 1, static_cast<size_t>(bytes.size()), file);
            offset = page->value(QStringLiteral("next_offset")).toInteger();
            if (page->value(QStringLiteral("eof")).toBool() || bytes.isEmpty())
                break;
        }
        std::fflush(file);
    }
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
