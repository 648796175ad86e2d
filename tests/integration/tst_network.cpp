// SPDX-License-Identifier: MIT
// The network boundary end to end: real programs (curl, Python's urllib) in real sandboxes, the daemon's
// egress proxy, an upstream server on the host's loopback. Closed by default, open only where both the
// organisation's and the container's allowlists say so, and every attempt recorded.
#include "cliprocess.h"
#include "daemonfixture.h"
#include "sandboxtest.h"
#include "testutil.h"

#include <QDir>
#include <QEventLoop>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QNetworkInterface>
#include <QProcess>
#include <QRegularExpression>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryFile>
#include <QTimer>

#include <cstdio>

using namespace CordonTest;

namespace {

// A minimal HTTP/1.1 server on the host: answers every request with a fixed body and counts connections.
class UpstreamServer final : public QObject
{
public:
    UpstreamServer()
    {
        connect(&m_server, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket *socket = m_server.nextPendingConnection()) {
                ++connections;
                connect(socket, &QTcpSocket::readyRead, socket, [socket] {
                    if (!socket->peek(65536).contains("\r\n\r\n"))
                        return;
                    socket->readAll();
                    socket->write("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 15\r\n"
                                  "Connection: close\r\n\r\nhello from host");
                    socket->disconnectFromHost();
                });
                connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
            }
        });
    }
    bool listen() { return m_server.listen(QHostAddress::Any); }
    quint16 port() const { return m_server.serverPort(); }
    int connections = 0;

private:
    QTcpServer m_server;
};

QJsonObject localhostRule(quint16 port, bool allowPrivate = true)
{
    return {{QStringLiteral("domain"), QStringLiteral("localhost")},
            {QStringLiteral("ports"), QJsonArray{port}},
            {QStringLiteral("allow_private_addresses"), allowPrivate}};
}

QJsonObject allowlist(const QJsonArray &domains)
{
    return {{QStringLiteral("type"), QStringLiteral("allowlist")},
            {QStringLiteral("allowed_domains"), domains}};
}

} // namespace

class TestNetwork final : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_config;
    UpstreamServer m_upstream;
    std::unique_ptr<DaemonFixture> m_daemon;

    QString create(const QJsonObject &network)
    {
        auto created = m_daemon->call(
            QStringLiteral("container.create"),
            {{QStringLiteral("policy"), QJsonObject{{QStringLiteral("network_policy"), network}}}});
        if (!created) {
            qWarning() << Cordon::toQt(created.error().code()) << Cordon::toQt(created.error().message());
            return {};
        }
        return created->value(QStringLiteral("container")).toObject().value(QStringLiteral("id")).toString();
    }

    QJsonObject sh(const QString &container, const QString &script)
    {
        auto started =
            m_daemon->call(QStringLiteral("run.exec"),
                           {{QStringLiteral("container"), container},
                            {QStringLiteral("command"),
                             QJsonArray{QStringLiteral("/bin/sh"), QStringLiteral("-c"), script}}});
        if (!started)
            return {};
        auto finished =
            m_daemon->call(QStringLiteral("run.wait"),
                           {{QStringLiteral("run_id"),
                             started->value(QStringLiteral("run")).toObject().value(QStringLiteral("id"))}});
        return finished ? finished->value(QStringLiteral("run")).toObject() : QJsonObject{};
    }

    static QString out(const QJsonObject &run) { return run.value(QStringLiteral("stdout")).toString(); }

    // `cordon ARGUMENTS...` with this process's event loop running, so that the upstream server answers.
    static CliResult cordonServing(const QStringList &arguments)
    {
        QProcess process;
        QEventLoop loop;
        connect(&process, &QProcess::finished, &loop, &QEventLoop::quit);
        QTimer::singleShot(120000, &loop, &QEventLoop::quit);
        process.start(builtProgram(QStringLiteral("cordon")), arguments);
        if (!process.waitForStarted(10000))
            return {};
        process.closeWriteChannel();
        if (process.state() != QProcess::NotRunning)
            loop.exec();
        if (process.state() != QProcess::NotRunning) {
            process.kill();
            process.waitForFinished(5000);
            return {-1, process.readAllStandardOutput(), process.readAllStandardError() + "\n(timed out)"};
        }
        return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1,
                process.readAllStandardOutput(), process.readAllStandardError()};
    }

    static QByteArray policyFile(const QJsonObject &network)
    {
        return QJsonDocument(QJsonObject{{QStringLiteral("network_policy"), network}}).toJson();
    }

    // `cordon run --json --policy FILE -- sh -c SCRIPT`: a one-shot run in the launcher, whose allowlist the
    // daemon's proxy serves.
    static CliResult oneShot(const QJsonObject &network, const QString &script)
    {
        QTemporaryFile policy;
        if (!policy.open())
            return {};
        policy.write(policyFile(network));
        policy.flush();
        return cordonServing({QStringLiteral("run"), QStringLiteral("--json"), QStringLiteral("--policy"),
                              policy.fileName(), QStringLiteral("--"), QStringLiteral("/bin/sh"),
                              QStringLiteral("-c"), script});
    }

    QJsonArray eventsOf(const QString &container)
    {
        auto events =
            m_daemon->call(QStringLiteral("history.events"), {{QStringLiteral("container"), container}});
        return events ? events->value(QStringLiteral("events")).toArray() : QJsonArray{};
    }

    static QStringList kinds(const QJsonArray &events)
    {
        QStringList names;
        for (const QJsonValue &event : events)
            names.append(event.toObject().value(QStringLiteral("kind")).toString());
        return names;
    }

    // Replaced the way editors do it: a new file renamed over the old one.
    void writeOrgPolicy(const QJsonArray &domains)
    {
        const QString path = m_config.filePath(QStringLiteral("cordon/org-policy.json"));
        QFile staged(path + QStringLiteral(".new"));
        QVERIFY(staged.open(QIODevice::WriteOnly));
        staged.write(QJsonDocument(QJsonObject{{QStringLiteral("allowed_domains"), domains}}).toJson());
        staged.close();
        QVERIFY(::rename(QFile::encodeName(staged.fileName()).constData(),
                         QFile::encodeName(path).constData()) == 0);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_upstream.listen());
        // The organisation allows the test upstream (with its private address) and example.com.
        QVERIFY(QDir().mkpath(m_config.filePath(QStringLiteral("cordon"))));
        writeOrgPolicy(QJsonArray{localhostRule(m_upstream.port()), QStringLiteral("example.com")});
        qputenv("XDG_CONFIG_HOME", m_config.path().toLocal8Bit());
        m_daemon = std::make_unique<DaemonFixture>();
        QVERIFY(m_daemon->start());
    }

    void cleanupTestCase() { QVERIFY(m_daemon->stop()); }

    void allowedHostIsReachableThroughTheProxy()
    {
        const QString id = create(allowlist({localhostRule(m_upstream.port())}));
        QVERIFY(!id.isEmpty());
        const int before = m_upstream.connections;
        const QString url = QStringLiteral("http://localhost:%1/data").arg(m_upstream.port());
        QCOMPARE(out(sh(id, QStringLiteral("curl -sS -m 10 %1").arg(url))),
                 QStringLiteral("hello from host"));
        QCOMPARE(out(sh(id, QStringLiteral("python3 -c \"import urllib.request; "
                                           "print(urllib.request.urlopen('%1').read().decode())\"")
                                .arg(url))),
                 QStringLiteral("hello from host\n"));
        QCOMPARE(m_upstream.connections, before + 2);

        auto summary = m_daemon->call(QStringLiteral("network.summary"), {{QStringLiteral("container"), id}});
        QVERIFY_RESULT(summary);
        const QJsonArray hosts = summary->value(QStringLiteral("hosts")).toArray();
        QCOMPARE(hosts.size(), 1);
        QCOMPARE(hosts.first().toObject().value(QStringLiteral("host")).toString(),
                 QStringLiteral("localhost"));
        QCOMPARE(hosts.first().toObject().value(QStringLiteral("decision")).toString(),
                 QStringLiteral("allowed"));
        QCOMPARE(hosts.first().toObject().value(QStringLiteral("count")).toInt(), 2);
        QCOMPARE(hosts.first().toObject().keys(),
                 (QStringList{QStringLiteral("count"), QStringLiteral("decision"), QStringLiteral("host"),
                              QStringLiteral("last_at"), QStringLiteral("last_reason")}));
        QVERIFY(hosts.first().toObject().value(QStringLiteral("last_at")).toInteger() > 0);
        QVERIFY(summary->value(QStringLiteral("events")).toInteger() >= 2);
        m_daemon->call(QStringLiteral("container.delete"), {{QStringLiteral("id"), id}});
    }

    // A daemon killed with SIGKILL ends no container, and the next one adopts it with its proxy listener
    // (cordon-init hands it over again): the allowlist still holds, and the allowed host is still reached.
    void anAdoptedContainerKeepsItsNetwork()
    {
        const QString id = create(allowlist({localhostRule(m_upstream.port())}));
        QVERIFY(!id.isEmpty());
        const QString url = QStringLiteral("http://localhost:%1/data").arg(m_upstream.port());
        QCOMPARE(out(sh(id, QStringLiteral("curl -sS -m 10 %1").arg(url))),
                 QStringLiteral("hello from host"));
        m_daemon->kill();
        QVERIFY(m_daemon->start());
        auto adopted = m_daemon->call(QStringLiteral("history.events"),
                                      {{QStringLiteral("container"), id},
                                       {QStringLiteral("kind"), QStringLiteral("container.adopted")}});
        QVERIFY_RESULT(adopted);
        QCOMPARE(adopted->value(QStringLiteral("total")).toInteger(), 1);
        const int before = m_upstream.connections;
        QCOMPARE(
            out(sh(id, QStringLiteral("curl -sS -m 10 %1; curl -sS -m 10 -o /dev/null -w ' %{http_code}' "
                                      "http://example.org/")
                           .arg(url))),
            QStringLiteral("hello from host 403"));
        QCOMPARE(m_upstream.connections, before + 1);
        m_daemon->call(QStringLiteral("container.delete"), {{QStringLiteral("id"), id}});
    }

    void otherHostsGet403AndAreRecorded()
    {
        const QString id = create(allowlist({localhostRule(m_upstream.port())}));
        const QJsonObject run = sh(
            id, QStringLiteral(
                    "curl -sS -m 10 -o /tmp/body -w '%{http_code}' http://example.com/; cat /tmp/body >&2; "
                    "curl -sS -m 10 https://example.com/ 2>/dev/null; echo \" $?\""));
        QCOMPARE(out(run), QStringLiteral("403 56\n")); // plain HTTP: 403; CONNECT refused: curl exit 56
        QVERIFY2(run.value(QStringLiteral("stderr"))
                     .toString()
                     .contains(QLatin1String("blocked by sandbox policy")),
                 qPrintable(run.value(QStringLiteral("stderr")).toString()));
        auto events = m_daemon->call(
            QStringLiteral("history.events"),
            {{QStringLiteral("container"), id}, {QStringLiteral("kind"), QStringLiteral("network.denied")}});
        QVERIFY_RESULT(events);
        const QJsonArray denied = events->value(QStringLiteral("events")).toArray();
        QCOMPARE(denied.size(), 2);
        const QJsonObject detail = denied.first().toObject().value(QStringLiteral("detail")).toObject();
        QCOMPARE(detail.value(QStringLiteral("host")).toString(), QStringLiteral("example.com"));
        QVERIFY(!denied.first().toObject().value(QStringLiteral("run_id")).toString().isEmpty());
        m_daemon->call(QStringLiteral("container.delete"), {{QStringLiteral("id"), id}});
    }

    void allowedNameResolvingToAPrivateAddressIsRefused()
    {
        // The same name without allow_private_addresses: localhost resolves to loopback, which the guard
        // refuses.
        const QString id = create(allowlist({localhostRule(m_upstream.port(), false)}));
        QVERIFY(!id.isEmpty());
        const int before = m_upstream.connections;
        const QJsonObject run =
            sh(id, QStringLiteral("curl -sS -m 10 http://localhost:%1/").arg(m_upstream.port()));
        QVERIFY2(out(run).contains(QLatin1String("private")), qPrintable(out(run)));
        QCOMPARE(m_upstream.connections, before);
        m_daemon->call(QStringLiteral("container.delete"), {{QStringLiteral("id"), id}});
    }

    void programsThatIgnoreTheProxyHaveNoRoute()
    {
        const QString id = create(allowlist({localhostRule(m_upstream.port())}));
        const int before = m_upstream.connections;
        QString hostAddress;
        for (const QHostAddress &address : QNetworkInterface::allAddresses()) {
            if (address.protocol() == QAbstractSocket::IPv4Protocol && !address.isLoopback())
                hostAddress = address.toString();
        }
        const QJsonObject run = sh(
            id, QStringLiteral("python3 -c \"import socket\n"
                               "for host in ['127.0.0.1', '%1']:\n"
                               "    try:\n"
                               "        socket.create_connection((host, %2), timeout=3); print('connected')\n"
                               "    except OSError as e:\n"
                               "        print(e.errno)\"")
                    .arg(hostAddress.isEmpty() ? QStringLiteral("198.51.100.1") : hostAddress)
                    .arg(m_upstream.port()));
        QCOMPARE(out(run), QStringLiteral("%1\n%2\n").arg(ECONNREFUSED).arg(ENETUNREACH));
        QCOMPARE(m_upstream.connections, before);
        m_daemon->call(QStringLiteral("container.delete"), {{QStringLiteral("id"), id}});
    }

    void containerListsMayOnlyNarrowTheOrganisation()
    {
        auto refused = m_daemon->call(
            QStringLiteral("container.create"),
            {{QStringLiteral("policy"),
              QJsonObject{{QStringLiteral("network_policy"), allowlist({QStringLiteral("pypi.org")})}}}});
        QVERIFY(!refused);
        QCOMPARE(refused.error().code(), "network.domain_not_allowed");
        QVERIFY(Cordon::toQt(refused.error().message()).contains(QLatin1String("pypi.org")));
    }

    void changingTheAllowlistAppliesAtOnce()
    {
        const QString id = create(allowlist({localhostRule(m_upstream.port())}));
        const QString url = QStringLiteral("http://localhost:%1/").arg(m_upstream.port());
        QCOMPARE(out(sh(id, QStringLiteral("curl -sS -m 10 %1").arg(url))),
                 QStringLiteral("hello from host"));
        auto before = m_daemon->call(QStringLiteral("container.get"), {{QStringLiteral("id"), id}});
        auto updated =
            m_daemon->call(QStringLiteral("container.update_network"),
                           {{QStringLiteral("id"), id},
                            {QStringLiteral("network_policy"), allowlist({QStringLiteral("example.com")})}});
        QVERIFY_RESULT(updated);
        QVERIFY(
            updated->value(QStringLiteral("container")).toObject().value(QStringLiteral("policy_version")) !=
            before->value(QStringLiteral("container")).toObject().value(QStringLiteral("policy_version")));
        QVERIFY(out(sh(id, QStringLiteral("curl -sS -m 10 %1").arg(url)))
                    .contains(QLatin1String("blocked by sandbox policy")));
        auto wider =
            m_daemon->call(QStringLiteral("container.update_network"),
                           {{QStringLiteral("id"), id},
                            {QStringLiteral("network_policy"), allowlist({QStringLiteral("evil.example")})}});
        QVERIFY(!wider);
        QCOMPARE(wider.error().code(), "network.domain_not_allowed");
        m_daemon->call(QStringLiteral("container.delete"), {{QStringLiteral("id"), id}});
    }

    void narrowingTheOrganisationAppliesAtOnce()
    {
        const QString id = create(allowlist({localhostRule(m_upstream.port())}));
        const QString url = QStringLiteral("http://localhost:%1/").arg(m_upstream.port());
        QCOMPARE(out(sh(id, QStringLiteral("curl -sS -m 10 %1").arg(url))),
                 QStringLiteral("hello from host"));
        writeOrgPolicy(QJsonArray{QStringLiteral("example.com")});
        // The daemon watches the file's folder; the running container loses localhost without a restart.
        QTRY_VERIFY_WITH_TIMEOUT(
            out(sh(id, QStringLiteral("curl -sS -m 10 %1").arg(url))).contains(QLatin1String("blocked")),
            10000);
        writeOrgPolicy(QJsonArray{localhostRule(m_upstream.port()), QStringLiteral("example.com")});
        QTRY_COMPARE_WITH_TIMEOUT(out(sh(id, QStringLiteral("curl -sS -m 10 %1").arg(url))),
                                  QStringLiteral("hello from host"), 10000);
        m_daemon->call(QStringLiteral("container.delete"), {{QStringLiteral("id"), id}});
    }

    void cliShowsDecisionsPerHost()
    {
        const QString id = create(allowlist({localhostRule(m_upstream.port())}));
        sh(id, QStringLiteral("curl -s -m 5 http://example.com/; curl -s -m 5 http://example.com/again"));
        QProcess cli;
        cli.start(QCoreApplication::applicationDirPath() + QStringLiteral("/cordon"),
                  {QStringLiteral("network"), QStringLiteral("show"), id});
        QVERIFY(cli.waitForFinished(30000));
        const QString text = QString::fromUtf8(cli.readAllStandardOutput());
        QCOMPARE(cli.exitCode(), 0);
        QVERIFY2(text.contains(
                     QStringLiteral("allow localhost:%1 (private addresses allowed)").arg(m_upstream.port())),
                 qPrintable(text));
        QVERIFY2(text.contains(QRegularExpression(QStringLiteral("denied +2 example\\.com"))),
                 qPrintable(text));
        m_daemon->call(QStringLiteral("container.delete"), {{QStringLiteral("id"), id}});
    }

    // Requests the proxy could not parse have no host: each is shown by its own request line, counted apart,
    // with its own reason, instead of one empty-host row with the last reason.
    void unparsedRequestsAreShownApart()
    {
        const QString id = create(allowlist({localhostRule(m_upstream.port())}));
        const QJsonObject run =
            sh(id, QStringLiteral("python3 -c \"\n"
                                  "import socket\n"
                                  "for line in [b'GARBAGE one', b'GARBAGE one', b'GET http://[::1 HTTP/1.1', "
                                  "b'\\x1b[31mred']:\n"
                                  "    s = socket.create_connection(('127.0.0.1', 3128))\n"
                                  "    s.sendall(line + b'\\r\\n\\r\\n')\n"
                                  "    s.recv(4096)\n"
                                  "    s.close()\n"
                                  "print('sent')\n\""));
        QCOMPARE(out(run), QStringLiteral("sent\n"));
        const CliResult shown = runProgram(builtProgram(QStringLiteral("cordon")),
                                           {QStringLiteral("network"), QStringLiteral("show"), id});
        QCOMPARE(shown.status, 0);
        const QString text = QString::fromUtf8(shown.out);
        QVERIFY2(
            text.contains(QRegularExpression(QStringLiteral("error +2 not understood: \"GARBAGE one\""))),
            qPrintable(text));
        QVERIFY2(text.contains(
                     QRegularExpression(QStringLiteral("1 not understood: \"GET http://\\[::1 HTTP/1.1\""))),
                 qPrintable(text));
        // Control characters from the sandbox never reach the terminal raw.
        QVERIFY2(text.contains(QStringLiteral("\\u001b[31mred")), qPrintable(text));
        QVERIFY2(!text.contains(QChar(0x1b)), qPrintable(text));
        m_daemon->call(QStringLiteral("container.delete"), {{QStringLiteral("id"), id}});
    }

    // A sandbox cannot make the host's history grow without bound through the proxy: repeated decisions
    // coalesce, rows per run are capped (1000 by default) and the rest counted in a marker row, while every
    // count (the run's, network.summary's) stays exact.
    void aFloodOfDecisionsIsBoundedAndCountedExactly()
    {
        const QString id = create(allowlist({localhostRule(m_upstream.port())}));
        const QJsonObject run =
            sh(id, QStringLiteral(
                       "python3 -c \"\n"
                       "import socket\n"
                       "def ask(host):\n"
                       "    s = socket.create_connection(('127.0.0.1', 3128))\n"
                       "    s.sendall(b'GET http://%s/ HTTP/1.1\\r\\nHost: %s\\r\\n\\r\\n' % (host, host))\n"
                       "    s.recv(4096)\n"
                       "    s.close()\n"
                       "for i in range(1500): ask(b'again.example')\n"
                       "for i in range(1200): ask(b'h%d.example' % i)\n"
                       "print('asked')\n\""));
        QCOMPARE(out(run), QStringLiteral("asked\n"));
        QCOMPARE(run.value(QStringLiteral("network")).toObject().value(QStringLiteral("denied")).toInteger(),
                 2700);

        auto rows = m_daemon->call(QStringLiteral("history.events"),
                                   {{QStringLiteral("container"), id},
                                    {QStringLiteral("kind"), QStringLiteral("network.")},
                                    {QStringLiteral("limit"), 1}});
        QVERIFY_RESULT(rows);
        const qint64 written = rows->value(QStringLiteral("total")).toInteger();
        QVERIFY2(written <= 1010, qPrintable(QString::number(written)));

        auto summary = m_daemon->call(QStringLiteral("network.summary"), {{QStringLiteral("container"), id}});
        QVERIFY_RESULT(summary);
        qint64 denied = 0;
        bool marker = false;
        for (const QJsonValue &value : summary->value(QStringLiteral("hosts")).toArray()) {
            const QJsonObject row = value.toObject();
            QCOMPARE(row.value(QStringLiteral("decision")).toString(), QStringLiteral("denied"));
            denied += row.value(QStringLiteral("count")).toInteger();
            marker = marker || row.value(QStringLiteral("suppressed")).toBool();
        }
        QCOMPARE(denied, 2700);
        QVERIFY(marker);
        const CliResult shown = runProgram(builtProgram(QStringLiteral("cordon")),
                                           {QStringLiteral("network"), QStringLiteral("show"), id});
        QVERIFY2(shown.out.contains("(past the row limit)"), shown.describe().constData());
        m_daemon->call(QStringLiteral("container.delete"), {{QStringLiteral("id"), id}});
    }

    // The run's own account of the network: how many requests were allowed, denied by policy, or failed
    // upstream, in the exec summary and in the run object.
    void aRunSaysWhatItTriedOnTheNetwork()
    {
        const QString id = create(allowlist({localhostRule(m_upstream.port())}));
        QProcess cli;
        cli.start(
            QCoreApplication::applicationDirPath() + QStringLiteral("/cordon"),
            {QStringLiteral("exec"), id, QStringLiteral("--"), QStringLiteral("/bin/sh"),
             QStringLiteral("-c"),
             QStringLiteral("curl -s -m 5 http://localhost:%1/ >/dev/null; curl -s -m 5 http://example.com/ "
                            ">/dev/null; curl -s -m 5 http://example.com/again >/dev/null; sleep 0.5")
                 .arg(m_upstream.port())});
        QVERIFY(cli.waitForFinished(60000));
        const QString err = QString::fromUtf8(cli.readAllStandardError());
        QVERIFY2(
            err.contains(QStringLiteral("cordon: network: 1 allowed, 2 denied by policy, 0 errors upstream")),
            qPrintable(err));
        const QString runId =
            QRegularExpression(QStringLiteral("cordon: run ([0-9a-f]{16})")).match(err).captured(1);
        auto run = m_daemon->call(QStringLiteral("run.get"), {{QStringLiteral("run_id"), runId}});
        QVERIFY_RESULT(run);
        const QJsonObject network =
            run->value(QStringLiteral("run")).toObject().value(QStringLiteral("network")).toObject();
        QCOMPARE(network.value(QStringLiteral("allowed")).toInteger(), 1);
        QCOMPARE(network.value(QStringLiteral("denied")).toInteger(), 2);
        m_daemon->call(QStringLiteral("container.delete"), {{QStringLiteral("id"), id}});
    }

    void checkAnswersEachEntry()
    {
        const QJsonArray entries{QStringLiteral("EXAMPLE.com."),
                                 QStringLiteral("https://example.com"),
                                 QStringLiteral("pypi.org"),
                                 QJsonObject{{QStringLiteral("domain"), QStringLiteral("example.com")},
                                             {QStringLiteral("ports"), QJsonArray{80}}},
                                 QStringLiteral("example.com"),
                                 42,
                                 QJsonObject{{QStringLiteral("domain"), QStringLiteral("example.com")},
                                             {QStringLiteral("allow_everything"), true}}};
        auto checked =
            m_daemon->call(QStringLiteral("network.check"), {{QStringLiteral("allowed_domains"), entries}});
        QVERIFY_RESULT(checked);
        QCOMPARE(checked->value(QStringLiteral("ok")).toBool(), false);
        const QJsonArray answers = checked->value(QStringLiteral("entries")).toArray();
        QCOMPARE(answers.size(), entries.size());
        const auto answer = [&](int i) { return answers.at(i).toObject(); };
        const auto errorOf = [&](int i, const QString &key) { return answer(i).value(key).toObject(); };

        // Normalised, canonical object form, inside the organisation's list.
        QVERIFY(answer(0).value(QStringLiteral("ok")).toBool());
        QCOMPARE(
            answer(0).value(QStringLiteral("rule")).toObject().value(QStringLiteral("domain")).toString(),
            QStringLiteral("example.com"));
        QVERIFY(answer(0).value(QStringLiteral("rule")).toObject().contains(QStringLiteral("ports")));
        QVERIFY(!answer(0).contains(QStringLiteral("outside_organisation")));
        // Invalid: the parser's own words.
        QVERIFY(!answer(1).value(QStringLiteral("ok")).toBool());
        QCOMPARE(errorOf(1, QStringLiteral("error")).value(QStringLiteral("code")).toString(),
                 QStringLiteral("policy.invalid_domain"));
        QVERIFY2(errorOf(1, QStringLiteral("error"))
                     .value(QStringLiteral("message"))
                     .toString()
                     .contains(QLatin1String("without a scheme")),
                 qPrintable(errorOf(1, QStringLiteral("error")).value(QStringLiteral("message")).toString()));
        // Valid, but the organisation does not allow it: checkNarrows' message.
        QVERIFY(answer(2).value(QStringLiteral("ok")).toBool());
        QCOMPARE(errorOf(2, QStringLiteral("outside_organisation")).value(QStringLiteral("code")).toString(),
                 QStringLiteral("network.domain_not_allowed"));
        QVERIFY(errorOf(2, QStringLiteral("outside_organisation"))
                    .value(QStringLiteral("message"))
                    .toString()
                    .startsWith(QLatin1String("\"pypi.org\" is not in the organisation allowlist")));
        // A narrower object rule is inside.
        QVERIFY(answer(3).value(QStringLiteral("ok")).toBool());
        QVERIFY(!answer(3).contains(QStringLiteral("outside_organisation")));
        // The same rule as entry 0 after normalisation: listed twice.
        QVERIFY(!answer(4).value(QStringLiteral("ok")).toBool());
        QVERIFY(errorOf(4, QStringLiteral("error"))
                    .value(QStringLiteral("message"))
                    .toString()
                    .contains(QLatin1String("listed twice")));
        QCOMPARE(errorOf(5, QStringLiteral("error")).value(QStringLiteral("code")).toString(),
                 QStringLiteral("policy.wrong_type"));
        QCOMPARE(errorOf(6, QStringLiteral("error")).value(QStringLiteral("code")).toString(),
                 QStringLiteral("policy.unknown_key"));
        QCOMPARE(checked->value(QStringLiteral("organisation"))
                     .toObject()
                     .value(QStringLiteral("source"))
                     .toString(),
                 QStringLiteral("user"));

        auto fine =
            m_daemon->call(QStringLiteral("network.check"),
                           {{QStringLiteral("allowed_domains"), QJsonArray{QStringLiteral("example.com")}}});
        QVERIFY_RESULT(fine);
        QVERIFY(fine->value(QStringLiteral("ok")).toBool());
    }

    void checkAndSetRefuseBadInput()
    {
        QJsonArray huge;
        for (int i = 0; i < 1000; ++i) // over the policy's 256 rules, under the JSON reader's 1024 entries
            huge.append(QStringLiteral("h%1.example.com").arg(i));
        QJsonArray enormous;
        for (int i = 0; i < 200000; ++i)
            enormous.append(QStringLiteral("h%1.example.com").arg(i));
        QJsonArray deep{QJsonArray{QJsonArray{QJsonObject{{QStringLiteral("domain"), QJsonArray{}}}}}};
        const QList<QPair<QJsonObject, QString>> cases{
            {{}, QStringLiteral("protocol.invalid_params")},
            {{{QStringLiteral("allowed_domains"), QStringLiteral("pypi.org")}},
             QStringLiteral("protocol.invalid_params")},
            {{{QStringLiteral("allowed_domains"), QJsonObject{}}}, QStringLiteral("protocol.invalid_params")},
            {{{QStringLiteral("allowed_domains"), huge}}, QStringLiteral("policy.out_of_range")},
        };
        const QString orgFile = m_config.filePath(QStringLiteral("cordon/org-policy.json"));
        QFile before(orgFile);
        QVERIFY(before.open(QIODevice::ReadOnly));
        const QByteArray original = before.readAll();
        before.close();
        for (const QString &method :
             {QStringLiteral("network.check"), QStringLiteral("network.set_org_policy")}) {
            for (const auto &[params, code] : cases) {
                auto refused = m_daemon->call(method, params);
                QVERIFY2(!refused, qPrintable(method));
                QCOMPARE(Cordon::toQt(refused.error().code()), code);
                QVERIFY(Cordon::toQt(refused.error().message()).contains(QLatin1String("allowed_domains")));
            }
        }
        for (const QString &method :
             {QStringLiteral("network.check"), QStringLiteral("network.set_org_policy")}) {
            auto refused = m_daemon->call(method, {{QStringLiteral("allowed_domains"), enormous}});
            QVERIFY(!refused);
            QVERIFY2(Cordon::toQt(refused.error().code()).startsWith(QLatin1String("policy.")),
                     refused.error().code().c_str());
        }
        // Garbage entries: per entry in a check, the whole request for set_org_policy.
        auto garbage =
            m_daemon->call(QStringLiteral("network.check"), {{QStringLiteral("allowed_domains"), deep}});
        QVERIFY_RESULT(garbage);
        QCOMPARE(garbage->value(QStringLiteral("entries"))
                     .toArray()
                     .first()
                     .toObject()
                     .value(QStringLiteral("ok")),
                 QJsonValue(false));
        const QString longName = QString(100000, u'a') + QStringLiteral(".example");
        for (const QJsonArray &bad :
             {deep, QJsonArray{longName}, QJsonArray{QStringLiteral("*")}, QJsonArray{QJsonValue::Null},
              QJsonArray{QStringLiteral("a\tb.example")}}) {
            auto refused = m_daemon->call(QStringLiteral("network.set_org_policy"),
                                          {{QStringLiteral("allowed_domains"), bad}});
            QVERIFY(!refused);
            QVERIFY2(Cordon::toQt(refused.error().code()).startsWith(QLatin1String("policy.")),
                     refused.error().code().c_str());
            QVERIFY2(Cordon::toQt(refused.error().message()).contains(QLatin1String("allowed_domains[0]")),
                     refused.error().message().c_str());
        }
        // Nothing was written, and the daemon still answers.
        QFile after(orgFile);
        QVERIFY(after.open(QIODevice::ReadOnly));
        QCOMPARE(after.readAll(), original);
        QVERIFY_RESULT(m_daemon->call(QStringLiteral("daemon.status")));
    }

    void setOrgPolicyWritesTheUserFileAndAppliesAtOnce()
    {
        const QString orgFile = m_config.filePath(QStringLiteral("cordon/org-policy.json"));
        const QJsonArray wider{localhostRule(m_upstream.port()), QStringLiteral("example.com"),
                               QStringLiteral("pypi.org")};
        auto set = m_daemon->call(QStringLiteral("network.set_org_policy"),
                                  {{QStringLiteral("allowed_domains"), wider}});
        QVERIFY_RESULT(set);
        QCOMPARE(set->value(QStringLiteral("source")).toString(), QStringLiteral("user"));
        QCOMPARE(set->value(QStringLiteral("path")).toString(), orgFile);
        QCOMPARE(set->value(QStringLiteral("administered")).toBool(), false);
        QCOMPARE(set->value(QStringLiteral("allowed_domains")).toArray().size(), 3);
        QFile file(orgFile);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(QJsonDocument::fromJson(file.readAll())
                     .object()
                     .value(QStringLiteral("allowed_domains"))
                     .toArray(),
                 wider);
        QCOMPARE(QFileInfo(orgFile).permissions() & QFileDevice::Permissions(0x7077),
                 QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ReadGroup |
                     QFileDevice::ReadOther);
        // In force at once: pypi.org may now be in a container's list, and network.org_policy says so.
        const QString id = create(allowlist({QStringLiteral("pypi.org")}));
        QVERIFY(!id.isEmpty());
        auto org = m_daemon->call(QStringLiteral("network.org_policy"));
        QVERIFY_RESULT(org);
        QCOMPARE(org->value(QStringLiteral("allowed_domains")).toArray().size(), 3);

        // Narrowing it again applies to the running container: the upstream is no longer reachable.
        const QString reaching = create(allowlist({localhostRule(m_upstream.port())}));
        const QString url = QStringLiteral("http://localhost:%1/").arg(m_upstream.port());
        QCOMPARE(out(sh(reaching, QStringLiteral("curl -sS -m 10 %1").arg(url))),
                 QStringLiteral("hello from host"));
        QVERIFY_RESULT(
            m_daemon->call(QStringLiteral("network.set_org_policy"),
                           {{QStringLiteral("allowed_domains"), QJsonArray{QStringLiteral("example.com")}}}));
        QVERIFY(out(sh(reaching, QStringLiteral("curl -sS -m 10 %1").arg(url)))
                    .contains(QLatin1String("blocked")));
        QVERIFY_RESULT(
            m_daemon->call(QStringLiteral("network.set_org_policy"),
                           {{QStringLiteral("allowed_domains"),
                             QJsonArray{localhostRule(m_upstream.port()), QStringLiteral("example.com")}}}));
        m_daemon->call(QStringLiteral("container.delete"), {{QStringLiteral("id"), id}});
        m_daemon->call(QStringLiteral("container.delete"), {{QStringLiteral("id"), reaching}});
    }

    void disabledMeansNoProxyAtAll()
    {
        const QString id = create(QJsonObject{{QStringLiteral("type"), QStringLiteral("disabled")}});
        const QJsonObject run =
            sh(id, QStringLiteral("echo \"[$HTTP_PROXY]\"; curl -sS -m 5 --proxy http://127.0.0.1:3128 "
                                  "http://localhost:%1/ 2>&1 >/dev/null; echo $?")
                       .arg(m_upstream.port()));
        QVERIFY2(out(run).startsWith(QLatin1String("[]\n")), qPrintable(out(run)));
        QVERIFY2(out(run).endsWith(QLatin1String("7\n")), qPrintable(out(run))); // connection refused
        m_daemon->call(QStringLiteral("container.delete"), {{QStringLiteral("id"), id}});
    }

    // `cordon run` with an allowlist: the run's own program (curl) reaches the listed host through the
    // daemon's proxy and nothing else; the decisions are counted in the run's summary and recorded under the
    // run's container id, whose history row ends with the run.
    void oneShotRunReachesOnlyWhatItsAllowlistSays()
    {
        const CliResult result = oneShot(
            allowlist({localhostRule(m_upstream.port())}),
            QStringLiteral("curl -sS -m 10 http://localhost:%1/; echo; curl -sS -m 10 -o /dev/null -w "
                           "'%{http_code}' http://example.com/; echo; curl -sS -m 10 --noproxy '*' "
                           "http://localhost:%1/ 2>/dev/null; echo \" $?\"")
                .arg(m_upstream.port()));
        QVERIFY2(result.status == 0, result.describe().constData());
        const QJsonObject json = result.json();
        // Allowed; another host 403; around the proxy there is no route (curl: 7, could not connect).
        QCOMPARE(json.value(QStringLiteral("stdout")).toString(),
                 QStringLiteral("hello from host\n403\n 7\n"));
        const QJsonObject network = json.value(QStringLiteral("network")).toObject();
        QCOMPARE(network.value(QStringLiteral("allowed")).toInteger(), 1);
        QCOMPARE(network.value(QStringLiteral("denied")).toInteger(), 1);
        QCOMPARE(network.value(QStringLiteral("errors")).toInteger(), 0);

        const QString id = json.value(QStringLiteral("container_id")).toString();
        QVERIFY2(QRegularExpression(QStringLiteral("^[0-9a-f]{16}$")).match(id).hasMatch(), qPrintable(id));
        const QJsonArray events = eventsOf(id);
        const QStringList recorded = kinds(events);
        QVERIFY2(recorded.contains(QStringLiteral("container.one_shot_started")) &&
                     recorded.contains(QStringLiteral("container.one_shot_ended")) &&
                     recorded.contains(QStringLiteral("network.allowed")) &&
                     recorded.contains(QStringLiteral("network.denied")),
                 qPrintable(recorded.join(u' ')));
        for (const QJsonValue &event : events) {
            const QJsonObject detail = event.toObject().value(QStringLiteral("detail")).toObject();
            if (event.toObject().value(QStringLiteral("kind")).toString() == QLatin1String("network.denied"))
                QCOMPARE(detail.value(QStringLiteral("host")).toString(), QStringLiteral("example.com"));
        }
        auto summary = m_daemon->call(QStringLiteral("network.summary"), {{QStringLiteral("container"), id}});
        QVERIFY_RESULT(summary);
        QCOMPARE(summary->value(QStringLiteral("hosts")).toArray().size(), 2);

        // Without --json the summary says the same in words, and where the decisions are listed.
        QTemporaryFile policy;
        QVERIFY(policy.open());
        policy.write(policyFile(allowlist({localhostRule(m_upstream.port())})));
        policy.flush();
        const CliResult words = cordonServing(
            {QStringLiteral("run"), QStringLiteral("--policy"), policy.fileName(), QStringLiteral("--"),
             QStringLiteral("curl"), QStringLiteral("-sS"), QStringLiteral("-m"), QStringLiteral("10"),
             QStringLiteral("http://localhost:%1/").arg(m_upstream.port())});
        QVERIFY2(words.status == 0, words.describe().constData());
        QCOMPARE(words.out, QByteArray("hello from host"));
        QVERIFY2(words.err.contains("cordon: network: 1 allowed, 0 denied by policy, 0 errors upstream "
                                    "(`cordon network show "),
                 words.describe().constData());

        // The ledger answers for the run's id as for any container's.
        const CliResult shown = runProgram(builtProgram(QStringLiteral("cordon")),
                                           {QStringLiteral("network"), QStringLiteral("show"), id});
        QVERIFY2(shown.status == 0, shown.describe().constData());
        QVERIFY2(shown.out.contains("allow localhost") && shown.out.contains("example.com") &&
                     shown.out.contains("denied"),
                 shown.describe().constData());
        auto got = m_daemon->call(QStringLiteral("container.get"), {{QStringLiteral("id"), id}});
        QVERIFY_RESULT(got);
        QCOMPARE(got->value(QStringLiteral("container")).toObject().value(QStringLiteral("state")).toString(),
                 QStringLiteral("deleted"));
    }

    // An allowlist wider than the organisation's is refused before the run starts: its setup fails and the
    // command never ran.
    void oneShotRunWiderThanTheOrganisationNeverStarts()
    {
        const CliResult result = oneShot(allowlist({QStringLiteral("pypi.org")}), QStringLiteral("echo ran"));
        QCOMPARE(result.status, 125);
        const QJsonObject json = result.json();
        QCOMPARE(json.value(QStringLiteral("error_class")).toString(), QStringLiteral("setup_failed"));
        QCOMPARE(json.value(QStringLiteral("stdout")).toString(), QString());
        QVERIFY2(json.value(QStringLiteral("message")).toString().contains(QLatin1String("pypi.org")),
                 result.describe().constData());
        QVERIFY(!json.contains(QStringLiteral("network")));
    }

    // A launcher may only hand a listener over through its own handoff socket in the daemon's directory;
    // every other request is refused before the daemon connects anywhere, and the daemon stays up.
    void attachRequestsAreChecked()
    {
        const QJsonObject policy{
            {QStringLiteral("network_policy"), allowlist({QStringLiteral("example.com")})}};
        const QString directory = QFileInfo(m_daemon->socketPath()).absolutePath();
        const auto attach = [&](const QString &id, const QString &handoff, const QJsonObject &withPolicy) {
            return m_daemon->call(QStringLiteral("network.attach_one_shot"),
                                  {{QStringLiteral("container_id"), id},
                                   {QStringLiteral("policy"), withPolicy},
                                   {QStringLiteral("handoff"), handoff}});
        };
        const QString id = QStringLiteral("00000000000000aa");
        const QString good = directory + QStringLiteral("/handoff-00000000000000aa.sock");
        struct Case
        {
            QString id;
            QString handoff;
            QJsonObject policy;
            const char *code;
        };
        const QList<Case> cases = {
            {id, QStringLiteral("/tmp/handoff-00000000000000aa.sock"), policy, "protocol.invalid_params"},
            {id, directory + QStringLiteral("/d.sock"), policy, "protocol.invalid_params"},
            {id, directory + QStringLiteral("/handoff-00000000000000bb.sock"), policy,
             "protocol.invalid_params"},
            {QStringLiteral("../../x"), good, policy, "protocol.invalid_params"},
            {id, good, QJsonObject{{QStringLiteral("memory_limit"), QStringLiteral("3g")}}, "policy."},
            {id, good,
             QJsonObject{{QStringLiteral("network_policy"), allowlist({QStringLiteral("pypi.org")})}},
             "network.domain_not_allowed"},
            // The right path with nobody listening there.
            {id, good, policy, "network.handoff"},
        };
        for (const Case &bad : cases) {
            auto refused = attach(bad.id, bad.handoff, bad.policy);
            QVERIFY2(!refused, qPrintable(bad.handoff));
            QVERIFY2(refused.error().code().starts_with(bad.code),
                     qPrintable(bad.handoff + QLatin1Char(' ') + Cordon::toQt(refused.error().code())));
        }
        auto detached =
            m_daemon->call(QStringLiteral("network.detach_one_shot"), {{QStringLiteral("container_id"), id}});
        QVERIFY(!detached);
        QCOMPARE(detached.error().code(), "container.not_found");
        QVERIFY_RESULT(m_daemon->call(QStringLiteral("daemon.status")));
    }

    // With no daemon running, a one-shot run with an allowlist starts one, as every other command does.
    void oneShotRunStartsTheDaemon()
    {
        QVERIFY(m_daemon->stop());
        const CliResult result =
            oneShot(allowlist({localhostRule(m_upstream.port())}),
                    QStringLiteral("curl -sS -m 10 http://localhost:%1/").arg(m_upstream.port()));
        QVERIFY2(result.status == 0, result.describe().constData());
        QCOMPARE(result.json().value(QStringLiteral("stdout")).toString(), QStringLiteral("hello from host"));
        // The daemon it started answers, and goes when asked; the fixture's daemon takes its place.
        Cordon::Daemon::DaemonClient started;
        QVERIFY(started.connectSync(false, 5000));
        auto shutdown = started.callSync(QStringLiteral("daemon.shutdown"), {}, 5000);
        QVERIFY_RESULT(shutdown);
        QTRY_VERIFY_WITH_TIMEOUT(!QFileInfo::exists(m_daemon->socketPath()), 10000);
        m_daemon = std::make_unique<DaemonFixture>();
        QVERIFY(m_daemon->start());
    }

    // A daemon killed while a one-shot run is attached: the run goes on (without its network) and finishes
    // normally; the next daemon ends the run's history row and never restarts or wipes the run's container as
    // if it were one of its own.
    void oneShotRunOutlivesAKilledDaemon()
    {
        const auto startedIds = [this] {
            QStringList ids;
            auto events =
                m_daemon->call(QStringLiteral("history.events"),
                               {{QStringLiteral("kind"), QStringLiteral("container.one_shot_started")}});
            for (const QJsonValue &event :
                 events ? events->value(QStringLiteral("events")).toArray() : QJsonArray{})
                ids.append(event.toObject().value(QStringLiteral("container")).toString());
            return ids;
        };
        const QStringList before = startedIds();
        QTemporaryFile policy;
        QVERIFY(policy.open());
        policy.write(policyFile(allowlist({QStringLiteral("example.com")})));
        policy.flush();
        QProcess run;
        run.start(builtProgram(QStringLiteral("cordon")),
                  {QStringLiteral("run"), QStringLiteral("--json"), QStringLiteral("--policy"),
                   policy.fileName(), QStringLiteral("--"), QStringLiteral("/bin/sh"), QStringLiteral("-c"),
                   QStringLiteral("sleep 3; echo done > /mnt/data/outputs/x; cat /mnt/data/outputs/x")});
        QString id;
        QTRY_VERIFY_WITH_TIMEOUT(
            [&] {
                for (const QString &started : startedIds())
                    if (!before.contains(started))
                        id = started;
                return !id.isEmpty();
            }(),
            20000);
        m_daemon->kill();
        m_daemon = std::make_unique<DaemonFixture>();
        QVERIFY(m_daemon->start());
        QVERIFY(run.waitForFinished(60000));
        const QByteArray out = run.readAllStandardOutput();
        QVERIFY2(run.exitCode() == 0, QByteArray(out + run.readAllStandardError()).constData());
        const QJsonObject json = QJsonDocument::fromJson(out).object();
        QCOMPARE(json.value(QStringLiteral("stdout")).toString(), QStringLiteral("done\n"));
        // The next daemon ended the run's row: the record reads as deleted, with its end time.
        auto got = m_daemon->call(QStringLiteral("container.get"), {{QStringLiteral("id"), id}});
        QVERIFY_RESULT(got);
        const QJsonObject container = got->value(QStringLiteral("container")).toObject();
        QCOMPARE(container.value(QStringLiteral("state")).toString(), QStringLiteral("deleted"));
        QVERIFY(container.value(QStringLiteral("ended_at")).toInteger() > 0);
        const QStringList recorded = kinds(eventsOf(id));
        QVERIFY2(!recorded.contains(QStringLiteral("container.restarted")) &&
                     !recorded.contains(QStringLiteral("container.expired")),
                 qPrintable(recorded.join(u' ')));
    }

    // Last: it replaces the daemon with one that sees an administrator's file.
    void administratorsFileGoverns()
    {
        QVERIFY(m_daemon->stop());
        QTemporaryDir etc;
        const QString system = etc.filePath(QStringLiteral("org-policy.json"));
        QFile file(system);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(R"({"allowed_domains": ["example.com"]})");
        file.close();
        qputenv("CORDON_SYSTEM_ORG_POLICY", system.toLocal8Bit());
        m_daemon = std::make_unique<DaemonFixture>();
        QVERIFY(m_daemon->start());
        qunsetenv("CORDON_SYSTEM_ORG_POLICY");
        auto org = m_daemon->call(QStringLiteral("network.org_policy"));
        QVERIFY_RESULT(org);
        QCOMPARE(org->value(QStringLiteral("source")).toString(), QStringLiteral("system"));
        QCOMPARE(org->value(QStringLiteral("administered")).toBool(), true);
        QCOMPARE(org->value(QStringLiteral("path")).toString(), system);
        auto refused =
            m_daemon->call(QStringLiteral("network.set_org_policy"),
                           {{QStringLiteral("allowed_domains"), QJsonArray{QStringLiteral("pypi.org")}}});
        QVERIFY(!refused);
        QCOMPARE(refused.error().code(), "network.org_policy_administered");
        QVERIFY(Cordon::toQt(refused.error().message()).contains(system));
        // The check answers against the administrator's list.
        auto checked =
            m_daemon->call(QStringLiteral("network.check"),
                           {{QStringLiteral("allowed_domains"), QJsonArray{QStringLiteral("localhost")}}});
        QVERIFY_RESULT(checked);
        QVERIFY(checked->value(QStringLiteral("entries"))
                    .toArray()
                    .first()
                    .toObject()
                    .value(QStringLiteral("outside_organisation"))
                    .toObject()
                    .value(QStringLiteral("message"))
                    .toString()
                    .contains(QLatin1String("set by your administrator")));
    }
};

CORDON_SANDBOX_TEST_MAIN(TestNetwork)
#include "tst_network.moc"
