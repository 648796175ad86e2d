// SPDX-License-Identifier: MIT
// cordon: the command-line client. One file per subcommand.
#include "clioutput.h"
#include "commands.h"

#include <QCoreApplication>

namespace {

const char Usage[] = "usage: cordon <command> [options]\n"
                     "\n"
                     "commands:\n"
                     "  run             run a command in a throw-away sandbox\n"
                     "  demo            run hostile programs in sandboxes and show what contained them\n"
                     "  doctor          report what this host offers for isolation\n"
                     "  cgroup-delegate delegate a cgroup subtree to a user (root, once per user)\n"
                     "\n"
                     "`cordon <command> --help` describes each command.\n";

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("cordon"));
    QCoreApplication::setApplicationVersion(QStringLiteral(CORDON_VERSION));
    QStringList arguments = QCoreApplication::arguments();
    if (arguments.size() < 2 || arguments[1] == QLatin1String("--help") ||
        arguments[1] == QLatin1String("-h") || arguments[1] == QLatin1String("help")) {
        Cordon::Cli::printOut(QString::fromLatin1(Usage));
        return arguments.size() < 2 ? Cordon::Cli::UsageError : 0;
    }
    if (arguments[1] == QLatin1String("--version")) {
        Cordon::Cli::printOut(QStringLiteral("cordon %1\n").arg(QCoreApplication::applicationVersion()));
        return 0;
    }
    const QString command = arguments[1];
    // Each subcommand parses "cordon <command> ..." as if it were its own program.
    arguments.removeAt(1);
    arguments[0] = QStringLiteral("cordon ") + command;
    if (command == QLatin1String("run"))
        return Cordon::Cli::runCommand(arguments);
    if (command == QLatin1String("demo"))
        return Cordon::Cli::demoCommand(arguments);
    if (command == QLatin1String("doctor"))
        return Cordon::Cli::doctorCommand(arguments);
    if (command == QLatin1String("cgroup-delegate"))
        return Cordon::Cli::cgroupDelegateCommand(arguments);
    Cordon::Cli::printErr(QStringLiteral("cordon: unknown command `%1`\n\n").arg(command) +
                          QString::fromLatin1(Usage));
    return Cordon::Cli::UsageError;
}
