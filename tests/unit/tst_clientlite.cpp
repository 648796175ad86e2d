// SPDX-License-Identifier: MIT
// The Qt-free client pieces (engine/daemon/lite) that the `cordon` launcher runs on: the strict JSON reader
// on literal and hostile input (truncation, deep nesting, invalid UTF-8, lone surrogates), base64 and framing
// against Qt's own implementations, and the shared wording compared with what the Qt CLI printed before it
// used this code (the Qt formulas are kept here as the oracle).
#include "core/plainbridge.h"
#include "daemon/framecodec.h"
#include "daemon/lite/base64.h"
#include "daemon/lite/containerref.h"
#include "daemon/lite/frames.h"
#include "daemon/lite/runreport.h"
#include "daemon/lite/socketpath.h"
#include "sandbox/json.h"

#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonValue>
#include <QRandomGenerator>
#include <QTest>

#include <cmath>

#include <pwd.h>
#include <unistd.h>

using Cordon::Json;

namespace {

Cordon::Result<Json> parse(const QByteArray &text, const Cordon::JsonLimits &limits = {})
{
    return Json::read(std::string_view(text.constData(), static_cast<std::size_t>(text.size())), limits);
}

std::string bytes(const QByteArray &data)
{
    return data.toStdString();
}

// What the Qt CLI's formatBytes() was, before it called the shared one.
QString qtFormatBytes(qint64 bytes)
{
    if (bytes < 1024)
        return QStringLiteral("%1 B").arg(bytes);
    const char *units[] = {"KiB", "MiB", "GiB", "TiB"};
    double value = static_cast<double>(bytes);
    int unit = -1;
    while (value >= 1024.0 && unit < 3) {
        value /= 1024.0;
        ++unit;
    }
    return QStringLiteral("%1 %2").arg(value, 0, 'f', value < 10 ? 1 : 0).arg(QLatin1String(units[unit]));
}

// And its escapeName(), on UTF-16.
QString qtEscapeName(const QString &name)
{
    QString escaped;
    for (const QChar c : name) {
        const char16_t u = c.unicode();
        const bool control = u < 0x20 || (u >= 0x7f && u < 0xa0);
        const bool bidi = (u >= 0x202a && u <= 0x202e) || (u >= 0x2066 && u <= 0x2069) || u == 0x200e ||
                          u == 0x200f || u == 0x061c;
        if (control)
            escaped += QStringLiteral("\\x%1").arg(static_cast<int>(u), 2, 16, QLatin1Char('0'));
        else if (bidi)
            escaped += QStringLiteral("\\u{%1}").arg(static_cast<int>(u), 4, 16, QLatin1Char('0'));
        else
            escaped += c;
    }
    return escaped;
}

QByteArray header(quint32 length)
{
    QByteArray data(4, Qt::Uninitialized);
    data[0] = static_cast<char>(length >> 24);
    data[1] = static_cast<char>(length >> 16);
    data[2] = static_cast<char>(length >> 8);
    data[3] = static_cast<char>(length);
    return data;
}

} // namespace

class TestClientLite final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void acceptsWhatQtAccepts_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::newRow("event") << QByteArray("{\"event\":\"run.output\",\"data\":{\"run_id\":\"r1\","
                                             "\"stream\":\"stderr\",\"data\":\"aGk=\"}}");
        QTest::newRow("numbers") << QByteArray(
            "{\"a\":0,\"b\":-1,\"c\":9007199254740993,\"d\":1.5,\"e\":-2.5e3,\"f\":1E2,\"g\":"
            "9223372036854775807,"
            "\"h\":-9223372036854775808,\"i\":9223372036854775808,\"j\":0.0,\"k\":1e-7}");
        QTest::newRow("escapes") << QByteArray(
            "{\"s\":\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\\u0041\\u00e9\\u20ac\\ud83d\\ude00\"}");
        QTest::newRow("utf8") << QByteArray("{\"s\":\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"}");
        QTest::newRow("nesting") << QByteArray("{\"a\":[[],{},[{\"b\":[null,true,false]}]],\"c\":{}}");
        QTest::newRow("whitespace") << QByteArray(" \t\r\n{ \"a\" : [ 1 , 2 ] } \n");
    }

    void acceptsWhatQtAccepts()
    {
        QFETCH(QByteArray, text);
        const auto lite = parse(text);
        QVERIFY(lite);
        const QJsonObject qt = QJsonDocument::fromJson(text).object();
        // Serialized by us and read back by Qt: the same document.
        const QByteArray again = QByteArray::fromStdString(lite->serialize());
        QCOMPARE(QJsonDocument::fromJson(again).object(), qt);
        // And the accessors answer as QJsonValue's do.
        for (const QString &key : qt.keys()) {
            const QJsonValue value = qt.value(key);
            const Json &ours = (*lite)[key.toStdString()];
            QCOMPARE(ours.toInteger(-7), value.toInteger(-7));
            QCOMPARE(ours.toInt(-7), value.toInt(-7));
            QCOMPARE(ours.toBool(true), value.toBool(true));
            QCOMPARE(QString::fromStdString(ours.toString()), value.toString());
        }
    }

    void indentedFormReadsBackTheSame()
    {
        // `cordon run --json` prints this form: one member a line, four spaces a level, empty containers
        // kept on one line; read back, it is the same value.
        const auto value = parse(R"({"a":[1,{"b":[]}],"c":{},"d":"x\ny"})");
        QVERIFY(value);
        const std::string indented = value->serializeIndented();
        QCOMPARE(QByteArray::fromStdString(indented),
                 QByteArray("{\n    \"a\": [\n        1,\n        {\n            \"b\": []\n        }\n    ],\n"
                            "    \"c\": {},\n    \"d\": \"x\\ny\"\n}"));
        const auto again = parse(QByteArray::fromStdString(indented));
        QVERIFY(again);
        QCOMPARE(again->serialize(), value->serialize());
    }

    void outputBecomesValidUtf8()
    {
        // A run's output may be any bytes; as a JSON string each stray byte is one U+FFFD, valid UTF-8 kept.
        QCOMPARE(Cordon::toValidUtf8("ok \xc3\xa9 \xff\xfe end \xe2\x82"),
                 std::string("ok \xc3\xa9 \xef\xbf\xbd\xef\xbf\xbd end \xef\xbf\xbd\xef\xbf\xbd"));
        QVERIFY(Cordon::isValidUtf8(Cordon::toValidUtf8("\xed\xa0\x80\xc0\xaf")));
        QCOMPARE(Cordon::toValidUtf8(""), std::string());
    }

    void negativeZeroKeepsItsSign()
    {
        // "-0" would read back as the integer 0: a relayed frame must print the same the second time.
        const auto first = parse("[5e0,-0e0,-0,-0.0]");
        QVERIFY(first);
        const std::string compact = first->serialize();
        QCOMPARE(QByteArray::fromStdString(compact), QByteArray("[5,-0.0,0,-0.0]"));
        const auto again = parse(QByteArray::fromStdString(compact));
        QVERIFY(again);
        QCOMPARE(QByteArray::fromStdString(again->serialize()), QByteArray::fromStdString(compact));
        QVERIFY(std::signbit(again->items()[1].toDouble(1)));
    }

    void refusesMalformedDocuments_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QByteArray>("code");
        QTest::newRow("empty") << QByteArray("") << QByteArray("json.invalid");
        QTest::newRow("truncated object") << QByteArray("{\"a\":1") << QByteArray("json.invalid");
        QTest::newRow("truncated string") << QByteArray("{\"a\":\"b") << QByteArray("json.invalid");
        QTest::newRow("truncated escape") << QByteArray("{\"a\":\"\\u00") << QByteArray("json.invalid");
        QTest::newRow("truncated literal") << QByteArray("{\"a\":tru") << QByteArray("json.invalid");
        QTest::newRow("trailing comma") << QByteArray("{\"a\":1,}") << QByteArray("json.invalid");
        QTest::newRow("trailing data") << QByteArray("{\"a\":1} x") << QByteArray("json.invalid");
        QTest::newRow("two documents") << QByteArray("{}{}") << QByteArray("json.invalid");
        QTest::newRow("comment") << QByteArray("{/* x */}") << QByteArray("json.invalid");
        QTest::newRow("single quotes") << QByteArray("{'a':1}") << QByteArray("json.invalid");
        QTest::newRow("bare key") << QByteArray("{a:1}") << QByteArray("json.invalid");
        QTest::newRow("NaN") << QByteArray("{\"a\":NaN}") << QByteArray("json.invalid");
        QTest::newRow("leading zero") << QByteArray("{\"a\":01}") << QByteArray("json.invalid");
        QTest::newRow("plus sign") << QByteArray("{\"a\":+1}") << QByteArray("json.invalid");
        QTest::newRow("dot") << QByteArray("{\"a\":1.}") << QByteArray("json.invalid");
        QTest::newRow("exponent") << QByteArray("{\"a\":1e}") << QByteArray("json.invalid");
        QTest::newRow("huge exponent") << QByteArray("{\"a\":1e999}") << QByteArray("json.out_of_range");
        QTest::newRow("minus") << QByteArray("{\"a\":-}") << QByteArray("json.invalid");
        QTest::newRow("raw newline") << QByteArray("{\"a\":\"x\ny\"}") << QByteArray("json.invalid");
        QTest::newRow("raw NUL") << QByteArray("{\"a\":\"x\0y\"}", 11) << QByteArray("json.invalid");
        QTest::newRow("bad escape") << QByteArray("{\"a\":\"\\x41\"}") << QByteArray("json.invalid");
        QTest::newRow("lone high surrogate")
            << QByteArray("{\"a\":\"\\ud800\"}") << QByteArray("json.invalid");
        QTest::newRow("high then letter")
            << QByteArray("{\"a\":\"\\ud800\\u0041\"}") << QByteArray("json.invalid");
        QTest::newRow("lone low surrogate")
            << QByteArray("{\"a\":\"\\udc00\"}") << QByteArray("json.invalid");
        QTest::newRow("overlong slash") << QByteArray("{\"a\":\"\xc0\xaf\"}") << QByteArray("json.invalid");
        QTest::newRow("overlong 3 bytes")
            << QByteArray("{\"a\":\"\xe0\x80\xaf\"}") << QByteArray("json.invalid");
        QTest::newRow("encoded surrogate")
            << QByteArray("{\"a\":\"\xed\xa0\x80\"}") << QByteArray("json.invalid");
        QTest::newRow("above U+10FFFF")
            << QByteArray("{\"a\":\"\xf4\x90\x80\x80\"}") << QByteArray("json.invalid");
        QTest::newRow("F5 lead") << QByteArray("{\"a\":\"\xf5\x80\x80\x80\"}") << QByteArray("json.invalid");
        QTest::newRow("lone continuation") << QByteArray("{\"a\":\"\x80\"}") << QByteArray("json.invalid");
        QTest::newRow("truncated sequence")
            << QByteArray("{\"a\":\"\xe2\x82\"}") << QByteArray("json.invalid");
        QTest::newRow("invalid UTF-8 in a key") << QByteArray("{\"\xff\":1}") << QByteArray("json.invalid");
        QTest::newRow("too deep") << QByteArray(Json::MaxDepth + 1, '[') + QByteArray(Json::MaxDepth + 1, ']')
                                  << QByteArray("json.too_deep");
        QTest::newRow("very deep, unterminated") << QByteArray(100000, '[') << QByteArray("json.too_deep");
    }

    void refusesMalformedDocuments()
    {
        QFETCH(QByteArray, text);
        QFETCH(QByteArray, code);
        const auto refused = parse(text);
        QVERIFY(!refused);
        QCOMPARE(QByteArray::fromStdString(refused.error().code()), code);
        QVERIFY2(refused.error().message().ends_with(")") &&
                     refused.error().message().find(" (line 1, column ") != std::string::npos,
                 refused.error().message().c_str());
    }

    void errorsSayWhere()
    {
        // The key path, the reason, and the line and column of the byte where reading stopped, in bytes
        // from 1.
        QCOMPARE(parse("{\n  \"a\": 1,\n  \"b\": tru\n}").error().message(),
                 std::string("b: invalid literal (line 3, column 8)"));
        QCOMPARE(parse("[1,\n2,]").error().message(), std::string("[2]: invalid value (line 2, column 3)"));
        QCOMPARE(parse("{\"env\": {\"A B\": [0, {\"x\": 01}]}}").error().message(),
                 std::string("env[\"A B\"][1].x: invalid number: leading zeros are not allowed (line 1, column 28)"));
        // A duplicate key points at the second one.
        const auto duplicate = parse("{\"env\": {},\n \"env\": {}}");
        QCOMPARE(duplicate.error().code(), std::string("json.duplicate_key"));
        QCOMPARE(duplicate.error().message(), std::string("env: duplicate key (line 2, column 2)"));
    }

    void limitsAreTheCallers()
    {
        const Cordon::JsonLimits tight{.maxBytes = 16, .maxDepth = 2, .maxEntries = 3};
        QVERIFY(parse("[[1,2,3]]", tight));
        QCOMPARE(parse("[[[1]]]", tight).error().code(), std::string("json.too_deep"));
        QCOMPARE(parse("[1,2,3,4]", tight).error().code(), std::string("json.too_large"));
        QCOMPARE(parse("{\"a\":1,\"b\":2,\"c\":3,\"d\":4}", {.maxEntries = 3}).error().code(),
                 std::string("json.too_large"));
        const auto big = parse("[\"0123456789abcdef\"]", tight);
        QCOMPARE(big.error().code(), std::string("json.too_large"));
        QCOMPARE(big.error().message(), std::string("the document is 20 bytes, the limit is 16"));
    }

    void duplicateKeysInLargeObjects()
    {
        // Past the in-place search: the key set finds a repeat among thousands, and takes distinct keys.
        QByteArray text = "{";
        for (int i = 0; i < 5000; ++i)
            text += "\"k" + QByteArray::number(i) + "\":" + QByteArray::number(i) + ',';
        QVERIFY(parse(text + "\"last\":0}"));
        const auto repeated = parse(text + "\"k4321\":0}");
        QVERIFY(!repeated);
        QCOMPARE(repeated.error().code(), std::string("json.duplicate_key"));
        QVERIFY(repeated.error().message().starts_with("k4321: duplicate key (line 1, column "));
    }

    void nestingUpToTheLimit()
    {
        const QByteArray deepest = QByteArray(Json::MaxDepth, '[') + QByteArray(Json::MaxDepth, ']');
        QVERIFY(parse(deepest));
    }

    void repeatedKeysAreRefused()
    {
        // QJsonDocument keeps the last of two; a strict reader must not pick one.
        const auto lite = parse("{\"a\":1,\"a\":2}");
        QVERIFY(!lite);
        QCOMPARE(lite.error().code(), std::string("json.duplicate_key"));
        QVERIFY(parse("{\"a\":{\"a\":1},\"b\":{\"a\":2}}")); // the same key in different objects is fine
    }

    void qtValuesConvertMemberByMember()
    {
        // What the Qt CLI hands the shared wording: the same document as reading Qt's own serialisation,
        // without a second parse, and integers as exact as Qt read them.
        const QByteArray text = "{\"id\":\"r1\",\"exit_code\":3,\"big\":9007199254740993,\"wall_ms\":12.5,"
                                "\"ok\":false,\"none\":null,\"name\":\"caf\u00e9 \u2603\","
                                "\"artifacts\":[{\"path\":\"a\",\"size\":1},[],{}]}";
        const QJsonObject qt = QJsonDocument::fromJson(text).object();
        QVERIFY(!qt.isEmpty());
        const Json converted = Cordon::toPlain(qt);
        const auto read = Json::read(QJsonDocument(qt).toJson(QJsonDocument::Compact).toStdString());
        QVERIFY(read);
        QCOMPARE(QByteArray::fromStdString(converted.serialize()),
                 QByteArray::fromStdString(read->serialize()));
        QCOMPARE(converted["big"].toInteger(), qint64(9007199254740993));
        QCOMPARE(converted["wall_ms"].toDouble(), 12.5);
        QCOMPARE(converted["name"].toString(), std::string("caf\xc3\xa9 \xe2\x98\x83"));
        QVERIFY(converted["none"].isNull());
        QVERIFY(converted["missing"].isUndefined());
        QCOMPARE(converted["artifacts"].items().size(), size_t(3));
        QCOMPARE(converted["artifacts"].items().front()["size"].toInteger(), qint64(1));
    }

    void randomBytesNeverCrash()
    {
        QRandomGenerator random(20261129);
        const QByteArray seed = "{\"id\":3,\"result\":{\"run\":{\"id\":\"r\",\"state\":\"finished\","
                                "\"artifacts\":[{\"path\":\"a\\u00e9\",\"size\":12}]}}}";
        for (int round = 0; round < 20000; ++round) {
            QByteArray text = seed;
            const int edits = 1 + static_cast<int>(random.bounded(4));
            for (int i = 0; i < edits; ++i) {
                const auto at = static_cast<qsizetype>(random.bounded(static_cast<quint32>(text.size())));
                switch (random.bounded(3)) {
                case 0:
                    text[at] = static_cast<char>(random.bounded(256));
                    break;
                case 1:
                    text.remove(at, 1);
                    break;
                default:
                    text.truncate(at);
                }
                if (text.isEmpty())
                    break;
            }
            const auto lite = parse(text);
            // Whatever we accept is valid JSON for Qt as well.
            if (lite && (lite->isObject() || lite->isArray())) { // Qt reads no other documents
                QJsonParseError error;
                QJsonDocument::fromJson(QByteArray::fromStdString(lite->serialize()), &error);
                QVERIFY2(error.error == QJsonParseError::NoError, text.constData());
            }
        }
    }

    void base64MatchesQt()
    {
        QRandomGenerator random(7);
        for (int size = 0; size < 300; ++size) {
            QByteArray data(size, Qt::Uninitialized);
            for (char &c : data)
                c = static_cast<char>(random.bounded(256));
            const std::string encoded = Cordon::Lite::base64Encode(bytes(data));
            QCOMPARE(QByteArray::fromStdString(encoded), data.toBase64());
            QCOMPARE(QByteArray::fromStdString(Cordon::Lite::base64Decode(encoded)), data);
        }
        // Garbage decodes as leniently as Qt decodes it, so both clients print the same bytes.
        for (const QByteArray &garbage :
             {QByteArray("aGk"), QByteArray("a=G=k="), QByteArray("!!aGVsbG8K??"), QByteArray("===="),
              QByteArray("\xff\x00zz", 4), QByteArray("-_-_")})
            QCOMPARE(QByteArray::fromStdString(Cordon::Lite::base64Decode(bytes(garbage))),
                     QByteArray::fromBase64(garbage));
    }

    void framesSplitAnywhere()
    {
        const QByteArray stream = header(7) + "{\"a\":1}" + header(2) + "{}" + header(0) + header(3) + "[1]";
        for (int chunk = 1; chunk <= stream.size(); ++chunk) {
            Cordon::Lite::FrameSplitter splitter;
            QStringList bodies;
            for (qsizetype at = 0; at < stream.size(); at += chunk) {
                const QByteArray piece = stream.mid(at, chunk);
                splitter.feed(std::string_view(piece.constData(), static_cast<std::size_t>(piece.size())));
                std::string_view body;
                std::uint32_t length = 0;
                while (splitter.next(body, length) == Cordon::Lite::FrameSplitter::Status::Frame)
                    bodies.append(QString::fromUtf8(body.data(), static_cast<qsizetype>(body.size())));
            }
            QCOMPARE(bodies, (QStringList{QStringLiteral("{\"a\":1}"), QStringLiteral("{}"), QString(),
                                          QStringLiteral("[1]")}));
            QCOMPARE(splitter.bufferedBytes(), std::size_t(0));
        }
    }

    void hugeLengthsBreakTheStream()
    {
        using Status = Cordon::Lite::FrameSplitter::Status;
        for (const quint32 length : {Cordon::Lite::MaxFrameBytes + 1, 0xffffffffu}) {
            Cordon::Lite::FrameSplitter splitter;
            const QByteArray data = header(length) + "xxxx" + header(2) + "{}";
            splitter.feed(std::string_view(data.constData(), static_cast<std::size_t>(data.size())));
            std::string_view body;
            std::uint32_t announced = 0;
            QCOMPARE(splitter.next(body, announced), Status::TooLarge);
            QCOMPARE(announced, length);
            QVERIFY(splitter.isBroken());
            QCOMPARE(splitter.bufferedBytes(), std::size_t(0));
            // Nothing after it is trusted, and nothing more is buffered.
            splitter.feed("more");
            QCOMPARE(splitter.next(body, announced), Status::NeedMore);
            QCOMPARE(splitter.bufferedBytes(), std::size_t(0));
        }
        // Exactly at the limit is a frame still to come, not an error (and nothing is allocated for it).
        Cordon::Lite::FrameSplitter splitter;
        const QByteArray atLimit = header(Cordon::Lite::MaxFrameBytes);
        splitter.feed(std::string_view(atLimit.constData(), 4));
        std::string_view body;
        std::uint32_t length = 0;
        QCOMPARE(splitter.next(body, length), Status::NeedMore);
        QVERIFY(!splitter.isBroken());
        // A truncated header waits too.
        Cordon::Lite::FrameSplitter truncated;
        truncated.feed(std::string_view("\0\0", 2));
        QCOMPARE(truncated.next(body, length), Status::NeedMore);
    }

    void qtDecoderSharesTheSplitter()
    {
        Cordon::Daemon::FrameDecoder decoder;
        const QByteArray data = header(8) + "not json" + header(7) + "{\"a\":1}";
        decoder.feed(data);
        auto first = decoder.next();
        QVERIFY(first && !*first);
        QCOMPARE(first->error().code(), "protocol.invalid_json");
        auto second = decoder.next();
        QVERIFY(second && *second);
        QCOMPARE((*second)->value(QStringLiteral("a")).toInt(), 1);
        QVERIFY(!decoder.next());
    }

    void bytesAsTheQtCliFormattedThem()
    {
        QList<qint64> values = {0,        1,        1023,       1024,          1025,
                                1280,     1331,     1382,       10240,         10239,
                                10752,    10751,    10753,      1048576,       1572864,
                                10485760, 11010048, 1073741824, 1099511627776, 1099511627776LL * 1024 * 5,
                                -5};
        QRandomGenerator random(3);
        for (int i = 0; i < 5000; ++i)
            values.append(static_cast<qint64>(random.bounded(quint64(1) << (10 + random.bounded(40)))));
        // Every exact half at one decimal and at none, where rounding rules differ.
        for (qint64 unit : {qint64(1024), qint64(1) << 20, qint64(1) << 30})
            for (qint64 tenths = 0; tenths < 2000; ++tenths)
                values.append(unit * tenths / 10 + unit / 20);
        for (const qint64 value : values)
            QCOMPARE(QString::fromStdString(Cordon::Lite::formatBytes(value)), qtFormatBytes(value));
    }

    void escapedNamesAsTheQtCliEscapedThem()
    {
        QString everything;
        for (char16_t u = 1; u < 0x300; ++u)
            everything += QChar(u);
        for (char16_t u : {0x061c, 0x200e, 0x200f, 0x202a, 0x202e, 0x2066, 0x2069, 0x2070, 0xfeff})
            everything += QChar(u);
        everything += QString::fromUtf8("\xf0\x9f\x98\x80 back\\slash");
        QCOMPARE(QString::fromStdString(Cordon::Lite::escapeName(everything.toStdString())),
                 qtEscapeName(everything));
        // Bytes that are not UTF-8 (not from the protocol, which carries only UTF-8) are shown, not passed
        // on.
        QCOMPARE(Cordon::Lite::escapeName("a\xff"
                                          "b\xe2\x82"),
                 std::string("a\\xffb\\xe2\\x82"));
    }

    void exitStatuses_data()
    {
        QTest::addColumn<QByteArray>("run");
        QTest::addColumn<int>("status");
        QTest::newRow("ok") << QByteArray("{\"error_class\":\"ok\",\"exit_code\":0}") << 0;
        QTest::newRow("exit 3") << QByteArray("{\"error_class\":\"nonzero_exit\",\"exit_code\":3}") << 3;
        QTest::newRow("signal") << QByteArray("{\"error_class\":\"killed\",\"exit_code\":-1,\"signal\":9}")
                                << 137;
        QTest::newRow("oom") << QByteArray("{\"error_class\":\"oom\",\"exit_code\":-1,\"signal\":0}") << 137;
        QTest::newRow("timeout") << QByteArray("{\"error_class\":\"timeout\",\"exit_code\":-1,\"signal\":9}")
                                 << 137;
        QTest::newRow("setup failed")
            << QByteArray("{\"error_class\":\"setup_failed\",\"exit_code\":0}") << 125;
        QTest::newRow("interrupted") << QByteArray("{\"state\":\"interrupted\"}") << 125;
        QTest::newRow("unknown class") << QByteArray("{\"error_class\":\"frozen\",\"exit_code\":0}") << 125;
        QTest::newRow("fractional code") << QByteArray("{\"error_class\":\"ok\",\"exit_code\":0.5}") << 125;
    }

    void exitStatuses()
    {
        QFETCH(QByteArray, run);
        QFETCH(int, status);
        QCOMPARE(Cordon::Lite::runExitStatus(*parse(run)), status);
    }

    void summaries_data()
    {
        QTest::addColumn<QByteArray>("run");
        QTest::addColumn<QByteArray>("container");
        QTest::addColumn<QString>("summary");
        QTest::newRow("ok")
            << QByteArray("{\"state\":\"finished\",\"error_class\":\"ok\",\"exit_code\":0,\"signal\":0,"
                          "\"wall_ms\":12,\"cpu_ms\":3,\"peak_memory_bytes\":1572864}")
            << QByteArray("{\"memory_limit\":1073741824}")
            << QStringLiteral("cordon: ok (exit 0): the run finished successfully\n"
                              "cordon: wall 12 ms, cpu 3 ms, peak memory 1.5 MiB of 1.0 GiB\n");
        QTest::newRow("degraded, cut, artifact, note")
            << QByteArray(
                   "{\"state\":\"finished\",\"error_class\":\"killed\",\"exit_code\":-1,\"signal\":9,"
                   "\"wall_ms\":1,\"cpu_ms\":0,\"peak_memory_bytes\":100,\"stdout_truncated\":true,"
                   "\"artifacts\":[{\"path\":\"a\\u001b[31m\\u202e.txt\",\"size\":2048,\"sha256\":\"ab\"}],"
                   "\"message\":\"killed by cancel\"}")
            << QByteArray("{\"limits_enforced\":false}")
            << QStringLiteral("cordon: killed (signal 9): the program was killed by a signal\n"
                              "cordon: wall 1 ms, cpu 0 ms, peak memory 100 B (not enforced: degraded mode)\n"
                              "cordon: stdout was cut at the policy's output limit (limits.output_mb)\n"
                              "cordon: artifact a\\x1b[31m\\u{202e}.txt (2.0 KiB, sha256 ab)\n"
                              "cordon: note: killed by cancel\n");
        QTest::newRow("setup failed")
            << QByteArray("{\"state\":\"finished\",\"error_class\":\"setup_failed\",\"message\":\"execve: No "
                          "such file\"}")
            << QByteArray("{}")
            << QStringLiteral("cordon: setup_failed (execve: No such file): the sandbox could not be set up, "
                              "the program did not run\n");
        QTest::newRow("interrupted") << QByteArray("{\"state\":\"interrupted\"}") << QByteArray("{}")
                                     << QStringLiteral("cordon: interrupted: the run's outcome is unknown "
                                                       "(cordond stopped before it ended)\n");
    }

    void summaries()
    {
        QFETCH(QByteArray, run);
        QFETCH(QByteArray, container);
        QFETCH(QString, summary);
        QCOMPARE(QString::fromStdString(Cordon::Lite::summarizeRun(*parse(run), *parse(container))), summary);
    }

    void containerReferences_data()
    {
        QTest::addColumn<QString>("reference");
        QTest::addColumn<QList<int>>("matches");
        QTest::newRow("exact id") << QStringLiteral("aaaa111100000000") << QList<int>{0};
        QTest::newRow("exact id of a deleted one") << QStringLiteral("bbbb000000000000") << QList<int>{2};
        QTest::newRow("name") << QStringLiteral("web") << QList<int>{1};
        // Last of all the name of an ended container, the newest (first listed), so that using it says it
        // ended.
        QTest::newRow("name of ended ones: the newest") << QStringLiteral("gone") << QList<int>{2};
        QTest::newRow("a live name wins over an ended one") << QStringLiteral("web") << QList<int>{1};
        QTest::newRow("live prefix wins") << QStringLiteral("b") << QList<int>{1};
        QTest::newRow("ended prefix") << QStringLiteral("bbbb0") << QList<int>{2};
        QTest::newRow("ambiguous") << QStringLiteral("aaaa") << QList<int>{0, 3};
        QTest::newRow("nothing") << QStringLiteral("zz") << QList<int>{};
        QTest::newRow("name before prefix") << QStringLiteral("aaaa1") << QList<int>{3};
    }

    void containerReferences()
    {
        QFETCH(QString, reference);
        QFETCH(QList<int>, matches);
        const auto list = parse("[{\"id\":\"aaaa111100000000\",\"name\":\"main\",\"state\":\"running\"},"
                                "{\"id\":\"bbbb111100000000\",\"name\":\"web\",\"state\":\"stopped\"},"
                                "{\"id\":\"bbbb000000000000\",\"name\":\"gone\",\"state\":\"deleted\"},"
                                "{\"id\":\"aaaa222200000000\",\"name\":\"aaaa1\",\"state\":\"running\"},"
                                "{\"id\":\"cccc000000000000\",\"name\":\"web\",\"state\":\"expired\"},"
                                "{\"id\":\"dddd000000000000\",\"name\":\"gone\",\"state\":\"expired\"}]");
        QList<int> found;
        for (const std::size_t index : Cordon::Lite::matchContainers(list->items(), reference.toStdString()))
            found.append(static_cast<int>(index));
        QCOMPARE(found, matches);
    }

    void fullIds()
    {
        QVERIFY(Cordon::Lite::isFullContainerId("0123456789abcdef"));
        QVERIFY(!Cordon::Lite::isFullContainerId("0123456789ABCDEF"));
        QVERIFY(!Cordon::Lite::isFullContainerId("0123456789abcde"));
        QVERIFY(!Cordon::Lite::isFullContainerId("0123456789abcdef0"));
        QVERIFY(!Cordon::Lite::isFullContainerId("main"));
    }

    void socketPathsAsQFileInfo()
    {
        for (const char *path : {"/a/b/c.sock", "rel.sock", "./x/../y.sock", "/a//b/./c/../d.sock",
                                 "../up.sock", "/../../root.sock"}) {
            QCOMPARE(QString::fromStdString(Cordon::Lite::absoluteCleanPath(path)),
                     QFileInfo(QString::fromUtf8(path)).absoluteFilePath());
            QCOMPARE(QString::fromStdString(Cordon::Lite::parentPath(Cordon::Lite::absoluteCleanPath(path))),
                     QFileInfo(QString::fromUtf8(path)).absolutePath());
        }
        qputenv("CORDON_SOCKET", "sub/../d.sock");
        QCOMPARE(QString::fromStdString(Cordon::Lite::socketPath()),
                 QFileInfo(QStringLiteral("d.sock")).absoluteFilePath());
        qunsetenv("CORDON_SOCKET");
    }

    void socketPathWithoutHome()
    {
        // The environment alone answers as long as it can; without HOME (and the XDG variables) only the
        // password database knows, which the statically linked launcher leaves to cordon-cli.
        const QByteArray home = qgetenv("HOME");
        const QByteArray runtime = qgetenv("XDG_RUNTIME_DIR");
        const QByteArray state = qgetenv("XDG_STATE_HOME");
        qunsetenv("CORDON_SOCKET");
        qunsetenv("XDG_RUNTIME_DIR");
        qunsetenv("XDG_STATE_HOME");
        qputenv("HOME", "/home/someone");
        QCOMPARE(Cordon::Lite::socketPathFromEnvironment(),
                 std::optional<std::string>("/home/someone/.local/state/cordon/cordond.sock"));
        QCOMPARE(Cordon::Lite::socketPath(), std::string("/home/someone/.local/state/cordon/cordond.sock"));
        qunsetenv("HOME");
        QCOMPARE(Cordon::Lite::socketPathFromEnvironment(), std::optional<std::string>());
        const passwd *account = ::getpwuid(::getuid());
        QVERIFY(account);
        QCOMPARE(Cordon::Lite::socketPath(),
                 std::string(account->pw_dir) + "/.local/state/cordon/cordond.sock");
        qputenv("HOME", home);
        if (!runtime.isNull())
            qputenv("XDG_RUNTIME_DIR", runtime);
        if (!state.isNull())
            qputenv("XDG_STATE_HOME", state);
    }

    void hints()
    {
        QCOMPARE(std::string(Cordon::Lite::cliHint("container.not_running")),
                 std::string("Start it with `cordon start ID`; its files are still there."));
        QVERIFY(Cordon::Lite::cliHint("container.not_running.x").empty());
        QCOMPARE(Cordon::Lite::errorReport("boom", ""), std::string("cordon: error: boom\n"));
        QCOMPARE(Cordon::Lite::errorReport("boom", "try"),
                 std::string("cordon: error: boom\ncordon: hint: try\n"));
        QVERIFY(Cordon::Lite::isUnreachableCode("daemon.disconnected"));
        QVERIFY(!Cordon::Lite::isUnreachableCode("container.not_found"));
    }
};

QTEST_GUILESS_MAIN(TestClientLite)
#include "tst_clientlite.moc"
