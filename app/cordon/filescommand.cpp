// SPDX-License-Identifier: MIT
// cordon files ID: what is in a container's inputs/ and outputs/ (or its whole workspace), with sizes and
// sha256; `cordon files rm ID PATH...` deletes.
#include "cliformat.h"
#include "clioutput.h"
#include "commands.h"
#include "daemoncli.h"

#include "core/plainbridge.h"
#include "daemon/lite/runreport.h"
#include "sandbox/scanreport.h"

#include <QJsonArray>

namespace Cordon::Cli {

namespace {

const QStringList Scopes = {QStringLiteral("inputs"), QStringLiteral("outputs"), QStringLiteral("workspace")};

int removeFiles(const QStringList &arguments)
{
    const QString command = QStringLiteral("cordon files rm");
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Delete files or directories from a container. PATH is written as for `cordon cp`: outputs/x,\n"
        "inputs/x, /mnt/data/outputs/x, /mnt/data/x (the workspace), or x alone for outputs/x. With "
        "--scope,\n"
        "PATH is taken relative to that scope as it is."));
    parser.addHelpOption();
    const QCommandLineOption scopeOption(
        QStringLiteral("scope"), QStringLiteral("inputs, outputs or workspace."), QStringLiteral("scope"));
    parser.addOption(scopeOption);
    parser.addPositionalArgument(QStringLiteral("id"), QStringLiteral("The container."),
                                 QStringLiteral("ID"));
    parser.addPositionalArgument(QStringLiteral("path"), QStringLiteral("What to delete."),
                                 QStringLiteral("PATH..."));
    if (auto done = parseCommandLine(parser, arguments, command))
        return *done;
    QStringList positional = parser.positionalArguments();
    if (positional.size() < 2)
        return usageError(command, QStringLiteral("give a container and at least one path"));
    const QString scope = parser.value(scopeOption);
    if (parser.isSet(scopeOption) && !Scopes.contains(scope))
        return usageError(
            command, QStringLiteral("unknown --scope `%1`: use inputs, outputs or workspace").arg(scope));
    QList<ContainerPath> targets;
    for (const QString &path : positional.mid(1)) {
        const ContainerPath target =
            parser.isSet(scopeOption) ? ContainerPath{scope, stripSlashes(path)} : parseContainerPath(path);
        if (target.path.isEmpty())
            return usageError(
                command, QStringLiteral("`%1` names a whole scope: name what to delete in it").arg(path));
        targets.append(target);
    }

    DaemonSession session;
    if (auto connected = session.connect(); !connected)
        return reportError(connected.error());
    auto id = session.resolveContainerId(positional.first());
    if (!id)
        return reportError(id.error());
    int status = 0;
    for (const ContainerPath &target : std::as_const(targets)) {
        auto deleted = session.call(QStringLiteral("file.delete"), {{QStringLiteral("container"), *id},
                                                                    {QStringLiteral("scope"), target.scope},
                                                                    {QStringLiteral("path"), target.path}});
        if (!deleted) {
            status = reportError(deleted.error());
            if (isUnreachable(deleted.error()))
                return status;
            continue;
        }
        printOut(QStringLiteral("deleted %1/%2\n").arg(target.scope, escapeName(target.path)));
    }
    return status;
}

void addListing(Table &table, const QString &scope, const QJsonObject &listing)
{
    for (const QJsonValue &value : listing.value(QStringLiteral("files")).toArray()) {
        const QJsonObject file = value.toObject();
        table.addRow({scope, escapeName(file.value(QStringLiteral("path")).toString()),
                      formatBytes(file.value(QStringLiteral("size")).toInteger()),
                      file.value(QStringLiteral("sha256")).toString()});
    }
    for (const QJsonValue &value : listing.value(QStringLiteral("refused")).toArray()) {
        const QJsonObject entry = value.toObject();
        printErr(QStringLiteral("cordon: not listed: %1/%2: %3 (%4)\n")
                     .arg(scope, escapeName(entry.value(QStringLiteral("path")).toString()),
                          entry.value(QStringLiteral("reason")).toString(),
                          entry.value(QStringLiteral("code")).toString()));
    }
    if (listing.value(QStringLiteral("truncated")).toBool())
        printErr(QStringLiteral("cordon: the %1 listing stopped at the workspace limits; more files exist\n")
                     .arg(scope));
}

} // namespace

int filesCommand(const QStringList &arguments)
{
    if (arguments.size() > 1 && arguments[1] == QLatin1String("rm")) {
        QStringList rest = arguments.mid(1);
        rest[0] = QStringLiteral("cordon files rm");
        return removeFiles(rest);
    }
    const QString command = QStringLiteral("cordon files");
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "List a container's files with their sizes and sha256: inputs/ and outputs/, or one --scope.\n"
        "The listing reads the files without following symlinks; entries it will not read (symlinks, "
        "special\n"
        "files, unsafe names) are named on stderr.\n"
        "\n"
        "  cordon files rm [--scope S] ID PATH...   delete files (see `cordon files rm --help`)"));
    parser.addHelpOption();
    const QCommandLineOption scopeOption(QStringLiteral("scope"),
                                         QStringLiteral("inputs, outputs or workspace (all of /mnt/data)."),
                                         QStringLiteral("scope"));
    const QCommandLineOption scanOption(
        QStringLiteral("scan"),
        QStringLiteral("Also scan each file as a download would (the artifact scan) and list the findings,\n"
                       "with what a download would do: keep the file back, redact it or warn."));
    const QCommandLineOption jsonOption(
        QStringLiteral("json"),
        QStringLiteral("Print the daemon's result as JSON; without --scope, an object "
                       "holding the inputs and outputs results."));
    parser.addOptions({scopeOption, scanOption, jsonOption});
    parser.addPositionalArgument(QStringLiteral("id"), QStringLiteral("The container."),
                                 QStringLiteral("ID"));
    if (auto done = parseCommandLine(parser, arguments, command))
        return *done;
    if (parser.positionalArguments().size() != 1)
        return usageError(command, QStringLiteral("give exactly one container id"));
    QStringList scopes = {QStringLiteral("inputs"), QStringLiteral("outputs")};
    if (parser.isSet(scopeOption)) {
        if (!Scopes.contains(parser.value(scopeOption)))
            return usageError(command,
                              QStringLiteral("unknown --scope `%1`: use inputs, outputs or workspace")
                                  .arg(parser.value(scopeOption)));
        scopes = {parser.value(scopeOption)};
    }

    DaemonSession session;
    if (auto connected = session.connect(); !connected)
        return reportError(connected.error());
    auto id = session.resolveContainerId(parser.positionalArguments().first());
    if (!id)
        return reportError(id.error());
    QJsonObject combined;
    Table table(
        {QStringLiteral("SCOPE"), QStringLiteral("PATH"), QStringLiteral("SIZE"), QStringLiteral("SHA256")});
    for (const QString &scope : std::as_const(scopes)) {
        QJsonObject params{{QStringLiteral("container"), *id}, {QStringLiteral("scope"), scope}};
        if (parser.isSet(scanOption))
            params.insert(QStringLiteral("scan"), true);
        auto listing = session.call(QStringLiteral("file.list"), params);
        if (!listing)
            return reportError(listing.error());
        combined.insert(scope, *listing);
        if (!parser.isSet(jsonOption))
            addListing(table, scope, *listing);
    }
    if (parser.isSet(jsonOption)) {
        printJson(scopes.size() == 1 ? combined.value(scopes.first()).toObject() : combined);
        return 0;
    }
    printOut(table.toString());
    for (const QString &scope : std::as_const(scopes)) {
        const QJsonValue scanned = combined.value(scope).toObject().value(QStringLiteral("scanned"));
        if (scanned.isUndefined())
            continue;
        const Result<std::vector<Scan::InspectedFile>> files = Scan::inspectedFilesFromJson(toPlain(scanned));
        if (!files)
            return reportError(files.error());
        printErr(toQt(Lite::scanFindingsText(toPlain(scope), *files, true)));
    }
    return 0;
}

} // namespace Cordon::Cli
