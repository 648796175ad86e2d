// SPDX-License-Identifier: MIT
// cordon: the command-line client. One file per subcommand.
#include "clioutput.h"
#include "cliparse.h"
#include "commands.h"

#include <QCoreApplication>

namespace {

const char Usage[] =
    "usage: cordon <command> [options]\n"
    "\n"
    "one-shot:\n"
    "  run             run a command in a throw-away sandbox\n"
    "\n"
    "containers (held by the daemon, cordond, which starts when needed):\n"
    "  create          create and start a long-lived container; prints its id\n"
    "  ls              list containers and how long each has before it expires\n"
    "  inspect         show one container in detail\n"
    "  exec            run a command or code in a container, streaming its output\n"
    "  cp              copy a file into a container, or files out of it\n"
    "  files           list a container's files (`files rm` deletes)\n"
    "  stop            stop containers: processes end, files stay\n"
    "  start           start stopped containers again\n"
    "  keepalive       reset containers' idle countdown\n"
    "  rm              delete containers and their files\n"
    "  logs            print a finished run's output\n"
    "  history         list recorded runs (`history purge` deletes old ones)\n"
    "  events          list recorded events, or follow new ones\n"
    "  network         a container's allowlist and its proxy decisions; the organisation list\n"
    "  secret          the host's secrets for runs: set, ls, rm (values never shown)\n"
    "  daemon          status, start, stop, or time-scale of cordond\n"
    "\n"
    "host:\n"
    "  demo            run hostile programs in sandboxes and show what contained them\n"
    "  audit           prove a policy's claims with live probes: a Go/No-Go report\n"
    "  doctor          report what this host offers for isolation\n"
    "  cgroup-delegate delegate a cgroup subtree to a user (root, once per user)\n"
    "\n"
    "An ID is a container id, a unique prefix of one, or the name of a running or stopped container.\n"
    "`cordon <command> --help` describes each command. Exit status: 0 ok, 1 the operation failed,\n"
    "2 usage error, 125 no daemon could be reached (run and exec: the run's own status).\n";

using Command = int (*)(const QStringList &);

struct Entry
{
    const char *name;
    Command command;
};

constexpr Entry Commands[] = {
    {"demo", Cordon::Cli::demoCommand},       {"doctor", Cordon::Cli::doctorCommand},
    {"audit", Cordon::Cli::auditCommand},     {"cgroup-delegate", Cordon::Cli::cgroupDelegateCommand},
    {"create", Cordon::Cli::createCommand},   {"ls", Cordon::Cli::lsCommand},
    {"inspect", Cordon::Cli::inspectCommand}, {"exec", Cordon::Cli::execCommand},
    {"cp", Cordon::Cli::cpCommand},           {"files", Cordon::Cli::filesCommand},
    {"rm", Cordon::Cli::rmCommand},           {"stop", Cordon::Cli::stopCommand},
    {"start", Cordon::Cli::startCommand},     {"keepalive", Cordon::Cli::keepaliveCommand},
    {"logs", Cordon::Cli::logsCommand},       {"history", Cordon::Cli::historyCommand},
    {"events", Cordon::Cli::eventsCommand},   {"daemon", Cordon::Cli::daemonCommand},
    {"network", Cordon::Cli::networkCommand}, {"secret", Cordon::Cli::secretCommand},
};

} // namespace

int main(int argc, char *argv[])
{
    Cordon::Cli::chooseEventDispatcher();
    QCoreApplication app(argc, argv);
    const QStringList arguments = Cordon::Cli::startCommandLine();
    if (arguments.size() < 2 || arguments[1] == QLatin1String("--help") ||
        arguments[1] == QLatin1String("-h") || arguments[1] == QLatin1String("help")) {
        if (arguments.size() < 2) {
            Cordon::Cli::printErr(QString::fromLatin1(Usage));
            return Cordon::Cli::UsageError;
        }
        Cordon::Cli::printOut(QString::fromLatin1(Usage));
        return 0;
    }
    if (arguments[1] == QLatin1String("--version")) {
        Cordon::Cli::printOut(QStringLiteral("cordon %1\n").arg(QCoreApplication::applicationVersion()));
        return 0;
    }
    const QString command = arguments[1];
    for (const Entry &entry : Commands) {
        if (command == QLatin1String(entry.name))
            return entry.command(Cordon::Cli::subcommandArguments(arguments));
    }
    Cordon::Cli::printErr(QStringLiteral("cordon: unknown command `%1`\n\n").arg(command) +
                          QString::fromLatin1(Usage));
    return Cordon::Cli::UsageError;
}
