// SPDX-License-Identifier: MIT
#include "core/policywords.h"

#include "daemon/lite/runreport.h"

#include <QCoreApplication>

namespace Cordon::PolicyWords {

namespace {

QString tr(const char *text)
{
    return QCoreApplication::translate("PolicyWords", text);
}

QString mebibytes(qint64 mb)
{
    return QString::fromStdString(Lite::formatBytes(mb * 1024 * 1024));
}

QStringList strings(const QJsonValue &value)
{
    QStringList list;
    for (const QJsonValue &item : value.toArray())
        list.append(item.isString() ? item.toString() : QString::number(item.toInteger()));
    return list;
}

QString minutes(qint64 count)
{
    if (count % (24 * 60) == 0)
        return count == 24 * 60 ? tr("1 day") : tr("%1 days").arg(count / (24 * 60));
    if (count % 60 == 0)
        return count == 60 ? tr("1 hour") : tr("%1 hours").arg(count / 60);
    return count == 1 ? tr("1 minute") : tr("%1 minutes").arg(count);
}

} // namespace

QString ruleLabel()
{
    return tr("Allows");
}

QString joinedList(const QStringList &items)
{
    if (items.size() <= 1)
        return items.value(0);
    return tr("%1 and %2").arg(items.mid(0, items.size() - 1).join(QStringLiteral(", ")), items.last());
}

QString rule(const QJsonObject &rule)
{
    const QString domain = rule.value(QStringLiteral("domain")).toString();
    const QStringList ports = strings(rule.value(QStringLiteral("ports")));
    const QStringList methods = strings(rule.value(QStringLiteral("methods")));
    const QStringList paths = strings(rule.value(QStringLiteral("path_prefixes")));
    QStringList parts{domain};
    parts.append(ports.isEmpty()     ? tr("ports 80 and 443")
                 : ports.size() == 1 ? tr("port %1").arg(ports.first())
                                     : tr("ports %1").arg(joinedList(ports)));
    parts.append(methods.isEmpty() ? tr("any method") : tr("%1 only").arg(joinedList(methods)));
    parts.append(paths.isEmpty() ? tr("any path") : tr("paths under %1").arg(joinedList(paths)));
    parts.append(domain.startsWith(QLatin1String("*."))
                     ? tr("every subdomain of %1, not %1 itself").arg(domain.mid(2))
                     : tr("this host only"));
    if (rule.value(QStringLiteral("allow_private_addresses")).toBool())
        parts.append(tr("private and loopback addresses allowed"));
    return parts.join(QStringLiteral(", "));
}

bool ruleIsRisky(const QJsonObject &rule)
{
    return rule.value(QStringLiteral("allow_private_addresses")).toBool();
}

QString ruleCaveat(const QJsonObject &rule)
{
    const QString domain = rule.value(QStringLiteral("domain")).toString();
    QStringList caveats;
    if (domain.startsWith(QLatin1String("*.")))
        caveats.append(tr("Reaches any name ending in .%1 at any depth (a.%1, a.b.%1), never %1 itself "
                          "and never look-alikes such as evil%1.")
                           .arg(domain.mid(2)));
    if (!strings(rule.value(QStringLiteral("methods"))).isEmpty() ||
        !strings(rule.value(QStringLiteral("path_prefixes"))).isEmpty())
        caveats.append(tr("Methods and paths can only be checked for plain HTTP, so this rule does not allow "
                          "HTTPS tunnels."));
    if (rule.value(QStringLiteral("allow_private_addresses")).toBool())
        caveats.append(
            tr("Warning: the proxy may connect to loopback and private addresses this name resolves "
               "to, which opens the host's own services and cloud metadata endpoints to the code "
               "inside. Meant for tests with a local server."));
    return caveats.join(QLatin1Char(' '));
}

QList<Line> limits(const QJsonObject &policy)
{
    const QJsonObject limits = policy.value(QStringLiteral("limits")).toObject();
    const QJsonValue memory = policy.value(QStringLiteral("memory_limit"));
    QString memoryText;
    if (memory.isString()) {
        const QString tier = memory.toString();
        memoryText = tr("%1 GiB").arg(tier.left(tier.size() - 1));
    } else {
        memoryText = QString::fromStdString(Lite::formatBytes(memory.toInteger()));
    }
    const qint64 seconds = limits.value(QStringLiteral("run_timeout_s")).toInteger();
    return {
        {tr("Memory"),
         tr("%1; a run that needs more is killed by the kernel (out of memory)").arg(memoryText)},
        {tr("Processes"), tr("at most %1 processes and threads at once; a fork bomb stops there")
                              .arg(limits.value(QStringLiteral("pids")).toInteger())},
        {tr("Run time"),
         tr("%1 per run, then the run is killed")
             .arg(seconds % 60 == 0 && seconds >= 60 ? minutes(seconds / 60) : tr("%1 s").arg(seconds))},
        {tr("/tmp"), tr("%1, in memory, emptied when the container stops")
                         .arg(mebibytes(limits.value(QStringLiteral("tmp_mb")).toInteger()))},
        {tr("Workspace"),
         tr("%1 in /mnt/data").arg(mebibytes(limits.value(QStringLiteral("workspace_mb")).toInteger()))},
        {tr("Output"), tr("%1 of stdout and stderr kept per run; the rest is cut")
                           .arg(mebibytes(limits.value(QStringLiteral("output_mb")).toInteger()))},
    };
}

Line network(const QJsonObject &policy)
{
    const QJsonObject network = policy.value(QStringLiteral("network_policy")).toObject();
    if (network.value(QStringLiteral("type")).toString() != QLatin1String("allowlist"))
        return {tr("Network"), tr("off: no network at all, only loopback inside the container")};
    const qsizetype rules = network.value(QStringLiteral("allowed_domains")).toArray().size();
    return {tr("Network"),
            rules == 0 ? tr("allowlist with no rules: every request is refused by the egress proxy")
            : rules == 1
                ? tr("allowlist: 1 rule, through the egress proxy, within the organisation allowlist")
                : tr("allowlist: %1 rules, through the egress proxy, within the organisation allowlist")
                      .arg(rules)};
}

QList<Line> policy(const QJsonObject &policy)
{
    QList<Line> lines{{tr("Name"), policy.value(QStringLiteral("name")).toString()}};
    lines.append(limits(policy));
    lines.append({tr("Expiry"), tr("deleted with its files after %1 without activity")
                                    .arg(minutes(policy.value(QStringLiteral("expires_after"))
                                                     .toObject()
                                                     .value(QStringLiteral("minutes"))
                                                     .toInteger(20)))});
    lines.append(network(policy));
    const QJsonArray rules = policy.value(QStringLiteral("network_policy"))
                                 .toObject()
                                 .value(QStringLiteral("allowed_domains"))
                                 .toArray();
    for (const QJsonValue &entry : rules)
        lines.append({ruleLabel(), rule(entry.toObject()), ruleIsRisky(entry.toObject())});
    const QJsonArray mounts = policy.value(QStringLiteral("mounts")).toArray();
    for (const QJsonValue &value : mounts) {
        const QJsonObject mount = value.toObject();
        const bool readOnly = mount.value(QStringLiteral("read_only")).toBool(true);
        lines.append(
            {tr("Mount"),
             (readOnly ? tr("%1 at %2, read-only") : tr("%1 at %2, writable: the code can change it"))
                 .arg(mount.value(QStringLiteral("host")).toString(),
                      mount.value(QStringLiteral("target")).toString()),
             !readOnly});
    }
    const QStringList env = policy.value(QStringLiteral("env")).toObject().keys();
    lines.append({tr("Environment"), env.isEmpty() ? tr("none set by the policy") : joinedList(env)});
    // Names only: the values stay in the host's store, and are masked in every output.
    QStringList secrets;
    for (const QJsonValue &ref : policy.value(QStringLiteral("secrets")).toArray()) {
        const QString name = ref.toObject().value(QStringLiteral("name")).toString();
        const QString variable = ref.toObject().value(QStringLiteral("env")).toString();
        secrets.append(variable == name ? name : tr("%1 as %2").arg(name, variable));
    }
    // Domain secrets: the runs hold a placeholder; the proxy sends the value to one domain only.
    const QJsonArray domainSecrets = policy.value(QStringLiteral("network_policy"))
                                         .toObject()
                                         .value(QStringLiteral("domain_secrets"))
                                         .toArray();
    for (const QJsonValue &ref : domainSecrets)
        secrets.append(tr("%1 only to %2 (through the proxy)")
                           .arg(ref.toObject().value(QStringLiteral("name")).toString(),
                                ref.toObject().value(QStringLiteral("domain")).toString()));
    lines.append({tr("Secrets"), secrets.isEmpty() ? tr("none") : joinedList(secrets)});
    if (policy.value(QStringLiteral("allow_ptrace")).toBool())
        lines.append({tr("Debugging"), tr("ptrace allowed inside the container"), true});
    return lines;
}

} // namespace Cordon::PolicyWords
