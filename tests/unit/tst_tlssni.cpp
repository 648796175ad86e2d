// SPDX-License-Identifier: MIT
// SNI extraction from real ClientHellos (one captured from `openssl s_client -servername pypi.org`, one made
// by a QSslSocket handshake during the test), from every truncation of them, from ClientHellos split over
// records, and from hand-built malformed ones and garbage.
#include "network/tlssni.h"

#include "testutil.h"

#include <QObject>
#include <QRandomGenerator>
#include <QSignalSpy>
#include <QSslSocket>
#include <QTcpServer>
#include <QTcpSocket>

using namespace Cordon;
using namespace Cordon::Network;

namespace {

QString str(const char *text)
{
    return QString::fromUtf8(text);
}

// `openssl s_client -connect 127.0.0.1:PORT -servername pypi.org -tls1_3`, OpenSSL 3.0.
const QByteArray OpensslHello = QByteArray::fromHex(
    "16030100ed010000e9030341354ebaf4b694a2c75f2a2cdeca5d18f24daba5dbe4afc4eda9b71a751ce4c720bece74f80bbb"
    "27b4652c84a65db79a723f000856094250290c5899475262df70000813021303130100ff010000980000000d000b00000870"
    "7970692e6f7267000b000403000102000a00160014001d0017001e0019001801000101010201030104002300000016000000"
    "170000000d001e001c040305030603080708080809080a080b080408050806040105010601002b0003020304002d00020101"
    "003300260024001d002016aaf6021d9c43b0ff57d133b09c2514cdfb2295274d9ca958bb98feb171b941");

QByteArray u16(int value)
{
    QByteArray out;
    out.append(char((value >> 8) & 0xff));
    out.append(char(value & 0xff));
    return out;
}

QByteArray u24(int value)
{
    return QByteArray(1, char((value >> 16) & 0xff)) + u16(value);
}

QByteArray extension(int type, const QByteArray &data)
{
    return u16(type) + u16(int(data.size())) + data;
}

QByteArray serverName(const QByteArray &name, int type = 0)
{
    return QByteArray(1, char(type)) + u16(int(name.size())) + name;
}

QByteArray sniExtension(const QByteArray &entries)
{
    return extension(0, u16(int(entries.size())) + entries);
}

// A minimal ClientHello body: version, random, empty session id, one cipher suite, null compression, then
// extensions (omitted entirely when null).
QByteArray helloBody(const QByteArray &extensions, bool withExtensions = true)
{
    QByteArray body = u16(0x0303) + QByteArray(32, '\x42') + QByteArray(1, '\0') + u16(2) + u16(0x1301) +
                      QByteArray(1, '\x01') + QByteArray(1, '\0');
    if (withExtensions)
        body += u16(int(extensions.size())) + extensions;
    return body;
}

QByteArray handshake(const QByteArray &body, int type = 1)
{
    return QByteArray(1, char(type)) + u24(int(body.size())) + body;
}

QByteArray record(const QByteArray &payload, int type = 22)
{
    return QByteArray(1, char(type)) + u16(0x0301) + u16(int(payload.size())) + payload;
}

Result<ClientHelloSni> parse(const QByteArray &bytes)
{
    return parseClientHelloSni(bytes);
}

} // namespace

class TestTlsSni : public QObject
{
    Q_OBJECT

private slots:
    void opensslHello();
    void everyTruncationIsIncomplete();
    void splitOverRecords();
    void qsslSocketHello();
    void synthetic();
    void malformed_data();
    void malformed();
    void notTls_data();
    void notTls();
    void mutationsNeverCrash();
};

void TestTlsSni::opensslHello()
{
    const Result<ClientHelloSni> hello = parse(OpensslHello);
    QVERIFY_RESULT(hello);
    QCOMPARE(hello->status, ClientHelloSni::Status::Found);
    QCOMPARE(hello->serverName, str("pypi.org"));
    // Bytes after the ClientHello (early data, the next record) do not matter.
    const Result<ClientHelloSni> withMore = parse(OpensslHello + record("xyz", 23));
    QVERIFY_RESULT(withMore);
    QCOMPARE(withMore->serverName, str("pypi.org"));
}

void TestTlsSni::everyTruncationIsIncomplete()
{
    for (qsizetype length = 0; length < OpensslHello.size(); ++length) {
        const Result<ClientHelloSni> hello = parse(OpensslHello.left(length));
        QVERIFY2(hello, qPrintable(QStringLiteral("%1 bytes: %2")
                                       .arg(length)
                                       .arg(hello ? QString() : toQt(hello.error().message()))));
        QCOMPARE(hello->status, ClientHelloSni::Status::Incomplete);
    }
}

void TestTlsSni::splitOverRecords()
{
    // The same handshake message, fragmented over three records as RFC 8446 5.1 allows.
    const QByteArray message = OpensslHello.mid(5);
    const QByteArray split = record(message.left(3)) + record(message.mid(3, 100)) + record(message.mid(103));
    const Result<ClientHelloSni> hello = parse(split);
    QVERIFY_RESULT(hello);
    QCOMPARE(hello->serverName, str("pypi.org"));
    for (qsizetype length = 0; length < split.size(); ++length) {
        const Result<ClientHelloSni> partial = parse(split.left(length));
        QVERIFY_RESULT(partial);
        QCOMPARE(partial->status, ClientHelloSni::Status::Incomplete);
    }
    // A record of another type in the middle is not a ClientHello.
    const QByteArray interrupted = record(message.left(3)) + record("x", 23) + record(message.mid(3));
    const Result<ClientHelloSni> bad = parse(interrupted);
    QVERIFY(!bad);
    QCOMPARE(bad.error().code(), "network.bad_client_hello");
}

void TestTlsSni::qsslSocketHello()
{
    if (!QSslSocket::supportsSsl())
        SKIP_UNLESS_MUST_WORK("Qt has no TLS backend with SSL support here");
    QTcpServer server;
    QVERIFY(server.listen(QHostAddress::LocalHost));
    QSslSocket client;
    client.setPeerVerifyMode(QSslSocket::VerifyNone);
    client.connectToHostEncrypted(str("127.0.0.1"), server.serverPort(), str("Files.PythonHosted.org"));
    QVERIFY(server.waitForNewConnection(5000));
    QTcpSocket *accepted = server.nextPendingConnection();
    QByteArray bytes;
    Result<ClientHelloSni> hello = parse(bytes);
    for (int i = 0; i < 50 && hello && hello->status == ClientHelloSni::Status::Incomplete; ++i) {
        if (accepted->bytesAvailable() == 0)
            QTest::qWait(50);
        bytes += accepted->readAll();
        hello = parse(bytes);
    }
    QVERIFY_RESULT(hello);
    QCOMPARE(hello->status, ClientHelloSni::Status::Found);
    // As sent: the proxy normalises before comparing.
    QCOMPARE(hello->serverName.toLower(), str("files.pythonhosted.org"));
    client.abort();
}

void TestTlsSni::synthetic()
{
    const Result<ClientHelloSni> plain =
        parse(record(handshake(helloBody(sniExtension(serverName("a.example"))))));
    QVERIFY_RESULT(plain);
    QCOMPARE(plain->serverName, str("a.example"));

    // Other extensions around it are skipped.
    const QByteArray around = extension(0x000a, u16(2) + u16(0x001d)) +
                              sniExtension(serverName("b.example")) + extension(0xff01, QByteArray(1, '\0'));
    const Result<ClientHelloSni> surrounded = parse(record(handshake(helloBody(around))));
    QVERIFY_RESULT(surrounded);
    QCOMPARE(surrounded->serverName, str("b.example"));

    // No server_name: what clients send for IP addresses.
    const Result<ClientHelloSni> none = parse(record(handshake(helloBody(extension(0x000a, u16(0))))));
    QVERIFY_RESULT(none);
    QCOMPARE(none->status, ClientHelloSni::Status::Absent);
    const Result<ClientHelloSni> noExtensions = parse(record(handshake(helloBody({}, false))));
    QVERIFY_RESULT(noExtensions);
    QCOMPARE(noExtensions->status, ClientHelloSni::Status::Absent);
}

void TestTlsSni::malformed_data()
{
    QTest::addColumn<QByteArray>("bytes");

    const auto hello = [](const QByteArray &extensions) { return record(handshake(helloBody(extensions))); };
    QTest::newRow("two host names") << hello(sniExtension(serverName("a.example") + serverName("b.example")));
    QTest::newRow("two sni extensions")
        << hello(sniExtension(serverName("a.example")) + sniExtension(serverName("b.example")));
    QTest::newRow("duplicate other extension") << hello(extension(5, "") + extension(5, ""));
    QTest::newRow("empty name") << hello(sniExtension(serverName("")));
    QTest::newRow("empty list") << hello(sniExtension(""));
    QTest::newRow("unknown name type") << hello(sniExtension(serverName("a.example", 1)));
    QTest::newRow("slash in name") << hello(sniExtension(serverName("a.example/x")));
    QTest::newRow("nul in name") << hello(sniExtension(serverName(QByteArray("a.example\0b.evil", 16))));
    QTest::newRow("non-ascii name") << hello(sniExtension(serverName("b\xc3\xbc"
                                                                     "cher.example")));
    QTest::newRow("space in name") << hello(sniExtension(serverName("a example")));
    QTest::newRow("name over 255") << hello(sniExtension(serverName(QByteArray(256, 'a'))));
    QTest::newRow("list length short") << hello(extension(0, u16(3) + serverName("a.example")));
    QTest::newRow("list length long") << hello(extension(0, u16(200) + serverName("a.example")));
    QTest::newRow("entry length long")
        << hello(extension(0, u16(12) + QByteArray(1, '\0') + u16(100) + "a.example"));
    QTest::newRow("extension length long") << hello(u16(0) + u16(500) + "x");
    QTest::newRow("extensions block short")
        << record(handshake(helloBody(sniExtension(serverName("a.example"))) + "junk"));
    QTest::newRow("server hello") << record(handshake(helloBody(""), 2));
    QTest::newRow("no cipher suites")
        << record(handshake(u16(0x0303) + QByteArray(32, 'r') + QByteArray(1, '\0') + u16(0) +
                            QByteArray(1, '\x01') + QByteArray(1, '\0')));
    QTest::newRow("odd cipher suites")
        << record(handshake(u16(0x0303) + QByteArray(32, 'r') + QByteArray(1, '\0') + u16(3) + "abc" +
                            QByteArray(1, '\x01') + QByteArray(1, '\0')));
    QTest::newRow("long session id") << record(
        handshake(u16(0x0303) + QByteArray(32, 'r') + QByteArray(1, '\x21') + QByteArray(33, 's') + u16(2) +
                  u16(0x1301) + QByteArray(1, '\x01') + QByteArray(1, '\0')));
    QTest::newRow("message shorter than hello") << record(QByteArray(1, '\x01') + u24(10) + helloBody(""));
    QTest::newRow("handshake over 64 KiB") << record(QByteArray(1, '\x01') + u24(70000) + "x");
    QTest::newRow("empty record") << record("");
    QTest::newRow("record over 16 KiB") << QByteArray("\x16\x03\x01\x40\x01", 5);
}

void TestTlsSni::malformed()
{
    QFETCH(QByteArray, bytes);
    const Result<ClientHelloSni> hello = parse(bytes);
    QVERIFY2(!hello, hello ? qPrintable(hello->serverName) : "");
    QCOMPARE(hello.error().code(), "network.bad_client_hello");
}

void TestTlsSni::notTls_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::newRow("http") << QByteArray("GET / HTTP/1.1\r\nHost: pypi.org\r\n\r\n");
    QTest::newRow("http first byte") << QByteArray("G");
    QTest::newRow("ssh") << QByteArray("SSH-2.0-OpenSSH_9.2\r\n");
    QTest::newRow("sslv2") << QByteArray("\x80\x2e\x01\x00\x02", 5);
    QTest::newRow("application data first") << record("xyz", 23);
    QTest::newRow("bad record version") << QByteArray("\x16\x04\x01\x00\x10", 5);
    QTest::newRow("bad version second byte only") << QByteArray("\x16\x02", 2);
}

void TestTlsSni::notTls()
{
    QFETCH(QByteArray, bytes);
    const Result<ClientHelloSni> hello = parse(bytes);
    QVERIFY(!hello);
    QCOMPARE(hello.error().code(), "network.not_tls");
}

void TestTlsSni::mutationsNeverCrash()
{
    // A small in-test fuzz run over the real ClientHello; the libFuzzer target in tests/fuzz goes further.
    QRandomGenerator random(4242);
    int found = 0;
    for (int i = 0; i < 20000; ++i) {
        QByteArray bytes = OpensslHello;
        const int flips = 1 + int(random.bounded(4));
        for (int f = 0; f < flips; ++f)
            bytes[random.bounded(int(bytes.size()))] = char(random.bounded(256));
        if (random.bounded(4) == 0)
            bytes.truncate(random.bounded(int(bytes.size())));
        const Result<ClientHelloSni> hello = parse(bytes);
        if (hello && hello->status == ClientHelloSni::Status::Found) {
            ++found;
            for (QChar c : hello->serverName)
                QVERIFY(c.isLetterOrNumber() || c == u'.' || c == u'-' || c == u'_');
        }
    }
    QVERIFY(found > 0);
}

QTEST_GUILESS_MAIN(TestTlsSni)
#include "tst_tlssni.moc"
