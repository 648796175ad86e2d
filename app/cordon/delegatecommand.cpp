// SPDX-License-Identifier: MIT
// cordon cgroup-delegate --user NAME: the one root step for hosts whose init system does not delegate a
// cgroup subtree to each user (systemd does). Afterwards NAME's runs get memory and pids limits without
// privileges.
#include "clioutput.h"
#include "commands.h"
#include "daemoncli.h"

#include "cgroup/cgroupbackend.h"

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
    if (const auto status = parseCommandLine(parser, arguments, QStringLiteral("cordon cgroup-delegate")))
        return *status;
    if (!parser.isSet(userOption)) {
        printErr(QStringLiteral("cordon cgroup-delegate: --user NAME is required\n"));
        return UsageError;
    }
    const QByteArray name = parser.value(userOption).toLocal8Bit();
    const passwd *entry = ::getpwnam(name.constData());
    if (!entry) {
        printErr(QStringLiteral("cordon cgroup-delegate: no such user `%1`\n").arg(parser.value(userOption)));
        return UsageError;
    }
    auto delegated = Cgroup::delegateToUser(entry->pw_uid, entry->pw_gid);
    if (!delegated) {
        printError(delegated.error());
        return 1;
    }
    printOut(*delegated + QLatin1Char('\n'));
    return 0;
}

} // namespace Cordon::Cli
