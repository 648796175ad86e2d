// SPDX-License-Identifier: MIT
// cordon audit: the Go/No-Go audit (docs/audit.md).
//   cordon audit --policy FILE | --container REF [--out DIR] [--json] [--row PREFIX]...
//   cordon audit verify REPORT.json [--json]
// The audit creates fresh containers from the policy, runs every claim as a live probe and prints each row as
// it ends; --out writes the report as JSON, Markdown and HTML. The exit status is 0 for Go, 1 for No-Go.
#include "clioutput.h"
#include "cliparse.h"
#include "commands.h"
#include "daemoncli.h"
#include "policyfile.h"

#include "audit/reportexport.h"
#include "audit/reportsignature.h"
#include "auditrunner/auditrunner.h"
#include "core/plainbridge.h"
#include "sandbox/json.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSaveFile>

#include <unistd.h>

namespace Cordon::Cli {

namespace {

Result<> writeFile(const QString &path, const std::string &content)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) ||
        file.write(content.data(), qint64(content.size())) != qint64(content.size()) || !file.commit())
        return fail(QStringLiteral("audit.write"), QStringLiteral("%1: %2").arg(path, file.errorString()));
    return {};
}

QString rowLine(const QJsonObject &row)
{
    const bool go = row.value(QStringLiteral("verdict")).toString() == QLatin1String("go");
    return QStringLiteral("%1  %2  %3 (%4 ms)\n        %5\n")
        .arg(go ? QStringLiteral("GO   ") : QStringLiteral("NO-GO"),
             row.value(QStringLiteral("id")).toString().leftJustified(29),
             row.value(QStringLiteral("title")).toString())
        .arg(row.value(QStringLiteral("duration_ms")).toInteger())
        .arg(row.value(QStringLiteral("reason")).toString());
}

int verifyCommand(const QString &path, bool json)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return reportError(
            fail(QStringLiteral("audit.bad_report"), QStringLiteral("%1: %2").arg(path, file.errorString()))
                .value());
    auto document = Json::read(toPlain(file.readAll()));
    if (!document)
        return reportError(document.error().wrap(toPlain(path)));
    auto verification = Audit::verifyReport(*document);
    if (!verification)
        return reportError(verification.error().wrap(toPlain(path)));
    QJsonArray altered;
    for (const std::string &row : verification->alteredRows)
        altered.append(toQt(row));
    if (json) {
        printJson(QJsonObject{{QStringLiteral("signed"), verification->isSigned},
                              {QStringLiteral("signature_valid"), verification->signatureValid},
                              {QStringLiteral("key_id"), toQt(verification->keyId)},
                              {QStringLiteral("altered_rows"), altered},
                              {QStringLiteral("intact"), verification->intact()}});
    } else if (verification->intact()) {
        printOut(QStringLiteral("%1: intact, signed by key %2\n").arg(path, toQt(verification->keyId)));
    } else {
        QString why = !verification->isSigned ? QStringLiteral("it is not signed")
                      : !verification->signatureValid
                          ? QStringLiteral("the signature does not match its content")
                          : QString();
        for (const QJsonValue &row : altered)
            why += (why.isEmpty() ? QString() : QStringLiteral("; ")) +
                   QStringLiteral("the evidence of row %1 was altered").arg(row.toString());
        printErr(QStringLiteral("%1: NOT intact: %2\n").arg(path, why));
    }
    return verification->intact() ? 0 : 1;
}

} // namespace

int auditCommand(const QStringList &arguments)
{
    const QString command = QStringLiteral("cordon audit");
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "The Go/No-Go audit: creates fresh containers from a policy, proves each of its claims with live\n"
        "probes (credentials, file system, network, rights, limits, restart, deletion, logs) and reports\n"
        "each row Go or No-Go with its evidence. Exit status 0 for Go, 1 for No-Go.\n"
        "  cordon audit --policy FILE [--out DIR]   audit a policy file\n"
        "  cordon audit --container REF             audit the policy of an existing container\n"
        "  cordon audit verify REPORT.json          check a report's signature and evidence hashes"));
    parser.addHelpOption();
    const QCommandLineOption policyOption(
        QStringLiteral("policy"), QStringLiteral("The policy file to audit."), QStringLiteral("file"));
    const QCommandLineOption containerOption(QStringLiteral("container"),
                                             QStringLiteral("Audit the policy of this container."),
                                             QStringLiteral("ref"));
    const QCommandLineOption outOption(
        QStringLiteral("out"), QStringLiteral("Write the report here as audit-ID.json, .md and .html."),
        QStringLiteral("dir"));
    const QCommandLineOption jsonOption(QStringLiteral("json"), QStringLiteral("Print the report as JSON."));
    const QCommandLineOption rowOption(
        QStringLiteral("row"), QStringLiteral("Run only the rows whose id starts with this (repeatable)."),
        QStringLiteral("prefix"));
    parser.addOptions({policyOption, containerOption, outOption, jsonOption, rowOption});
    parser.addPositionalArgument(QStringLiteral("verify"), QStringLiteral("verify REPORT.json"),
                                 QStringLiteral("[verify REPORT]"));
    if (auto done = parseCommandLine(parser, arguments, command))
        return *done;
    const QStringList positional = parser.positionalArguments();
    const bool json = parser.isSet(jsonOption);
    if (!positional.isEmpty()) {
        if (positional.value(0) != QLatin1String("verify") || positional.size() != 2)
            return usageError(command, QStringLiteral("the only action is `verify REPORT.json`"));
        return verifyCommand(positional.value(1), json);
    }
    if (parser.isSet(policyOption) == parser.isSet(containerOption))
        return usageError(command, QStringLiteral("give either --policy FILE or --container REF"));

    Audit::AuditRequest request;
    request.onlyRows = parser.values(rowOption);
    DaemonSession session;
    if (auto connected = session.connect(); !connected)
        return reportError(connected.error());
    if (parser.isSet(policyOption)) {
        const QString path = parser.value(policyOption);
        if (auto checked = loadPolicyFile(path); !checked)
            return reportError(checked.error());
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly))
            return reportError(fail(QStringLiteral("policy.unreadable"),
                                    QStringLiteral("%1: %2").arg(path, file.errorString()))
                                   .value());
        const QByteArray text = file.readAll();
        request.policy = QJsonDocument::fromJson(text).object();
        request.policyText = QString::fromUtf8(text).trimmed();
    } else {
        auto container = session.resolveContainer(parser.value(containerOption));
        if (!container)
            return reportError(container.error());
        request.policy = container->value(QStringLiteral("policy")).toObject();
        request.sourceContainer = container->value(QStringLiteral("id")).toString();
    }

    Audit::AuditRunner runner(session.client());
    if (!json) {
        // On a terminal, the row under way shows until its line replaces it.
        const bool terminal = ::isatty(STDERR_FILENO) == 1;
        QObject::connect(&runner, &Audit::AuditRunner::rowStarted,
                         [terminal](const QString &id, const QString &title) {
                             if (terminal)
                                 printErr(QStringLiteral("... %1: %2").arg(id, title));
                         });
        QObject::connect(&runner, &Audit::AuditRunner::rowFinished, [terminal](const QJsonObject &row) {
            if (terminal)
                printErr(QStringLiteral("\r\033[K"));
            printOut(rowLine(row));
        });
    }
    auto report = runner.run(request);
    if (!report)
        return reportError(report.error());
    const Json document = report->toJson();
    if (json)
        printJson(toQt(document).toObject());
    if (parser.isSet(outOption)) {
        const QDir out(parser.value(outOption));
        if (!QDir().mkpath(out.path()))
            return reportError(
                fail(QStringLiteral("audit.write"), QStringLiteral("cannot create %1").arg(out.path()))
                    .value());
        const QString base = out.filePath(QStringLiteral("audit-") + toQt(report->id));
        for (const auto &[suffix, content] :
             {std::pair{QStringLiteral(".json"), document.serialize() + "\n"},
              std::pair{QStringLiteral(".md"), Audit::reportMarkdown(*report)},
              std::pair{QStringLiteral(".html"), Audit::reportHtml(*report)}}) {
            if (auto written = writeFile(base + suffix, content); !written)
                return reportError(written.error());
        }
        if (!json)
            printOut(QStringLiteral("report: %1.json (.md, .html)\n").arg(base));
    }
    const bool go = report->verdict() == Audit::Verdict::Go;
    if (!json) {
        int goRows = 0;
        for (const Audit::AuditRow &row : report->rows)
            goRows += row.verdict == Audit::Verdict::Go ? 1 : 0;
        printOut(QStringLiteral("%1: %2 of %3 rows Go (policy %4)\n")
                     .arg(go ? QStringLiteral("GO") : QStringLiteral("NO-GO"))
                     .arg(goRows)
                     .arg(report->rows.size())
                     .arg(toQt(report->policyVersion)));
    }
    return go ? 0 : 1;
}

} // namespace Cordon::Cli
