// SPDX-License-Identifier: MIT
// The proxy's request reader on literal bytes: what it accepts and how it re-frames bodies, every smuggling
// and confusion trick it must refuse (SECURITY.md 2.6, 2.8, 2.9, 2.10), keep-alive, byte-at-a-time feeding,
// the head it sends upstream, and the response framer. The first test records what libhttp-parser 2.9 lets
// through on its own, which is why the explicit checks exist.
#include "network/chunkframing.h"
#include "network/httprequest.h"
#include "network/httpresponse.h"

#include "testutil.h"

#include <QObject>

#include <http_parser.h>

using namespace Cordon;
using namespace Cordon::Network;

namespace {

QString str(const char *text)
{
    return QString::fromUtf8(text);
}

struct Parsed
{
    HttpRequestParser::State state = HttpRequestParser::State::Head;
    HttpRequestHead head;
    QByteArray body; // re-framed for the upstream
    qsizetype consumed = 0;
    QString code;
    QString message;
};

// Feeds bytes in pieces of step (0: all at once) through head and body, like a connection would.
Parsed parse(const QByteArray &bytes, qsizetype step = 0, const std::optional<Authority> &tunnel = {})
{
    HttpRequestParser parser = tunnel ? HttpRequestParser(*tunnel) : HttpRequestParser();
    Parsed result;
    QByteArray pending;
    qsizetype offered = 0;
    while (true) {
        if (pending.isEmpty()) {
            if (offered >= bytes.size())
                break;
            const qsizetype take = step == 0 ? bytes.size() : std::min(step, bytes.size() - offered);
            pending = bytes.mid(offered, take);
            offered += take;
        }
        const auto before = parser.state();
        const qsizetype used = parser.feed(pending, &result.body);
        pending.remove(0, used);
        result.consumed += used;
        if (parser.state() == HttpRequestParser::State::Failed ||
            parser.state() == HttpRequestParser::State::Done)
            break;
        if (used == 0 && parser.state() == before && !pending.isEmpty())
            break;
    }
    result.state = parser.state();
    if (parser.state() == HttpRequestParser::State::Failed) {
        result.code = toQt(parser.error().code());
        result.message = toQt(parser.error().message());
    } else if (parser.state() != HttpRequestParser::State::Head) {
        result.head = parser.head();
    }
    return result;
}

QByteArray headerLines(int count)
{
    QByteArray out;
    for (int i = 0; i < count; ++i)
        out += "X-H" + QByteArray::number(i) + ": v\r\n";
    return out;
}

// What libhttp-parser alone says about bytes: true when it parses them as a complete request without error.
bool libraryAccepts(const QByteArray &bytes)
{
    http_parser parser;
    http_parser_init(&parser, HTTP_REQUEST);
    http_parser_settings settings;
    http_parser_settings_init(&settings);
    static bool complete;
    complete = false;
    settings.on_message_complete = [](http_parser *) {
        complete = true;
        return 0;
    };
    http_parser_execute(&parser, &settings, bytes.constData(), size_t(bytes.size()));
    return HTTP_PARSER_ERRNO(&parser) == HPE_OK && complete;
}

} // namespace

class TestHttpRequest : public QObject
{
    Q_OBJECT

private slots:
    void libraryLeniencies();
    void accepted_data();
    void accepted();
    void refused_data();
    void refused();
    void chunkFraming_data();
    void chunkFraming();
    void incrementalFeeding_data();
    void incrementalFeeding();
    void reframedBodies();
    void connectLeavesTunnelBytes();
    void keepAlive();
    void keepAliveSecondRequestChecked();
    void upstreamHead();
    void insideATerminatedTunnel();
    void response_data();
    void response();
    void responseTrailingBytesAndErrors();
};

void TestHttpRequest::libraryLeniencies()
{
    // If a future libhttp-parser refuses these itself, the explicit checks become redundant, not wrong.
    QVERIFY(libraryAccepts("GET http://a/ HTTP/1.1\nHost: a\n\n"));          // bare LF
    QVERIFY(libraryAccepts("GET http://a/ HTTP/1.1\r\nX: y\r\n z\r\n\r\n")); // obs-fold
    QVERIFY(libraryAccepts("POST http://a/ HTTP/1.1\r\nTransfer-Encoding : chunked\r\n\r\n0\r\n\r\n"));
    QVERIFY(
        libraryAccepts("POST http://a/ HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcXX0\r\n\r\n"));
    QVERIFY(libraryAccepts("GET / HTTP/2.0\r\n\r\n"));
    QVERIFY(libraryAccepts("GET  http://a/ HTTP/1.1\r\n\r\n"));
    QVERIFY(libraryAccepts("GET http://a/\tb HTTP/1.1\r\n\r\n"));
    // And what it refuses on its own.
    QVERIFY(
        !libraryAccepts("POST http://a/ HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n"
                        "0\r\n\r\n"));
    QVERIFY(!libraryAccepts("POST http://a/ HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc"));
}

void TestHttpRequest::accepted_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("host");
    QTest::addColumn<int>("port");
    QTest::addColumn<QByteArray>("originForm");
    QTest::addColumn<QString>("path");

    QTest::newRow("get") << QByteArray(
                                "GET http://example.com/a/b?x=1&y=2 HTTP/1.1\r\nHost: example.com\r\n\r\n")
                         << str("example.com") << 80 << QByteArray("/a/b?x=1&y=2") << str("/a/b");
    QTest::newRow("no path") << QByteArray("GET http://example.com HTTP/1.1\r\n\r\n") << str("example.com")
                             << 80 << QByteArray("/") << str("/");
    QTest::newRow("query only") << QByteArray("GET http://example.com?q HTTP/1.1\r\n\r\n")
                                << str("example.com") << 80 << QByteArray("/?q") << str("/");
    QTest::newRow("port") << QByteArray(
                                 "GET http://Example.COM.:8080/x HTTP/1.1\r\nHost: example.com:8080\r\n\r\n")
                          << str("example.com") << 8080 << QByteArray("/x") << str("/x");
    QTest::newRow("scheme case") << QByteArray("GET HTTP://example.com/ HTTP/1.1\r\n\r\n")
                                 << str("example.com") << 80 << QByteArray("/") << str("/");
    QTest::newRow("host with trailing dot agrees")
        << QByteArray("GET http://example.com/ HTTP/1.1\r\nHost: EXAMPLE.com.\r\n\r\n") << str("example.com")
        << 80 << QByteArray("/") << str("/");
    QTest::newRow("host with default port agrees")
        << QByteArray("GET http://example.com/ HTTP/1.1\r\nHost: example.com:80\r\n\r\n")
        << str("example.com") << 80 << QByteArray("/") << str("/");
    QTest::newRow("ipv6") << QByteArray("GET http://[::1]:8080/ HTTP/1.1\r\nHost: [::1]:8080\r\n\r\n")
                          << str("[::1]") << 8080 << QByteArray("/") << str("/");
    QTest::newRow("http/1.0") << QByteArray("GET http://example.com/ HTTP/1.0\r\n\r\n") << str("example.com")
                              << 80 << QByteArray("/") << str("/");
    QTest::newRow("one leading empty line") << QByteArray("\r\nGET http://example.com/ HTTP/1.1\r\n\r\n")
                                            << str("example.com") << 80 << QByteArray("/") << str("/");
    QTest::newRow("connect") << QByteArray("CONNECT pypi.org:443 HTTP/1.1\r\nHost: pypi.org:443\r\n\r\n")
                             << str("pypi.org") << 443 << QByteArray() << QString();
    QTest::newRow("connect host without port")
        << QByteArray("CONNECT pypi.org:443 HTTP/1.1\r\nHost: pypi.org\r\n\r\n") << str("pypi.org") << 443
        << QByteArray() << QString();
    QTest::newRow("connect ip") << QByteArray("CONNECT 192.0.2.1:443 HTTP/1.1\r\n\r\n") << str("192.0.2.1")
                                << 443 << QByteArray() << QString();
    QTest::newRow("connect mixed case trailing dot") << QByteArray("CONNECT PyPI.org.:443 HTTP/1.1\r\n\r\n")
                                                     << str("pypi.org") << 443 << QByteArray() << QString();
    QTest::newRow("8 KiB line") << QByteArray("GET http://example.com/ HTTP/1.1\r\nX: " +
                                              QByteArray(8189, 'a') + "\r\n\r\n")
                                << str("example.com") << 80 << QByteArray("/") << str("/");
    QTest::newRow("100 fields") << QByteArray("GET http://example.com/ HTTP/1.1\r\n" + headerLines(100) +
                                              "\r\n")
                                << str("example.com") << 80 << QByteArray("/") << str("/");
    QTest::newRow("obs-text value") << QByteArray(
                                           "GET http://example.com/ HTTP/1.1\r\nX: caf\xc3\xa9\r\n\r\n")
                                    << str("example.com") << 80 << QByteArray("/") << str("/");
}

void TestHttpRequest::accepted()
{
    QFETCH(QByteArray, bytes);
    QFETCH(QString, host);
    QFETCH(int, port);
    QFETCH(QByteArray, originForm);
    QFETCH(QString, path);
    const Parsed parsed = parse(bytes);
    QVERIFY2(parsed.state == HttpRequestParser::State::Done, qPrintable(parsed.code + u' ' + parsed.message));
    QCOMPARE(parsed.head.authority.host, host);
    QCOMPARE(int(parsed.head.authority.port), port);
    QCOMPARE(parsed.head.originForm, originForm);
    QCOMPARE(parsed.head.path, path);
    QCOMPARE(parsed.consumed, bytes.size());
}

void TestHttpRequest::refused_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("code");
    QTest::addColumn<QString>("messagePart");

    const QString bad = str("network.bad_request");
    const QString refused = str("network.request_refused");
    const QString authority = str("network.bad_authority");
    const QByteArray get = "GET http://example.com/ HTTP/1.1\r\n";
    const QByteArray post = "POST http://example.com/ HTTP/1.1\r\n";

    // Smuggling (SECURITY.md 2.9).
    QTest::newRow("CL and TE") << post + "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"
                               << bad << str("Content-Length");
    QTest::newRow("TE and CL") << post + "Transfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n"
                               << bad << str("Content-Length");
    QTest::newRow("double CL") << post + "Content-Length: 3\r\nContent-Length: 3\r\n\r\nabc" << bad
                               << str("Content-Length");
    QTest::newRow("double CL differing")
        << post + "Content-Length: 3\r\nContent-Length: 4\r\n\r\nabcd" << bad << str("Content-Length");
    QTest::newRow("CL list") << post + "Content-Length: 3, 3\r\n\r\nabc" << bad << str("");
    QTest::newRow("CL sign") << post + "Content-Length: +3\r\n\r\nabc" << bad << str("");
    QTest::newRow("CL hex") << post + "Content-Length: 0x3\r\n\r\nabc" << bad << str("");
    QTest::newRow("CL huge") << post + "Content-Length: 99999999999999999999999\r\n\r\n" << bad << str("");
    QTest::newRow("double TE")
        << post + "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"
        << bad << str("Transfer-Encoding");
    QTest::newRow("TE gzip, chunked") << post + "Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n"
                                      << bad << str("only chunked");
    QTest::newRow("TE chunked, gzip") << post + "Transfer-Encoding: chunked, gzip\r\n\r\n0\r\n\r\n"
                                      << bad << str("");
    QTest::newRow("TE identity") << post + "Transfer-Encoding: identity\r\n\r\n" << bad << str("");
    QTest::newRow("TE space before colon") << post + "Transfer-Encoding : chunked\r\n\r\n0\r\n\r\n"
                                           << bad << str("field name");
    QTest::newRow("obs-fold") << get + "X: a\r\n b\r\n\r\n" << bad << str("folding");
    QTest::newRow("obs-fold tab") << get + "X: a\r\n\tb\r\n\r\n" << bad << str("folding");
    QTest::newRow("obs-fold first field") << get + " X: a\r\n\r\n" << bad << str("folding");
    QTest::newRow("bare LF everywhere")
        << QByteArray("GET http://example.com/ HTTP/1.1\nHost: example.com\n\n") << bad << str("bare LF");
    QTest::newRow("bare LF in a field") << get + "Host: example.com\nX: y\r\n\r\n" << bad << str("bare LF");
    QTest::newRow("bare LF at the end") << get + "Host: example.com\r\n\n" << bad << str("bare LF");
    QTest::newRow("bare CR") << get + "Host: example.com\rX: y\r\n\r\n" << bad << str("CR without LF");
    QTest::newRow("chunk ext bare LF") << post + "Transfer-Encoding: chunked\r\n\r\n3;x\nabc\r\n0\r\n\r\n"
                                       << bad << str("chunk");
    QTest::newRow("chunk ext") << post + "Transfer-Encoding: chunked\r\n\r\n3;x=y\r\nabc\r\n0\r\n\r\n"
                               << bad << str("chunk extensions");
    QTest::newRow("chunk size bare LF") << post + "Transfer-Encoding: chunked\r\n\r\n3\nabc\r\n0\r\n\r\n"
                                        << bad << str("");
    QTest::newRow("chunk data without CRLF") << post + "Transfer-Encoding: chunked\r\n\r\n3\r\nabcXX0\r\n\r\n"
                                             << bad << str("chunked body framing");
    QTest::newRow("chunk data bare LF") << post + "Transfer-Encoding: chunked\r\n\r\n3\r\nabc\n0\r\n\r\n"
                                        << bad << str("");
    QTest::newRow("last chunk bare LF") << post + "Transfer-Encoding: chunked\r\n\r\n0\n\n" << bad << str("");
    QTest::newRow("trailer bare LF") << post + "Transfer-Encoding: chunked\r\n\r\n0\r\nX: y\n\r\n"
                                     << bad << str("");
    QTest::newRow("chunk size space") << post + "Transfer-Encoding: chunked\r\n\r\n3 \r\nabc\r\n0\r\n\r\n"
                                      << bad << str("");
    QTest::newRow("chunk size huge") << post + "Transfer-Encoding: chunked\r\n\r\nfffffffffffffffffff\r\n"
                                     << bad << str("");
    QTest::newRow("nul in value") << get + QByteArray("X: a\0b\r\n\r\n", 9) << bad << str("");
    QTest::newRow("control in value") << get + "X: a\x01" + "b\r\n\r\n" << bad << str("");
    // Sizes.
    QTest::newRow("line over 8 KiB") << get + "X: " + QByteArray(8190, 'a') + "\r\n\r\n"
                                     << bad << str("longer than");
    QTest::newRow("head over 64 KiB")
        << get + QByteArray("X: " + QByteArray(8000, 'a') + "\r\n").repeated(9) + "\r\n"
        << bad << str("larger than");
    QTest::newRow("101 fields") << get + headerLines(101) + "\r\n" << bad << str("more than 100");
    QTest::newRow("two leading empty lines") << "\r\n\r\n" + get + "\r\n" << bad << str("empty lines");
    // Request line.
    QTest::newRow("http/0.9") << QByteArray("GET /\r\n\r\n") << bad << str("");
    QTest::newRow("http/2.0") << QByteArray("GET http://example.com/ HTTP/2.0\r\n\r\n") << bad
                              << str("version");
    QTest::newRow("http/1.2") << QByteArray("GET http://example.com/ HTTP/1.2\r\n\r\n") << bad
                              << str("version");
    QTest::newRow("double space") << QByteArray("GET  http://example.com/ HTTP/1.1\r\n\r\n") << bad
                                  << str("request line");
    QTest::newRow("tab in target") << QByteArray("GET http://example.com/\tx HTTP/1.1\r\n\r\n") << bad
                                   << str("");
    QTest::newRow("lower-case method")
        << QByteArray("get http://example.com/ HTTP/1.1\r\n\r\n") << bad << str("");
    QTest::newRow("trace") << QByteArray("TRACE http://example.com/ HTTP/1.1\r\n\r\n") << refused
                           << str("TRACE");
    QTest::newRow("propfind") << QByteArray("PROPFIND http://example.com/ HTTP/1.1\r\n\r\n") << refused
                              << str("PROPFIND");
    // Targets (SECURITY.md 2.6, 2.8, 2.10).
    QTest::newRow("origin-form") << QByteArray("GET /index.html HTTP/1.1\r\nHost: example.com\r\n\r\n") << bad
                                 << str("origin-form");
    QTest::newRow("asterisk") << QByteArray("OPTIONS * HTTP/1.1\r\nHost: example.com\r\n\r\n") << bad
                              << str("origin-form");
    QTest::newRow("ftp") << QByteArray("GET ftp://example.com/file HTTP/1.1\r\n\r\n") << refused
                         << str("ftp");
    QTest::newRow("gopher") << QByteArray("GET gopher://example.com:70/1 HTTP/1.1\r\n\r\n") << refused
                            << str("gopher");
    QTest::newRow("file") << QByteArray("GET file:///etc/passwd HTTP/1.1\r\n\r\n") << refused << str("file");
    QTest::newRow("https in absolute form")
        << QByteArray("GET https://example.com/ HTTP/1.1\r\n\r\n") << refused << str("CONNECT");
    QTest::newRow("userinfo") << QByteArray("GET http://allowed.example@evil.example/ HTTP/1.1\r\n\r\n")
                              << authority << str("user info");
    QTest::newRow("userinfo backslash")
        << QByteArray("GET http://evil.example\\@allowed.example/ HTTP/1.1\r\n\r\n") << bad << str("");
    QTest::newRow("fragment") << QByteArray("GET http://example.com/#x HTTP/1.1\r\n\r\n") << bad << str("");
    QTest::newRow("percent host") << QByteArray("GET http://example%2ecom/ HTTP/1.1\r\n\r\n") << authority
                                  << str("percent");
    QTest::newRow("decimal ip") << QByteArray("GET http://2130706433/ HTTP/1.1\r\n\r\n") << authority
                                << str("canonical IPv4");
    QTest::newRow("no host") << QByteArray("GET http:///x HTTP/1.1\r\n\r\n") << authority << str("empty");
    QTest::newRow("host mismatch") << get + "Host: evil.example\r\n\r\n" << refused << str("disagrees");
    QTest::newRow("host port mismatch") << get + "Host: example.com:8080\r\n\r\n"
                                        << refused << str("disagrees");
    QTest::newRow("host userinfo") << get + "Host: a@example.com\r\n\r\n" << refused << str("disagrees");
    QTest::newRow("two hosts") << get + "Host: example.com\r\nHost: example.com\r\n\r\n"
                               << bad << str("Host");
    QTest::newRow("upgrade") << get + "Connection: upgrade\r\nUpgrade: websocket\r\n\r\n"
                             << refused << str("upgrades");
    QTest::newRow("upgrade field alone") << get + "Upgrade: h2c\r\n\r\n" << refused << str("upgrades");
    // CONNECT.
    QTest::newRow("connect without port")
        << QByteArray("CONNECT pypi.org HTTP/1.1\r\n\r\n") << authority << str("port is required");
    QTest::newRow("connect host mismatch")
        << QByteArray("CONNECT pypi.org:443 HTTP/1.1\r\nHost: evil.example\r\n\r\n") << refused
        << str("disagrees");
    QTest::newRow("connect body") << QByteArray(
                                         "CONNECT pypi.org:443 HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc")
                                  << bad << str("body");
    QTest::newRow("connect short ip")
        << QByteArray("CONNECT 127.1:443 HTTP/1.1\r\n\r\n") << authority << str("canonical IPv4");
    QTest::newRow("connect hex ip") << QByteArray("CONNECT 0x7f000001:443 HTTP/1.1\r\n\r\n") << authority
                                    << str("canonical IPv4");
    QTest::newRow("connect octal ip")
        << QByteArray("CONNECT 0177.0.0.1:443 HTTP/1.1\r\n\r\n") << authority << str("canonical IPv4");
    QTest::newRow("connect v4-mapped")
        << QByteArray("CONNECT [::ffff:7f00:1]:443 HTTP/1.1\r\n\r\n") << authority << str("IPv4-mapped");
    QTest::newRow("connect userinfo")
        << QByteArray("CONNECT user@pypi.org:443 HTTP/1.1\r\n\r\n") << authority << str("user info");
}

void TestHttpRequest::refused()
{
    QFETCH(QByteArray, bytes);
    QFETCH(QString, code);
    QFETCH(QString, messagePart);
    for (qsizetype step : {qsizetype(0), qsizetype(1), qsizetype(7)}) {
        const Parsed parsed = parse(bytes, step);
        QVERIFY2(parsed.state == HttpRequestParser::State::Failed,
                 qPrintable(QStringLiteral("step %1: not refused").arg(step)));
        QCOMPARE(parsed.code, code);
        QVERIFY2(parsed.message.contains(messagePart, Qt::CaseInsensitive), qPrintable(parsed.message));
    }
}

void TestHttpRequest::chunkFraming_data()
{
    // The framing bytes as the parser hands them over; '#' stands for a span of chunk data.
    QTest::addColumn<QByteArray>("framing");
    QTest::addColumn<bool>("valid");
    QTest::addColumn<bool>("complete");
    QTest::newRow("one chunk") << QByteArray("5\r\n#\r\n0\r\n\r\n") << true << true;
    QTest::newRow("two chunks") << QByteArray("5\r\n#\r\nA\r\n#\r\n0\r\n\r\n") << true << true;
    QTest::newRow("data split") << QByteArray("5\r\n##\r\n0\r\n\r\n") << true << true;
    QTest::newRow("leading zeros") << QByteArray("0005\r\n#\r\n000\r\n\r\n") << true << true;
    QTest::newRow("trailers") << QByteArray("0\r\nX: 1\r\nY:\t2\r\n\r\n") << true << true;
    QTest::newRow("unfinished") << QByteArray("5\r\n#\r\n") << true << false;
    QTest::newRow("bare LF size") << QByteArray("5\n#") << false << false;
    QTest::newRow("extension") << QByteArray("5;a=b\r\n#") << false << false;
    QTest::newRow("space after size") << QByteArray("5 \r\n#") << false << false;
    QTest::newRow("empty size") << QByteArray("\r\n") << false << false;
    QTest::newRow("no CRLF after data") << QByteArray("5\r\n#XX0\r\n\r\n") << false << false;
    QTest::newRow("bare LF after data") << QByteArray("5\r\n#\n0\r\n\r\n") << false << false;
    QTest::newRow("data after last chunk") << QByteArray("0\r\n#") << false << false;
    QTest::newRow("data without size") << QByteArray("#") << false << false;
    QTest::newRow("trailer bare LF") << QByteArray("0\r\nX: 1\n\r\n") << false << false;
    QTest::newRow("trailer control") << QByteArray("0\r\nX: \x01\r\n\r\n") << false << false;
    QTest::newRow("byte after end") << QByteArray("0\r\n\r\nx") << false << true;
}

void TestHttpRequest::chunkFraming()
{
    QFETCH(QByteArray, framing);
    QFETCH(bool, valid);
    QFETCH(bool, complete);
    ChunkFramingCheck check;
    bool ok = true;
    for (char c : framing) {
        const Result<void> step = c == '#' ? check.data() : check.framing(c);
        if (!step) {
            QCOMPARE(step.error().code(), "network.bad_request");
            ok = false;
            break;
        }
    }
    QCOMPARE(ok, valid);
    QCOMPARE(check.isComplete(), complete);
}

void TestHttpRequest::incrementalFeeding_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::newRow("get") << QByteArray(
        "GET http://example.com/a?b HTTP/1.1\r\nHost: example.com\r\nA: b\r\n\r\n");
    QTest::newRow("content-length") << QByteArray(
        "POST http://example.com/ HTTP/1.1\r\nContent-Length: 11\r\n\r\nhello world");
    QTest::newRow("chunked") << QByteArray(
        "POST http://example.com/ HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
        "5\r\nhello\r\n6\r\n world\r\n0\r\nX-T: 1\r\n\r\n");
}

void TestHttpRequest::incrementalFeeding()
{
    QFETCH(QByteArray, bytes);
    const Parsed whole = parse(bytes);
    QCOMPARE(whole.state, HttpRequestParser::State::Done);
    for (qsizetype step = 1; step < 12; ++step) {
        const Parsed pieces = parse(bytes, step);
        QCOMPARE(pieces.state, HttpRequestParser::State::Done);
        QCOMPARE(pieces.consumed, bytes.size());
        QCOMPARE(pieces.head.upstreamHead(), whole.head.upstreamHead());
        // Chunk sizes depend on how the bytes arrived; the decoded body does not.
        if (whole.head.body == HttpRequestHead::Body::ContentLength)
            QCOMPARE(pieces.body, whole.body);
    }
}

void TestHttpRequest::reframedBodies()
{
    const Parsed fixed = parse("POST http://example.com/ HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello");
    QCOMPARE(fixed.state, HttpRequestParser::State::Done);
    QCOMPARE(fixed.head.body, HttpRequestHead::Body::ContentLength);
    QCOMPARE(fixed.head.contentLength, 5u);
    QCOMPARE(fixed.body, QByteArray("hello"));

    // Upper-case hex, leading zeros and trailers come out in one canonical framing, trailers dropped.
    const Parsed chunked = parse("POST http://example.com/ HTTP/1.1\r\nTransfer-Encoding: Chunked\r\n\r\n"
                                 "0A\r\n0123456789\r\n00\r\nX-Trailer: secret\r\n\r\n");
    QCOMPARE(chunked.state, HttpRequestParser::State::Done);
    QCOMPARE(chunked.head.body, HttpRequestHead::Body::Chunked);
    QCOMPARE(chunked.body, QByteArray("a\r\n0123456789\r\n0\r\n\r\n"));

    const Parsed empty = parse("POST http://example.com/ HTTP/1.1\r\nContent-Length: 0\r\n\r\n");
    QCOMPARE(empty.state, HttpRequestParser::State::Done);
    QCOMPARE(empty.body, QByteArray());
}

void TestHttpRequest::connectLeavesTunnelBytes()
{
    HttpRequestParser parser;
    const QByteArray head = "CONNECT pypi.org:443 HTTP/1.1\r\nHost: pypi.org:443\r\n\r\n";
    const QByteArray bytes = head + "\x16\x03\x01";
    QCOMPARE(parser.feed(bytes), head.size());
    QCOMPARE(parser.state(), HttpRequestParser::State::Done);
    QVERIFY(parser.head().isConnect());
    QCOMPARE(parser.head().policyTarget().method, str("CONNECT"));
    QVERIFY(parser.head().policyTarget().isTunnel());
    // Nothing more is parsed after CONNECT, and next() does not restart it.
    QCOMPARE(parser.feed("\x16\x03\x01"), 0);
    parser.next();
    QCOMPARE(parser.state(), HttpRequestParser::State::Done);
}

void TestHttpRequest::keepAlive()
{
    const QByteArray first = "POST http://example.com/a HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc";
    const QByteArray second = "GET http://example.com/b HTTP/1.1\r\n\r\n";
    QByteArray pending = first + second;
    HttpRequestParser parser;
    QByteArray body;
    pending.remove(0, parser.feed(pending, &body));
    QCOMPARE(parser.state(), HttpRequestParser::State::Body);
    QVERIFY(parser.head().keepAlive);
    pending.remove(0, parser.feed(pending, &body));
    QCOMPARE(parser.state(), HttpRequestParser::State::Done);
    QCOMPARE(body, QByteArray("abc"));
    QCOMPARE(pending, second);
    parser.next();
    pending.remove(0, parser.feed(pending));
    QCOMPARE(parser.state(), HttpRequestParser::State::Done);
    QCOMPARE(parser.head().path, str("/b"));
    QVERIFY(pending.isEmpty());

    const Parsed closing = parse("GET http://example.com/ HTTP/1.1\r\nConnection: close\r\n\r\n");
    QVERIFY(!closing.head.keepAlive);
    const Parsed old = parse("GET http://example.com/ HTTP/1.0\r\n\r\n");
    QVERIFY(!old.head.keepAlive);
}

void TestHttpRequest::keepAliveSecondRequestChecked()
{
    // The second request on a connection meets the same rules as the first: here it smuggles.
    QByteArray pending =
        "GET http://example.com/ HTTP/1.1\r\n\r\n"
        "POST http://example.com/ HTTP/1.1\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n";
    HttpRequestParser parser;
    pending.remove(0, parser.feed(pending));
    QCOMPARE(parser.state(), HttpRequestParser::State::Done);
    parser.next();
    parser.feed(pending);
    QCOMPARE(parser.state(), HttpRequestParser::State::Failed);
    QCOMPARE(parser.error().code(), "network.bad_request");
}

void TestHttpRequest::insideATerminatedTunnel()
{
    // Requests inside TLS the proxy terminated for api.example.com:443 (domain secrets): origin-form, to the
    // tunnel's own authority, and the upstream head names it without the default port.
    const Authority tunnel{str("api.example.com"), 443};
    Parsed ok =
        parse("POST /v1/x?y=1 HTTP/1.1\r\nHost: API.example.com\r\nContent-Length: 2\r\n\r\nhi", 0, tunnel);
    QCOMPARE(ok.state, HttpRequestParser::State::Done);
    QCOMPARE(ok.head.path, str("/v1/x"));
    QCOMPARE(ok.head.policyTarget().host, str("api.example.com"));
    QCOMPARE(ok.head.policyTarget().port, quint16(443));
    QVERIFY(ok.head.upstreamHead().startsWith("POST /v1/x?y=1 HTTP/1.1\r\nHost: api.example.com\r\n"));
    QVERIFY(parse("GET / HTTP/1.1\r\nHost: api.example.com:443\r\n\r\n", 0, tunnel).state ==
            HttpRequestParser::State::Done);

    const auto refusedWith = [&](const QByteArray &request, const char *code, const char *text) {
        const Parsed parsed = parse(request, 0, tunnel);
        QCOMPARE(parsed.state, HttpRequestParser::State::Failed);
        QCOMPARE(parsed.code, str(code));
        QVERIFY2(parsed.message.contains(str(text)), qPrintable(parsed.message));
    };
    refusedWith("GET / HTTP/1.1\r\nHost: other.example.com\r\n\r\n", "network.request_refused", "disagrees");
    refusedWith("GET / HTTP/1.1\r\nHost: api.example.com:8443\r\n\r\n", "network.request_refused",
                "disagrees");
    refusedWith("GET / HTTP/1.1\r\n\r\n", "network.bad_request", "without a Host field");
    refusedWith("GET http://api.example.com/ HTTP/1.1\r\nHost: api.example.com\r\n\r\n",
                "network.bad_request", "send origin-form");
    refusedWith("CONNECT evil.example.net:443 HTTP/1.1\r\nHost: evil.example.net:443\r\n\r\n",
                "network.request_refused", "CONNECT inside a tunnel");
}

void TestHttpRequest::upstreamHead()
{
    const Parsed parsed = parse("POST http://Example.com:8080/p?q=1 HTTP/1.1\r\n"
                                "Host: example.com:8080\r\n"
                                "User-Agent: test\r\n"
                                "Proxy-Authorization: Basic c2VjcmV0\r\n"
                                "Proxy-Connection: keep-alive\r\n"
                                "Connection: keep-alive, X-Secret\r\n"
                                "X-Secret: drop me\r\n"
                                "Keep-Alive: timeout=5\r\n"
                                "TE: trailers\r\n"
                                "Transfer-Encoding: chunked\r\n"
                                "Accept:  */*  \r\n"
                                "\r\n"
                                "0\r\n\r\n");
    QCOMPARE(parsed.state, HttpRequestParser::State::Done);
    QCOMPARE(parsed.head.upstreamHead(), QByteArray("POST /p?q=1 HTTP/1.1\r\n"
                                                    "Host: example.com:8080\r\n"
                                                    "User-Agent: test\r\n"
                                                    "Accept: */*\r\n"
                                                    "Transfer-Encoding: chunked\r\n"
                                                    "\r\n"));
    const Parsed closing = parse("GET http://example.com/ HTTP/1.1\r\nConnection: close\r\n\r\n");
    QCOMPARE(closing.head.upstreamHead(),
             QByteArray("GET / HTTP/1.1\r\nHost: example.com\r\nConnection: close\r\n\r\n"));
    const Parsed old = parse("GET http://example.com/ HTTP/1.0\r\n\r\n");
    QCOMPARE(old.head.upstreamHead(), QByteArray("GET / HTTP/1.0\r\nHost: example.com\r\n\r\n"));
}

void TestHttpRequest::response_data()
{
    QTest::addColumn<QByteArray>("method");
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<bool>("needsEof");
    QTest::addColumn<int>("status");
    QTest::addColumn<bool>("keepAlive");

    QTest::newRow("content-length") << QByteArray("GET")
                                    << QByteArray("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok") << false
                                    << 200 << true;
    QTest::newRow("chunked")
        << QByteArray("GET")
        << QByteArray("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n") << false
        << 200 << true;
    QTest::newRow("close-delimited") << QByteArray("GET")
                                     << QByteArray("HTTP/1.1 200 OK\r\n\r\nuntil the end") << true << 200
                                     << false;
    QTest::newRow("connection close") << QByteArray("GET")
                                      << QByteArray("HTTP/1.1 403 Forbidden\r\nConnection: close\r\n"
                                                    "Content-Length: 1\r\n\r\nx")
                                      << false << 403 << false;
    QTest::newRow("head") << QByteArray("HEAD")
                          << QByteArray("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n") << false << 200
                          << true;
    QTest::newRow("no content") << QByteArray("GET") << QByteArray("HTTP/1.1 204 No Content\r\n\r\n") << false
                                << 204 << true;
    QTest::newRow("100 continue") << QByteArray("POST")
                                  << QByteArray("HTTP/1.1 100 Continue\r\n\r\n"
                                                "HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n")
                                  << false << 201 << true;
    QTest::newRow("http/1.0") << QByteArray("GET")
                              << QByteArray("HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok") << false << 200
                              << false;
}

void TestHttpRequest::response()
{
    QFETCH(QByteArray, method);
    QFETCH(QByteArray, bytes);
    QFETCH(bool, needsEof);
    QFETCH(int, status);
    QFETCH(bool, keepAlive);
    for (qsizetype step : {qsizetype(0), qsizetype(1), qsizetype(5)}) {
        HttpResponseFramer framer(method);
        qsizetype offset = 0;
        while (offset < bytes.size() && !framer.isComplete() && !framer.hasFailed()) {
            const qsizetype take = step == 0 ? bytes.size() : std::min(step, bytes.size() - offset);
            const qsizetype used = framer.feed(QByteArrayView(bytes).sliced(offset, take));
            QCOMPARE(used, take);
            offset += used;
        }
        QVERIFY2(!framer.hasFailed(), framer.error().message().c_str());
        QCOMPARE(framer.isComplete(), !needsEof);
        if (needsEof) {
            framer.finish();
            QVERIFY(framer.isComplete());
        }
        QCOMPARE(framer.statusCode(), status);
        QCOMPARE(framer.keepAlive(), keepAlive);
    }
}

void TestHttpRequest::responseTrailingBytesAndErrors()
{
    HttpResponseFramer framer("GET");
    const QByteArray response = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
    QCOMPARE(framer.feed(QByteArray(response + "HTTP/1.1 200 OK\r\n")), response.size());
    QVERIFY(framer.isComplete());

    HttpResponseFramer broken("GET");
    broken.feed("HTTP/1.1 200 OK\r\nContent-Length: 5, 6\r\n\r\n");
    QVERIFY(broken.hasFailed());
    QCOMPARE(broken.error().code(), "network.bad_response");

    HttpResponseFramer truncated("GET");
    truncated.feed("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nab");
    truncated.finish();
    QVERIFY(truncated.hasFailed());

    HttpResponseFramer switching("GET");
    switching.feed("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n");
    QVERIFY(switching.hasFailed());
}

QTEST_APPLESS_MAIN(TestHttpRequest)
#include "tst_httprequest.moc"
