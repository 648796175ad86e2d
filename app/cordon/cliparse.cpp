// SPDX-License-Identifier: MIT
#include "cliparse.h"

#include "clioutput.h"
#include "commands.h"

#include <QCoreApplication>

#include <csignal>

namespace Cordon::Cli {

void chooseEventDispatcher()
{
    qputenv("QT_NO_GLIB", "1");
}

QStringList startCommandLine()
{
    qunsetenv("QT_NO_GLIB");
    ::signal(SIGPIPE, SIG_IGN);
    QCoreApplication::setApplicationName(QStringLiteral("cordon"));
    QCoreApplication::setApplicationVersion(QStringLiteral(CORDON_VERSION));
    return QCoreApplication::arguments();
}

QStringList subcommandArguments(QStringList arguments)
{
    const QString command = arguments.takeAt(1);
    arguments[0] = QStringLiteral("cordon ") + command;
    return arguments;
}

std::optional<int> parseCommandLine(QCommandLineParser &parser, const QStringList &arguments,
                                    const QString &command)
{
    if (!parser.parse(arguments))
        return usageError(command, parser.errorText());
    if (parser.isSet(QStringLiteral("help"))) {
        // QCommandLineParser names the executable's path in its usage line; the user typed a subcommand.
        QString text = parser.helpText();
        const QString generated = QStringLiteral("Usage: ") + QCoreApplication::arguments().constFirst();
        if (text.startsWith(generated))
            text.replace(0, generated.size(), QStringLiteral("Usage: ") + command);
        printOut(text);
        return 0;
    }
    return std::nullopt;
}

int usageError(const QString &command, const QString &message)
{
    printErr(QStringLiteral("%1: %2\nTry `%1 --help`.\n").arg(command, message));
    return UsageError;
}

} // namespace Cordon::Cli
