// SPDX-License-Identifier: MIT
// The control protocol codec on literal bytes: frames split anywhere, limits at their exact boundary, hostile
// payloads, and the exact shapes of requests, responses, errors and events that go on the wire.
#include "daemon/framecodec.h"
#include "testutil.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>
#include <QtEndian>

using namespace Cordon;
using namespace Cordon::Daemon;

namespace {

QByteArray header(quint32 length)
{
    QByteArray bytes(4, Qt::Uninitialized);
    qToBigEndian<quint32>(length, bytes.data());
    return bytes;
}

QByteArray rawFrame(const QByteArray &body)
{
    return header(static_cast<quint32>(body.size())) + body;
}

QJsonObject json(const char *text)
{
    return QJsonDocument::fromJson(QByteArray(text)).object();
}

// Everything the decoder yields until it wants more bytes: "ok:<compact json>" or "error:<code>".
QStringList drain(FrameDecoder &decoder)
{
    QStringList out;
    while (std::optional<Result<QJsonObject>> frame = decoder.next()) {
        if (*frame)
            out.append(QStringLiteral("ok:") +
                       QString::fromUtf8(QJsonDocument(**frame).toJson(QJsonDocument::Compact)));
        else
            out.append(QStringLiteral("error:") + toQt(frame->error().code()));
    }
    return out;
}

QStringList expectedOk(const QList<QJsonObject> &messages)
{
    QStringList out;
    for (const QJsonObject &message : messages)
        out.append(QStringLiteral("ok:") +
                   QString::fromUtf8(QJsonDocument(message).toJson(QJsonDocument::Compact)));
    return out;
}

} // namespace

class TestProtocolCodec final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void encodeFrameIsLengthPrefixedCompactJson()
    {
        const QJsonObject message = json(R"({"id": 7, "method": "run.get", "params": {"run_id": "r1"}})");
        const QByteArray frame = encodeFrame(message);
        const QByteArray body = frame.mid(4);
        QCOMPARE(frame.left(4), header(static_cast<quint32>(body.size())));
        QVERIFY(!body.contains(' '));
        QVERIFY(!body.contains('\n'));
        QCOMPARE(QJsonDocument::fromJson(body).object(), message);
    }

    void lengthIsBigEndian()
    {
        FrameDecoder decoder;
        // 0x00000100 = 256: little-endian reading would see 65536 and wait for more.
        const QByteArray body = "{\"k\":\"" + QByteArray(256 - 8, 'x') + "\"}";
        QCOMPARE(body.size(), 256);
        decoder.feed(QByteArray(QByteArray("\x00\x00\x01\x00", 4) + body));
        QCOMPARE(drain(decoder).size(), 1);
    }

    void framesSplitAtEveryByteBoundary_data()
    {
        QTest::addColumn<QList<QJsonObject>>("messages");
        QTest::newRow("one small") << QList<QJsonObject>{json(R"({"id":1,"method":"hello"})")};
        QTest::newRow("three") << QList<QJsonObject>{
            json(R"({"id":1,"method":"hello","params":{"protocol":1}})"),
            json(R"({"event":"run.output","data":{"data":"aGk="}})"), json(R"({"id":2,"result":{}})")};
        QTest::newRow("unicode") << QList<QJsonObject>{
            json("{\"name\":\"gr\xc3\xbc\xc3\x9f \xe2\x82\xac "
                 "\xf0\x9f\x93\xa6\",\"nested\":{\"a\":[1,2,{\"b\":null}]}}"),
            json(R"({})")};
    }

    void framesSplitAtEveryByteBoundary()
    {
        QFETCH(QList<QJsonObject>, messages);
        QByteArray stream;
        for (const QJsonObject &message : messages)
            stream += encodeFrame(message);
        const QStringList expected = expectedOk(messages);

        for (qsizetype split = 0; split <= stream.size(); ++split) {
            FrameDecoder decoder;
            decoder.feed(QByteArrayView(stream).first(split));
            QStringList got = drain(decoder);
            decoder.feed(QByteArrayView(stream).sliced(split));
            got += drain(decoder);
            QVERIFY2(got == expected, qPrintable(QStringLiteral("split at %1").arg(split)));
            QCOMPARE(decoder.bufferedBytes(), 0);
        }

        FrameDecoder bytewise;
        QStringList got;
        for (char byte : stream) {
            bytewise.feed(QByteArrayView(&byte, 1));
            got += drain(bytewise);
        }
        QCOMPARE(got, expected);
    }

    void severalFramesInOneChunk()
    {
        QList<QJsonObject> messages;
        QByteArray chunk;
        for (int i = 0; i < 1000; ++i) {
            messages.append(
                QJsonObject{{QStringLiteral("id"), i}, {QStringLiteral("method"), QStringLiteral("m")}});
            chunk += encodeFrame(messages.last());
        }
        // Half a frame trails the chunk; it completes with the next feed.
        const QByteArray tail = encodeFrame(json(R"({"id":-1,"method":"last"})"));
        FrameDecoder decoder;
        decoder.feed(QByteArray(chunk + tail.left(5)));
        QCOMPARE(drain(decoder), expectedOk(messages));
        QCOMPARE(decoder.bufferedBytes(), 5);
        decoder.feed(tail.mid(5));
        QCOMPARE(drain(decoder), expectedOk({json(R"({"id":-1,"method":"last"})")}));
    }

    void zeroLengthFrameIsInvalidJsonAndDecodingContinues()
    {
        FrameDecoder decoder;
        decoder.feed(QByteArray(header(0) + encodeFrame(json(R"({"id":3,"method":"x"})"))));
        QCOMPARE(drain(decoder), (QStringList{QStringLiteral("error:protocol.invalid_json"),
                                              QStringLiteral(R"(ok:{"id":3,"method":"x"})")}));
        QVERIFY(!decoder.isBroken());
    }

    void maxSizeFrameIsAccepted()
    {
        // {"a":"xxx...x"} with exactly MaxFrameBytes bytes of JSON.
        QByteArray body = "{\"a\":\"" + QByteArray(MaxFrameBytes - 8, 'x') + "\"}";
        QCOMPARE(body.size(), MaxFrameBytes);
        FrameDecoder decoder;
        decoder.feed(rawFrame(body));
        std::optional<Result<QJsonObject>> frame = decoder.next();
        QVERIFY(frame.has_value());
        QVERIFY_RESULT(*frame);
        QCOMPARE((*frame)->value(QStringLiteral("a")).toString().size(), MaxFrameBytes - 8);
        QVERIFY(!decoder.isBroken());
    }

    void overSizeLengthBreaksTheDecoder_data()
    {
        QTest::addColumn<quint32>("length");
        QTest::newRow("max + 1") << quint32(MaxFrameBytes + 1);
        QTest::newRow("1 GiB") << quint32(1u << 30);
        QTest::newRow("4 GiB - 1") << quint32(0xffffffffu);
        QTest::newRow("ASCII `GET `") << qFromBigEndian<quint32>("GET ");
    }

    void overSizeLengthBreaksTheDecoder()
    {
        QFETCH(quint32, length);
        FrameDecoder decoder;
        // Refused from the header alone: the decoder must not wait for (or buffer) a body that size.
        decoder.feed(header(length));
        std::optional<Result<QJsonObject>> frame = decoder.next();
        QVERIFY(frame.has_value());
        QVERIFY(!*frame);
        QCOMPARE(frame->error().code(), "protocol.frame_too_large");
        QVERIFY(toQt(frame->error().message()).contains(QString::number(length)));
        QVERIFY(decoder.isBroken());
        QVERIFY(!decoder.next().has_value());
        // Nothing after a bad length can be trusted, not even a well-formed frame.
        decoder.feed(encodeFrame(json(R"({"id":1,"method":"x"})")));
        QVERIFY(!decoder.next().has_value());
        QCOMPARE(decoder.bufferedBytes(), 0);
    }

    void invalidPayloadSkipsOnlyThatFrame_data()
    {
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<QString>("messagePart");
        QTest::newRow("truncated object") << QByteArray("{\"id\":1,") << QStringLiteral("not valid JSON");
        QTest::newRow("array") << QByteArray("[1,2,3]") << QStringLiteral("array");
        QTest::newRow("number") << QByteArray("42") << QStringLiteral("not");
        QTest::newRow("string") << QByteArray("\"hello\"") << QStringLiteral("not");
        QTest::newRow("null") << QByteArray("null") << QStringLiteral("not");
        QTest::newRow("binary garbage")
            << QByteArray("\xff\xfe\x00\x01\x80garbage", 12) << QStringLiteral("not valid JSON");
        QTest::newRow("invalid UTF-8 in a string")
            << QByteArray("{\"a\":\"\xc3\x28\"}") << QStringLiteral("not valid JSON");
        QTest::newRow("overlong UTF-8")
            << QByteArray("{\"a\":\"\xc0\xaf\"}") << QStringLiteral("not valid JSON");
        QTest::newRow("trailing data") << QByteArray("{} {}") << QStringLiteral("not valid JSON");
        QTest::newRow("deep nesting") << QByteArray(100000, '[') << QStringLiteral("not valid JSON");
        // Where QJsonDocument would let two readers of one frame disagree, or pass broken text on.
        QTest::newRow("duplicate key") << QByteArray(R"({"id":1,"method":"container.create","params":{"policy":)"
                                                     R"({"name":"a","name":"b"}}})")
                                       << QStringLiteral("params.policy.name: duplicate key");
        QTest::newRow("lone surrogate")
            << QByteArray(R"({"id":1,"method":"x","params":{"path":"\ud800"}})") << QStringLiteral("lone high surrogate");
    }

    void invalidPayloadSkipsOnlyThatFrame()
    {
        QFETCH(QByteArray, body);
        QFETCH(QString, messagePart);
        FrameDecoder decoder;
        decoder.feed(QByteArray(rawFrame(body) + encodeFrame(json(R"({"id":9,"method":"after"})"))));
        std::optional<Result<QJsonObject>> frame = decoder.next();
        QVERIFY(frame.has_value());
        QVERIFY(!*frame);
        QCOMPARE(frame->error().code(), "protocol.invalid_json");
        QVERIFY2(toQt(frame->error().message()).contains(messagePart), frame->error().message().c_str());
        QVERIFY(!decoder.isBroken());
        QCOMPARE(drain(decoder), QStringList{QStringLiteral(R"(ok:{"id":9,"method":"after"})")});
    }

    void parseRequest_data()
    {
        QTest::addColumn<QByteArray>("message");
        QTest::addColumn<QString>("errorCode"); // empty: valid
        QTest::addColumn<qint64>("id");
        QTest::addColumn<QString>("method");
        QTest::addColumn<QByteArray>("params");

        const QString invalid = QStringLiteral("protocol.invalid_request");
        QTest::newRow("full") << QByteArray(R"({"id":7,"method":"container.get","params":{"id":"c1"}})")
                              << QString() << qint64(7) << QStringLiteral("container.get")
                              << QByteArray(R"({"id":"c1"})");
        QTest::newRow("no params") << QByteArray(R"({"id":1,"method":"daemon.status"})") << QString()
                                   << qint64(1) << QStringLiteral("daemon.status") << QByteArray("{}");
        QTest::newRow("null params") << QByteArray(R"({"id":1,"method":"m","params":null})") << QString()
                                     << qint64(1) << QStringLiteral("m") << QByteArray("{}");
        QTest::newRow("negative id") << QByteArray(R"({"id":-5,"method":"m"})") << QString() << qint64(-5)
                                     << QStringLiteral("m") << QByteArray("{}");
        QTest::newRow("id beyond 2^53")
            << QByteArray(R"({"id":4611686018427387905,"method":"m"})") << QString()
            << qint64(4611686018427387905LL) << QStringLiteral("m") << QByteArray("{}");
        QTest::newRow("id 1.0") << QByteArray(R"({"id":1.0,"method":"m"})") << QString() << qint64(1)
                                << QStringLiteral("m") << QByteArray("{}");
        QTest::newRow("no id") << QByteArray(R"({"method":"m"})") << invalid << qint64(0) << QString()
                               << QByteArray();
        QTest::newRow("null id") << QByteArray(R"({"id":null,"method":"m"})") << invalid << qint64(0)
                                 << QString() << QByteArray();
        QTest::newRow("string id") << QByteArray(R"({"id":"7","method":"m"})") << invalid << qint64(0)
                                   << QString() << QByteArray();
        QTest::newRow("fractional id")
            << QByteArray(R"({"id":1.5,"method":"m"})") << invalid << qint64(0) << QString() << QByteArray();
        QTest::newRow("huge id") << QByteArray(R"({"id":1e300,"method":"m"})") << invalid << qint64(0)
                                 << QString() << QByteArray();
        QTest::newRow("no method") << QByteArray(R"({"id":1})") << invalid << qint64(0) << QString()
                                   << QByteArray();
        QTest::newRow("numeric method")
            << QByteArray(R"({"id":1,"method":3})") << invalid << qint64(0) << QString() << QByteArray();
        QTest::newRow("empty method")
            << QByteArray(R"({"id":1,"method":""})") << invalid << qint64(0) << QString() << QByteArray();
        QTest::newRow("array params") << QByteArray(R"({"id":1,"method":"m","params":[1]})") << invalid
                                      << qint64(0) << QString() << QByteArray();
        QTest::newRow("string params") << QByteArray(R"({"id":1,"method":"m","params":"x"})") << invalid
                                       << qint64(0) << QString() << QByteArray();
    }

    void parseRequest()
    {
        QFETCH(QByteArray, message);
        QFETCH(QString, errorCode);
        QFETCH(qint64, id);
        QFETCH(QString, method);
        QFETCH(QByteArray, params);
        const Result<Request> request = Daemon::parseRequest(QJsonDocument::fromJson(message).object());
        if (!errorCode.isEmpty()) {
            QVERIFY(!request);
            QCOMPARE(toQt(request.error().code()), errorCode);
            return;
        }
        QVERIFY_RESULT(request);
        QCOMPARE(request->id, id);
        QCOMPARE(request->method, method);
        QCOMPARE(request->params, QJsonDocument::fromJson(params).object());
    }

    void requestIdSurvivesAnInvalidRequest()
    {
        // The server answers a request without a method under the request's own id.
        QCOMPARE(requestId(json(R"({"id":12})")), std::optional<qint64>(12));
        QCOMPARE(requestId(json(R"({"id":"12"})")), std::nullopt);
        QCOMPARE(requestId(json(R"({"method":"m"})")), std::nullopt);
    }

    void messageShapes()
    {
        QCOMPARE(makeRequest(3, QStringLiteral("run.get"), json(R"({"run_id":"r"})")),
                 json(R"({"id":3,"method":"run.get","params":{"run_id":"r"}})"));
        QCOMPARE(makeResult(7, json(R"({"container":{"id":"c"}})")),
                 json(R"({"id":7,"result":{"container":{"id":"c"}}})"));
        QCOMPARE(makeEvent(QStringLiteral("run.finished"), json(R"({"run":{"id":"r"}})")),
                 json(R"({"event":"run.finished","data":{"run":{"id":"r"}}})"));

        const Error error("policy.out_of_range", "limits.pids: 0 is below 1");
        const QJsonObject wire = makeErrorResponse(7, error);
        QCOMPARE(wire.keys(), (QStringList{QStringLiteral("error"), QStringLiteral("id")}));
        QCOMPARE(wire.value(QStringLiteral("id")).toInteger(), 7);
        const QJsonObject body = wire.value(QStringLiteral("error")).toObject();
        QCOMPARE(body.keys(),
                 (QStringList{QStringLiteral("code"), QStringLiteral("hint"), QStringLiteral("message")}));
        QCOMPARE(body.value(QStringLiteral("code")).toString(), QStringLiteral("policy.out_of_range"));
        QCOMPARE(body.value(QStringLiteral("message")).toString(),
                 QStringLiteral("limits.pids: 0 is below 1"));
        QCOMPARE(body.value(QStringLiteral("hint")).toString(), toQt(error.hint()));
        QVERIFY(!error.hint().empty());

        // No hint in the table: the field is still there, empty, so every error has one shape.
        const QJsonObject plain =
            makeErrorResponse(1, makeError(QStringLiteral("run.not_found"), QStringLiteral("no run r")));
        QCOMPARE(plain.value(QStringLiteral("error")).toObject().value(QStringLiteral("hint")),
                 QJsonValue(QString()));

        const QJsonObject connectionError =
            makeConnectionError(makeError(QStringLiteral("protocol.invalid_json"), QStringLiteral("bad")));
        QVERIFY(connectionError.contains(QStringLiteral("id")));
        QVERIFY(connectionError.value(QStringLiteral("id")).isNull());
    }

    void parseResponse_data()
    {
        QTest::addColumn<QByteArray>("message");
        QTest::addColumn<QString>("parseError"); // empty: a well-formed response
        QTest::addColumn<qint64>("id");          // -1: no id (connection error)
        QTest::addColumn<QString>("errorCode");  // empty: a result

        const QString invalid = QStringLiteral("protocol.invalid_response");
        QTest::newRow("result") << QByteArray(R"({"id":4,"result":{"a":1}})") << QString() << qint64(4)
                                << QString();
        QTest::newRow("error") << QByteArray(
                                      R"({"id":5,"error":{"code":"run.not_found","message":"m","hint":""}})")
                               << QString() << qint64(5) << QStringLiteral("run.not_found");
        QTest::newRow("connection error")
            << QByteArray(R"({"id":null,"error":{"code":"protocol.invalid_json","message":"m"}})")
            << QString() << qint64(-1) << QStringLiteral("protocol.invalid_json");
        QTest::newRow("error without code")
            << QByteArray(R"({"id":5,"error":{"message":"m"}})") << QString() << qint64(5) << invalid;
        QTest::newRow("both") << QByteArray(R"({"id":1,"result":{},"error":{"code":"a","message":"b"}})")
                              << invalid << qint64(0) << QString();
        QTest::newRow("neither") << QByteArray(R"({"id":1})") << invalid << qint64(0) << QString();
        QTest::newRow("result is array")
            << QByteArray(R"({"id":1,"result":[]})") << invalid << qint64(0) << QString();
        QTest::newRow("string id") << QByteArray(R"({"id":"1","result":{}})") << invalid << qint64(0)
                                   << QString();
        QTest::newRow("result without id")
            << QByteArray(R"({"id":null,"result":{}})") << invalid << qint64(0) << QString();
    }

    void parseResponse()
    {
        QFETCH(QByteArray, message);
        QFETCH(QString, parseError);
        QFETCH(qint64, id);
        QFETCH(QString, errorCode);
        const Result<Response> response = Daemon::parseResponse(QJsonDocument::fromJson(message).object());
        if (!parseError.isEmpty()) {
            QVERIFY(!response);
            QCOMPARE(toQt(response.error().code()), parseError);
            return;
        }
        QVERIFY_RESULT(response);
        QCOMPARE(response->id, id < 0 ? std::nullopt : std::optional<qint64>(id));
        if (errorCode.isEmpty()) {
            QVERIFY_RESULT(response->outcome);
        } else {
            QVERIFY(!response->outcome);
            QCOMPARE(toQt(response->outcome.error().code()), errorCode);
        }
    }

    void errorRoundTrip()
    {
        const Error sent("cgroup.unavailable", "no memory controller", 2);
        const Result<Response> received = Daemon::parseResponse(
            QJsonDocument::fromJson(encodeFrame(makeErrorResponse(11, sent)).mid(4)).object());
        QVERIFY_RESULT(received);
        QCOMPARE(received->id, std::optional<qint64>(11));
        QVERIFY(!received->outcome);
        QCOMPARE(received->outcome.error().code(), sent.code());
        QCOMPARE(received->outcome.error().message(), sent.message());
        QCOMPARE(received->outcome.error().hint(), sent.hint());
    }

    void events()
    {
        const QJsonObject event = json(R"({"event":"memory.sample","data":{"container":"c","current":5}})");
        QVERIFY(isEvent(event));
        QVERIFY(!isEvent(json(R"({"id":1,"result":{}})")));
        const Result<Event> parsed = parseEvent(event);
        QVERIFY_RESULT(parsed);
        QCOMPARE(parsed->name, QStringLiteral("memory.sample"));
        QCOMPARE(parsed->data, json(R"({"container":"c","current":5})"));

        QVERIFY(!parseEvent(json(R"({"event":"","data":{}})")));
        QVERIFY(!parseEvent(json(R"({"event":3})")));
        QVERIFY(!parseEvent(json(R"({"event":"x","data":[1]})")));
        const Result<Event> noData = parseEvent(json(R"({"event":"x"})"));
        QVERIFY_RESULT(noData);
        QVERIFY(noData->data.isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestProtocolCodec)
#include "tst_protocolcodec.moc"
