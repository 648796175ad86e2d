// SPDX-License-Identifier: MIT
#include "core/runsummary.h"

#include <QJsonArray>
#include <QRegularExpression>
#include <QStringList>

namespace Cordon::RunSummary {

namespace {

// A shebang; coding and modeline comments; Python and JavaScript imports; "use strict".
bool passedOver(const QString &line)
{
    static const QRegularExpression skipped(
        QStringLiteral(R"(^(#!|#.*-\*-.*-\*-|#\s*vim?:|import\s|from\s+\S+\s+import\s)"
                       R"(|(const|let|var)\s+\S+\s*=\s*require\(|["']use strict["'];?$))"));
    return skipped.match(line).hasMatch();
}

// The text of a comment or docstring line without its markers; the line itself otherwise. A `*` is a marker
// only as a block comment's continuation ("* text"), not in Python's "*rest, last = row".
QString withoutMarkers(const QString &line)
{
    static const QRegularExpression opening(QStringLiteral(R"(^(#+|//+|/\*+|\*+(?=\s|$)|"""|''')\s*)"));
    static const QRegularExpression closing(QStringLiteral(R"(\s*(\*/|"""|''')$)"));
    QString text = line;
    text.remove(opening);
    text.remove(closing);
    return text.trimmed();
}

} // namespace

QString firstMeaningfulLine(const QString &code)
{
    const QStringList lines = code.split(QLatin1Char('\n'));
    for (const QString &raw : lines) {
        const QString line = raw.trimmed();
        if (line.isEmpty() || passedOver(line))
            continue;
        const QString text = withoutMarkers(line);
        if (text.isEmpty())
            continue; // a comment rule of "#####", a docstring's opening quotes alone
        return text.size() > MaxLength ? text.left(MaxLength - 1) + QChar(0x2026) : text;
    }
    return {};
}

QString of(const QJsonObject &run)
{
    const QString summary = run.value(QStringLiteral("summary")).toString();
    if (!summary.isEmpty())
        return summary;
    const QString fromCode = firstMeaningfulLine(run.value(QStringLiteral("code")).toString());
    if (!fromCode.isEmpty())
        return fromCode;
    const QString language = run.value(QStringLiteral("language")).toString();
    if (!language.isEmpty())
        return language;
    QStringList command;
    for (const QJsonValue &part : run.value(QStringLiteral("command")).toArray())
        command.append(part.toString());
    return ofCommand(command);
}

QString ofCommand(const QStringList &command)
{
    // `sh -c SCRIPT NAME ARGS...` runs NAME with ARGS as far as its reader is concerned (the audit's probe
    // is one); `sh -c SCRIPT` alone is the script's first line.
    static const QRegularExpression shell(QStringLiteral(R"(^(/usr)?(/bin/)?(ba|da)?sh$)"));
    if (command.size() >= 3 && shell.match(command.at(0)).hasMatch() &&
        command.at(1) == QLatin1String("-c")) {
        if (command.size() > 3)
            return command.mid(3).join(QLatin1Char(' '));
        const QString script = firstMeaningfulLine(command.at(2));
        if (!script.isEmpty())
            return script;
    }
    return command.join(QLatin1Char(' '));
}

} // namespace Cordon::RunSummary
