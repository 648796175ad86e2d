// SPDX-License-Identifier: MIT
// Domain secrets end to end (docs/secrets.md): a real cordond trusting a test CA (--upstream-ca), a real
// container, curl and Python inside it, and an HTTPS server on the host's loopback (Python's http.server
// with a certificate from the test CA) that logs every request head it receives. The sandbox holds only a
// placeholder; the value arrives at its domain and nowhere else; a placeholder sent elsewhere is refused and
// recorded; a domain without secrets is a blind tunnel; nothing of the value or the placeholder is kept.
#include "cliprocess.h"
#include "sandboxtest.h"
#include "testca.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QThread>

using namespace CordonTest;

namespace {

const QByteArray Value = QByteArrayLiteral("sk-live-7Hq2Zr9Xw4Lp0Vb8Nd3K");

// Logs the request line and head of every request to argv[3]/requests.log and answers "secure hello PATH";
// prints its port once it listens.
const char *const ServerScript =
    "import base64, gzip, http.server, ssl, sys\n"
    "cert, key, log = sys.argv[1], sys.argv[2], sys.argv[3]\n"
    "class Handler(http.server.BaseHTTPRequestHandler):\n"
    "    protocol_version = \"HTTP/1.1\"\n"
    "    def sized(self, body, *fields):\n"
    "        self.send_response(200)\n"
    "        for name, value in fields:\n"
    "            self.send_header(name, value)\n"
    "        self.send_header(\"Content-Length\", str(len(body)))\n"
    "        self.end_headers()\n"
    "        self.wfile.write(body)\n"
    "    def do_GET(self):\n"
    "        with open(log, \"ab\") as out:\n"
    "            out.write((self.requestline + \"\\n\" + str(self.headers) + \"---\\n\").encode())\n"
    // A hostile upstream that hands back what it was sent: chunked at 4096 bytes as Go's net/http does,
    // encoded, in a header, compressed whatever was asked, or to the end of the connection.
    "        said = self.headers.get(\"Authorization\", \"\").encode()\n"
    "        if self.path.startswith(\"/echo-chunked/\"):\n"
    "            body = b\"x\" * int(self.path.split(\"/\")[2]) + said + b\" end\"\n"
    "            self.send_response(200)\n"
    "            self.send_header(\"Transfer-Encoding\", \"chunked\")\n"
    "            self.end_headers()\n"
    "            for at in range(0, len(body), 4096):\n"
    "                piece = body[at:at + 4096]\n"
    "                self.wfile.write(b\"%x\\r\\n\" % len(piece) + piece + b\"\\r\\n\")\n"
    "            self.wfile.write(b\"0\\r\\n\\r\\n\")\n"
    "            return\n"
    "        if self.path == \"/echo-encoded\":\n"
    "            return self.sized(b\"b64=\" + base64.b64encode(said) + b\" hex=\" + said.hex().encode(),\n"
    "                              (\"X-Echo\", said.decode()))\n"
    "        if self.path == \"/echo-gzip\":\n"
    "            return self.sized(gzip.compress(said), (\"Content-Encoding\", \"gzip\"))\n"
    "        if self.path == \"/accept-encoding\":\n"
    "            return self.sized(self.headers.get(\"Accept-Encoding\", \"none\").encode())\n"
    "        if self.path == \"/echo-close\":\n"
    "            self.send_response(200)\n"
    "            self.send_header(\"Connection\", \"close\")\n"
    "            self.end_headers()\n"
    "            self.wfile.write(b\"closing \" + said)\n"
    "            self.close_connection = True\n"
    "            return\n"
    "        body = b\"secure hello \" + self.path.encode()\n"
    "        self.send_response(200)\n"
    "        self.send_header(\"Content-Length\", str(len(body)))\n"
    "        self.end_headers()\n"
    "        self.wfile.write(body)\n"
    "    def log_message(self, *args):\n"
    "        pass\n"
    "server = http.server.ThreadingHTTPServer((\"127.0.0.1\", 0), Handler)\n"
    "context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)\n"
    "context.load_cert_chain(cert, key)\n"
    "server.socket = context.wrap_socket(server.socket, server_side=True)\n"
    "print(server.server_address[1], flush=True)\n"
    "server.serve_forever()\n";

// JSON output without the indentation, so that a field can be looked for as one string.
QByteArray compact(const QByteArray &json)
{
    return QJsonDocument::fromJson(json).toJson(QJsonDocument::Compact);
}

QByteArray readFile(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// The forms of a value that the checks below look for: as it is, and in base64 as a program encodes it alone
// (the characters only its first whole groups of three bytes decide).
QByteArray leakIn(const QByteArray &haystack, const QList<QByteArray> &values)
{
    for (const QByteArray &value : values) {
        for (const QByteArray &form : {value, value.toBase64().left(value.size() / 3 * 4)}) {
            if (haystack.contains(form))
                return form;
        }
    }
    return {};
}

} // namespace

class TestSecretProxy final : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_socketDir{QDir::tempPath() + QStringLiteral("/cdsp-XXXXXX")};
    QTemporaryDir m_files;
    QProcess m_server;
    QProcess m_daemon;
    QString m_dataDir;
    QString m_ca;
    QByteArray m_port;
    QString m_container;

    QString writeFile(const QString &name, const QByteArray &bytes)
    {
        const QString path = m_files.filePath(name);
        QFile file(path);
        if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size())
            return {};
        return path;
    }

    QByteArray serverLog() { return readFile(m_files.filePath(QStringLiteral("requests.log"))); }

    QByteArray historyBytes() const { return historyFileBytes(m_dataDir); }

    CliResult sh(const QString &container, const QByteArray &script)
    {
        return cordon({QStringLiteral("exec"), container, QStringLiteral("--"), QStringLiteral("/bin/sh"),
                       QStringLiteral("-c"), QString::fromUtf8(script)});
    }

    QByteArray policy(const QByteArray &name, const QByteArray &secretsJson)
    {
        const QByteArray rule =
            "{\"domain\": \"%1\", \"ports\": [" + m_port + "], \"allow_private_addresses\": true}";
        return "{\"name\": \"" + name +
               "\", \"network_policy\": {\"type\": \"allowlist\", \"allowed_domains\": [" +
               QByteArray(rule).replace("%1", "localhost") + ", " +
               QByteArray(rule).replace("%1", "127.0.0.1") + "], \"domain_secrets\": " + secretsJson + "}}";
    }

    // A run of `rotator` that prints the values it may hold (its old ROTATED saved in /mnt/data/old, the
    // domain secret's real value uploaded): masked in its stream, its logs, the events and the history's
    // bytes; the outputs holding them are kept back by the artifact scan.
    void verifyKeptMasked(const QList<QByteArray> &values, const char *when)
    {
        const CliResult run = sh(QStringLiteral("rotator"),
                                 "cat /mnt/data/old; echo; base64 /mnt/data/old\n"
                                 "cat /mnt/data/inputs/real.txt; echo; base64 -w0 /mnt/data/inputs/real.txt");
        QVERIFY2(run.status == 0 &&
                     run.out.startsWith(
                         "[secret:ROTATED]\n[secret:ROTATED]\n[secret:API_TOKEN]\n[secret:API_TOKEN]"),
                 QByteArray(QByteArray(when) + ": " + run.describe()).constData());
        QVERIFY2(leakIn(run.out + run.err, values).isEmpty(), run.describe());
        const QRegularExpressionMatch id =
            QRegularExpression(QStringLiteral("run ([0-9a-f]{16})")).match(QString::fromUtf8(run.err));
        QVERIFY2(id.hasMatch(), run.describe());
        const CliResult logs = cordon({QStringLiteral("logs"), id.captured(1)});
        QVERIFY2(logs.status == 0 && logs.out.startsWith("[secret:ROTATED]\n"), logs.describe());
        QVERIFY2(leakIn(logs.out + logs.err, values).isEmpty(), logs.describe());
        const CliResult events = cordon({QStringLiteral("events"), QStringLiteral("--json"),
                                         QStringLiteral("--container"), QStringLiteral("rotator")});
        QVERIFY2(events.status == 0 && events.out.contains("run.finished"), events.describe());
        QVERIFY2(leakIn(events.out, values).isEmpty(), events.describe());
        const QByteArray leak = leakIn(historyBytes(), values);
        QVERIFY2(leak.isEmpty(), QByteArray(QByteArray(when) + ": history.db holds " + leak).constData());

        for (const auto &[file, name] :
             {std::pair{"old.txt", "[secret:ROTATED]"}, std::pair{"real.txt", "[secret:API_TOKEN]"}}) {
            const QString destination = m_files.filePath(QStringLiteral("downloads"));
            QVERIFY(QDir().mkpath(destination));
            const CliResult copied =
                cordon({QStringLiteral("cp"), QStringLiteral("rotator:outputs/") + QLatin1String(file),
                        destination});
            QVERIFY2(copied.status == 3 && copied.err.contains("secret.value") && copied.err.contains(name),
                     QByteArray(QByteArray(when) + ": " + copied.describe()).constData());
            QVERIFY2(leakIn(copied.out + copied.err, values).isEmpty(), copied.describe());
            QVERIFY(!QFileInfo::exists(destination + QLatin1Char('/') + QLatin1String(file)));
        }
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_socketDir.isValid() && m_files.isValid());
        m_dataDir = qEnvironmentVariable("CORDON_DATA_DIR");
        const std::optional<TestCa> ca =
            makeTestCa(m_files.path(), QStringLiteral("DNS:localhost,IP:127.0.0.1"));
        const QString python = QStandardPaths::findExecutable(QStringLiteral("python3"));
        if (!ca || python.isEmpty()) {
            if (qEnvironmentVariableIntValue("CORDON_MUST_WORK") == 1)
                QFAIL("no openssl or python3 command");
            QSKIP("no openssl or python3 command");
        }
        m_ca = ca->caPem;
        m_server.start(python, {QStringLiteral("-c"), QString::fromUtf8(ServerScript), ca->serverPem,
                                ca->serverKey, m_files.filePath(QStringLiteral("requests.log"))});
        QVERIFY(m_server.waitForReadyRead(20000));
        m_port = m_server.readLine().trimmed();
        QVERIFY2(m_port.toInt() > 0, m_port.constData());

        qputenv("CORDON_SOCKET", QFile::encodeName(m_socketDir.filePath(QStringLiteral("d.sock"))));
        qputenv("CORDON_DAEMON", "/nonexistent/cordond");
        QVERIFY(QDir(m_files.path()).mkpath(QStringLiteral("config/cordon")));
        QVERIFY(!writeFile(QStringLiteral("config/cordon/org-policy.json"),
                           R"({"allowed_domains": [{"domain": "localhost", "ports": [)" + m_port +
                               R"(], "allow_private_addresses": true}, {"domain": "127.0.0.1", "ports": [)" +
                               m_port + R"(], "allow_private_addresses": true}]})")
                     .isEmpty());
        qputenv("XDG_CONFIG_HOME", QFile::encodeName(m_files.filePath(QStringLiteral("config"))));
        m_daemon.setProgram(builtProgram(QStringLiteral("cordond")));
        m_daemon.setArguments({QStringLiteral("--upstream-ca"), m_ca});
        const CliResult status = startDaemonAndWait(m_daemon);
        QVERIFY2(status.status == 0, status.describe());

        const CliResult set = cordon(
            {QStringLiteral("secret"), QStringLiteral("set"), QStringLiteral("API_TOKEN")}, Value + "\n");
        QVERIFY2(set.status == 0, set.describe());
        const QString file = writeFile(QStringLiteral("holder.json"),
                                       policy("holder", R"([{"domain": "localhost", "name": "API_TOKEN"}])"));
        const CliResult created = cordon({QStringLiteral("create"), QStringLiteral("--policy"), file});
        QVERIFY2(created.status == 0, created.describe());
        m_container = QString::fromUtf8(created.out).trimmed();
    }

    void cleanupTestCase()
    {
        cordon({QStringLiteral("daemon"), QStringLiteral("stop")});
        if (!m_daemon.waitForFinished(30000))
            m_daemon.kill();
        m_server.kill();
        m_server.waitForFinished(5000);
    }

    void theValueReachesOnlyItsDomain()
    {
        const QByteArray port = m_port;
        // Plain string literals for the URLs: moc reads two slashes in a raw string as a comment.
        const QByteArray local = "https://localhost:" + port;
        const QByteArray script =
            "printenv API_TOKEN | cut -c1-19\n"
            "echo \"whole: $API_TOKEN\"\n"
            "grep -c 'PRIVATE KEY' /etc/cordon/ca-certificates.crt\n"
            "curl -sS " +
            local +
            "/v1 -H \"Authorization: Bearer $API_TOKEN\"; echo\n"
            "python3 -c 'import os, urllib.request\n"
            "request = urllib.request.Request(\"" +
            local +
            "/py\", headers={\"authorization\": \"Token \" + os.environ[\"API_TOKEN\"]})\n"
            "print(urllib.request.urlopen(request, timeout=20).read().decode())'\n"
            "curl -sS " +
            local +
            "/ua -A \"agent $API_TOKEN\" -H \"Authorization: Bearer $API_TOKEN\"; echo\n"
            "curl -s http://127.0.0.1:" +
            port + "/steal -H \"X-Stolen: $API_TOKEN\"; echo\n";
        const CliResult run = sh(m_container, script);
        QVERIFY2(run.status == 0, run.describe());
        // The sandbox holds a placeholder, masked where the run prints it whole; the bundle has no key.
        QVERIFY2(run.out.startsWith("cordon-placeholder-\nwhole: [secret:API_TOKEN]\n0\n"), run.describe());
        QVERIFY2(run.out.contains("secure hello /v1\n"), run.describe());
        QVERIFY2(run.out.contains("secure hello /py\n"), run.describe());
        QVERIFY2(
            run.out.contains("blocked by sandbox policy: secret API_TOKEN may only be sent to localhost"),
            run.describe());
        // Only into its header (Authorization by default): a User-Agent, which servers log and echo,
        // refuses the whole request, even beside a rightful Authorization.
        QVERIFY2(
            run.out.contains("blocked by sandbox policy: secret API_TOKEN goes only in the authorization "
                             "header, not in user-agent"),
            run.describe());

        // What arrived: the value in both requests to localhost, never the placeholder, nothing at /steal.
        const QByteArray log = serverLog();
        QVERIFY2(log.contains(QByteArray("Authorization: Bearer " + Value + "\n")), log.constData());
        QVERIFY2(log.contains(QByteArray("Authorization: Token " + Value + "\n")), log.constData());
        QVERIFY(!log.contains("cordon-placeholder"));
        QVERIFY(!log.contains("/steal"));
        QVERIFY(!log.contains("/ua"));

        // Recorded: where the secret went, and the attempt to send it elsewhere.
        const CliResult allowed =
            cordon({QStringLiteral("events"), QStringLiteral("--json"), QStringLiteral("--container"),
                    m_container, QStringLiteral("--kind"), QStringLiteral("network.allowed")});
        QVERIFY2(compact(allowed.out).contains(R"("secrets_sent":["API_TOKEN"])"), allowed.describe());
        QVERIFY2(compact(allowed.out).contains(R"("tls_terminated":true)"), allowed.describe());
        const CliResult denied =
            cordon({QStringLiteral("events"), QStringLiteral("--json"), QStringLiteral("--container"),
                    m_container, QStringLiteral("--kind"), QStringLiteral("network.denied")});
        QVERIFY2(compact(denied.out).contains(R"("secret_refused":"API_TOKEN")"), denied.describe());
        const CliResult history = cordon({QStringLiteral("history"), QStringLiteral("--json"),
                                          QStringLiteral("--container"), m_container});
        QVERIFY2(compact(history.out).contains(R"("domains":["localhost"])"), history.describe());

        // `cordon network show`: the secret's domain, and where it went.
        const CliResult shown = cordon({QStringLiteral("network"), QStringLiteral("show"), m_container});
        QVERIFY2(shown.out.contains("secret API_TOKEN only to localhost (TLS terminated there)"),
                 shown.describe());
        QVERIFY2(QRegularExpression(QStringLiteral("API_TOKEN +sent +2 localhost"))
                     .match(QString::fromUtf8(shown.out))
                     .hasMatch(),
                 shown.describe());
        QVERIFY2(QRegularExpression(QStringLiteral("API_TOKEN +refused +1 127\\.0\\.0\\.1"))
                     .match(QString::fromUtf8(shown.out))
                     .hasMatch(),
                 shown.describe());

        // Kept nowhere: neither the value nor the placeholder.
        for (const QByteArray &kept : {historyBytes(), allowed.out, denied.out, history.out, shown.out}) {
            QVERIFY(!kept.contains(Value));
            QVERIFY(!kept.contains("cordon-placeholder-API_TOKEN-"));
        }
    }

    void aDomainWithoutSecretsIsABlindTunnel()
    {
        // curl trusts only the test CA here: it connects only if it sees the server's own certificate.
        const QByteArray ca = readFile(m_ca);
        const CliResult run =
            sh(m_container,
               "printf '%s' '" + ca +
                   "' > /tmp/test-ca.pem\ncurl -sS --cacert /tmp/test-ca.pem https://127.0.0.1:" + m_port +
                   "/blind -H \"X-Token: $API_TOKEN\"");
        QVERIFY2(run.status == 0 && run.out == "secure hello /blind", run.describe());
        // Not intercepted, so the placeholder went as it was: worthless there.
        QVERIFY(serverLog().contains("X-Token: cordon-placeholder-API_TOKEN-"));
    }

    void thePlaceholderOutlivesADaemonRestartAndARemovedSecretIsRefused()
    {
        // A program may have saved the placeholder in its workspace (.netrc, .env): it stays the same when
        // the daemon restarts, and the new daemon's proxy still puts the value in its place.
        const QByteArray hash = "printenv API_TOKEN | sha256sum | cut -c1-16";
        const CliResult before = sh(m_container, hash);
        QVERIFY2(before.status == 0 && before.out.size() == 17, before.describe());
        QVERIFY(cordon({QStringLiteral("daemon"), QStringLiteral("stop")}).status == 0);
        QVERIFY(m_daemon.waitForFinished(30000));
        const CliResult status = startDaemonAndWait(m_daemon);
        QVERIFY2(status.status == 0, status.describe());
        const CliResult after = sh(m_container, hash + "\ncurl -sS https://localhost:" + m_port +
                                                    "/again -H \"Authorization: Bearer $API_TOKEN\"");
        QVERIFY2(after.status == 0 && after.out == before.out + "secure hello /again", after.describe());
        QVERIFY(serverLog().contains(QByteArray("GET /again HTTP/1.1\nHost: localhost:" + m_port)));

        // Removed from the store while a program still runs: the proxy refuses the placeholder instead of
        // sending it as it is (the next run would not start without the secret).
        const CliResult background =
            sh(m_container, "(sleep 3; curl -sS https://localhost:" + m_port +
                                "/gone -H \"Authorization: Bearer $API_TOKEN\" > /tmp/gone.txt 2>&1) "
                                "> /dev/null 2>&1 &");
        QVERIFY2(background.status == 0, background.describe());
        const CliResult removed =
            cordon({QStringLiteral("secret"), QStringLiteral("rm"), QStringLiteral("API_TOKEN")});
        QVERIFY2(removed.status == 0, removed.describe());
        QThread::sleep(5);
        const CliResult set = cordon(
            {QStringLiteral("secret"), QStringLiteral("set"), QStringLiteral("API_TOKEN")}, Value + "\n");
        QVERIFY2(set.status == 0, set.describe());
        const CliResult gone = sh(m_container, "cat /tmp/gone.txt");
        QVERIFY2(gone.out.contains("secret API_TOKEN is no longer in the store"), gone.describe());
        QVERIFY(!serverLog().contains("/gone"));
    }

    void anEchoedValueNeverReachesTheSandbox()
    {
        // The stars give an attacker the value's length and a marker its offset; padding then moves it across
        // a 4096-byte chunk boundary, where framing bytes split it. Masked on the decoded body, it stays
        // stars.
        const QByteArray url = "https://localhost:" + m_port;
        const QByteArray bearer = "-H \"Authorization: Bearer $API_TOKEN\"";
        QByteArray script;
        for (int pad : {4096 - 7 - 10, 4096 - 7 - 20, 4096 - 7 - 27, 2 * 4096 - 7 - 3})
            script += "curl -sS " + url + "/echo-chunked/" + QByteArray::number(pad) + " " + bearer +
                      " | tail -c 50; echo\n";
        script += "curl -sS -i " + url + "/echo-encoded " + bearer + "; echo\n";
        script += "curl -sS " + url + "/echo-close " + bearer + "; echo\n";
        script += "curl -sS --compressed " + url + "/accept-encoding " + bearer + "; echo\n";
        script += "curl -sS " + url + "/accept-encoding; echo\n";
        script +=
            "curl -sS -H 'Accept-Encoding: gzip' " + url + "/echo-gzip " + bearer + " | head -c 400; echo\n";
        const CliResult run = sh(m_container, script);
        QVERIFY2(run.status == 0, run.describe());
        const QByteArray stars(Value.size(), '*');
        QCOMPARE(run.out.count(QByteArray("Bearer " + stars + " end")), 4);
        QVERIFY2(run.out.contains(QByteArray("X-Echo: Bearer " + stars)), run.describe());
        QVERIFY2(run.out.contains(QByteArray("closing Bearer " + stars)), run.describe());
        // Encoded echoes: no more than two characters of a partial symbol stay beside the mask.
        const QByteArray base64 = QByteArray("Bearer " + Value).toBase64();
        const QByteArray hex = QByteArray("Bearer " + Value).toHex();
        QVERIFY2(run.out.contains("b64=") && !run.out.contains(base64.mid(12, 20)), run.describe());
        QVERIFY2(run.out.contains("hex=") && !run.out.contains(hex.mid(16, 30)), run.describe());
        // A request with the value asks for identity; one without is left as the program wrote it.
        QVERIFY2(run.out.contains("\nidentity\n") && run.out.contains("\nnone\n"), run.describe());
        // A compressed echo cannot be looked into: refused, with the reason the program reads.
        QVERIFY2(run.out.contains("is compressed (gzip)"), run.describe());
        QVERIFY2(!run.out.contains(Value) && !run.out.contains(Value.mid(4, 12)), run.describe());
        const CliResult denied =
            cordon({QStringLiteral("events"), QStringLiteral("--json"), QStringLiteral("--container"),
                    m_container, QStringLiteral("--kind"), QStringLiteral("network.denied")});
        QVERIFY2(denied.out.contains("is compressed (gzip)"), denied.describe());
    }

    void aClientOfferingOtherProtocolsGetsAnAnswer()
    {
        // ALPN: the terminating proxy offers only what it speaks (HTTP/1.x). A client that offers only
        // http/1.0 is served; one that offers only h2 is told in HTTP/2's own words to use HTTP/1.1.
        const QByteArray script =
            "python3 - " + m_port +
            " <<'EOF'\n"
            "import os, socket, ssl, sys, urllib.parse\n"
            "proxy = urllib.parse.urlsplit(os.environ[\"HTTPS_PROXY\"])\n"
            "port, token = sys.argv[1], os.environ[\"API_TOKEN\"]\n"
            "for offer in (\"h2\", \"http/1.0\"):\n"
            "    raw = socket.create_connection((proxy.hostname, proxy.port), timeout=20)\n"
            "    raw.sendall((\"CONNECT localhost:%s HTTP/1.1\\r\\nHost: localhost:%s\\r\\n\\r\\n\" % (port, "
            "port)).encode())\n"
            "    head = b\"\"\n"
            "    while not head.endswith(b\"\\r\\n\\r\\n\"):\n"
            "        head += raw.recv(1)\n"
            "    context = ssl.create_default_context(cafile=os.environ[\"SSL_CERT_FILE\"])\n"
            "    context.set_alpn_protocols([offer])\n"
            "    try:\n"
            "        tls = context.wrap_socket(raw, server_hostname=\"localhost\")\n"
            "    except ssl.SSLError as error:\n"
            "        print(offer, \"refused in the handshake:\", error.reason)\n"
            "        continue\n"
            "    print(offer, \"selected\", tls.selected_alpn_protocol())\n"
            "    if offer == \"h2\":\n"
            "        tls.sendall(b\"PRI * HTTP/2.0\\r\\n\\r\\nSM\\r\\n\\r\\n\" + bytes(9)[:3] + bytes([4, 0, "
            "0, 0, 0, 0]))\n"
            "    else:\n"
            "        tls.sendall((\"GET /alpn HTTP/1.0\\r\\nHost: localhost:%s\\r\\nAuthorization: Bearer "
            "%s\\r\\n\\r\\n\" % (port, token)).encode())\n"
            "    data = b\"\"\n"
            "    try:\n"
            "        while True:\n"
            "            chunk = tls.recv(4096)\n"
            "            if not chunk:\n"
            "                break\n"
            "            data += chunk\n"
            "    except (OSError, ssl.SSLError):\n"
            "        pass\n"
            "    if offer == \"http/1.0\":\n"
            "        print(offer, \"answer\", data.split(b\"\\r\\n\")[0].decode(), "
            "data.split(b\"\\r\\n\\r\\n\")[-1].decode())\n"
            "        continue\n"
            "    at = 0\n"
            "    while at + 9 <= len(data):\n"
            "        length, kind = int.from_bytes(data[at:at + 3], \"big\"), data[at + 3]\n"
            "        if kind == 7:\n"
            "            print(offer, \"goaway\", int.from_bytes(data[at + 13:at + 17], \"big\"), data[at + "
            "17:at + 9 + length].decode())\n"
            "        at += 9 + length\n"
            "    print(offer, \"read\", len(data), data[:60])\n"
            "EOF\n";
        const CliResult run = sh(m_container, script);
        QVERIFY2(run.status == 0, run.describe());
        QVERIFY2(run.out.contains("h2 selected None\nh2 goaway 13 the proxy speaks HTTP/1.1"),
                 run.describe());
        QVERIFY2(
            run.out.contains("http/1.0 selected None\nhttp/1.0 answer HTTP/1.1 200 OK secure hello /alpn"),
            run.describe());
        QVERIFY(serverLog().contains(QByteArray("GET /alpn HTTP/1.0\nHost: localhost:" + m_port)));
        // The ledger names the cause, not a certificate the program never refused.
        const CliResult events = cordon(
            {QStringLiteral("events"), QStringLiteral("--json"), QStringLiteral("--container"), m_container});
        QVERIFY2(
            events.out.contains("the program spoke HTTP/2 to localhost, which the proxy does not terminate"),
            events.describe());
        QVERIFY2(!events.out.contains("did not accept the proxy's certificate"), events.describe());
    }

    void aKilledDaemonsContainerIsAdoptedWithItsAuthority()
    {
        // The programs inside trust their container's authority alone. A daemon killed (or upgraded) while
        // the container runs left it beside the workspace, for the owner only; the next daemon's proxy speaks
        // with it, so the container and its background process go on.
        const QString saved =
            m_dataDir + QStringLiteral("/containers/") + m_container + QStringLiteral("/authority.pem");
        QVERIFY2(QFileInfo::exists(saved), qPrintable(saved));
        const QFile::Permissions others = QFile::ReadGroup | QFile::WriteGroup | QFile::ExeGroup |
                                          QFile::ReadOther | QFile::WriteOther | QFile::ExeOther;
        QCOMPARE(QFileInfo(saved).permissions() & others, QFile::Permissions());
        QVERIFY(readFile(saved).contains("PRIVATE KEY"));
        const QByteArray url = "https://localhost:" + m_port;
        const CliResult sleeper =
            sh(m_container, "sleep 600 > /dev/null 2>&1 &\necho $! > /tmp/sleeper; cat /tmp/sleeper");
        QVERIFY2(sleeper.status == 0 && sleeper.out.trimmed().toInt() > 0, sleeper.describe());

        const auto containerEvents = [this](const QString &kind) {
            const CliResult listed =
                cordon({QStringLiteral("events"), QStringLiteral("--json"), QStringLiteral("--container"),
                        m_container, QStringLiteral("--kind"), kind});
            return compact(listed.out);
        };
        const qsizetype restartsBefore =
            containerEvents(QStringLiteral("container.restarted")).count(R"("kind":"container.restarted")");
        m_daemon.kill();
        QVERIFY(m_daemon.waitForFinished(10000));
        CliResult status = startDaemonAndWait(m_daemon);
        QVERIFY2(status.status == 0, status.describe());
        const QByteArray check = "kill -0 $(cat /tmp/sleeper) && echo alive\ncurl -sS " + url +
                                 "/adopted -H \"Authorization: Bearer $API_TOKEN\"";
        const CliResult adopted = sh(m_container, check);
        QVERIFY2(adopted.status == 0 && adopted.out == "alive\nsecure hello /adopted", adopted.describe());
        QVERIFY(serverLog().contains(QByteArray("GET /adopted HTTP/1.1\nHost: localhost:" + m_port)));
        const QByteArray events = containerEvents(QStringLiteral("container."));
        QCOMPARE(events.count(R"("kind":"container.adopted")"), 1);
        QCOMPARE(events.count(R"("kind":"container.restarted")"), restartsBefore);

        // Without it (a key deleted or damaged), the container is saved, ended and started again with a new
        // authority, and the event says why; its next programs trust the new one.
        QVERIFY(QFile::remove(saved));
        m_daemon.kill();
        QVERIFY(m_daemon.waitForFinished(10000));
        status = startDaemonAndWait(m_daemon);
        QVERIFY2(status.status == 0, status.describe());
        const CliResult restarted = sh(m_container, check);
        // Started again: its /tmp and background process are gone, its new authority trusted.
        QVERIFY2(!restarted.out.contains("alive") && restarted.out.endsWith("secure hello /adopted"),
                 restarted.describe());
        const CliResult refused =
            cordon({QStringLiteral("events"), QStringLiteral("--json"), QStringLiteral("--container"),
                    m_container, QStringLiteral("--kind"), QStringLiteral("container.adoption_refused")});
        QVERIFY2(refused.out.contains("certificate authority was not saved"), refused.describe());
        QVERIFY2(QFileInfo::exists(saved), "the new authority is saved for the daemon after this one");
    }

    // Everything a container was given or could obtain is masked in what Cordon keeps (docs/secrets.md,
    // "Masking"): the previous value of a secret set again, which a program saved in its files, and a domain
    // secret's real value brought in by an upload, in a run's output, the events, the history's bytes, and
    // the artifact scan of a download. The previous value also by the next daemon, which adopted the
    // container after a kill.
    void everyValueAContainerHeldIsMaskedInWhatIsKept()
    {
        const QByteArray oldValue = "rot-old-Vq8Lm2Xc7R";
        const QByteArray newValue = "rot-new-Pz3Kw9Ys5D";
        const CliResult first = cordon(
            {QStringLiteral("secret"), QStringLiteral("set"), QStringLiteral("ROTATED")}, oldValue + "\n");
        QVERIFY2(first.status == 0, first.describe());
        QByteArray json = policy("rotator", R"([{"domain": "localhost", "name": "API_TOKEN"}])");
        json.replace(0, 1, R"({"secrets": [{"name": "ROTATED"}], )");
        const CliResult created = cordon({QStringLiteral("create"), QStringLiteral("--policy"),
                                          writeFile(QStringLiteral("rotator.json"), json)});
        QVERIFY2(created.status == 0, created.describe());
        const QString real = writeFile(QStringLiteral("real.txt"), Value);
        const CliResult uploaded = cordon({QStringLiteral("cp"), real, QStringLiteral("rotator:")});
        QVERIFY2(uploaded.status == 0, uploaded.describe());
        const CliResult saved = sh(QStringLiteral("rotator"),
                                   "printf %s \"$ROTATED\" > /mnt/data/old && cd /mnt/data/outputs && "
                                   "cp /mnt/data/old old.txt && cp /mnt/data/inputs/real.txt real.txt");
        QVERIFY2(saved.status == 0, saved.describe());
        const CliResult rotated = cordon(
            {QStringLiteral("secret"), QStringLiteral("set"), QStringLiteral("ROTATED")}, newValue + "\n");
        QVERIFY2(rotated.status == 0, rotated.describe());

        const QList<QByteArray> held{oldValue, Value};
        verifyKeptMasked(held, "after the secret was set again");
        if (QTest::currentTestFailed())
            return;

        m_daemon.kill();
        QVERIFY(m_daemon.waitForFinished(10000));
        const CliResult status = startDaemonAndWait(m_daemon);
        QVERIFY2(status.status == 0, status.describe());
        QCOMPARE(eventsOfKind(QStringLiteral("rotator"), QStringLiteral("container.adopted")).size(), 1);
        verifyKeptMasked(held, "after a daemon was killed and the next one adopted the container");
        if (QTest::currentTestFailed())
            return;

        // The store keeps the old value for the containers that received it, and no longer once they are
        // gone.
        const QString store = m_dataDir + QStringLiteral("/secrets.json");
        QVERIFY(readFile(store).contains(oldValue));
        const CliResult removed =
            cordon({QStringLiteral("rm"), QStringLiteral("--force"), QStringLiteral("rotator")});
        QVERIFY2(removed.status == 0, removed.describe());
        QVERIFY(!readFile(store).contains(oldValue));
        QVERIFY(readFile(store).contains(newValue));
    }

    void badDomainSecretPoliciesAreClearErrors()
    {
        const auto refused = [&](const QByteArray &name, const QByteArray &secretsJson,
                                 const char *expected) {
            const QString file =
                writeFile(QString::fromUtf8(name) + QStringLiteral(".json"), policy(name, secretsJson));
            const CliResult created = cordon({QStringLiteral("create"), QStringLiteral("--policy"), file});
            QVERIFY2(created.status != 0 && created.err.contains(expected), created.describe());
        };
        refused("unknown", R"([{"domain": "localhost", "name": "NOT_IN_STORE"}])",
                "cordon secret set NOT_IN_STORE");
        refused("inline", R"([{"domain": "localhost", "name": "API_TOKEN", "value": "x"}])",
                "a policy never holds a secret's value");
        refused("elsewhere", R"([{"domain": "api.example.com", "name": "API_TOKEN"}])",
                "which allowed_domains does not allow");
        // A one-shot run has no container to hold an authority.
        const QString file =
            writeFile(QStringLiteral("oneshot.json"),
                      policy("oneshot", R"([{"domain": "localhost", "name": "API_TOKEN"}])"));
        const CliResult oneShot = cordon({QStringLiteral("run"), QStringLiteral("--policy"), file,
                                          QStringLiteral("--"), QStringLiteral("/bin/true")});
        QVERIFY2(oneShot.status != 0 && oneShot.err.contains("domain secrets need a container"),
                 oneShot.describe());
        const CliResult status = cordon({QStringLiteral("daemon"), QStringLiteral("status")});
        QVERIFY2(status.status == 0, status.describe());
    }
};

CORDON_SANDBOX_TEST_MAIN(TestSecretProxy)
#include "tst_secretproxy.moc"
