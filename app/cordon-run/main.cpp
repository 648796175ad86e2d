// SPDX-License-Identifier: MIT
// cordon-run: `cordon run`, and nothing else, in a program that links only QtCore. The `cordon` launcher
// execs it for `cordon run ...` with the arguments unchanged. The full CLI (cordon-cli) links QtNetwork and
// the daemon's code as well; loading those costs a one-shot run about 3 ms (docs/benchmarks.md).
#include "clioutput.h"
#include "cliparse.h"
#include "commands.h"

#include <QCoreApplication>

int main(int argc, char *argv[])
{
    Cordon::Cli::chooseEventDispatcher();
    QCoreApplication app(argc, argv);
    const QStringList arguments = Cordon::Cli::startCommandLine();
    if (arguments.size() < 2 || arguments[1] != QLatin1String("run")) {
        Cordon::Cli::printErr(QStringLiteral("cordon-run runs `cordon run` for the cordon launcher; "
                                             "type `cordon run --help`.\n"));
        return Cordon::Cli::UsageError;
    }
    return Cordon::Cli::runCommand(Cordon::Cli::subcommandArguments(arguments));
}
