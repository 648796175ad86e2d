// SPDX-License-Identifier: MIT
// cordon rm ID...: delete containers and their files. A running one needs --force, as with docker: its
// runs and background processes are killed.
#include "clioutput.h"
#include "commands.h"
#include "daemoncli.h"

namespace Cordon::Cli {

int rmCommand(const QStringList &arguments)
{
    const QString command = QStringLiteral("cordon rm");
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Delete containers: their processes end and their files are removed; the history keeps their runs.\n"
        "A running container is refused unless --force is given. Prints each deleted id."));
    parser.addHelpOption();
    const QCommandLineOption forceOption(
        QStringList{QStringLiteral("f"), QStringLiteral("force")},
        QStringLiteral("Delete running containers too (their runs are killed)."));
    const QCommandLineOption jsonOption(
        QStringLiteral("json"), QStringLiteral("Print the daemon's result (the deleted container) as JSON."));
    parser.addOptions({forceOption, jsonOption});
    parser.addPositionalArgument(QStringLiteral("id"), QStringLiteral("Containers to delete."),
                                 QStringLiteral("ID..."));
    if (auto done = parseCommandLine(parser, arguments, command))
        return *done;
    const QStringList references = parser.positionalArguments();
    if (references.isEmpty())
        return usageError(command, QStringLiteral("give at least one container id"));

    const bool force = parser.isSet(forceOption);
    return actOnContainers(
        references, parser.isSet(jsonOption),
        [force](DaemonSession &session, const QJsonObject &container) -> Result<QJsonObject> {
            const QString id = container.value(QStringLiteral("id")).toString();
            if (container.value(QStringLiteral("state")).toString() == QLatin1String("running") && !force)
                return tl::unexpected(
                    makeError(QStringLiteral("cli.container_running"),
                              QStringLiteral("container %1 is running: stop it first (`cordon stop %1`) "
                                             "or delete it anyway with `cordon rm --force %1`")
                                  .arg(id)));
            return session.call(QStringLiteral("container.delete"), {{QStringLiteral("id"), id}});
        },
        [](const QJsonObject &result) -> QString {
            return result.value(QStringLiteral("container"))
                       .toObject()
                       .value(QStringLiteral("id"))
                       .toString() +
                   QLatin1Char('\n');
        });
}

} // namespace Cordon::Cli
