// SPDX-License-Identifier: MIT
#include "auditrunner/domainsecretecho.h"

#include "auditrunner/credentialchecks.h"
#include "auditrunner/echoupstream.h"
#include "auditrunner/privatedaemon.h"
#include "auditrunner/secretforms.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>

namespace Cordon::Audit {

namespace {

constexpr const char *EchoFile = "audit-echo.txt";
constexpr int RunTimeoutS = 120;

// The run: it prints its placeholder (so that the stored output shows the masking at work), then asks each
// echo path with "Authorization: Bearer <placeholder>" through the proxy (HTTPS_PROXY), keeping what came
// back, byte for byte, in the outputs under "== PATH ==" headings. curl, or Python's urllib when there is no
// curl; neither is part of Cordon, both come from the host's /usr.
QString echoScript(const QString &name, quint16 port)
{
    QString paths;
    for (const QByteArray &path : EchoUpstream::paths())
        paths += QLatin1Char(' ') + QString::fromLatin1(path);
    return QStringLiteral(
               "echo \"placeholder: $%1\"\n"
               "if command -v curl >/dev/null 2>&1; then client=curl\n"
               "elif command -v python3 >/dev/null 2>&1; then client=python3\n"
               "else echo 'client: none'; exit 0; fi\n"
               "echo \"client: $client\"\n"
               "out=/mnt/data/outputs/%3\n"
               ": > \"$out\"\n"
               "for path in%4; do\n"
               "  printf '== %s ==\\n' \"$path\" >> \"$out\"\n"
               "  if [ $client = curl ]; then\n"
               "    curl -sS --max-time 30 -H \"Authorization: Bearer $%1\" \"https://localhost:%2$path\" "
               ">> \"$out\"\n"
               "  else\n"
               "    python3 -c 'import os, sys, urllib.request as u\n"
               "r = u.Request(sys.argv[1], headers={\"Authorization\": \"Bearer \" + "
               "os.environ[sys.argv[2]]})\n"
               "sys.stdout.buffer.write(u.urlopen(r, timeout=30).read())' \"https://localhost:%2$path\" %1 "
               ">> \"$out\"\n"
               "  fi\n"
               "  echo \"request $path: exit $?\"\n"
               "done\n"
               "cat \"$out\"\n")
        .arg(name)
        .arg(port)
        .arg(QLatin1String(EchoFile), paths);
}

// What came back for `path` in the run's echo file.
QByteArray section(const QByteArray &echoed, const QByteArray &path)
{
    const QByteArray heading = "== " + path + " ==\n";
    const qsizetype start = echoed.indexOf(heading);
    if (start < 0)
        return {};
    const qsizetype from = start + heading.size();
    const qsizetype next = echoed.indexOf("\n== /", from);
    return echoed.mid(from, next < 0 ? -1 : next + 1 - from);
}

// The part of an echo around its mask, for evidence: the padding of /split is 4 KiB of 'x'.
QString aroundMask(const QByteArray &echoed)
{
    const qsizetype star = echoed.indexOf('*');
    const QByteArray shown = star < 0 ? echoed.right(160) : echoed.mid(qMax<qsizetype>(0, star - 24), 160);
    return excerpt(QString::fromUtf8(shown), 160);
}

// The first form of the key in `echoed`, by its label in secretforms.h; empty when none is.
QString leakedForm(const QByteArray &echoed, const QList<SecretForm> &forms)
{
    for (const SecretForm &form : forms) {
        if (!form.decided.isEmpty() && echoed.contains(form.decided))
            return form.label;
    }
    return {};
}

// The private daemon, (re)started trusting `caFile` and with an organisation list allowing localhost:`port`
// (written before the start: the daemon reads it then, and a running one would reload it only later).
Result<> startTrustingEcho(PrivateDaemon &daemon, const QByteArray &caPem, quint16 port)
{
    const QDir dir(daemon.directory());
    const QString caFile = dir.filePath(QStringLiteral("echo-upstream-ca.pem"));
    const QString orgFile = dir.filePath(QStringLiteral("config/cordon/org-policy.json"));
    const QByteArray org =
        QJsonDocument(
            QJsonObject{{QStringLiteral("allowed_domains"),
                         QJsonArray{QJsonObject{{QStringLiteral("domain"), QStringLiteral("localhost")},
                                                {QStringLiteral("ports"), QJsonArray{port}},
                                                {QStringLiteral("allow_private_addresses"), true}}}}})
            .toJson();
    QFile ca(caFile);
    QFile orgPolicy(orgFile);
    if (!dir.mkpath(QStringLiteral("config/cordon")) ||
        !ca.open(QIODevice::WriteOnly | QIODevice::Truncate) || ca.write(caPem) != caPem.size() ||
        !orgPolicy.open(QIODevice::WriteOnly | QIODevice::Truncate) || orgPolicy.write(org) != org.size())
        return fail(
            QStringLiteral("audit.private_daemon"),
            QStringLiteral("the echo upstream's certificate or organisation list could not be written "
                           "to %1")
                .arg(dir.path()));
    ca.close();
    orgPolicy.close();
    if (daemon.isRunning())
        daemon.stop();
    daemon.setArguments({QStringLiteral("--upstream-ca"), caFile});
    return daemon.start();
}

// The container of the echo: the policy under test with its network replaced by the loopback upstream, the
// key as a domain secret for localhost, and no plain secrets (the private daemon's store holds only the key).
QJsonObject echoPolicy(const QJsonObject &policy, const QString &name, quint16 port)
{
    QJsonObject derived = derivedPolicy(policy, QStringLiteral("audit-domain-echo"));
    derived.remove(QStringLiteral("secrets"));
    derived.insert(
        QStringLiteral("network_policy"),
        QJsonObject{{QStringLiteral("type"), QStringLiteral("allowlist")},
                    {QStringLiteral("allowed_domains"),
                     QJsonArray{QJsonObject{{QStringLiteral("domain"), QStringLiteral("localhost")},
                                            {QStringLiteral("ports"), QJsonArray{port}},
                                            {QStringLiteral("allow_private_addresses"), true}}}},
                    {QStringLiteral("domain_secrets"),
                     QJsonArray{QJsonObject{{QStringLiteral("domain"), QStringLiteral("localhost")},
                                            {QStringLiteral("name"), name}}}}});
    return derived;
}

// What the upstream received on `path`, in words for evidence or a No-Go reason; never the key itself.
QString receivedOn(const QList<EchoUpstream::Request> &requests, const QByteArray &path,
                   const QByteArray &expected)
{
    QString seen;
    for (const EchoUpstream::Request &request : requests) {
        if (request.path != path)
            continue;
        if (request.authorization == expected)
            return QStringLiteral("the key");
        seen = request.authorization.isEmpty() ? QStringLiteral("no Authorization header")
               : request.authorization.contains("cordon-placeholder") ? QStringLiteral("the placeholder")
                                                                      : QStringLiteral("another value");
    }
    return seen.isEmpty() ? QStringLiteral("no request") : seen;
}

// Runs the echo in `container` and records what the upstream received and what the sandbox got back. An
// empty string once it ran; else why it cannot apply.
QString runEcho(RowRecorder &row, AuditContext &context, ProbeSession &session, const QString &container,
                const AuditKey &key, quint16 port, const EchoUpstream &echo)
{
    const QJsonArray command{QStringLiteral("/bin/sh"), QStringLiteral("-c"), echoScript(key.name, port)};
    row.evidence(
        QStringLiteral("echo command"),
        QStringLiteral("curl (or python3) GET https://localhost:%1 {/raw, /base64, /hex, /split} with "
                       "\"Authorization: Bearer $%2\", through the proxy; what came back kept in "
                       "outputs/%3")
            .arg(port)
            .arg(key.name, QLatin1String(EchoFile)));
    auto started = session.call(QStringLiteral("run.exec"), {{QStringLiteral("container"), container},
                                                             {QStringLiteral("command"), command},
                                                             {QStringLiteral("timeout_s"), RunTimeoutS}});
    auto run =
        started ? session.wait(
                      started->value(QStringLiteral("run")).toObject().value(QStringLiteral("id")).toString(),
                      (RunTimeoutS + 30) * 1000)
                : Result<QJsonObject>(fail(started.error()));
    if (!run) {
        row.fail(QStringLiteral("the echo run could not run: %1").arg(describe(run.error())));
        return {};
    }
    row.runEvidence(QStringLiteral("echo run"), *run);
    const QString stdoutText = run->value(QStringLiteral("stdout")).toString();
    const QString client = probeValue(stdoutText, QStringLiteral("client"));
    if (client == QLatin1String("none"))
        return QStringLiteral("neither curl nor python3 is in the sandbox (from the host's /usr), so nothing "
                              "there can make the HTTPS requests the echo check needs");
    row.check(client == QLatin1String("curl") || client == QLatin1String("python3"),
              QStringLiteral("the run made its requests with %1").arg(client),
              QStringLiteral("the echo run did not get to its requests: %1")
                  .arg(excerpt(stdoutText + run->value(QStringLiteral("stderr")).toString(), 200)));

    // The upstream's side: the key itself arrived, so the echo was a real attempt to hand it back.
    const QByteArray expected = "Bearer " + key.value.toUtf8();
    const QList<EchoUpstream::Request> requests = echo.requests();
    QStringList receipts;
    for (const QByteArray &path : EchoUpstream::paths()) {
        const QString received = receivedOn(requests, path, expected);
        receipts.append(QStringLiteral("%1: %2").arg(QString::fromLatin1(path), received));
        row.check(
            received == QLatin1String("the key"),
            QStringLiteral("the upstream received the key itself on %1, and echoed it")
                .arg(QString::fromLatin1(path)),
            QStringLiteral("the upstream received %1 on %2 instead of the key, so its echo proves nothing")
                .arg(received, QString::fromLatin1(path)));
    }
    row.evidence(
        QStringLiteral("upstream received"),
        QStringLiteral("Authorization: Bearer <key sha256 %1...> expected; %2")
            .arg(QString::fromLatin1(
                QCryptographicHash::hash(key.value.toUtf8(), QCryptographicHash::Sha256).toHex().left(12)))
            .arg(receipts.join(QStringLiteral("; "))));

    // The sandbox's side: what it got, as the run saved it (downloaded past the scan, which would refuse a
    // file holding the key and so hide a leak).
    QTemporaryDir destination;
    auto saved = session.call(QStringLiteral("file.download"),
                              {{QStringLiteral("container"), container},
                               {QStringLiteral("path"), QLatin1String(EchoFile)},
                               {QStringLiteral("destination"), destination.path()},
                               {QStringLiteral("override_reason"),
                                QStringLiteral("Go/No-Go audit: read what the echo handed the run")}});
    QFile file(destination.filePath(QLatin1String(EchoFile)));
    const QByteArray echoed = file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
    if (!saved) {
        row.fail(QStringLiteral("the file of what the echo handed the run could not be downloaded: %1")
                     .arg(describe(saved.error())));
        return {};
    }
    const QList<SecretForm> forms = secretForms(key.value.toUtf8());
    const QByteArray mask(qMin<qsizetype>(16, key.value.size()), '*');
    for (const QByteArray &path : EchoUpstream::paths()) {
        const QByteArray got = section(echoed, path);
        const QString shownPath = QString::fromLatin1(path);
        row.evidence(QStringLiteral("run got from %1").arg(shownPath), aroundMask(got));
        const QString leaked = leakedForm(got, forms);
        row.check(leaked.isEmpty(),
                  QStringLiteral("no form of the key came back to the sandbox from %1").arg(shownPath),
                  QStringLiteral("the key came back to the sandbox as %1 in the echoed %2 response")
                      .arg(leaked, shownPath));
        // A leak is its own reason; else the echo must have come back, masked, for the check to mean
        // anything.
        if (leaked.isEmpty())
            row.check(got.contains(mask),
                      QStringLiteral("the echo from %1 reached the sandbox with the key masked as '*'s")
                          .arg(shownPath),
                      got.isEmpty()
                          ? QStringLiteral("nothing came back to the sandbox from %1").arg(shownPath)
                          : QStringLiteral("the echo from %1 reached the sandbox without a mask: %2")
                                .arg(shownPath, aroundMask(got)));
    }
    checkNothingShows(row, session, container, run->value(QStringLiteral("id")).toString(),
                      context.secretValues);
    return {};
}

} // namespace

QString checkEchoedDomainSecret(RowRecorder &row, AuditContext &context)
{
    auto identity = makeLoopbackCertificate();
    if (!identity) {
        row.fail(QStringLiteral("the echo upstream has no certificate: %1").arg(describe(identity.error())));
        return {};
    }
    EchoUpstream echo;
    auto port = echo.start(*identity);
    if (!port) {
        row.fail(QStringLiteral("the echo upstream did not start: %1").arg(describe(port.error())));
        return {};
    }
    PrivateDaemon &daemon = *context.privateDaemon;
    if (auto started = startTrustingEcho(daemon, identity->certificatePem, *port); !started) {
        row.fail(
            QStringLiteral("the audit's private cordond did not start: %1").arg(describe(started.error())));
        return {};
    }
    row.evidence(
        QStringLiteral("echo upstream"),
        QStringLiteral("https://localhost:%1 on the host's loopback, trusted through --upstream-ca by a "
                       "private cordond (pid %2) in %3")
            .arg(*port)
            .arg(daemon.pid())
            .arg(daemon.directory()));
    ProbeSession session(daemon.client(), context.probeProgram, context.session.origin());
    auto key = setAuditKey(context, session, QStringLiteral("CORDON_AUDIT_ECHO_KEY_"));
    if (!key) {
        row.fail(QStringLiteral("the private daemon's secret store refused the echo's key: %1")
                     .arg(describe(key.error())));
        return {};
    }
    QString notApplicable;
    auto container = session.createContainer(echoPolicy(context.policy, key->name, *port));
    if (!container) {
        const QString systemList = QStringLiteral("/etc/cordon/org-policy.json");
        if (container.error().code().rfind("policy.", 0) == 0 && QFileInfo::exists(systemList))
            notApplicable =
                QStringLiteral("this host's organisation list (%1) does not allow the audit's echo "
                               "upstream on the loopback: %2")
                    .arg(systemList, describe(container.error()));
        else
            row.fail(QStringLiteral("a container for the echo could not be created: %1")
                         .arg(describe(container.error())));
    } else {
        notApplicable = runEcho(row, context, session, *container, *key, *port, echo);
    }
    session.deleteAll();
    (void)session.call(QStringLiteral("secret.remove"),
                       {{QStringLiteral("name"), key->name}, {QStringLiteral("origin"), session.origin()}});
    return notApplicable;
}

} // namespace Cordon::Audit
