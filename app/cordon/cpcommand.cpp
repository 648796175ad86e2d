// SPDX-License-Identifier: MIT
// cordon cp: files in and out of a container. Uploads land in inputs/ (read-only inside); downloads come from
// outputs/ (or, asked for explicitly, the whole workspace) through the daemon's safe copier, which refuses
// symlinks, hardlinks, special files and odd names that code in the container may have planted.
#include "cliformat.h"
#include "clioutput.h"
#include "commands.h"
#include "daemoncli.h"

#include "core/plainbridge.h"
#include "daemon/lite/runreport.h"
#include "sandbox/scanreport.h"
#include "sandbox/secrets/pseudonymkey.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>

#include <algorithm>

namespace Cordon::Cli {

namespace {

// "ID:path" names a container side; a local path with a colon can be written "./a:b".
struct Endpoint
{
    bool inContainer = false;
    QString container;
    QString path;
};

Endpoint parseEndpoint(const QString &text)
{
    const qsizetype colon = text.indexOf(QLatin1Char(':'));
    if (colon <= 0 || text.left(colon).contains(QLatin1Char('/')))
        return {false, {}, text};
    return {true, text.left(colon), text.mid(colon + 1)};
}

// --pseudonymize and its companions: the chosen columns of a CSV upload become keyed pseudonyms.
struct PseudonymizeChoice
{
    QStringList columns; // empty: uploaded as it is
    QString key;
    QString header; // auto, yes, no
};

int upload(DaemonSession &session, const QString &source, const Endpoint &target,
           const PseudonymizeChoice &pseudonymize, bool json)
{
    const QFileInfo info(source);
    // The command line was decoded as UTF-8: U+FFFD stands for bytes that were not, and the name it makes is
    // not the file's.
    if (source.contains(QChar::ReplacementCharacter) || target.path.contains(QChar::ReplacementCharacter))
        return usageError(
            QStringLiteral("cordon cp"),
            QStringLiteral("`%1` is not valid UTF-8: rename the file (Cordon keeps names as they "
                           "are, and cannot keep this one)")
                .arg(escapeName(source.contains(QChar::ReplacementCharacter) ? source : target.path)));
    if (!info.exists())
        return usageError(QStringLiteral("cordon cp"), QStringLiteral("`%1` does not exist").arg(source));
    if (!info.isFile())
        return usageError(
            QStringLiteral("cordon cp"),
            QStringLiteral("`%1` is not a regular file: upload files one at a time").arg(source));
    // Inputs are one flat directory: "ID:", "ID:inputs/" and "ID:/mnt/data/inputs/" keep the file's name.
    QString name = target.path;
    if (name.startsWith(QLatin1String("/mnt/data/inputs")))
        name = name.mid(QStringLiteral("/mnt/data/inputs").size());
    name = stripSlashes(name);
    if (name == QLatin1String("inputs"))
        name.clear();
    else if (name.startsWith(QLatin1String("inputs/")))
        name = name.mid(7);
    if (name.isEmpty())
        name = info.fileName();

    auto id = session.resolveContainerId(target.container);
    if (!id)
        return reportError(id.error());
    QJsonObject params{{QStringLiteral("container"), *id},
                       {QStringLiteral("name"), name},
                       {QStringLiteral("path"), info.absoluteFilePath()}};
    if (!pseudonymize.columns.isEmpty()) {
        QJsonObject request{{QStringLiteral("columns"), QJsonArray::fromStringList(pseudonymize.columns)},
                            {QStringLiteral("key"), pseudonymize.key}};
        if (pseudonymize.header != QLatin1String("auto"))
            request.insert(QStringLiteral("header"), pseudonymize.header == QLatin1String("yes"));
        params.insert(QStringLiteral("pseudonymize"), request);
    }
    auto uploaded = session.call(QStringLiteral("file.upload"), params);
    if (!uploaded)
        return reportError(uploaded.error());
    if (json) {
        printJson(*uploaded);
        return 0;
    }
    const QJsonObject file = uploaded->value(QStringLiteral("file")).toObject();
    printOut(QStringLiteral("%1 -> %2:/mnt/data/inputs/%3 (%4, sha256 %5)\n")
                 .arg(source, *id, escapeName(file.value(QStringLiteral("path")).toString()),
                      formatBytes(file.value(QStringLiteral("size")).toInteger()),
                      file.value(QStringLiteral("sha256")).toString()));
    const QJsonObject done = file.value(QStringLiteral("pseudonymized")).toObject();
    if (!done.isEmpty()) {
        QStringList columns;
        for (const QJsonValue &column : done.value(QStringLiteral("columns")).toArray())
            columns.append(escapeName(column.toString()));
        printOut(
            QStringLiteral("pseudonymised %1 value%2 in %3 row%4, column%5 %6, with key %7 (%8); the "
                           "source (sha256 %9) stayed on the host\n")
                .arg(done.value(QStringLiteral("values")).toInteger())
                .arg(done.value(QStringLiteral("values")).toInteger() == 1 ? QString() : QStringLiteral("s"))
                .arg(done.value(QStringLiteral("rows")).toInteger())
                .arg(done.value(QStringLiteral("rows")).toInteger() == 1 ? QString() : QStringLiteral("s"))
                .arg(columns.size() == 1 ? QString() : QStringLiteral("s"),
                     columns.join(QStringLiteral(", ")),
                     escapeName(done.value(QStringLiteral("key")).toString()),
                     done.value(QStringLiteral("key_id")).toString(),
                     done.value(QStringLiteral("source_sha256")).toString()));
        if (const qint64 shortRows = done.value(QStringLiteral("short_rows")).toInteger(); shortRows > 0)
            printErr(
                QStringLiteral(
                    "cordon: %1 row%2 had fewer fields than the columns named, and kept them as they were\n")
                    .arg(shortRows)
                    .arg(shortRows == 1 ? QString() : QStringLiteral("s")));
        for (const QJsonValue &value : done.value(QStringLiteral("few_distinct")).toArray()) {
            const QJsonObject few = value.toObject();
            printErr(
                QStringLiteral("cordon: warning: column %1 has only %2 distinct value%3: whoever can guess "
                               "them and have a file of guesses pseudonymised with key %4 (the sandbox "
                               "can ask for one) reads the column back (docs/pseudonymize.md)\n")
                    .arg(escapeName(few.value(QStringLiteral("column")).toString()))
                    .arg(few.value(QStringLiteral("distinct")).toInteger())
                    .arg(few.value(QStringLiteral("distinct")).toInteger() == 1 ? QString()
                                                                                : QStringLiteral("s"))
                    .arg(escapeName(done.value(QStringLiteral("key")).toString())));
        }
    }
    return 0;
}

bool anyBlocked(const QJsonArray &refused)
{
    return std::any_of(refused.begin(), refused.end(), [](const QJsonValue &entry) {
        return entry.toObject().value(QStringLiteral("code")).toString() == QLatin1String("files.blocked");
    });
}

// The artifact scan's findings, a line each (Lite::scanFindingsText, as `cordon run` prints them).
void printFindings(const QString &scope, const QJsonArray &scanned)
{
    const Result<std::vector<Scan::InspectedFile>> files =
        Scan::inspectedFilesFromJson(toPlain(QJsonValue(scanned)));
    if (!files) {
        printErr(QStringLiteral("cordon: %1\n").arg(toQt(files.error().message())));
        return;
    }
    printErr(toQt(Lite::scanFindingsText(toPlain(scope), *files)));
}

int download(DaemonSession &session, const Endpoint &source, const QString &destination, bool allowWorkspace,
             const QString &existing, const QString &overrideReason, bool json)
{
    const ContainerPath from = parseContainerPath(source.path);
    if (from.scope == QLatin1String("workspace") && !allowWorkspace)
        return usageError(
            QStringLiteral("cordon cp"),
            QStringLiteral("`%1` is outside outputs/: copying from the workspace needs --workspace")
                .arg(source.path));
    const QFileInfo target(destination);
    if (target.exists() && !target.isDir())
        return usageError(QStringLiteral("cordon cp"),
                          QStringLiteral("`%1` exists and is not a directory: the destination is a directory")
                              .arg(destination));

    auto id = session.resolveContainerId(source.container);
    if (!id)
        return reportError(id.error());
    QJsonObject params{{QStringLiteral("container"), *id},
                       {QStringLiteral("scope"), from.scope},
                       {QStringLiteral("path"), from.path},
                       {QStringLiteral("destination"), target.absoluteFilePath()},
                       {QStringLiteral("existing"), existing}};
    if (!overrideReason.isEmpty())
        params.insert(QStringLiteral("override_reason"), overrideReason);
    auto copied = session.call(QStringLiteral("file.download"), params);
    // A name already in DIR is kept unless asked otherwise: say how to ask.
    const QString takenHint =
        QStringLiteral("cordon: names already in %1 were kept; --keep-both saves the "
                       "download beside them as NAME (2).EXT, --force replaces regular files\n")
            .arg(escapeName(target.absoluteFilePath()));
    if (!copied) {
        const int status = reportError(copied.error());
        if (copied.error().code() == "files.exists" && existing == QLatin1String("refuse"))
            printErr(takenHint);
        return status;
    }
    const QJsonArray refused = copied->value(QStringLiteral("refused")).toArray();
    const int refusedStatus = anyBlocked(refused) ? Lite::ScanBlockedStatus : 1;
    if (json) {
        printJson(*copied);
        return refused.isEmpty() ? 0 : refusedStatus;
    }
    printFindings(from.scope, copied->value(QStringLiteral("scanned")).toArray());
    const QDir into(target.absoluteFilePath());
    for (const QJsonValue &value : copied->value(QStringLiteral("copied")).toArray()) {
        const QJsonObject file = value.toObject();
        const QString path = file.value(QStringLiteral("path")).toString();
        // Where the daemon put it: a tree keeps its relative paths, a single file lands in DIR, and
        // --keep-both may have given it a new name.
        const QString local = into.filePath(file.value(QStringLiteral("saved_as")).toString());
        printOut(QStringLiteral("%1/%2 -> %3 (%4, sha256 %5)\n")
                     .arg(from.scope, escapeName(from.path.isEmpty() ? path : from.path), escapeName(local),
                          formatBytes(file.value(QStringLiteral("size")).toInteger()),
                          file.value(QStringLiteral("sha256")).toString()));
    }
    for (const QJsonValue &value : refused) {
        const QJsonObject entry = value.toObject();
        printErr(QStringLiteral("cordon: refused %1/%2: %3 (%4)\n")
                     .arg(from.scope, escapeName(entry.value(QStringLiteral("path")).toString()),
                          entry.value(QStringLiteral("reason")).toString(),
                          entry.value(QStringLiteral("code")).toString()));
    }
    const bool nameTaken = std::any_of(refused.begin(), refused.end(), [](const QJsonValue &entry) {
        return entry.toObject().value(QStringLiteral("code")).toString() == QLatin1String("files.exists");
    });
    if (nameTaken && existing == QLatin1String("refuse"))
        printErr(takenHint);
    // Every entry not copied is listed above, except after the entry budget ran out (files.too_many): the
    // walk stopped there, and what lies past it was never looked at.
    const bool walkStopped = std::any_of(refused.begin(), refused.end(), [](const QJsonValue &entry) {
        return entry.toObject().value(QStringLiteral("code")).toString() == QLatin1String("files.too_many");
    });
    if (walkStopped)
        printErr(QStringLiteral("cordon: %1 entr%2 not copied, and the copy stopped at the entry limit: "
                                "entries past it were not looked at\n")
                     .arg(refused.size())
                     .arg(refused.size() == 1 ? QStringLiteral("y was") : QStringLiteral("ies were")));
    else if (!refused.isEmpty())
        printErr(QStringLiteral("cordon: %1 entr%2 not copied; everything else was\n")
                     .arg(refused.size())
                     .arg(refused.size() == 1 ? QStringLiteral("y was") : QStringLiteral("ies were")));
    if (anyBlocked(refused))
        printErr(QStringLiteral("cordon: the artifact scan kept files back; review the findings, then "
                                "--override-scan REASON saves them anyway (the reason is recorded)\n"));
    return refused.isEmpty() ? 0 : refusedStatus;
}

} // namespace

int cpCommand(const QStringList &arguments)
{
    const QString command = QStringLiteral("cordon cp");
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Copy a file into a container, or files out of one.\n"
        "\n"
        "  cordon cp FILE ID:[NAME]         upload to /mnt/data/inputs/NAME (read-only inside)\n"
        "  cordon cp --pseudonymize COLUMN[,COLUMN...] data.csv ID:\n"
        "                                   upload a CSV file with those columns' values replaced by\n"
        "                                   keyed pseudonyms (psn_...); the key stays on the host\n"
        "  cordon cp ID:outputs/PATH DIR    download one file from /mnt/data/outputs\n"
        "  cordon cp ID: DIR                download everything in /mnt/data/outputs\n"
        "  cordon cp --workspace ID:/mnt/data/PATH DIR    download from anywhere in the workspace\n"
        "\n"
        "Container paths may also be written /mnt/data/outputs/PATH, or PATH alone for outputs/PATH.\n"
        "DIR is always a directory (created if missing). Downloads never follow symlinks and refuse\n"
        "hardlinks, special files and unsafe names: those are listed, and the exit status is 1.\n"
        "Downloads are scanned for secrets, keys, tokens, cookies and internal addresses first: the\n"
        "findings are listed, and a file the container's policy blocks is kept back (exit status 3)."));
    parser.addHelpOption();
    const QCommandLineOption workspaceOption(
        QStringLiteral("workspace"),
        QStringLiteral("Allow downloading from the whole workspace (/mnt/data), not only outputs/."));
    const QCommandLineOption jsonOption(
        QStringLiteral("json"), QStringLiteral("Print the daemon's result (copied and refused) as JSON."));
    const QCommandLineOption forceOption(
        QStringList{QStringLiteral("f"), QStringLiteral("force")},
        QStringLiteral("Downloads replace files of the same name in DIR (never a directory or symlink)."));
    const QCommandLineOption keepBothOption(
        QStringLiteral("keep-both"),
        QStringLiteral("Downloads whose name is taken in DIR are saved as NAME (2).EXT, NAME (3).EXT, ..."));
    const QCommandLineOption overrideOption(
        QStringLiteral("override-scan"),
        QStringLiteral("Save files the artifact scan would keep back; the reason is recorded in the events."),
        QStringLiteral("reason"));
    const QCommandLineOption pseudonymizeOption(
        QStringLiteral("pseudonymize"),
        QStringLiteral(
            "Upload a CSV file with these columns (header names, or positions from 1) pseudonymised."),
        QStringLiteral("columns"));
    const QCommandLineOption keyOption(
        QStringLiteral("pseudonym-key"),
        QStringLiteral("The secret store's pseudonym key to use (made at its first use; default: default)."),
        QStringLiteral("name"), QString::fromLatin1(Secrets::DefaultPseudonymKey));
    const QCommandLineOption headerOption(
        QStringLiteral("csv-header"),
        QStringLiteral("Whether the CSV file's first row names its columns: auto (guessed), yes or no."),
        QStringLiteral("auto|yes|no"), QStringLiteral("auto"));
    parser.addOptions({workspaceOption, forceOption, keepBothOption, overrideOption, pseudonymizeOption,
                       keyOption, headerOption, jsonOption});
    parser.addPositionalArgument(QStringLiteral("source"), QStringLiteral("FILE or ID:PATH."),
                                 QStringLiteral("SRC"));
    parser.addPositionalArgument(QStringLiteral("destination"), QStringLiteral("ID:[NAME] or DIR."),
                                 QStringLiteral("DST"));
    if (auto done = parseCommandLine(parser, arguments, command))
        return *done;
    const QStringList positional = parser.positionalArguments();
    if (positional.size() != 2)
        return usageError(command,
                          QStringLiteral("give a source and a destination, e.g. cordon cp data.csv ID:"));
    const Endpoint source = parseEndpoint(positional[0]);
    const Endpoint destination = parseEndpoint(positional[1]);
    if (source.inContainer == destination.inContainer)
        return usageError(command,
                          source.inContainer
                              ? QStringLiteral("both sides name a container: copy through the host")
                              : QStringLiteral("neither side names a container: write one as ID:PATH"));

    if (parser.isSet(forceOption) && parser.isSet(keepBothOption))
        return usageError(command, QStringLiteral("choose one of --force and --keep-both"));
    if (parser.isSet(overrideOption) && parser.value(overrideOption).trimmed().isEmpty())
        return usageError(command, QStringLiteral("--override-scan needs a reason"));
    if (destination.inContainer && parser.isSet(overrideOption))
        return usageError(command, QStringLiteral("--override-scan is for downloads"));
    if (destination.inContainer && (parser.isSet(forceOption) || parser.isSet(keepBothOption)))
        return usageError(command, QStringLiteral("--%1 is for downloads: an input is never replaced")
                                       .arg(parser.isSet(forceOption) ? QStringLiteral("force")
                                                                      : QStringLiteral("keep-both")));

    PseudonymizeChoice pseudonymize{{}, parser.value(keyOption), parser.value(headerOption)};
    for (const QString &column : parser.value(pseudonymizeOption).split(QLatin1Char(',')))
        if (!column.trimmed().isEmpty())
            pseudonymize.columns.append(column.trimmed());
    const bool csvOptions =
        parser.isSet(pseudonymizeOption) || parser.isSet(keyOption) || parser.isSet(headerOption);
    if (csvOptions && !destination.inContainer)
        return usageError(command, QStringLiteral("--pseudonymize is for uploads"));
    if (csvOptions && pseudonymize.columns.isEmpty())
        return usageError(command,
                          QStringLiteral("--pseudonymize needs the columns, e.g. --pseudonymize email,name"));
    if (!QStringList{QStringLiteral("auto"), QStringLiteral("yes"), QStringLiteral("no")}.contains(
            pseudonymize.header))
        return usageError(command, QStringLiteral("--csv-header is auto, yes or no"));

    DaemonSession session;
    if (auto connected = session.connect(); !connected)
        return reportError(connected.error());
    if (destination.inContainer)
        return upload(session, source.path, destination, pseudonymize, parser.isSet(jsonOption));
    const QString existing = parser.isSet(forceOption)      ? QStringLiteral("replace")
                             : parser.isSet(keepBothOption) ? QStringLiteral("keep_both")
                                                            : QStringLiteral("refuse");
    return download(session, source, destination.path, parser.isSet(workspaceOption), existing,
                    parser.value(overrideOption).trimmed(), parser.isSet(jsonOption));
}

} // namespace Cordon::Cli
