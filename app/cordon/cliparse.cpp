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
    if (parser.isSet(QStringLiteral("help")) || parser.isSet(QStringLiteral("help-all"))) {
        printOut(helpText(parser, command));
        return 0;
    }
    return std::nullopt;
}

QString helpText(const QCommandLineParser &parser, const QString &command)
{
    // QCommandLineParser's text names the executable's path, capitalises "Usage" unlike every other line the
    // CLI prints, and offers --help-all for Qt's own options, which mean nothing to a user: one style
    // instead.
    QStringList lines = parser.helpText().split(QLatin1Char('\n'));
    QStringList kept;
    for (QString line : std::as_const(lines)) {
        if (line.startsWith(QLatin1String("Usage: "))) {
            const qsizetype options = line.indexOf(QLatin1String(" [options]"));
            line = QStringLiteral("usage: ") + command + (options >= 0 ? line.mid(options) : QString());
        }
        if (line.trimmed().startsWith(QLatin1String("--help-all")))
            continue;
        line.replace(QLatin1String("Displays help on commandline options."),
                     QLatin1String("Show this help."));
        line.replace(QLatin1String("Displays version information."), QLatin1String("Show the version."));
        kept.append(line);
    }
    return kept.join(QLatin1Char('\n'));
}

int usageError(const QString &command, const QString &message)
{
    printErr(QStringLiteral("%1: %2\nTry `%1 --help`.\n").arg(command, message));
    return UsageError;
}

} // namespace Cordon::Cli
