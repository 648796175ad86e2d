// SPDX-License-Identifier: MIT
// cordon network: what a container may reach and what it tried.
//   cordon network show ID          the allowlist in force and the decisions per host ("denied 5 times")
//   cordon network allow ID DOMAIN… replace the container's allowlist (never wider than the organisation's)
//   cordon network org [--reload]   the organisation allowlist and where it comes from
#include "cliformat.h"
#include "clioutput.h"
#include "commands.h"
#include "daemoncli.h"

#include <QJsonArray>

namespace Cordon::Cli {

namespace {

QString ruleText(const QJsonValue &rule)
{
    if (rule.isString())
        return rule.toString();
    const QJsonObject object = rule.toObject();
    QString text = object.value(QStringLiteral("domain")).toString();
    const QJsonArray ports = object.value(QStringLiteral("ports")).toArray();
    if (!ports.isEmpty()) {
        QStringList list;
        for (const QJsonValue &port : ports)
            list.append(QString::number(port.toInt()));
        text += QLatin1Char(':') + list.join(QLatin1Char(','));
    }
    if (object.value(QStringLiteral("allow_private_addresses")).toBool())
        text += QStringLiteral(" (private addresses allowed)");
    return text;
}

int showCommand(DaemonSession &session, const QString &reference, bool json)
{
    auto container = session.resolveContainer(reference);
    if (!container)
        return reportError(container.error());
    const QString id = container->value(QStringLiteral("id")).toString();
    auto summary = session.call(QStringLiteral("network.summary"), {{QStringLiteral("container"), id}});
    if (!summary)
        return reportError(summary.error());
    const QJsonObject network = container->value(QStringLiteral("policy"))
                                    .toObject()
                                    .value(QStringLiteral("network_policy"))
                                    .toObject();
    if (json) {
        QJsonObject result = *summary;
        result.insert(QStringLiteral("network_policy"), network);
        printJson(result);
        return 0;
    }
    if (network.value(QStringLiteral("type")).toString() != QLatin1String("allowlist")) {
        printOut(QStringLiteral("%1: network disabled (only loopback inside, no route out)\n").arg(id));
    } else {
        printOut(QStringLiteral("%1: allowlist\n").arg(id));
        for (const QJsonValue &rule : network.value(QStringLiteral("allowed_domains")).toArray())
            printOut(QStringLiteral("  allow %1\n").arg(ruleText(rule)));
        for (const QJsonValue &secret : network.value(QStringLiteral("domain_secrets")).toArray())
            printOut(QStringLiteral("  secret %1 only to %2 (TLS terminated there)\n")
                         .arg(secret[QStringLiteral("name")].toString(),
                              secret[QStringLiteral("domain")].toString()));
    }
    const QJsonArray hosts = summary->value(QStringLiteral("hosts")).toArray();
    if (hosts.isEmpty()) {
        printOut(QStringLiteral("no network attempts recorded\n"));
        return 0;
    }
    printOut(QStringLiteral("\n%1 %2 %3 %4\n")
                 .arg(QStringLiteral("DECISION"), -9)
                 .arg(QStringLiteral("COUNT"), 6)
                 .arg(QStringLiteral("HOST"), -32)
                 .arg(QStringLiteral("LAST REASON")));
    for (const QJsonValue &value : hosts) {
        const QJsonObject row = value.toObject();
        // A request whose host could not be parsed shows its request line (quoted and cut by the daemon).
        QString host = row.value(QStringLiteral("host")).toString();
        if (row.value(QStringLiteral("suppressed")).toBool()) {
            host = QStringLiteral("(past the row limit)");
        } else if (host.isEmpty()) {
            const QString target = row.value(QStringLiteral("target")).toString();
            host = target.isEmpty() ? QStringLiteral("(no request line)")
                                    : QStringLiteral("not understood: ") + target;
        }
        printOut(QStringLiteral("%1 %2 %3 %4\n")
                     .arg(row.value(QStringLiteral("decision")).toString(), -9)
                     .arg(row.value(QStringLiteral("count")).toInteger(), 6)
                     .arg(host, -32)
                     .arg(row.value(QStringLiteral("last_reason")).toString()));
    }
    // Where domain secrets went: the requests that carried a value, and the ones refused for a placeholder.
    const QJsonArray secrets = summary->value(QStringLiteral("secrets")).toArray();
    if (!secrets.isEmpty())
        printOut(QStringLiteral("\n%1 %2 %3 %4\n")
                     .arg(QStringLiteral("SECRET"), -20)
                     .arg(QStringLiteral("WHAT"), -8)
                     .arg(QStringLiteral("COUNT"), 6)
                     .arg(QStringLiteral("HOST")));
    for (const QJsonValue &value : secrets) {
        const QJsonObject row = value.toObject();
        printOut(QStringLiteral("%1 %2 %3 %4\n")
                     .arg(row.value(QStringLiteral("secret")).toString(), -20)
                     .arg(row.value(QStringLiteral("decision")).toString(), -8)
                     .arg(row.value(QStringLiteral("count")).toInteger(), 6)
                     .arg(row.value(QStringLiteral("host")).toString()));
    }
    return 0;
}

int allowCommand(DaemonSession &session, const QStringList &positional, bool json)
{
    auto id = session.resolveContainerId(positional.at(1));
    if (!id)
        return reportError(id.error());
    QJsonArray domains;
    for (qsizetype i = 2; i < positional.size(); ++i)
        domains.append(positional.at(i));
    const QJsonObject network = domains.isEmpty()
                                    ? QJsonObject{{QStringLiteral("type"), QStringLiteral("allowlist")},
                                                  {QStringLiteral("allowed_domains"), QJsonArray{}}}
                                    : QJsonObject{{QStringLiteral("type"), QStringLiteral("allowlist")},
                                                  {QStringLiteral("allowed_domains"), domains}};
    auto updated = session.call(QStringLiteral("container.update_network"),
                                {{QStringLiteral("id"), *id}, {QStringLiteral("network_policy"), network}});
    if (!updated)
        return reportError(updated.error());
    if (json) {
        printJson(*updated);
        return 0;
    }
    const QJsonObject container = updated->value(QStringLiteral("container")).toObject();
    printOut(QStringLiteral("%1: allowlist replaced (policy version %2); open connections to hosts no longer "
                            "allowed were closed\n")
                 .arg(*id, container.value(QStringLiteral("policy_version")).toString().left(12)));
    return 0;
}

int orgCommand(DaemonSession &session, bool reload, bool json)
{
    auto org = session.call(reload ? QStringLiteral("network.reload_org_policy")
                                   : QStringLiteral("network.org_policy"));
    if (!org)
        return reportError(org.error());
    // An edit that broke the file leaves the list before it in force: said first, and the status is 1.
    const QJsonObject fileError = org->value(QStringLiteral("file_error")).toObject();
    if (json) {
        printJson(*org);
        return fileError.isEmpty() ? 0 : 1;
    }
    if (!fileError.isEmpty()) {
        printErr(QStringLiteral("cordon: the organisation allowlist file %1 has an error (since %2): %3\n"
                                "cordon: the list read before it stays in force (since %4):\n")
                     .arg(org->value(QStringLiteral("path")).toString(),
                          formatTime(fileError.value(QStringLiteral("since")).toInteger()),
                          fileError.value(QStringLiteral("message")).toString(),
                          formatTime(org->value(QStringLiteral("in_force_since")).toInteger())));
        for (const QJsonValue &rule : org->value(QStringLiteral("allowed_domains")).toArray())
            printOut(QStringLiteral("  allow %1\n").arg(ruleText(rule)));
        return 1;
    }
    const QString source = org->value(QStringLiteral("source")).toString();
    const QString path = org->value(QStringLiteral("path")).toString();
    if (source == QLatin1String("missing")) {
        printOut(
            QStringLiteral("no organisation allowlist: containers may reach nothing until %1 lists what they "
                           "may\n")
                .arg(path));
        return 0;
    }
    printOut(QStringLiteral("organisation allowlist from %1%2\n")
                 .arg(path, source == QLatin1String("system")
                                ? QStringLiteral(" (set by your administrator, read-only)")
                                : QString()));
    for (const QJsonValue &rule : org->value(QStringLiteral("allowed_domains")).toArray())
        printOut(QStringLiteral("  allow %1\n").arg(ruleText(rule)));
    return 0;
}

} // namespace

int networkCommand(const QStringList &arguments)
{
    const QString command = QStringLiteral("cordon network");
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "What containers may reach, and what they tried.\n"
        "  show ID            the container's allowlist and the proxy's decisions per host\n"
        "  allow ID DOMAIN... replace a running container's allowlist (only narrower than the "
        "organisation's);\n"
        "                     with no DOMAIN, nothing is allowed any more\n"
        "  org [--reload]     the organisation allowlist, re-read from its file with --reload"));
    parser.addHelpOption();
    const QCommandLineOption jsonOption(QStringLiteral("json"),
                                        QStringLiteral("Print the daemon's result as JSON."));
    const QCommandLineOption reloadOption(QStringLiteral("reload"),
                                          QStringLiteral("Re-read the organisation allowlist file now."));
    parser.addOptions({jsonOption, reloadOption});
    parser.addPositionalArgument(QStringLiteral("action"), QStringLiteral("show, allow or org."),
                                 QStringLiteral("show|allow|org [ID] [DOMAIN...]"));
    if (auto done = parseCommandLine(parser, arguments, command))
        return *done;
    const QStringList positional = parser.positionalArguments();
    const QString action = positional.value(0);
    if (action == QLatin1String("show") && positional.size() != 2)
        return usageError(command, QStringLiteral("`show` takes one container"));
    if (action == QLatin1String("allow") && positional.size() < 2)
        return usageError(command, QStringLiteral("`allow` takes a container and the domains to allow"));
    if (action == QLatin1String("org") && positional.size() != 1)
        return usageError(command, QStringLiteral("`org` takes no further arguments"));
    if (action != QLatin1String("show") && action != QLatin1String("allow") && action != QLatin1String("org"))
        return usageError(command, QStringLiteral("say show, allow or org"));

    DaemonSession session;
    if (auto connected = session.connect(); !connected)
        return reportError(connected.error());
    const bool json = parser.isSet(jsonOption);
    if (action == QLatin1String("show"))
        return showCommand(session, positional.at(1), json);
    if (action == QLatin1String("allow"))
        return allowCommand(session, positional, json);
    return orgCommand(session, parser.isSet(reloadOption), json);
}

} // namespace Cordon::Cli
