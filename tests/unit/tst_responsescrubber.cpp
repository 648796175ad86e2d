// SPDX-License-Identifier: MIT
// The responses of terminated TLS on their way to the sandbox (network/responsescrubber.h), attacked as an
// upstream that wants to hand a domain secret's value back: split across reads and chunk boundaries (Go's
// net/http chunks unsized bodies at 4096 bytes), in every framing, in a header or a trailer, encoded, or
// compressed where nothing can be looked into.
#include "network/domainsecrets.h"
#include "network/responsescrubber.h"

#include <QObject>
#include <QTest>

using namespace Cordon;
using namespace Cordon::Network;

namespace {

const QByteArray Value = "sk-live-7Hq2Zr9Xw4Lp0Vb8Nd3K";

Secrets::SecretMasker masker()
{
    Secrets::SecretMasker made(Secrets::SecretMasker::Mark::SameLength);
    if (!made.add("API_TOKEN", Value.toStdString()))
        qFatal("the test value is not a secret value");
    return made;
}

// The response fed in pieces cut at `cuts` (offsets), then finished as a closed connection would.
QByteArray scrubbed(const QByteArray &response, const QList<qsizetype> &cuts, bool refuseCompressed = false,
                    QString *refusal = nullptr, QByteArrayView method = "GET")
{
    ResponseScrubber scrubber(masker(), method, refuseCompressed);
    QByteArray out;
    qsizetype from = 0;
    for (qsizetype cut : cuts) {
        out += scrubber.feed(QByteArrayView(response).sliced(from, cut - from));
        from = cut;
    }
    out += scrubber.feed(QByteArrayView(response).sliced(from));
    out += scrubber.finish();
    if (refusal)
        *refusal = scrubber.refusal();
    return out;
}

// A chunked body as the upstream would frame it: pieces of `size` bytes.
QByteArray chunked(const QByteArray &body, qsizetype size)
{
    QByteArray out;
    for (qsizetype at = 0; at < body.size(); at += size) {
        const QByteArray piece = body.mid(at, size);
        out += QByteArray::number(piece.size(), 16) + "\r\n" + piece + "\r\n";
    }
    return out + "0\r\n\r\n";
}

// The body of a chunked message, or an empty array when its framing is broken.
QByteArray dechunked(const QByteArray &message)
{
    qsizetype at = message.indexOf("\r\n\r\n") + 4;
    QByteArray body;
    for (;;) {
        const qsizetype lineEnd = message.indexOf("\r\n", at);
        bool ok = false;
        const qsizetype size = message.mid(at, lineEnd - at).toLongLong(&ok, 16);
        if (lineEnd < 0 || !ok)
            return {};
        if (size == 0)
            return body;
        body += message.mid(lineEnd + 2, size);
        at = lineEnd + 2 + size + 2;
    }
}

QByteArray stars()
{
    return QByteArray(Value.size(), '*');
}

} // namespace

class TestResponseScrubber : public QObject
{
    Q_OBJECT

private slots:
    void aValueSplitByChunkFramingIsMasked()
    {
        // Every position of the value around a 4096-byte chunk boundary, each cut by reads at its worst.
        for (qsizetype pad = 4096 - Value.size() - 8; pad <= 4096 + 1; ++pad) {
            const QByteArray body = QByteArray(pad, 'x') + "Bearer " + Value + " end";
            const QByteArray response =
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked(body, 4096);
            const qsizetype valueAt = response.indexOf("Bearer ") + 7;
            for (qsizetype cut : {valueAt + 1, valueAt + 10, qsizetype(response.size() - 9)}) {
                const QByteArray out = scrubbed(response, {cut});
                QVERIFY2(!out.contains(Value.left(8)), out.right(200).constData());
                QCOMPARE(dechunked(out), QByteArray(pad, 'x') + "Bearer " + stars() + " end");
            }
        }
    }

    void everyFramingKeepsItsLengthAndLosesTheValue()
    {
        const QByteArray body = "{\"error\": \"bad key " + Value + "\"}";
        const QByteArray sized =
            "HTTP/1.1 401 Unauthorized\r\nContent-Length: " + QByteArray::number(body.size()) + "\r\n\r\n" +
            body;
        const QByteArray closed = "HTTP/1.0 401 Unauthorized\r\n\r\n" + body;
        for (const QByteArray &response : {sized, closed}) {
            for (qsizetype cut = 1; cut < response.size(); ++cut) {
                const QByteArray out = scrubbed(response, {cut});
                QVERIFY2(!out.contains(Value.left(6)), out.constData());
                QCOMPARE(out.size(), response.size());
                QVERIFY(out.endsWith(QByteArray("bad key " + stars() + "\"}")));
            }
        }
    }

    void encodedHeaderAndTrailerEchoesAreMasked()
    {
        const QByteArray base64 = Value.toBase64();
        const QByteArray hex = Value.toHex();
        const QByteArray percent = QByteArray("a b/" + Value).toPercentEncoding();
        const QByteArray body = "b64=" + base64 + " hex=" + hex + " url=" + percent;
        const QByteArray response = "HTTP/1.1 200 OK\r\nX-Echo: Bearer " + Value +
                                    "\r\nTransfer-Encoding: chunked\r\nTrailer: X-Key\r\n\r\n" +
                                    chunked(body, 7).chopped(2) + "X-Key: " + Value + "\r\n\r\n";
        const QByteArray out = scrubbed(response, {20, 60, 100});
        for (const QByteArray &form : {Value, base64, hex, Value.toBase64(QByteArray::Base64UrlEncoding)})
            QVERIFY2(!out.contains(form.mid(2, form.size() - 4)), out.constData());
        QVERIFY(out.contains(QByteArray("X-Echo: Bearer " + stars() + "\r\n")));
        QVERIFY2(out.contains(QByteArray("X-Key: " + stars() + "\r\n\r\n")), out.constData());
        QVERIFY(dechunked(out).startsWith("b64="));
    }

    void aCompressedAnswerIsRefusedWhenTheRequestCarriedAValue()
    {
        const QByteArray response =
            "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 4\r\n\r\n\x1f\x8b\x08\x00";
        QString refusal;
        QCOMPARE(scrubbed(response, {10, 40}, true, &refusal), QByteArray());
        QVERIFY2(refusal.contains(QStringLiteral("compressed (gzip)")), qPrintable(refusal));
        // Allowed by the policy (or no value was sent): it passes as it came.
        QCOMPARE(scrubbed(response, {10}, false, &refusal), response);
        QVERIFY(refusal.isEmpty());
        // identity is no compression.
        const QByteArray identity =
            "HTTP/1.1 200 OK\r\nContent-Encoding: identity\r\nContent-Length: 2\r\n\r\nok";
        QCOMPARE(scrubbed(identity, {}, true, &refusal), identity);
        QVERIFY(refusal.isEmpty());
    }

    void interimAndHeadResponsesPassWhole()
    {
        const QByteArray response =
            "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 12\r\n\r\n";
        QCOMPARE(scrubbed(response, {5, 30}, false, nullptr, "HEAD"), response);
    }
};

QTEST_GUILESS_MAIN(TestResponseScrubber)
#include "tst_responsescrubber.moc"
