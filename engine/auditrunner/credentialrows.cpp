// SPDX-License-Identifier: MIT
// The credentials rows: an invalid key given to a run as a secret, and as a domain secret, must never show
// in what Cordon keeps or lets out (streams, history, events, artifacts). The masking and the artifact scan
// are exercised by a probe that tries every way out, not assumed; a domain secret is also sent to an
// upstream that echoes it back (domainsecretecho.h).
#include "auditrunner/auditrows.h"
#include "auditrunner/credentialchecks.h"
#include "auditrunner/domainsecretecho.h"
#include "auditrunner/secretforms.h"

#include <QFile>
#include <QJsonArray>
#include <QTemporaryDir>

namespace Cordon::Audit {

namespace {

constexpr const char *LeakFile = "/mnt/data/outputs/audit-credentials.json";

// Each form the probe printed (its `form LABEL:` line) shows the mask where the key was: printed, and masked.
void checkEveryFormMasked(RowRecorder &row, ProbeSession &session, const QString &runId,
                          const QList<SecretForm> &forms)
{
    const auto stored = storedStream(session, runId, QStringLiteral("stdout"));
    const QString stdoutText = stored ? QString::fromUtf8(*stored) : QString();
    for (const SecretForm &form : forms) {
        if (form.label == QLatin1String("raw"))
            continue; // the `value:` line, which checkNothingShows() looks at with everything else
        const QString line = probeValue(stdoutText, QStringLiteral("form ") + form.label);
        row.check(line.contains(QStringLiteral("[secret:")) && !line.toUtf8().contains(form.decided),
                  QStringLiteral("the key printed as %1 is kept masked").arg(form.label),
                  line.isEmpty() ? QStringLiteral("the run printed no %1 form of the key").arg(form.label)
                                 : QStringLiteral("the key printed as %1 is kept unmasked: %2")
                                       .arg(form.label, excerpt(line, 120)));
    }
}

} // namespace

AuditRow credentialsSecret(AuditContext &context)
{
    RowRecorder row(QStringLiteral("credentials.secret"),
                    QStringLiteral("An invalid key given as a secret never shows"));
    ProbeSession &session = context.session;
    auto key = setAuditKey(context, context.session, QStringLiteral("CORDON_AUDIT_KEY_"), true);
    if (!key)
        return row.noGo(
            QStringLiteral("the secret store refused the audit's key: %1").arg(describe(key.error())));
    const QString name = key->name;
    row.evidence(QStringLiteral("secret"), QStringLiteral("%1 set in the secret store, given to the run as "
                                                          "AUDIT_API_KEY")
                                               .arg(name));

    QJsonObject policy = derivedPolicy(context.policy, QStringLiteral("audit-credentials"));
    QJsonArray secrets = policy.value(QStringLiteral("secrets")).toArray();
    secrets.append(QJsonObject{{QStringLiteral("name"), name},
                               {QStringLiteral("env"), QStringLiteral("AUDIT_API_KEY")}});
    policy.insert(QStringLiteral("secrets"), secrets);
    auto container = session.createContainer(policy);
    AuditRow result;
    if (!container) {
        result = row.noGo(QStringLiteral("a container with the secret could not be created: %1")
                              .arg(describe(container.error())));
    } else {
        const QStringList args{QStringLiteral("leak-encoded"), QStringLiteral("AUDIT_API_KEY"),
                               QLatin1String(LeakFile)};
        row.evidence(QStringLiteral("command"), ProbeSession::shownCommand(args));
        auto run = session.probe(*container, args);
        if (!run) {
            result = row.noGo(QStringLiteral("the probe could not run: %1").arg(describe(run.error())));
        } else {
            row.runEvidence(QStringLiteral("probe"), *run);
            const QString stdoutText = run->value(QStringLiteral("stdout")).toString();
            row.check(stdoutText.contains(QStringLiteral("leak: written")),
                      QStringLiteral("the run received the key and tried to print it and write it to a file"),
                      QStringLiteral("the run did not receive the key: %1")
                          .arg(excerpt(probeValue(stdoutText, QStringLiteral("leak")), 120)));
            row.check(run->value(QStringLiteral("error_class")).toString() == QLatin1String("nonzero_exit") &&
                          run->value(QStringLiteral("exit_code")).toInteger() == 1,
                      QStringLiteral("the run failed cleanly, with its own exit status 1"),
                      QStringLiteral("the run ended as %1 (exit status %2), not with its own exit status 1")
                          .arg(run->value(QStringLiteral("error_class")).toString())
                          .arg(run->value(QStringLiteral("exit_code")).toInteger()));
            checkEveryFormMasked(row, session, run->value(QStringLiteral("id")).toString(),
                                 secretForms(key->value.toUtf8()));
            checkNothingShows(row, session, *container, run->value(QStringLiteral("id")).toString(),
                              context.secretValues);
            result =
                row.finish(QStringLiteral("the key reached the run only: its output, the history and the "
                                          "artifacts show it masked or not at all"));
        }
    }
    (void)session.call(QStringLiteral("secret.remove"),
                       {{QStringLiteral("name"), name}, {QStringLiteral("origin"), session.origin()}});
    return result;
}

AuditRow credentialsDomainSecret(AuditContext &context)
{
    RowRecorder row(QStringLiteral("credentials.domain_secret"),
                    QStringLiteral("A domain secret never enters the sandbox"));
    ProbeSession &session = context.session;
    auto key = setAuditKey(context, context.session, QStringLiteral("CORDON_AUDIT_DOMAIN_KEY_"));
    if (!key)
        return row.noGo(
            QStringLiteral("the secret store refused the audit's key: %1").arg(describe(key.error())));
    const QString name = key->name;

    // Domain secrets go to host names only: a policy that names none cannot be given one.
    QString host = allowedTarget(context.policy).first;
    if (isAddress(host))
        host.clear();
    QJsonObject policy = derivedPolicy(context.policy, QStringLiteral("audit-domain-secret"));
    QJsonObject network = policy.value(QStringLiteral("network_policy")).toObject();
    QJsonArray domainSecrets = network.value(QStringLiteral("domain_secrets")).toArray();
    domainSecrets.append(
        QJsonObject{{QStringLiteral("domain"), host.isEmpty() ? QStringLiteral("audit-probe.invalid") : host},
                    {QStringLiteral("name"), name}});
    network.insert(QStringLiteral("domain_secrets"), domainSecrets);
    policy.insert(QStringLiteral("network_policy"), network);
    row.evidence(QStringLiteral("secret"),
                 QStringLiteral("%1 set in the secret store, as a domain secret for %2")
                     .arg(name, host.isEmpty() ? QStringLiteral("audit-probe.invalid") : host));

    AuditRow result;
    auto container = session.createContainer(policy);
    if (host.isEmpty()) {
        // No host to give it to: the claim holds when the daemon refuses the domain secret outright.
        if (container) {
            result =
                row.noGo(QStringLiteral("a domain secret for a host the policy does not allow was accepted"));
        } else if (container.error().code().rfind("policy.", 0) != 0) {
            result = row.noGo(QStringLiteral("container.create failed for another reason than the policy: %1")
                                  .arg(describe(container.error())));
        } else {
            row.evidence(QStringLiteral("container.create"), describe(container.error()));
            result = row.notApplicable(QStringLiteral(
                "the policy allows no host by name, so it cannot give a domain secret (one for "
                "any other host is refused before a container exists)"));
        }
    } else if (!container) {
        result = row.noGo(QStringLiteral("a container with the domain secret could not be created: %1")
                              .arg(describe(container.error())));
    } else {
        const QStringList args{QStringLiteral("leak"), name, QLatin1String(LeakFile)};
        row.evidence(QStringLiteral("command"), ProbeSession::shownCommand(args));
        auto run = session.probe(*container, args);
        if (!run) {
            result = row.noGo(QStringLiteral("the probe could not run: %1").arg(describe(run.error())));
        } else {
            row.runEvidence(QStringLiteral("probe"), *run);
            const QString seen =
                probeValue(run->value(QStringLiteral("stdout")).toString(), QStringLiteral("value"));
            row.check(!seen.isEmpty() && !context.secretValues.contains(seen),
                      QStringLiteral("the run saw a placeholder in %1, not the key").arg(name),
                      seen.isEmpty() ? QStringLiteral("the run saw nothing in %1").arg(name)
                                     : QStringLiteral("the run saw the key itself in %1").arg(name));
            // The file the probe wrote, saved despite the scan: it must hold the placeholder only.
            QTemporaryDir destination;
            auto saved = session.call(QStringLiteral("file.download"),
                                      {{QStringLiteral("container"), *container},
                                       {QStringLiteral("path"), QStringLiteral("audit-credentials.json")},
                                       {QStringLiteral("destination"), destination.path()},
                                       {QStringLiteral("override_reason"),
                                        QStringLiteral("Go/No-Go audit: read what the run saw")}});
            QFile file(destination.filePath(QStringLiteral("audit-credentials.json")));
            const QByteArray written = file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
            row.evidence(QStringLiteral("file written inside"), excerpt(QString::fromUtf8(written)));
            row.check(saved && !written.isEmpty() && !containsAny(written, context.secretValues),
                      QStringLiteral("what the run wrote to a file holds no key"),
                      !saved ? QStringLiteral("the file the run wrote could not be downloaded: %1")
                                   .arg(describe(saved.error()))
                      : written.isEmpty() ? QStringLiteral("the run wrote no file")
                                          : QStringLiteral("the key was found in the file the run wrote"));
            checkNothingShows(row, session, *container, run->value(QStringLiteral("id")).toString(),
                              context.secretValues);
            // Never Go on the placeholder alone: an upstream that echoes the key must not hand it back.
            const QString echoNotApplicable = checkEchoedDomainSecret(row, context);
            if (!echoNotApplicable.isEmpty() && row.allHeld())
                result = row.notApplicable(
                    QStringLiteral(
                        "the sandbox held only a placeholder, but the echo of the key could not be "
                        "tried: %1")
                        .arg(echoNotApplicable));
            else
                result = row.finish(
                    QStringLiteral("the sandbox only ever held a placeholder; the key stays with the egress "
                                   "proxy, and an upstream's echo of it reaches the sandbox masked"));
        }
    }
    (void)session.call(QStringLiteral("secret.remove"),
                       {{QStringLiteral("name"), name}, {QStringLiteral("origin"), session.origin()}});
    return result;
}

} // namespace Cordon::Audit
