// SPDX-License-Identifier: MIT
// The Go/No-Go audit as a reviewer runs it: `cordon audit` against a real cordond (private socket, data and
// settings), real containers and probes, a real loopback server as the allowed host. A sound policy is all
// Go; each row turns No-Go when its guarantee is removed, by the policy (a writable host mount, the artifact
// scan switched off) or by a test build of the daemon (cordond-weakened); a report signed with the engine's
// key verifies with `cordon audit verify`, and any edit breaks it.
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
               "filesystem.host_hidden", "does not share");
        policy("memory unprovable", "\"memory_limit\": \"64g\", ", "limits.memory", "too little to show");
        policy("allowed host down", {}, "network.allowed_host", "upstream error");
        weakened("masking", "credentials.secret", "absent from the stored stdout");
        weakened("domain-placeholder", "credentials.domain_secret", "wrote to a file holds no key");
        weakened("special-files", "filesystem.special_artifacts", "refused as files.symlink");
        // A host with a route out fails the first check, one without fails the loopback check.
        weakened("netns", "network.disabled", "fails (ok)|loopback port");
        weakened("proxy-allowlist", "network.refused", "an unlisted host is refused");
        weakened("org-bound", "network.org_bound", "which the organisation list does not");
        weakened("seccomp", "rights.privileges", "unshare");
        weakened("host-proc", "rights.processes", "pid 1 is the container's own init");
        weakened("pids", "limits.pids", "fewer than the limit");
        weakened("timeout", "limits.timeout", "ended as timeout");
        weakened("output-cap", "limits.output", "was kept");
        weakened("parallel", "limits.parallel", "no limit holds");
        weakened("idempotency", "runs.idempotency", "answered with the first run");
        weakened("memory", "limits.memory", "ended as oom");
        weakened("workspace-quota", "limits.workspace", "ended the write before the quota");
        weakened("adoption", "lifecycle.restart", "outlived the daemon (none)");
        weakened("expiry-wipe", "lifecycle.deletion", "workspace");
        // After a row that made runs: a partial audit of the logs row alone has nothing to attribute.
        // Degraded mode (cordond --allow-degraded on a host without usable cgroups): no memory or pids limit.
        weakened("no-cgroup", "limits.memory", "without a memory limit (degraded mode)");
        QTest::newRow("no-cgroup pids")
            << QStringLiteral("no-cgroup") << QByteArray() << QStringLiteral("limits.pids")
            << QByteArray("fewer than the limit");
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
