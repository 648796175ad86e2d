// SPDX-License-Identifier: MIT
// The Go/No-Go audit as a reviewer runs it: `cordon audit` against a real cordond (private socket, data and
// settings), real containers and probes, a real loopback server as the allowed host. A sound policy is all
// Go; each row turns No-Go when its guarantee is removed by the policy (a writable host mount, the artifact
// scan switched off); a report signed with the engine's key verifies with `cordon audit verify`, and any edit
// breaks it.
#include "cliprocess.h"
#include "sandboxtest.h"

#include "audit/auditreport.h"
#include "core/plainbridge.h"
#include "daemon/daemonclient.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTcpServer>
#include <QTemporaryDir>

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
        const QDir dir(m_dir.path());
        QVERIFY(dir.mkpath(QStringLiteral("config/cordon")));
        QFile org(dir.filePath(QStringLiteral("config/cordon/org-policy.json")));
        QVERIFY(org.open(QIODevice::WriteOnly));
        org.write(QByteArrayLiteral("{\"allowed_domains\": [{\"domain\": \"localhost\", \"ports\": [") +
                  QByteArray::number(m_allowedHost.serverPort()) +
                  QByteArrayLiteral("], \"allow_private_addresses\": true}]}"));
        org.close();
        qputenv("XDG_CONFIG_HOME", QFile::encodeName(dir.filePath(QStringLiteral("config"))));
        const CliResult started = startPrivateDaemon(m_daemon, m_dir.path());
        QVERIFY2(started.status == 0, started.describe());
        // The audit starts a cordond of its own for the restart and deletion rows: this one.
        m_environment = QProcessEnvironment::systemEnvironment();
        m_environment.insert(QStringLiteral("CORDON_DAEMON"), builtProgram(QStringLiteral("cordond")));
    }

    void cleanupTestCase() { stopPrivateDaemon(m_daemon); }

    void soundPolicyIsAllGo()
    {
        const QString policy = writePolicyFile(m_dir.path(), QStringLiteral("sound"), policyJson());
        const QString out = m_dir.filePath(QStringLiteral("reports"));
        const auto [report, result] =
            audit({QStringLiteral("--policy"), policy, QStringLiteral("--out"), out});
        QVERIFY2(result.status == 0,
                 QByteArray(result.describe() + "\nNo-Go rows:\n" + noGoRows(report)).constData());
        QCOMPARE(report.value(QStringLiteral("verdict")).toString(), QStringLiteral("go"));
        const QHash<QString, QString> rows = verdicts(report);
        for (const char *id : {"credentials.secret",
                               "credentials.domain_secret",
                               "filesystem.writes",
                               "filesystem.host_hidden",
                               "filesystem.special_artifacts",
                               "network.disabled",
                               "network.allowed_host",
                               "network.refused",
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
        QCOMPARE(rows.size(), 21);
        QCOMPARE(report.value(QStringLiteral("policy")).toObject().value(QStringLiteral("text")).toString(),
                 QString::fromUtf8(readFile(policy)).trimmed());

        // The three exports, named by the report's id; the JSON is the report printed.
        const QString base =
            QDir(out).filePath(QStringLiteral("audit-") + report.value(QStringLiteral("id")).toString());
        QCOMPARE(QJsonDocument::fromJson(readFile(base + QStringLiteral(".json"))).object(), report);
        QVERIFY(readFile(base + QStringLiteral(".md")).contains("# Go/No-Go audit"));
        QVERIFY(readFile(base + QStringLiteral(".html")).contains("<h3 id=\"lifecycle.deletion\">Go"));

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
        verified =
            cordon({QStringLiteral("audit"), QStringLiteral("verify"), file, QStringLiteral("--json")});
        QVERIFY2(verified.status == 0 && verified.json().value(QStringLiteral("intact")).toBool(),
                 verified.describe());
        const QString keyId = verified.json().value(QStringLiteral("key_id")).toString();
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
        QCOMPARE(signedForgery.error().code(), "audit.exists");
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

    // More guarantees removed by a policy: a host home shared into the container, and a memory limit this
    // host cannot show (too large to fill here) are No-Go with their reasons, not Go.
    void rowsTurnNoGoWithTheirGuaranteeRemoved_data()
    {
        QTest::addColumn<QByteArray>("extra");
        QTest::addColumn<QString>("row");
        QTest::addColumn<QByteArray>("reason");
        QTest::newRow("home shared") << ("\"mounts\": [{\"host\": \"" + QDir::homePath().toUtf8() +
                                         "\", \"target\": \"/mnt/home\", \"read_only\": true}], ")
                                     << QStringLiteral("filesystem.host_hidden")
                                     << QByteArray("does not share");
        QTest::newRow("memory unprovable")
            << QByteArray("\"memory_limit\": \"64g\", ") << QStringLiteral("limits.memory")
            << QByteArray("too little to show");
    }

    void rowsTurnNoGoWithTheirGuaranteeRemoved()
    {
        QFETCH(QByteArray, extra);
        QFETCH(QString, row);
        QFETCH(QByteArray, reason);
        QByteArray json = policyJson(extra);
        // The later key wins nowhere: a policy names memory_limit once.
        if (extra.contains("memory_limit"))
            json.replace("\"memory_limit\": \"1g\", ", "");
        const QString policy = writePolicyFile(m_dir.path(), QStringLiteral("removed"), json);
        const auto [report, result] =
            audit({QStringLiteral("--policy"), policy, QStringLiteral("--row"), row});
        QVERIFY2(result.status == 1, result.describe());
        QCOMPARE(verdicts(report).value(row), QStringLiteral("no_go"));
        QVERIFY2(noGoRows(report).contains(reason), noGoRows(report));
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
