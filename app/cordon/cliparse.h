// SPDX-License-Identifier: MIT
// Parsing a subcommand's options with a usage line that names the subcommand; shared by every command, the
// one-shot `cordon run` (which links only QtCore) included.
#pragma once

#include <QCommandLineParser>
#include <QString>
#include <QStringList>

#include <optional>

namespace Cordon::Cli {

// Before QCoreApplication exists, in both command-line programs: Qt's own event dispatcher instead of the
// GLib one (QT_NO_GLIB). The command line integrates with no GLib main loop, and with it a one-shot run
// takes about 0.5 ms less (docs/benchmarks.md). startCommandLine() removes the variable again, so that
// nothing started later inherits it.
void chooseEventDispatcher();

// The start of the Qt command line (cordon-cli), once QCoreApplication exists: SIGPIPE
// ignored (output piped into `head` must end with a write error we handle, not kill us halfway through a
// request to the daemon or before a container is torn down; an exec's Ctrl-C handling also relies on us
// staying alive to cancel the run), and the application's name and version set. Returns its arguments.
QStringList startCommandLine();
// "cordon <command> ARGS..." as the subcommand parses it, as if it were its own program: the command
// (arguments[1]) is folded into the program name.
QStringList subcommandArguments(QStringList arguments);

// Parses `arguments` for `command` ("cordon ls"). Returns an exit status when the command is already done:
// 0 after printing --help, UsageError after printing what was wrong; std::nullopt to go on.
std::optional<int> parseCommandLine(QCommandLineParser &parser, const QStringList &arguments,
                                    const QString &command);
// "cordon ls: <message>" and where to read more, on stderr; returns UsageError.
int usageError(const QString &command, const QString &message);
// The parser's help in the CLI's one style: "usage: cordon COMMAND [options] ...", no Qt-specific options.
QString helpText(const QCommandLineParser &parser, const QString &command);

} // namespace Cordon::Cli
