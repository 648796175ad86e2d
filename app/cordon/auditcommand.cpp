// SPDX-License-Identifier: MIT
// cordon audit: the Go/No-Go audit (docs/audit.md).
//   cordon audit --policy FILE | --container REF [--out DIR] [--json] [--row PREFIX]...
//   cordon audit sign REPORT --name N --role R --decision go|no_go [--date YYYY-MM-DD] [--out DIR] [--json]
//   cordon audit verify REPORT.json [--key ID] [--keyring FILE] [--json]   (auditverify.h)
//   cordon audit ls [--json]
//   cordon audit show ID [--out DIR] [--json]
// The audit creates fresh containers from the policy, runs every claim as a live probe, prints each row as it
// ends and keeps the report in the history; --out writes it as JSON, Markdown and HTML. The exit status is 0
// for Go, 1 for No-Go, 130 when Ctrl-C stopped it (143 for SIGTERM): the row under way ends, the rows left
// are No-Go as cancelled, and the audit's containers, keys and daemon are removed before it exits. Signing
// happens in the daemon, with the user's key from the secret store.
#include "auditverify.h"
#include "cliformat.h"
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

#include <atomic>
#include <csignal>
#include <optional>
#include <unistd.h>

namespace Cordon::Cli {

namespace {

// The audit a first Ctrl-C or SIGTERM stops after its current row, so that it can clean up; a second one ends
// the program at once.
std::atomic<Audit::AuditRunner *> interruptible = nullptr;
volatile std::sig_atomic_t interruptedBy = 0;

void stopAfterTheCurrentRow(int signalNumber)
{
    interruptedBy = signalNumber;
    if (Audit::AuditRunner *runner = interruptible.load())
        runner->cancel(); // a lock-free atomic store
    ::signal(signalNumber, SIG_DFL);
    static const char said[] =
        "\ncordon: stopping after the current row, then removing the audit's containers, "
        "keys and daemon (again to quit at once)\n";
    [[maybe_unused]] const ssize_t written = ::write(STDERR_FILENO, said, sizeof said - 1);
}

// Installs stopAfterTheCurrentRow for SIGINT and SIGTERM for the life of one audit; a signal the caller
// ignores (a background job, nohup) stays ignored.
class InterruptGuard
{
public:
    explicit InterruptGuard(Audit::AuditRunner &runner)
    {
        static_assert(std::atomic<Audit::AuditRunner *>::is_always_lock_free);
        interruptible = &runner;
        struct sigaction action = {};
        action.sa_handler = stopAfterTheCurrentRow;
        action.sa_flags = SA_RESTART;
        ::sigemptyset(&action.sa_mask);
        for (auto &[signalNumber, previous] : m_previous) {
            ::sigaction(signalNumber, nullptr, &previous);
            if (previous.sa_handler != SIG_IGN)
                ::sigaction(signalNumber, &action, nullptr);
        }
    }
    ~InterruptGuard()
    {
        for (const auto &[signalNumber, previous] : m_previous)
            ::sigaction(signalNumber, &previous, nullptr);
        interruptible = nullptr;
    }
    InterruptGuard(const InterruptGuard &) = delete;
    InterruptGuard &operator=(const InterruptGuard &) = delete;

private:
    std::pair<int, struct sigaction> m_previous[2] = {{SIGINT, {}}, {SIGTERM, {}}};
};

Result<> writeFile(const QString &path, const std::string &content)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) ||
        file.write(content.data(), qint64(content.size())) != qint64(content.size()) || !file.commit())
        return fail(QStringLiteral("audit.write"), QStringLiteral("%1: %2").arg(path, file.errorString()));
    return {};
}

QString verdictLabel(const QString &verdict)
{
    if (verdict == QLatin1String("go"))
        return QStringLiteral("GO   ");
    return verdict == QLatin1String("not_applicable") ? QStringLiteral("N/A  ") : QStringLiteral("NO-GO");
}

QString rowLine(const QJsonObject &row)
{
    return QStringLiteral("%1  %2  %3 (%4 ms)\n        %5\n")
        .arg(verdictLabel(row.value(QStringLiteral("verdict")).toString()),
             row.value(QStringLiteral("id")).toString().leftJustified(29),
             row.value(QStringLiteral("title")).toString())
        .arg(row.value(QStringLiteral("duration_ms")).toInteger())
        .arg(row.value(QStringLiteral("reason")).toString());
}

// Writes the report as audit-ID.json, .md and .html in `directory`; the base path.
Result<QString> exportReport(const Audit::AuditReport &report, const Json &document, const QString &directory)
{
    const QDir out(directory);
    if (!QDir().mkpath(out.path()))
        return fail(QStringLiteral("audit.write"), QStringLiteral("cannot create %1").arg(out.path()));
    const QString base = out.filePath(QStringLiteral("audit-") + toQt(report.id));
    for (const auto &[suffix, content] :
         {std::pair{QStringLiteral(".json"), document.serializeIndented() + "\n"},
          std::pair{QStringLiteral(".md"), Audit::reportMarkdown(report)},
          std::pair{QStringLiteral(".html"), Audit::reportHtml(report)}}) {
        CORDON_TRY(writeFile(base + suffix, content));
    }
    return base;
}

Result<Audit::AuditReport> reportOf(const QJsonObject &object)
{
    return Audit::AuditReport::fromJson(toPlain(object));
}

int signCommand(const QString &reference, const QCommandLineParser &parser, bool json)
{
    const QString name = parser.value(QStringLiteral("name"));
    const QString role = parser.value(QStringLiteral("role"));
    const QString decision = parser.value(QStringLiteral("decision"));
    if (name.isEmpty() || role.isEmpty() || decision.isEmpty())
        return usageError(QStringLiteral("cordon audit"),
                          QStringLiteral("`sign` needs --name, --role and --decision"));
    const QString date = parser.isSet(QStringLiteral("date")) ? parser.value(QStringLiteral("date"))
                                                              : QDate::currentDate().toString(Qt::ISODate);
    QJsonObject params{
        {QStringLiteral("name"), name},
        {QStringLiteral("role"), role},
        {QStringLiteral("decision"), decision == QLatin1String("no-go") ? QStringLiteral("no_go") : decision},
        {QStringLiteral("date"), date}};
    // A file is signed in place; anything else names a report the history keeps.
    const bool isFile = QFileInfo(reference).isFile();
    if (isFile) {
        QFile file(reference);
        if (!file.open(QIODevice::ReadOnly))
            return reportError(fail(QStringLiteral("audit.bad_report"),
                                    QStringLiteral("%1: %2").arg(reference, file.errorString()))
                                   .value());
        QJsonParseError parseError;
        const QJsonDocument document = QJsonDocument::fromJson(file.readAll(), &parseError);
        if (!document.isObject())
            return reportError(
                fail(QStringLiteral("audit.bad_report"),
                     QStringLiteral("%1 is not a report: %2").arg(reference, parseError.errorString()))
                    .value());
        params.insert(QStringLiteral("report"), document.object());
    } else {
        params.insert(QStringLiteral("id"), reference);
    }
    DaemonSession session;
    if (auto connected = session.connect(); !connected)
        return reportError(connected.error());
    auto answer = session.call(QStringLiteral("audit.sign"), params);
    if (!answer)
        return reportError(answer.error());
    const QJsonObject signedJson = answer->value(QStringLiteral("report")).toObject();
    auto report = reportOf(signedJson);
    if (!report)
        return reportError(report.error());
    const Json document = toPlain(signedJson);
    if (isFile) {
        if (auto written = writeFile(reference, document.serializeIndented() + "\n"); !written)
            return reportError(written.error());
        // The Markdown and HTML beside it (as --out wrote them) show the sign-off too.
        if (reference.endsWith(QStringLiteral(".json"))) {
            const QString base = reference.chopped(5);
            for (const auto &[suffix, content] :
                 {std::pair{QStringLiteral(".md"), Audit::reportMarkdown(*report)},
                  std::pair{QStringLiteral(".html"), Audit::reportHtml(*report)}}) {
                if (!QFileInfo::exists(base + suffix))
                    continue;
                if (auto written = writeFile(base + suffix, content); !written)
                    return reportError(written.error());
            }
        }
    }
    if (parser.isSet(QStringLiteral("out"))) {
        auto base = exportReport(*report, document, parser.value(QStringLiteral("out")));
        if (!base)
            return reportError(base.error());
    }
    if (json)
        printJson(signedJson);
    else
        printOut(QStringLiteral("%1 signed off %2 by %3 (%4) on %5, with key %6%7\n")
                     .arg(toQt(report->id),
                          decision == QLatin1String("go") ? QStringLiteral("Go") : QStringLiteral("No-Go"),
                          name, role, date, toQt(report->signature->keyId),
                          isFile ? QStringLiteral("; written to ") + reference : QString()));
    return 0;
}

int listCommand(bool json)
{
    DaemonSession session;
    if (auto connected = session.connect(); !connected)
        return reportError(connected.error());
    auto answer = session.call(QStringLiteral("audit.list"), {{QStringLiteral("limit"), 500}});
    if (!answer)
        return reportError(answer.error());
    const QJsonArray audits = answer->value(QStringLiteral("audits")).toArray();
    if (json) {
        printJson(audits);
        return 0;
    }
    if (audits.isEmpty()) {
        printOut(QStringLiteral("no audits yet: `cordon audit --policy FILE` runs one\n"));
        return 0;
    }
    Table table({QStringLiteral("ID"), QStringLiteral("WHEN"), QStringLiteral("VERDICT"),
                 QStringLiteral("ROWS GO"), QStringLiteral("SIGNED"), QStringLiteral("POLICY")});
    // ROWS GO counts against the rows that applied: "18/18 (21)" when three could not apply.
    for (const QJsonValue &value : audits) {
        const QJsonObject audit = value.toObject();
        table.addRow(
            {audit.value(QStringLiteral("id")).toString(),
             formatTime(audit.value(QStringLiteral("created_at")).toInteger()),
             audit.value(QStringLiteral("verdict")).toString() == QLatin1String("go")
                 ? QStringLiteral("Go")
                 : QStringLiteral("No-Go"),
             QStringLiteral("%1/%2%3")
                 .arg(audit.value(QStringLiteral("go_rows")).toInteger())
                 .arg(audit.value(QStringLiteral("rows_applied")).toInteger())
                 .arg(audit.value(QStringLiteral("rows_applied")).toInteger() ==
                              audit.value(QStringLiteral("rows")).toInteger()
                          ? QString()
                          : QStringLiteral(" (%1)").arg(audit.value(QStringLiteral("rows")).toInteger())),
             audit.value(QStringLiteral("key_id")).toString().isEmpty()
                 ? QStringLiteral("-")
                 : audit.value(QStringLiteral("key_id")).toString(),
             audit.value(QStringLiteral("policy_version")).toString().left(12)});
    }
    printOut(table.toString());
    return 0;
}

int showCommand(const QString &id, const QCommandLineParser &parser, bool json)
{
    DaemonSession session;
    if (auto connected = session.connect(); !connected)
        return reportError(connected.error());
    auto answer = session.call(QStringLiteral("audit.get"), {{QStringLiteral("id"), id}});
    if (!answer)
        return reportError(answer.error());
    const QJsonObject reportJson = answer->value(QStringLiteral("report")).toObject();
    auto report = reportOf(reportJson);
    if (!report)
        return reportError(report.error());
    if (parser.isSet(QStringLiteral("out"))) {
        auto base = exportReport(*report, toPlain(reportJson), parser.value(QStringLiteral("out")));
        if (!base)
            return reportError(base.error());
        if (!json)
            printOut(QStringLiteral("report: %1.json (.md, .html)\n").arg(*base));
    }
    if (json)
        printJson(reportJson);
    else if (!parser.isSet(QStringLiteral("out")))
        printOut(QString::fromStdString(Audit::reportMarkdown(*report)));
    return 0;
}

} // namespace

int auditCommand(const QStringList &arguments)
{
    const QString command = QStringLiteral("cordon audit");
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "The Go/No-Go audit: creates fresh containers from a policy, proves each of its claims with live\n"
        "probes (credentials, file system, network, rights, limits, restart, deletion, logs) and reports\n"
        "each row Go or No-Go with its evidence; the report is kept in the history. Exit status 0 for Go,\n"
        "1 for No-Go.\n"
        "  cordon audit --policy FILE [--out DIR]    audit a policy file\n"
        "  cordon audit --container REF              audit the policy of an existing container\n"
        "  cordon audit sign REPORT --name N --role R --decision go|no_go [--date D]\n"
        "                                            sign a report (a file, signed in place, or an id)\n"
        "  cordon audit verify REPORT.json           check a report's evidence hashes and that a key of the\n"
        "                                            reviewers' keyring (or --key) signed it\n"
        "  cordon audit ls                           the audits in the history\n"
        "  cordon audit show ID [--out DIR]          one of them, as Markdown or exported"));
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
    const QCommandLineOption nameOption(QStringLiteral("name"), QStringLiteral("sign: who signs off."),
                                        QStringLiteral("name"));
    const QCommandLineOption roleOption(QStringLiteral("role"), QStringLiteral("sign: their role."),
                                        QStringLiteral("role"));
    const QCommandLineOption decisionOption(QStringLiteral("decision"),
                                            QStringLiteral("sign: the decision, go or no_go."),
                                            QStringLiteral("go|no_go"));
    const QCommandLineOption dateOption(QStringLiteral("date"),
                                        QStringLiteral("sign: the day of the decision (default: today)."),
                                        QStringLiteral("YYYY-MM-DD"));
    const QCommandLineOption keyOption(
        QStringLiteral("key"), QStringLiteral("verify: accept only a signature by this key id (ak-...)."),
        QStringLiteral("key id"));
    const QCommandLineOption keyringOption(
        QStringLiteral("keyring"),
        QStringLiteral("verify: the reviewers' keyring (default: $XDG_CONFIG_HOME/cordon/audit-keyring)."),
        QStringLiteral("file"));
    parser.addOptions({policyOption, containerOption, outOption, jsonOption, rowOption, nameOption,
                       roleOption, decisionOption, dateOption, keyOption, keyringOption});
    parser.addPositionalArgument(QStringLiteral("action"), QStringLiteral("sign, verify, ls or show."),
                                 QStringLiteral("[sign|verify|ls|show ...]"));
    if (auto done = parseCommandLine(parser, arguments, command))
        return *done;
    const QStringList positional = parser.positionalArguments();
    const bool json = parser.isSet(jsonOption);
    const QString action = positional.value(0);
    const bool runs = parser.isSet(policyOption) || parser.isSet(containerOption) || parser.isSet(rowOption);
    const bool signs = parser.isSet(nameOption) || parser.isSet(roleOption) || parser.isSet(decisionOption) ||
                       parser.isSet(dateOption);
    if (!action.isEmpty()) {
        if (runs)
            return usageError(command,
                              QStringLiteral("--policy, --container and --row run an audit; `%1` takes "
                                             "none of them")
                                  .arg(action));
        if ((parser.isSet(keyOption) || parser.isSet(keyringOption)) && action != QLatin1String("verify"))
            return usageError(command, QStringLiteral("--key and --keyring are for `verify`"));
        if (signs && action != QLatin1String("sign"))
            return usageError(command,
                              QStringLiteral("--name, --role, --decision and --date are for `sign`"));
        const bool one = positional.size() == 2;
        if (action == QLatin1String("verify") && one && !parser.isSet(outOption))
            return auditVerifyCommand(positional.value(1), parser.value(keyOption),
                                      parser.value(keyringOption), json);
        if (action == QLatin1String("sign") && one)
            return signCommand(positional.value(1), parser, json);
        if (action == QLatin1String("ls") && positional.size() == 1 && !parser.isSet(outOption))
            return listCommand(json);
        if (action == QLatin1String("show") && one)
            return showCommand(positional.value(1), parser, json);
        return usageError(command,
                          QStringLiteral("the actions are `sign REPORT`, `verify REPORT.json`, `ls` and "
                                         "`show ID`"));
    }
    if (signs)
        return usageError(command, QStringLiteral("--name, --role, --decision and --date are for `sign`"));
    if (parser.isSet(keyOption) || parser.isSet(keyringOption))
        return usageError(command, QStringLiteral("--key and --keyring are for `verify`"));
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
    std::optional<InterruptGuard> interrupts(std::in_place, runner);
    auto report = runner.run(request);
    interrupts.reset();
    if (!report)
        return reportError(report.error());
    const Json document = report->toJson();
    if (json)
        printJson(toQt(document).toObject());
    if (parser.isSet(outOption)) {
        auto base = exportReport(*report, document, parser.value(outOption));
        if (!base)
            return reportError(base.error());
        if (!json)
            printOut(QStringLiteral("report: %1.json (.md, .html)\n").arg(*base));
    }
    const bool go = report->verdict() == Audit::Verdict::Go;
    if (!json) {
        const int notApplicable = int(report->rows.size()) - report->appliedRows();
        printOut(QStringLiteral(
                     "%1: %2 of %3 rows Go%4 (policy %5); kept as %6: `cordon audit sign %6` signs it\n")
                     .arg(go ? QStringLiteral("GO") : QStringLiteral("NO-GO"))
                     .arg(report->goRows())
                     .arg(report->appliedRows())
                     .arg(notApplicable == 0
                              ? QString()
                              : QStringLiteral(", %1 not applicable under this policy").arg(notApplicable))
                     .arg(toQt(report->policyVersion), toQt(report->id)));
    }
    if (interruptedBy != 0)
        return 128 + interruptedBy;
    return go ? 0 : 1;
}

} // namespace Cordon::Cli
