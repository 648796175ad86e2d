// SPDX-License-Identifier: MIT
// The Go/No-Go audit as a reviewer runs it: `cordon audit` against a real cordond (private socket, data and
// settings), real containers and probes, a real loopback server as the allowed host. A sound policy is all
// Go but for the loopback it opens (allow_private_addresses, which the allowed host on loopback needs); each
// row turns No-Go when its guarantee is removed, by the policy (a writable host mount, the artifact scan
// switched off, allow_ptrace) or by a test build of the daemon (cordond-weakened); a row that cannot apply is
// not applicable, never Go; a report signed with the engine's key verifies with `cordon audit verify` only
// when the reviewers' keyring names the signer, any edit breaks it, and a made-up report is never signed.
#include "cliprocess.h"
#include "sandboxtest.h"
#include "testutil.h"

#include "audit/auditreport.h"
#include "auditrunner/privatedaemon.h"
#include "core/plainbridge.h"
#include "daemon/daemonclient.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QThread>

#include <arpa/inet.h>
#include <csignal>
#include <functional>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace CordonTest;

namespace {

QByteArray readFile(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// Rows by id: their verdicts, and the reasons of those that are not Go.
QHash<QString, QString> verdicts(const QJsonObject &report)
{
    QHash<QString, QString> result;
    for (const QJsonValue &value : report.value(QStringLiteral("rows")).toArray()) {
        const QJsonObject row = value.toObject();
        result.insert(row.value(QStringLiteral("id")).toString(),
                      row.value(QStringLiteral("verdict")).toString());
    }
    return result;
}

// The row `id` of a report.
QJsonObject reportRow(const QJsonObject &report, const QString &id)
{
    for (const QJsonValue &value : report.value(QStringLiteral("rows")).toArray()) {
        if (value.toObject().value(QStringLiteral("id")).toString() == id)
            return value.toObject();
    }
    return {};
}

void writeJson(const QString &path, const QJsonObject &object)
{
    QFile file(path);
    if (file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        file.write(QJsonDocument(object).toJson());
}

QByteArray noGoRows(const QJsonObject &report)
{
    QByteArray text;
    for (const QJsonValue &value : report.value(QStringLiteral("rows")).toArray()) {
        const QJsonObject row = value.toObject();
        if (row.value(QStringLiteral("verdict")).toString() != QLatin1String("go"))
            text += row.value(QStringLiteral("id")).toString().toUtf8() + ": " +
                    row.value(QStringLiteral("reason")).toString().toUtf8() + "\n";
    }
    return text;
}

} // namespace

class AuditTest : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QProcess m_daemon;
    QTcpServer m_allowedHost;
    // In the organisation's list, with nothing listening: bound (so no other program takes it) but not
    // listening, so that a connection is refused.
    int m_closedSocket = -1;
    quint16 m_closedPort = 0;
    QProcessEnvironment m_environment;

    QByteArray policyJson(const QByteArray &extra = {}) const
    {
        return QByteArrayLiteral("{\"name\": \"audit-sound\", \"memory_limit\": \"1g\", ") + extra +
               QByteArrayLiteral("\"limits\": {\"run_timeout_s\": 60, \"pids\": 128, \"output_mb\": 4, "
                                 "\"workspace_mb\": 256}, \"network_policy\": {\"type\": \"allowlist\", "
                                 "\"allowed_domains\": [{\"domain\": \"localhost\", \"ports\": [") +
               QByteArray::number(m_allowedHost.serverPort()) +
               QByteArrayLiteral("], \"allow_private_addresses\": true}]}}");
    }

    // `cordon audit ARGS --json`: the report, and the result.
    QPair<QJsonObject, CliResult> audit(const QStringList &arguments)
    {
        const CliResult result =
            cordon(QStringList{QStringLiteral("audit")} + arguments + QStringList{QStringLiteral("--json")},
                   {}, m_environment);
        return {result.json(), result};
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        // The allowed host: the kernel completes the handshake, which is all a tunnel needs to open.
        QVERIFY(m_allowedHost.listen(QHostAddress::LocalHost));
        m_closedSocket = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in address = {};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t length = sizeof address;
        QVERIFY(m_closedSocket >= 0 &&
                ::bind(m_closedSocket, reinterpret_cast<sockaddr *>(&address), sizeof address) == 0 &&
                ::getsockname(m_closedSocket, reinterpret_cast<sockaddr *>(&address), &length) == 0);
        m_closedPort = ntohs(address.sin_port);
        const QDir dir(m_dir.path());
        QVERIFY(dir.mkpath(QStringLiteral("config/cordon")));
        QFile org(dir.filePath(QStringLiteral("config/cordon/org-policy.json")));
        QVERIFY(org.open(QIODevice::WriteOnly));
        org.write(QByteArrayLiteral("{\"allowed_domains\": [{\"domain\": \"localhost\", \"ports\": [") +
                  QByteArray::number(m_allowedHost.serverPort()) + ", " + QByteArray::number(m_closedPort) +
                  QByteArrayLiteral("], \"allow_private_addresses\": true}]}"));
        org.close();
        qputenv("XDG_CONFIG_HOME", QFile::encodeName(dir.filePath(QStringLiteral("config"))));
        const CliResult started = startPrivateDaemon(m_daemon, m_dir.path());
        QVERIFY2(started.status == 0, started.describe());
        // The audit starts a cordond of its own for the restart and deletion rows: this one.
        m_environment = QProcessEnvironment::systemEnvironment();
        m_environment.insert(QStringLiteral("CORDON_DAEMON"), builtProgram(QStringLiteral("cordond")));
    }

    void cleanupTestCase()
    {
        stopPrivateDaemon(m_daemon);
        if (m_closedSocket >= 0)
            ::close(m_closedSocket);
    }

    // The allowed host of this test listens on the host's loopback, which only allow_private_addresses opens:
    // every row is Go but network.refused, which names the rule that opens the loopback, after the guard
    // itself was shown to refuse an allowed name resolving there.
    void soundPolicyIsGoButForTheLoopbackItOpens()
    {
        const QString policy = writePolicyFile(m_dir.path(), QStringLiteral("sound"), policyJson());
        const QString out = m_dir.filePath(QStringLiteral("reports"));
        const auto [report, result] =
            audit({QStringLiteral("--policy"), policy, QStringLiteral("--out"), out});
        QVERIFY2(result.status == 1,
                 QByteArray(result.describe() + "\nNo-Go rows:\n" + noGoRows(report)).constData());
        QCOMPARE(report.value(QStringLiteral("verdict")).toString(), QStringLiteral("no_go"));
        QCOMPARE(noGoRows(report),
                 QByteArray(
                     "network.refused: the rule for localhost sets allow_private_addresses: a name it allows "
                     "that resolves to the host's loopback, a private network or the metadata address is "
                     "reached\n"));
        const QByteArray refusedEvidence = QJsonDocument(reportRow(report, QStringLiteral("network.refused"))
                                                             .value(QStringLiteral("evidence"))
                                                             .toArray())
                                               .toJson(QJsonDocument::Compact);
        QVERIFY2(refusedEvidence.contains(
                     "localhost, resolving to the host's loopback, is refused by the address guard"),
                 refusedEvidence);
        QCOMPARE(report.value(QStringLiteral("rows_applied")).toInt(), 21);
        QHash<QString, QString> rows = verdicts(report);
        QCOMPARE(rows.take(QStringLiteral("network.refused")), QStringLiteral("no_go"));
        for (const char *id : {"credentials.secret",
                               "credentials.domain_secret",
                               "filesystem.writes",
                               "filesystem.host_hidden",
                               "filesystem.special_artifacts",
                               "network.disabled",
                               "network.allowed_host",
                               "network.org_bound",
                               "rights.privileges",
                               "rights.processes",
                               "limits.pids",
                               "limits.timeout",
                               "limits.output",
                               "limits.parallel",
                               "runs.idempotency",
                               "limits.memory",
                               "limits.workspace",
                               "lifecycle.restart",
                               "lifecycle.deletion",
                               "logs.attribution"})
            QVERIFY2(rows.value(QLatin1String(id)) == QLatin1String("go"), id);
        QCOMPARE(rows.size(), 20);
        // Every documented form of the key was printed, and each is kept masked.
        const QByteArray secretEvidence =
            QJsonDocument(reportRow(report, QStringLiteral("credentials.secret"))
                              .value(QStringLiteral("evidence"))
                              .toArray())
                .toJson(QJsonDocument::Compact);
        for (const char *form :
             {"lower", "json", "json-unicode", "json-slash", "percent", "percent-lower", "hex", "hex-upper",
              "base64-0", "base64-1", "base64-2", "base64url-0", "base64url-1", "base64url-2"})
            QVERIFY2(secretEvidence.contains(
                         QByteArray(QByteArray("the key printed as ") + form + " is kept masked")),
                     form);
        // The domain secret's echo was tried for real: the upstream got the key on every path, and each
        // answer reached the run masked.
        const QByteArray echoEvidence =
            QJsonDocument(reportRow(report, QStringLiteral("credentials.domain_secret"))
                              .value(QStringLiteral("evidence"))
                              .toArray())
                .toJson(QJsonDocument::Compact);
        for (const char *path : {"/raw", "/base64", "/hex", "/split"}) {
            const QByteArrayList held{
                QByteArray("\"held\",\"text\":\"the upstream received the key itself on " + QByteArray(path)),
                QByteArray("\"held\",\"text\":\"no form of the key came back to the sandbox from " +
                           QByteArray(path)),
                QByteArray("\"held\",\"text\":\"the echo from " + QByteArray(path) +
                           " reached the sandbox with the key masked")};
            for (const QByteArray &claim : held)
                QVERIFY2(echoEvidence.contains(claim), QByteArray(claim + '\n' + echoEvidence).constData());
        }
        QVERIFY2(echoEvidence.contains("Bearer ****************"), echoEvidence);
        QCOMPARE(report.value(QStringLiteral("policy")).toObject().value(QStringLiteral("text")).toString(),
                 QString::fromUtf8(readFile(policy)).trimmed());

        // The three exports, named by the report's id; the JSON is the report printed.
        const QString base =
            QDir(out).filePath(QStringLiteral("audit-") + report.value(QStringLiteral("id")).toString());
        QCOMPARE(QJsonDocument::fromJson(readFile(base + QStringLiteral(".json"))).object(), report);
        QVERIFY(readFile(base + QStringLiteral(".md")).contains("# Go/No-Go audit"));
        QVERIFY(readFile(base + QStringLiteral(".html")).contains("<h3 id=\"lifecycle.deletion\">Go"));
        QVERIFY(readFile(base + QStringLiteral(".md")).contains("- Rows: 21 of 21 rows applied, 20 Go"));

        // Kept in the history.
        const QString id = report.value(QStringLiteral("id")).toString();
        CliResult listed = cordon({QStringLiteral("audit"), QStringLiteral("ls"), QStringLiteral("--json")});
        QVERIFY2(listed.status == 0, listed.describe());
        QVERIFY2(listed.out.contains(id.toUtf8()), listed.out);

        // Unsigned, it is not intact; signed with the user's key (from the daemon's secret store), it is;
        // edited afterwards, it is not, and the daemon refuses to sign it again.
        const QString file = base + QStringLiteral(".json");
        CliResult verified = cordon({QStringLiteral("audit"), QStringLiteral("verify"), file});
        QCOMPARE(verified.status, 1);
        QVERIFY2(verified.err.contains("not signed"), verified.describe());
        CliResult signedOff =
            cordon({QStringLiteral("audit"), QStringLiteral("sign"), file, QStringLiteral("--name"),
                    QStringLiteral("Ada Reviewer"), QStringLiteral("--role"), QStringLiteral("Security lead"),
                    QStringLiteral("--decision"), QStringLiteral("go"), QStringLiteral("--date"),
                    QStringLiteral("2026-12-04")});
        QVERIFY2(signedOff.status == 0 && signedOff.out.contains("with key ak-"), signedOff.describe());
        // A valid signature by a key nobody named is not accepted: anyone can sign with a key of their own.
        verified =
            cordon({QStringLiteral("audit"), QStringLiteral("verify"), file, QStringLiteral("--json")});
        QVERIFY2(verified.status == 1 && !verified.json().value(QStringLiteral("intact")).toBool(true) &&
                     verified.json().value(QStringLiteral("signature_valid")).toBool(),
                 verified.describe());
        const QString keyId = verified.json().value(QStringLiteral("key_id")).toString();
        const QString publicKey = verified.json().value(QStringLiteral("public_key")).toString();
        verified = cordon({QStringLiteral("audit"), QStringLiteral("verify"), file});
        QCOMPARE(verified.status, 1);
        QVERIFY2(verified.err.contains("which is not in the keyring"), verified.describe());
        // Named in the reviewers' keyring (the default one, under XDG_CONFIG_HOME), the signer is accepted
        // and the answer says who signed.
        QFile keyring(m_dir.filePath(QStringLiteral("config/cordon/audit-keyring")));
        QVERIFY(keyring.open(QIODevice::WriteOnly));
        keyring.write("# reviewers of this test\n" + publicKey.toUtf8() + " Ada Reviewer\n");
        keyring.close();
        verified = cordon({QStringLiteral("audit"), QStringLiteral("verify"), file});
        QVERIFY2(verified.status == 0 &&
                     verified.out.contains(QByteArray(QByteArray("intact, signed by Ada Reviewer (key ") +
                                                      keyId.toUtf8() + ")")),
                 verified.describe());
        verified =
            cordon({QStringLiteral("audit"), QStringLiteral("verify"), file, QStringLiteral("--json")});
        QVERIFY2(verified.status == 0 && verified.json().value(QStringLiteral("intact")).toBool() &&
                     verified.json().value(QStringLiteral("signer")).toString() ==
                         QLatin1String("Ada Reviewer"),
                 verified.describe());
        // Another keyring, without the signer: not accepted.
        const QString otherKeyring = m_dir.filePath(QStringLiteral("other-keyring"));
        QFile other(otherKeyring);
        QVERIFY(other.open(QIODevice::WriteOnly));
        other.write("ak-0000000000000000 Someone Else\n");
        other.close();
        verified = cordon({QStringLiteral("audit"), QStringLiteral("verify"), file,
                           QStringLiteral("--keyring"), otherKeyring});
        QCOMPARE(verified.status, 1);
        QVERIFY2(verified.err.contains(QByteArray("not in the keyring " + otherKeyring.toUtf8())),
                 verified.describe());
        // With the signer's key named, only that key is accepted: a report re-signed with another is refused.
        verified =
            cordon({QStringLiteral("audit"), QStringLiteral("verify"), file, QStringLiteral("--key"), keyId});
        QVERIFY2(verified.status == 0, verified.describe());
        verified = cordon({QStringLiteral("audit"), QStringLiteral("verify"), file, QStringLiteral("--key"),
                           QStringLiteral("ak-0000000000000000")});
        QCOMPARE(verified.status, 1);
        QVERIFY2(verified.err.contains("not ak-0000000000000000"), verified.describe());
        QVERIFY(readFile(base + QStringLiteral(".md"))
                    .contains("Ada Reviewer (Security lead): Go on 2026-12-04"));
        listed = cordon({QStringLiteral("audit"), QStringLiteral("ls"), QStringLiteral("--json")});
        QVERIFY2(listed.out.contains(keyId.toUtf8()), listed.out);
        // The same user's key signs the next report too.
        signedOff =
            cordon({QStringLiteral("audit"), QStringLiteral("sign"), id, QStringLiteral("--name"),
                    QStringLiteral("Ada Reviewer"), QStringLiteral("--role"), QStringLiteral("Security lead"),
                    QStringLiteral("--decision"), QStringLiteral("no_go"), QStringLiteral("--json")});
        QVERIFY2(signedOff.status == 0, signedOff.describe());
        QCOMPARE(signedOff.json()
                     .value(QStringLiteral("signature"))
                     .toObject()
                     .value(QStringLiteral("key_id"))
                     .toString(),
                 keyId);

        QJsonObject tampered = QJsonDocument::fromJson(readFile(file)).object();
        QJsonArray tamperedRows = tampered.value(QStringLiteral("rows")).toArray();
        QJsonObject first = tamperedRows.at(0).toObject();
        QJsonArray evidence = first.value(QStringLiteral("evidence")).toArray();
        evidence.removeLast();
        first.insert(QStringLiteral("evidence"), evidence);
        tamperedRows.replace(0, first);
        tampered.insert(QStringLiteral("rows"), tamperedRows);
        QFile edited(file);
        QVERIFY(edited.open(QIODevice::WriteOnly | QIODevice::Truncate));
        edited.write(QJsonDocument(tampered).toJson());
        edited.close();
        verified =
            cordon({QStringLiteral("audit"), QStringLiteral("verify"), file, QStringLiteral("--json")});
        QCOMPARE(verified.status, 1);
        QCOMPARE(verified.json().value(QStringLiteral("intact")).toBool(true), false);
        QCOMPARE(verified.json().value(QStringLiteral("altered_rows")).toArray().first().toString(),
                 first.value(QStringLiteral("id")).toString());
        signedOff = cordon({QStringLiteral("audit"), QStringLiteral("sign"), file, QStringLiteral("--name"),
                            QStringLiteral("Mallory"), QStringLiteral("--role"), QStringLiteral("Intern"),
                            QStringLiteral("--decision"), QStringLiteral("go")});
        QCOMPARE(signedOff.status, 1);
        QVERIFY2(signedOff.err.contains("no longer matches"), signedOff.describe());

        // Edited with its hashes made to match, the report is still not the one the history keeps: neither
        // saving it over the kept one nor signing it gets through.
        auto parsed = Cordon::Audit::AuditReport::fromJson(Cordon::toPlain(QJsonObject(report)));
        QVERIFY(parsed);
        parsed->rows.front().evidence.pop_back();
        const QJsonObject forged = Cordon::toQt(parsed->toJson()).toObject();
        Cordon::Daemon::DaemonClient client;
        QVERIFY(client.connectSync(false, 5000));
        auto saved = client.callSync(QStringLiteral("audit.save"), {{QStringLiteral("report"), forged}});
        QVERIFY(!saved);
        QCOMPARE(saved.error().code(), "audit.exists");
        auto signedForgery = client.callSync(QStringLiteral("audit.sign"),
                                             {{QStringLiteral("report"), forged},
                                              {QStringLiteral("name"), QStringLiteral("Mallory")},
                                              {QStringLiteral("role"), QStringLiteral("Intern")},
                                              {QStringLiteral("decision"), QStringLiteral("go")},
                                              {QStringLiteral("date"), QStringLiteral("2026-12-04")}});
        QVERIFY(!signedForgery);
        QCOMPARE(signedForgery.error().code(), "audit.not_held");
    }

    // `cordon audit sign` signs only a report the daemon kept, unchanged: a file with a new id, a row flipped
    // to Go, evidence made up with its hashes recomputed, or rows added, is refused, and naming what differs;
    // nor can a made-up report be kept first (audit.save of an audit the daemon never began).
    void aFabricatedReportIsNotSigned()
    {
        const QString policy =
            writePolicyFile(m_dir.path(), QStringLiteral("ptrace"), policyJson("\"allow_ptrace\": true, "));
        const QString out = m_dir.filePath(QStringLiteral("forged"));
        const auto [report, result] = audit({QStringLiteral("--policy"), policy, QStringLiteral("--row"),
                                             QStringLiteral("rights."), QStringLiteral("--out"), out});
        QVERIFY2(result.status == 1, result.describe());
        QCOMPARE(verdicts(report).value(QStringLiteral("rights.privileges")), QStringLiteral("no_go"));
        const QString genuine =
            QDir(out).filePath(QStringLiteral("audit-") + report.value(QStringLiteral("id")).toString() +
                               QStringLiteral(".json"));
        const auto signFile = [this](const QString &file) {
            return cordon({QStringLiteral("audit"), QStringLiteral("sign"), file, QStringLiteral("--name"),
                           QStringLiteral("Mallory"), QStringLiteral("--role"), QStringLiteral("Intern"),
                           QStringLiteral("--decision"), QStringLiteral("no_go")},
                          {}, m_environment);
        };
        // Each forgery is a report that verifies on its own (hashes recomputed, verdict from its rows).
        const QJsonObject kept = report;
        const auto forge = [this, &kept](const char *name,
                                         const std::function<void(Cordon::Audit::AuditReport &)> &change) {
            auto parsed = Cordon::Audit::AuditReport::fromJson(Cordon::toPlain(kept));
            change(*parsed);
            const QString path = m_dir.filePath(QLatin1String(name) + QStringLiteral(".json"));
            writeJson(path, Cordon::toQt(parsed->toJson()).toObject());
            return path;
        };
        const QString newId = forge("new-id", [](auto &forged) { forged.id = "au-0000000000000001"; });
        const QString flipped = forge("flipped", [](auto &forged) {
            for (Cordon::Audit::AuditRow &row : forged.rows) {
                row.verdict = Cordon::Audit::Verdict::Go;
                row.reason = "held";
            }
        });
        const QString invented = forge("invented", [](auto &forged) {
            forged.rows.front().evidence = {{"held", "ptrace of another process is refused with EPERM"}};
        });
        const QString moreRows = forge("more-rows", [](auto &forged) {
            while (forged.rows.size() < 4) {
                Cordon::Audit::AuditRow row = forged.rows.front();
                row.id += "." + std::to_string(forged.rows.size());
                forged.rows.push_back(row);
            }
        });
        for (const auto &[file, why] :
             {std::pair{newId, QByteArray("the history holds no audit au-0000000000000001")},
              std::pair{flipped,
                        QByteArray("row rights.privileges's verdict is not the history's record's (go "
                                   "here, no_go there)")},
              std::pair{invented, QByteArray("row rights.privileges's evidence_sha256 is not the history's "
                                             "record's")},
              std::pair{moreRows, QByteArray("it has 4 rows, the history's record has 2")}}) {
            const CliResult refused = signFile(file);
            QVERIFY2(refused.status == 1 && refused.err.contains(why), refused.describe());
        }
        Cordon::Daemon::DaemonClient client;
        QVERIFY(client.connectSync(false, 5000));
        auto saved =
            client.callSync(QStringLiteral("audit.save"),
                            {{QStringLiteral("report"), QJsonDocument::fromJson(readFile(newId)).object()}});
        QVERIFY(!saved);
        QCOMPARE(saved.error().code(), "audit.not_begun");
        // The report the daemon kept is signed.
        const CliResult signedOff = signFile(genuine);
        QVERIFY2(signedOff.status == 0, signedOff.describe());
    }

    // A row that cannot apply under the policy is not applicable, with its reason, never Go; the report says
    // how many rows applied.
    void rowsThatCannotApplyAreNotApplicable()
    {
        const QString policy = writePolicyFile(
            m_dir.path(), QStringLiteral("offline"),
            QByteArrayLiteral("{\"name\": \"audit-offline\", \"limits\": {\"run_timeout_s\": 60}, "
                              "\"network_policy\": {\"type\": \"disabled\"}}"));
        const auto [report, result] = audit({QStringLiteral("--policy"), policy, QStringLiteral("--row"),
                                             QStringLiteral("network.allowed_host"), QStringLiteral("--row"),
                                             QStringLiteral("network.refused"), QStringLiteral("--row"),
                                             QStringLiteral("credentials.domain_secret"),
                                             QStringLiteral("--row"), QStringLiteral("rights.processes")});
        const QHash<QString, QString> rows = verdicts(report);
        QCOMPARE(rows.value(QStringLiteral("network.allowed_host")), QStringLiteral("not_applicable"));
        QCOMPARE(rows.value(QStringLiteral("network.refused")), QStringLiteral("not_applicable"));
        QCOMPARE(rows.value(QStringLiteral("credentials.domain_secret")), QStringLiteral("not_applicable"));
        QCOMPARE(rows.value(QStringLiteral("rights.processes")), QStringLiteral("go"));
        QVERIFY2(reportRow(report, QStringLiteral("network.allowed_host"))
                     .value(QStringLiteral("reason"))
                     .toString()
                     .contains(QStringLiteral("network is disabled")),
                 noGoRows(report));
        QCOMPARE(report.value(QStringLiteral("rows_applied")).toInt(), 1);
        // One row applied and held: the partial audit is Go, and the summary says what applied.
        QVERIFY2(result.status == 0, result.describe());
        const CliResult text = cordon({QStringLiteral("audit"), QStringLiteral("--policy"), policy,
                                       QStringLiteral("--row"), QStringLiteral("network.allowed_host")},
                                      {}, m_environment);
        QVERIFY2(text.out.contains("N/A    network.allowed_host") &&
                     text.out.contains("NO-GO: 0 of 0 rows Go, 1 not applicable under this policy"),
                 text.describe());
        QCOMPARE(text.status, 1);
    }

    void writableHostMountIsNoGo()
    {
        const QString shared = m_dir.filePath(QStringLiteral("shared"));
        QVERIFY(QDir().mkpath(shared));
        QFile::setPermissions(shared, QFileDevice::ReadOwner | QFileDevice::WriteOwner |
                                          QFileDevice::ExeOwner | QFileDevice::ReadOther |
                                          QFileDevice::WriteOther | QFileDevice::ExeOther);
        const QByteArray mount = "\"mounts\": [{\"host\": \"" + shared.toUtf8() +
                                 "\", \"target\": \"/mnt/shared\", \"read_only\": false}], ";
        const QString policy = writePolicyFile(m_dir.path(), QStringLiteral("writable"), policyJson(mount));
        const auto [report, result] = audit(
            {QStringLiteral("--policy"), policy, QStringLiteral("--row"), QStringLiteral("filesystem.")});
        QVERIFY2(result.status == 1, result.describe());
        QCOMPARE(verdicts(report).value(QStringLiteral("filesystem.writes")), QStringLiteral("no_go"));
        QVERIFY2(noGoRows(report).contains("/mnt/shared"), noGoRows(report));
        // Only the rows asked for ran, and the others of the folder still hold.
        QCOMPARE(verdicts(report).value(QStringLiteral("filesystem.host_hidden")), QStringLiteral("go"));
        QCOMPARE(verdicts(report).size(), 3);
        // A partial audit is never signed off Go.
        const CliResult signedOff = cordon(
            {QStringLiteral("audit"), QStringLiteral("sign"), report.value(QStringLiteral("id")).toString(),
             QStringLiteral("--name"), QStringLiteral("Ada Reviewer"), QStringLiteral("--role"),
             QStringLiteral("Security lead"), QStringLiteral("--decision"), QStringLiteral("go")});
        QCOMPARE(signedOff.status, 1);
        QVERIFY2(signedOff.err.contains("only some rows"), signedOff.describe());
        // What the probe wrote through the mount is on the host: the evidence is real.
        QVERIFY(!QDir(shared).entryList(QDir::Files).isEmpty());
    }

    void artifactScanOffIsNoGo()
    {
        const QString policy = writePolicyFile(m_dir.path(), QStringLiteral("scanoff"),
                                               policyJson("\"artifact_scan\": \"off\", "));
        const auto [report, result] = audit({QStringLiteral("--policy"), policy, QStringLiteral("--row"),
                                             QStringLiteral("credentials.secret")});
        QVERIFY2(result.status == 1, result.describe());
        QCOMPARE(verdicts(report).value(QStringLiteral("credentials.secret")), QStringLiteral("no_go"));
        QVERIFY2(noGoRows(report).contains("download"), noGoRows(report));
    }

    // Every row turns No-Go when its guarantee is gone: removed by the policy under test (a host home shared,
    // a memory limit this host cannot fill, an allowed host that does not answer), or by a test build of the
    // daemon, cordond-weakened, that leaves out the one line making the guarantee (sandbox/weakening.h).
    void eachRowTurnsNoGoWithItsGuaranteeRemoved_data()
    {
        QTest::addColumn<QString>("weakening");
        QTest::addColumn<QByteArray>("extra");
        QTest::addColumn<QString>("row");
        QTest::addColumn<QByteArray>("reason");
        const auto policy = [](const char *tag, const QByteArray &extra, const char *row,
                               const char *reason) {
            QTest::newRow(tag) << QString() << extra << QString::fromLatin1(row) << QByteArray(reason);
        };
        const auto weakened = [](const char *weakening, const char *row, const char *reason) {
            QTest::newRow(weakening) << QString::fromLatin1(weakening) << QByteArray()
                                     << QString::fromLatin1(row) << QByteArray(reason);
        };
        policy("home shared",
               "\"mounts\": [{\"host\": \"" + QDir::homePath().toUtf8() +
                   "\", \"target\": \"/mnt/home\", \"read_only\": true}], ",
               "filesystem.host_hidden", "shares");
        policy("memory unprovable", "\"memory_limit\": \"64g\", ", "limits.memory", "too little to show");
        policy("allowed host down", {}, "network.allowed_host", "upstream error");
        policy("ptrace allowed", "\"allow_ptrace\": true, ", "rights.privileges",
               "ptrace of another process succeeded (ok): the policy sets allow_ptrace");
        // Each reason says what failed, not what was claimed.
        weakened("masking", "credentials.secret", "the key printed as lower is kept unmasked");
        weakened("domain-placeholder", "credentials.domain_secret",
                 "the key was found in the file the run wrote");
        // The proxy no longer masks what an upstream echoes: the key comes back in the first echo.
        weakened("echo-masking", "credentials.domain_secret",
                 "the key came back to the sandbox as raw in the echoed /raw response");
        weakened("special-files", "filesystem.special_artifacts",
                 "was not refused|not as the special file it is");
        // A host with a route out fails the first check, one without fails the loopback check.
        weakened("netns", "network.disabled", "answered ok|loopback port");
        weakened("proxy-allowlist", "network.refused", "the proxy let an unlisted host through");
        weakened("org-bound", "network.org_bound", "which the organisation list does not");
        weakened("seccomp", "rights.privileges", "unshare answered");
        weakened("host-proc", "rights.processes", "not the container's own init");
        weakened("pids", "limits.pids", "not fewer than the limit");
        weakened("timeout", "limits.timeout", "not timeout");
        weakened("output-cap", "limits.output", "were kept, more than");
        weakened("parallel", "limits.parallel", "no limit holds");
        weakened("idempotency", "runs.idempotency", "instead of answering with");
        weakened("memory", "limits.memory", "not oom");
        weakened("workspace-quota", "limits.workspace", "past the quota|not ENOSPC");
        weakened("adoption", "lifecycle.restart", "did not outlive the daemon");
        weakened("expiry-wipe", "lifecycle.deletion", "workspace");
        // After a row that made runs: a partial audit of the logs row alone has nothing to attribute.
        // Degraded mode (cordond --allow-degraded on a host without usable cgroups): no memory or pids limit.
        weakened("no-cgroup", "limits.memory", "without a memory limit (degraded mode)");
        QTest::newRow("no-cgroup pids")
            << QStringLiteral("no-cgroup") << QByteArray() << QStringLiteral("limits.pids")
            << QByteArray("not fewer than the limit");
        weakened("attribution", "runs.idempotency,logs.attribution", "lacks its container, run or time");
    }

    void eachRowTurnsNoGoWithItsGuaranteeRemoved()
    {
        QFETCH(QString, weakening);
        QFETCH(QByteArray, extra);
        QFETCH(QString, row);
        QFETCH(QByteArray, reason);
        QByteArray json = policyJson(extra);
        // A policy names memory_limit once.
        if (extra.contains("memory_limit"))
            json.replace("\"memory_limit\": \"1g\", ", "");
        // The organisation allows a second port, on which nothing listens any more.
        if (QLatin1String(QTest::currentDataTag()) == QLatin1String("allowed host down"))
            json.replace(QByteArray("\"ports\": [" + QByteArray::number(m_allowedHost.serverPort()) + ']'),
                         QByteArray("\"ports\": [" + QByteArray::number(m_closedPort) + ']'));
        const QString policy = writePolicyFile(m_dir.path(), QStringLiteral("removed"), json);
        QProcessEnvironment environment = m_environment;
        QProcess weakenedDaemon;
        if (!weakening.isEmpty()) {
            // A daemon of its own, on its own socket and data, with the one guarantee removed; the audit's
            // private daemon (restart and deletion rows) is the same program with the same removal.
            const QString dir = m_dir.filePath(
                QStringLiteral("weakened-") +
                QString::fromLatin1(QTest::currentDataTag()).replace(QLatin1Char(' '), QLatin1Char('-')));
            QVERIFY(QDir().mkpath(dir));
            environment.insert(QStringLiteral("CORDON_SOCKET"), dir + QStringLiteral("/d.sock"));
            environment.insert(QStringLiteral("CORDON_DATA_DIR"), dir + QStringLiteral("/data"));
            environment.insert(QStringLiteral("XDG_STATE_HOME"), dir + QStringLiteral("/state"));
            environment.insert(QStringLiteral("CORDON_TEST_WEAKEN"), weakening);
            environment.insert(QStringLiteral("CORDON_DAEMON"),
                               builtProgram(QStringLiteral("cordond-weakened")));
            weakenedDaemon.setProgram(builtProgram(QStringLiteral("cordond-weakened")));
            if (weakening == QLatin1String("no-cgroup"))
                weakenedDaemon.setArguments({QStringLiteral("--allow-degraded")});
            weakenedDaemon.setProcessEnvironment(environment);
            const CliResult started = startDaemonAndWait(weakenedDaemon, 15000, environment);
            QVERIFY2(started.status == 0, started.describe());
        }
        QStringList arguments{QStringLiteral("audit"), QStringLiteral("--policy"), policy,
                              QStringLiteral("--json")};
        for (const QString &prefix : row.split(QLatin1Char(',')))
            arguments << QStringLiteral("--row") << prefix;
        const CliResult result = cordon(arguments, {}, environment);
        const QJsonObject report = result.json();
        if (!weakening.isEmpty())
            stopPrivateDaemon(weakenedDaemon, environment);
        QVERIFY2(result.status == 1, result.describe());
        QCOMPARE(verdicts(report).value(row.section(QLatin1Char(','), -1)), QStringLiteral("no_go"));
        const QByteArray shown = noGoRows(report);
        const QByteArrayList reasons = reason.split('|');
        QVERIFY2(std::any_of(reasons.begin(), reasons.end(),
                             [&](const QByteArray &one) { return shown.contains(one); }),
                 shown);
    }

    // Ctrl-C at a terminal (SIGINT to the whole foreground process group) stops the audit after the row under
    // way and cleans up: the private daemon of the lifecycle rows is in a group of its own, so the row under
    // way still ends on its own merits; the rows left are No-Go as cancelled; no container of the audit, none
    // of its keys, no private daemon or its folder is left; the report is kept; exit status 130.
    void anInterruptedAuditCleansUp()
    {
        const QString policy = writePolicyFile(m_dir.path(), QStringLiteral("interrupted"), policyJson());
        const QString out = m_dir.filePath(QStringLiteral("interrupted-report"));
        const QStringList privateDirsBefore =
            QDir(QDir::tempPath()).entryList({QStringLiteral("cordon-audit-*")}, QDir::Dirs);
        QProcess running;
        running.setProcessEnvironment(m_environment);
        running.setChildProcessModifier([] { ::setpgid(0, 0); }); // as a shell starts a foreground job
        running.start(builtProgram(QStringLiteral("cordon")),
                      {QStringLiteral("audit"), QStringLiteral("--policy"), policy, QStringLiteral("--row"),
                       QStringLiteral("credentials.secret"), QStringLiteral("--row"),
                       QStringLiteral("lifecycle."), QStringLiteral("--row"), QStringLiteral("logs."),
                       QStringLiteral("--out"), out});
        QVERIFY(running.waitForStarted(5000));
        // Once the restart row has its line, the private daemon runs and the deletion row is under way.
        QByteArray printed;
        QElapsedTimer clock;
        clock.start();
        while (!printed.contains("lifecycle.restart") && clock.elapsed() < 180000 &&
               running.state() == QProcess::Running) {
            running.waitForReadyRead(1000);
            printed += running.readAllStandardOutput();
        }
        QVERIFY2(printed.contains("lifecycle.restart"), printed.constData());
        ::kill(-static_cast<pid_t>(running.processId()), SIGINT);
        QVERIFY(running.waitForFinished(180000));
        printed += running.readAllStandardOutput();
        const QByteArray said = running.readAllStandardError();
        QCOMPARE(running.exitStatus(), QProcess::NormalExit);
        QCOMPARE(running.exitCode(), 130);
        QVERIFY2(said.contains("stopping after the current row"), said.constData());

        const QStringList reports = QDir(out).entryList({QStringLiteral("audit-*.json")}, QDir::Files);
        QCOMPARE(reports.size(), 1);
        const QJsonObject report =
            QJsonDocument::fromJson(readFile(QDir(out).filePath(reports.first()))).object();
        const QHash<QString, QString> rows = verdicts(report);
        QCOMPARE(rows.value(QStringLiteral("lifecycle.restart")), QStringLiteral("go"));
        QVERIFY2(noGoRows(report).contains("logs.attribution: cancelled before this row ran"),
                 noGoRows(report).constData());
        // The deletion row was under way (Go, its daemon untouched by the signal), or had not begun.
        for (const QByteArray &line : noGoRows(report).split('\n')) {
            if (!line.isEmpty())
                QVERIFY2(line.endsWith("cancelled before this row ran"), line.constData());
        }

        const CliResult containers = cordon({QStringLiteral("ls"), QStringLiteral("--json")});
        QVERIFY2(containers.status == 0, containers.describe());
        QVERIFY2(!containers.out.contains("\"audit-"), containers.out.constData());
        const CliResult secrets = cordon({QStringLiteral("secret"), QStringLiteral("ls")});
        QVERIFY2(secrets.status == 0, secrets.describe());
        QVERIFY2(!secrets.out.contains("CORDON_AUDIT"), secrets.out.constData());
        QCOMPARE(QDir(QDir::tempPath()).entryList({QStringLiteral("cordon-audit-*")}, QDir::Dirs),
                 privateDirsBefore);
    }

    // The terminal's Ctrl-C goes to the whole foreground process group: the audit's private daemon is in a
    // group of its own, so that it is still there when the audit, stopping after its row, cleans up.
    void thePrivateDaemonIsOutOfTheTerminalsReach()
    {
        QVERIFY(::setpgid(0, 0) == 0 || ::getpgrp() == ::getpid()); // this test as a foreground job
        Cordon::Audit::PrivateDaemon daemon(builtProgram(QStringLiteral("cordond")));
        QVERIFY_RESULT(daemon.start());
        struct sigaction ignore = {};
        ignore.sa_handler = SIG_IGN;
        struct sigaction previous = {};
        ::sigaction(SIGINT, &ignore, &previous);
        ::kill(0, SIGINT);
        ::sigaction(SIGINT, &previous, nullptr);
        QTest::qWait(500);
        QVERIFY(daemon.isRunning());
        QVERIFY(::kill(static_cast<pid_t>(daemon.pid()), 0) == 0);
        daemon.stop();
        QVERIFY(!daemon.isRunning());
    }

    void badInputIsRefusedAndTheDaemonStaysUp()
    {
        CliResult result = cordon({QStringLiteral("audit")}, {}, m_environment);
        QCOMPARE(result.status, 2);
        const QString bad =
            writePolicyFile(m_dir.path(), QStringLiteral("bad"), "{\"memory_limit\": \"2g\"}");
        result = cordon({QStringLiteral("audit"), QStringLiteral("--policy"), bad}, {}, m_environment);
        QCOMPARE(result.status, 1);
        QVERIFY2(result.err.contains("memory_limit"), result.describe());
        const QString junk = writePolicyFile(m_dir.path(), QStringLiteral("junk"), "not json");
        result = cordon({QStringLiteral("audit"), QStringLiteral("verify"), junk});
        QCOMPARE(result.status, 1);
        QVERIFY(cordon(args({"daemon", "status"})).status == 0);
    }
};

CORDON_SANDBOX_TEST_MAIN(AuditTest)
#include "tst_audit.moc"
