// SPDX-License-Identifier: MIT
// cordon cgroup-delegate --user NAME: the one root step for hosts whose init system does not delegate a
// cgroup subtree to each user (systemd does). Afterwards NAME's runs get memory and pids limits without
// privileges. --favor-dynmods (also on its own): the host-wide tuning that makes moving a process into a
// cgroup quick (cgroup/migrationtuning.h).
#include "clioutput.h"
#include "commands.h"
#include "daemoncli.h"

#include "core/plainbridge.h"
#include "sandbox/cgroup/cgroupbackend.h"
#include "sandbox/cgroup/migrationtuning.h"

#include <QCommandLineParser>

#include <pwd.h>

namespace Cordon::Cli {

int cgroupDelegateCommand(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Delegate a cgroup subtree to a user (run as root, once "
                                                    "per user), the way systemd's Delegate=yes does."));
    parser.addHelpOption();
    const QCommandLineOption userOption(QStringLiteral("user"), QStringLiteral("The user to delegate to."),
                                        QStringLiteral("name"));
    parser.addOption(userOption);
    const QCommandLineOption favourOption(
        QStringLiteral("favor-dynmods"),
        QStringLiteral(
            "Also remount the cgroup2 hierarchy with favordynmods, for the whole host: moving a process "
            "into a cgroup (each container start and one-shot run) then takes about 0.05 ms instead of "
            "waiting 5-20 ms for an RCU grace period; forks and exits pay a little more. Lasts until "
            "the next boot."));
    parser.addOption(favourOption);
    if (const auto status = parseCommandLine(parser, arguments, QStringLiteral("cordon cgroup-delegate")))
        return *status;
    if (!parser.isSet(userOption) && !parser.isSet(favourOption)) {
        printErr(
            QStringLiteral("cordon cgroup-delegate: --user NAME is required (or --favor-dynmods alone)\n"));
        return UsageError;
    }
    if (parser.isSet(favourOption)) {
        auto favoured = Cgroup::favourDynmods();
        if (!favoured) {
            printError(Error(favoured.error()));
            return 1;
        }
        printOut(toQt(*favoured) + QLatin1Char('\n'));
        if (!parser.isSet(userOption))
            return 0;
    }
    const QByteArray name = parser.value(userOption).toLocal8Bit();
    const passwd *entry = ::getpwnam(name.constData());
    if (!entry) {
        printErr(QStringLiteral("cordon cgroup-delegate: no such user `%1`\n").arg(parser.value(userOption)));
        return UsageError;
    }
    auto delegated = Cgroup::delegateToUser(entry->pw_uid, entry->pw_gid);
    if (!delegated) {
        printError(Error(delegated.error()));
        return 1;
    }
    printOut(toQt(*delegated) + QLatin1Char('\n'));
    return 0;
}

} // namespace Cordon::Cli
