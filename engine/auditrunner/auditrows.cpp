// SPDX-License-Identifier: MIT
// What the rows share: describing errors, deriving policies, the allowlist's concrete target.
#include "auditrunner/auditrows.h"

#include "core/plainbridge.h"

#include <QHostAddress>
#include <QJsonArray>
#include <QRandomGenerator>

namespace Cordon::Audit {

QString describe(const Error &error)
{
    return toQt(error.code()) + QStringLiteral(": ") + toQt(error.message());
}

QJsonObject derivedPolicy(const QJsonObject &policy, const QString &name)
{
    QJsonObject derived = policy;
    derived.insert(QStringLiteral("name"), name);
    return derived;
}

bool hasAllowlist(const QJsonObject &policy)
{
    return policy.value(QStringLiteral("network_policy"))
               .toObject()
               .value(QStringLiteral("type"))
               .toString() == QLatin1String("allowlist");
}

QPair<QString, int> allowedTarget(const QJsonObject &policy)
{
    if (!hasAllowlist(policy))
        return {};
    // A host name first: domain secrets need one, and a name exercises the proxy's resolver too.
    QPair<QString, int> address;
    const QJsonArray rules = policy.value(QStringLiteral("network_policy"))
                                 .toObject()
                                 .value(QStringLiteral("allowed_domains"))
                                 .toArray();
    for (const QJsonValue &rule : rules) {
        QString host;
        int port = 443;
        if (rule.isObject()) {
            host = rule.toObject().value(QStringLiteral("domain")).toString();
            const QJsonArray ports = rule.toObject().value(QStringLiteral("ports")).toArray();
            if (!ports.isEmpty())
                port = ports.first().toInt();
        } else {
            host = rule.toString();
            if (host.startsWith(QLatin1Char('[')))
                continue; // an IPv6 literal: the probe speaks IPv4 to the proxy only
            const qsizetype colon = host.lastIndexOf(QLatin1Char(':'));
            if (colon > 0) {
                bool ok = false;
                const int given = host.mid(colon + 1).toInt(&ok);
                if (ok)
                    port = given;
                host.truncate(colon);
            }
        }
        if (host.startsWith(QStringLiteral("*.")))
            host = QStringLiteral("audit-probe") + host.mid(1);
        if (host.isEmpty() || host.contains(QLatin1Char('*')))
            continue;
        if (QHostAddress(host).isNull())
            return {host, port};
        if (address.first.isEmpty())
            address = {host, port};
    }
    return address;
}

bool isAddress(const QString &host)
{
    return !QHostAddress(host).isNull();
}

QString randomHex(int digits)
{
    QString hex;
    while (hex.size() < digits)
        hex += QStringLiteral("%1").arg(QRandomGenerator::system()->generate(), 8, 16, QLatin1Char('0'));
    return hex.left(digits);
}

} // namespace Cordon::Audit
