// SPDX-License-Identifier: MIT
// What a run ran, in one line for a list (the History's Ran column, `cordon history`): the first line of its
// code that says what it does, or its command line. Every run of a container runs the same language, so the
// language alone ("python") tells one run from another in nothing.
#pragma once

#include <QJsonObject>
#include <QString>
#include <QStringList>

namespace Cordon::RunSummary {

// The first meaningful line of a program: blank lines, a shebang, editor and encoding lines, imports and
// "use strict" are passed over; a comment or docstring first says what the program is for, so its text
// is taken without its markers. Empty when nothing is left. At most MaxLength characters ("…" when cut),
// as written: callers escape it for display (Format::displayName).
QString firstMeaningfulLine(const QString &code);
constexpr int MaxLength = 160;

// A run object's line (docs/protocol.md, `run`): its `summary` when the daemon sent one, else the first
// meaningful line of its `code`, else its language, else ofCommand() of its command.
QString of(const QJsonObject &run);
// A command's line: for a shell's `-c SCRIPT NAME ARGS...` the program it names (NAME ARGS...), for `-c
// SCRIPT` the script's first meaningful line, else the command joined with spaces.
QString ofCommand(const QStringList &command);

} // namespace Cordon::RunSummary
