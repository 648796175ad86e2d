// SPDX-License-Identifier: MIT
// The network rows: the same probes under "disabled" and under the policy's allowlist give different
// results; no route without network; the allowed host reached; an unlisted host, a private address and the
// metadata address refused with their reasons; the organisation's list bounds the container's.
#include "auditrunner/auditrows.h"

#include <QJsonArray>
#include <QTcpServer>
#include <QThread>

namespace Cordon::Audit {

namespace {

constexpr const char *PublicAddress = "1.1.1.1";

// The proxy's decisions about `host` recorded for a container, as evidence lines.
QStringList decisionsFor(ProbeSession &session, const QString &containerId, const QString &host)
{
    QStringList lines;
    // The proxy records a connection when it ends: give the ledger a moment.
    for (int attempt = 0; attempt < 20 && lines.isEmpty(); ++attempt) {
        if (attempt > 0)
            QThread::msleep(100);
        auto events = session.events(containerId, QStringLiteral("network."));
        if (!events)
            break;
        for (const QJsonValue &value : *events) {
            const QJsonObject event = value.toObject();
            const QJsonObject detail = event.value(QStringLiteral("detail")).toObject();
            if (detail.value(QStringLiteral("host")).toString() != host)
                continue;
            lines.append(QStringLiteral("event %1: %2, %3")
                             .arg(event.value(QStringLiteral("id")).toInteger())
                             .arg(event.value(QStringLiteral("kind")).toString(),
                                  detail.value(QStringLiteral("reason")).toString()));
        }
    }
    return lines;
}

struct ProxyAnswer
{
    QString status;
    QString reason;
    QString runId;
};

Result<ProxyAnswer> askProxy(ProbeSession &session, const QString &containerId, const QString &host, int port,
                             RowRecorder &row)
{
    const QStringList args{QStringLiteral("proxy"), host, QString::number(port)};
    auto run = session.probe(containerId, args, 60);
    if (!run)
        return fail(run.error());
    const QString out = run->value(QStringLiteral("stdout")).toString();
    ProxyAnswer answer{probeValue(out, QStringLiteral("status")), probeValue(out, QStringLiteral("reason")),
                       run->value(QStringLiteral("id")).toString()};
    if (answer.status.isEmpty())
        answer.status = probeValue(out, QStringLiteral("proxy"));
    row.evidence(QStringLiteral("command"),
                 QStringLiteral("%1 -> %2%3 (run %4)")
                     .arg(ProbeSession::shownCommand(args), answer.status,
                          answer.reason.isEmpty() ? QString() : QStringLiteral(" / ") + answer.reason,
                          answer.runId));
    return answer;
}

// A direct connection to a public address, past any proxy: its answer, with the evidence recorded; an
// error when the probe could not run.
Result<QString> connectDirectly(AuditContext &context, const QString &containerId, RowRecorder &row)
{
    const QStringList direct{QStringLiteral("connect"), QLatin1String(PublicAddress), QStringLiteral("443")};
    auto run = context.session.probe(containerId, direct, 60);
    if (!run)
        return fail(run.error());
    const QString connected =
        probeValue(run->value(QStringLiteral("stdout")).toString(), QStringLiteral("connect"));
    row.evidence(QStringLiteral("command"), ProbeSession::observed(direct, connected, *run));
    return connected;
}

// A proxy answer to a host the policy does not allow: a 403 with a reason, recorded in the history.
void checkRefused(RowRecorder &row, const QString &what, const ProxyAnswer &answer,
                  const QStringList &decisions)
{
    const bool refused = answer.status.startsWith(QStringLiteral("HTTP/1.1 403")) && !answer.reason.isEmpty();
    row.check(refused, QStringLiteral("%1 is refused with a reason (%2)").arg(what, answer.reason),
              answer.status.startsWith(QStringLiteral("HTTP/1.1 403"))
                  ? QStringLiteral("the proxy refused %1 without a reason").arg(what)
                  : QStringLiteral("the proxy let %1 through (%2)")
                        .arg(what, answer.status.isEmpty() ? QStringLiteral("no answer") : answer.status));
    row.check(!decisions.isEmpty() && decisions.constFirst().contains(QStringLiteral("network.denied")),
              QStringLiteral("the refusal of %1 is in the history").arg(what),
              decisions.isEmpty() ? QStringLiteral("the history records no decision about %1").arg(what)
                                  : QStringLiteral("the history records %1 as %2, not network.denied")
                                        .arg(what, decisions.constFirst()));
}

// The allowlist's rules that set allow_private_addresses, by domain.
QStringList privateAddressRules(const QJsonObject &policy)
{
    QStringList hosts;
    const QJsonArray rules = policy.value(QStringLiteral("network_policy"))
                                 .toObject()
                                 .value(QStringLiteral("allowed_domains"))
                                 .toArray();
    for (const QJsonValue &rule : rules) {
        if (rule.toObject().value(QStringLiteral("allow_private_addresses")).toBool())
            hosts.append(rule.toObject().value(QStringLiteral("domain")).toString());
    }
    return hosts;
}

// The address guard, which only a name that passed the allowlist reaches: a container whose only rule allows
// `localhost` (a name every host resolves to its loopback) without allow_private_addresses must be refused
// after resolution, as an allowed name rebound to an internal address would be. The port is the policy's own
// allowed port, so that an organisation list that allows localhost at all allows this rule too. An error when
// the container cannot be made (an organisation list that does not list localhost).
Result<> probeAddressGuard(AuditContext &context, RowRecorder &row)
{
    const int port = allowedTarget(context.policy).second > 0 ? allowedTarget(context.policy).second : 443;
    QJsonObject policy = derivedPolicy(context.policy, QStringLiteral("audit-address-guard"));
    policy.insert(QStringLiteral("network_policy"),
                  QJsonObject{{QStringLiteral("type"), QStringLiteral("allowlist")},
                              {QStringLiteral("allowed_domains"),
                               QJsonArray{QJsonObject{{QStringLiteral("domain"), QStringLiteral("localhost")},
                                                      {QStringLiteral("ports"), QJsonArray{port}}}}}});
    policy.remove(QStringLiteral("secrets"));
    auto created = context.session.createContainer(policy);
    if (!created)
        return fail(created.error());
    row.evidence(QStringLiteral("container"),
                 QStringLiteral("%1: the policy with only localhost:%2 allowed, private addresses not")
                     .arg(*created)
                     .arg(port));
    auto answer = askProxy(context.session, *created, QStringLiteral("localhost"), port, row);
    if (!answer)
        return fail(answer.error());
    for (const QString &line : decisionsFor(context.session, *created, QStringLiteral("localhost")))
        row.evidence(QStringLiteral("decision"), line);
    row.check(
        answer->status.startsWith(QStringLiteral("HTTP/1.1 403")) &&
            answer->reason.contains(QStringLiteral("resolved to a private address")),
        QStringLiteral("the allowed name localhost, resolving to the host's loopback, is refused by the "
                       "address guard (%1)")
            .arg(answer->reason),
        QStringLiteral("the allowed name localhost, resolving to the host's loopback, was not refused by "
                       "the address guard (%1)")
            .arg(answer->reason.isEmpty() ? answer->status : answer->reason));
    return {};
}

} // namespace

AuditRow networkDisabled(AuditContext &context)
{
    RowRecorder row(QStringLiteral("network.disabled"), QStringLiteral("No route without network"));
    QString container = context.mainContainer;
    if (hasAllowlist(context.policy)) {
        QJsonObject policy = derivedPolicy(context.policy, QStringLiteral("audit-network-disabled"));
        policy.insert(QStringLiteral("network_policy"),
                      QJsonObject{{QStringLiteral("type"), QStringLiteral("disabled")}});
        auto created = context.session.createContainer(policy);
        if (!created)
            return row.noGo(QStringLiteral("the policy with its network disabled could not be created: %1")
                                .arg(describe(created.error())));
        container = *created;
        row.evidence(QStringLiteral("container"),
                     QStringLiteral("%1: the policy with network_policy disabled").arg(container));
    }
    auto connected = connectDirectly(context, container, row);
    if (!connected)
        return row.noGo(QStringLiteral("the probe could not run: %1").arg(describe(connected.error())));
    row.check(!connected->isEmpty() && *connected != QLatin1String("ok"),
              QStringLiteral("a direct connection to %1:443 fails (%2)")
                  .arg(QLatin1String(PublicAddress), *connected),
              QStringLiteral("a direct connection to %1:443 answered %2")
                  .arg(QLatin1String(PublicAddress),
                       connected->isEmpty() ? QStringLiteral("nothing") : *connected));
    // A host without internet fails that too: a port listening on the host's loopback (the kernel completes
    // the handshake without an accept) is reached from any process of the host's network, and from no other.
    QTcpServer hostListener;
    if (!hostListener.listen(QHostAddress::LocalHost))
        return row.noGo(QStringLiteral("no port could be opened on the host's loopback: %1")
                            .arg(hostListener.errorString()));
    const QStringList loopback{QStringLiteral("connect"), QStringLiteral("127.0.0.1"),
                               QString::number(hostListener.serverPort())};
    auto reached = context.session.probe(container, loopback, 60);
    if (!reached)
        return row.noGo(QStringLiteral("the probe could not run: %1").arg(describe(reached.error())));
    const QString answer =
        probeValue(reached->value(QStringLiteral("stdout")).toString(), QStringLiteral("connect"));
    row.evidence(QStringLiteral("command"), ProbeSession::observed(loopback, answer, *reached));
    row.check(!answer.isEmpty() && answer != QLatin1String("ok"),
              QStringLiteral("the host's loopback port %1 is not reached (%2)")
                  .arg(hostListener.serverPort())
                  .arg(answer),
              QStringLiteral("the host's loopback port %1 was reached from inside (%2)")
                  .arg(hostListener.serverPort())
                  .arg(answer.isEmpty() ? QStringLiteral("no answer") : answer));
    // Not only a failed connection (a host without internet fails too): no interface but loopback exists.
    const QStringList listing{QStringLiteral("interfaces")};
    auto interfaces = context.session.probe(container, listing, 60);
    if (!interfaces)
        return row.noGo(QStringLiteral("the probe could not run: %1").arg(describe(interfaces.error())));
    const QString seen = interfaces->value(QStringLiteral("stdout")).toString();
    row.evidence(
        QStringLiteral("command"),
        ProbeSession::observed(
            listing, excerpt(seen.trimmed()).replace(QLatin1Char('\n'), QStringLiteral("; ")), *interfaces));
    row.check(probeValue(seen, QStringLiteral("interfaces")) == QLatin1String("1") &&
                  probeValue(seen, QStringLiteral("interface 1")) == QLatin1String("lo"),
              QStringLiteral("loopback is the only network interface"),
              QStringLiteral("the run sees %1 network interfaces, not loopback alone")
                  .arg(probeValue(seen, QStringLiteral("interfaces"))));
    auto proxied = askProxy(context.session, container, QStringLiteral("example.com"), 443, row);
    row.check(proxied && proxied->status == QLatin1String("none"),
              QStringLiteral("no egress proxy is offered to the run"),
              proxied ? QStringLiteral("an egress proxy answered the run (%1)").arg(proxied->status)
                      : QStringLiteral("the proxy probe could not run: %1").arg(describe(proxied.error())));
    return row.finish(QStringLiteral("only loopback exists inside: no address outside is reachable"));
}

AuditRow networkAllowedHost(AuditContext &context)
{
    RowRecorder row(QStringLiteral("network.allowed_host"),
                    QStringLiteral("The allowlisted host is reached"));
    if (!hasAllowlist(context.policy)) {
        row.evidence(QStringLiteral("policy"), QStringLiteral("network_policy is disabled"));
        return row.notApplicable(
            QStringLiteral("the policy's network is disabled: there is no allowed host"));
    }
    const auto [host, port] = allowedTarget(context.policy);
    if (host.isEmpty())
        return row.noGo(
            QStringLiteral("the allowlist names no host the audit can ask for (IPv6 literals only?)"));
    auto answer = askProxy(context.session, context.mainContainer, host, port, row);
    if (!answer)
        return row.noGo(QStringLiteral("the probe could not run: %1").arg(describe(answer.error())));
    for (const QString &line : decisionsFor(context.session, context.mainContainer, host))
        row.evidence(QStringLiteral("decision"), line);
    row.check(answer->status.startsWith(QStringLiteral("HTTP/1.1 200")),
              QStringLiteral("the proxy opened a tunnel to %1:%2").arg(host).arg(port),
              QStringLiteral("the proxy did not open a tunnel to %1:%2 (%3)")
                  .arg(host)
                  .arg(port)
                  .arg(answer->reason.isEmpty() ? answer->status : answer->reason));
    return row.finish(QStringLiteral("%1:%2 is reached through the egress proxy").arg(host).arg(port));
}

AuditRow networkRefused(AuditContext &context)
{
    RowRecorder row(QStringLiteral("network.refused"),
                    QStringLiteral("Unlisted hosts, private and metadata addresses are refused"));
    if (!hasAllowlist(context.policy)) {
        row.evidence(QStringLiteral("policy"), QStringLiteral("network_policy is disabled"));
        return row.notApplicable(QStringLiteral("the policy's network is disabled: no proxy exists to refuse "
                                                "anything (network.disabled shows that nothing is reached)"));
    }
    struct Target
    {
        QString host;
        int port;
        QString what;
    };
    const QList<Target> targets{
        {QStringLiteral("unlisted.cordon-audit.invalid"), 443, QStringLiteral("an unlisted host")},
        {QStringLiteral("10.255.255.1"), 443, QStringLiteral("a private address")},
        {QStringLiteral("169.254.169.254"), 80, QStringLiteral("the metadata address")}};
    for (const Target &target : targets) {
        auto answer = askProxy(context.session, context.mainContainer, target.host, target.port, row);
        if (!answer)
            return row.noGo(QStringLiteral("the probe could not run: %1").arg(describe(answer.error())));
        const QStringList decisions = decisionsFor(context.session, context.mainContainer, target.host);
        for (const QString &line : decisions)
            row.evidence(QStringLiteral("decision"), line);
        checkRefused(row, target.what, *answer, decisions);
    }
    if (auto guarded = probeAddressGuard(context, row); !guarded)
        row.fail(
            QStringLiteral("the address guard could not be exercised: %1").arg(describe(guarded.error())));
    // The guard a rule opens is open for every name the rule allows: one that resolves (or is rebound) to the
    // host's loopback, a private network or the metadata address is reached.
    for (const QString &host : privateAddressRules(context.policy))
        row.fail(
            QStringLiteral("the rule for %1 sets allow_private_addresses: a name it allows that resolves to "
                           "the host's loopback, a private network or the metadata address is reached")
                .arg(host));
    auto connected = connectDirectly(context, context.mainContainer, row);
    if (!connected)
        return row.noGo(QStringLiteral("the probe could not run: %1").arg(describe(connected.error())));
    row.check(!connected->isEmpty() && *connected != QLatin1String("ok"),
              QStringLiteral("a connection past the proxy fails (%1)").arg(*connected),
              QStringLiteral("a connection past the proxy to %1:443 answered %2")
                  .arg(QLatin1String(PublicAddress),
                       connected->isEmpty() ? QStringLiteral("nothing") : *connected));
    return row.finish(
        QStringLiteral("each is refused by the proxy with its reason, an allowed name that resolves "
                       "to the host's loopback is refused by the address guard, and nothing goes "
                       "around the proxy"));
}

AuditRow networkOrgBound(AuditContext &context)
{
    RowRecorder row(QStringLiteral("network.org_bound"),
                    QStringLiteral("The organisation list bounds the container's"));
    auto org = context.session.call(QStringLiteral("network.org_policy"), {});
    if (org)
        row.evidence(QStringLiteral("organisation list"),
                     QStringLiteral("%1 (%2 rules)")
                         .arg(org->value(QStringLiteral("path")).toString())
                         .arg(org->value(QStringLiteral("allowed_domains")).toArray().size()));
    const QString outside = QStringLiteral("outside-%1.cordon-audit.invalid").arg(randomHex(6));
    QJsonObject policy = derivedPolicy(context.policy, QStringLiteral("audit-org-bound"));
    QJsonObject network = hasAllowlist(context.policy)
                              ? policy.value(QStringLiteral("network_policy")).toObject()
                              : QJsonObject{{QStringLiteral("type"), QStringLiteral("allowlist")}};
    QJsonArray rules = network.value(QStringLiteral("allowed_domains")).toArray();
    rules.append(outside);
    network.insert(QStringLiteral("allowed_domains"), rules);
    policy.insert(QStringLiteral("network_policy"), network);
    row.evidence(QStringLiteral("attempt"),
                 QStringLiteral("container.create with %1 added to the allowlist").arg(outside));
    auto created = context.session.createContainer(policy);
    if (created)
        return row.noGo(QStringLiteral("a container allowing %1, which the organisation list does not, was "
                                       "created (%2)")
                            .arg(outside, *created));
    row.evidence(QStringLiteral("answer"), describe(created.error()));
    row.check(created.error().code() == "network.domain_not_allowed",
              QStringLiteral("refused as network.domain_not_allowed"),
              QStringLiteral("refused for another reason than the organisation list: %1")
                  .arg(describe(created.error())));
    return row.finish(QStringLiteral("a container cannot allow what the organisation does not"));
}

} // namespace Cordon::Audit
