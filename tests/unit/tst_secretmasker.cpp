// SPDX-License-Identifier: MIT
// The secret masker at the logging boundary: every form of a value (raw, JSON-escaped, percent-encoded, hex,
// base64 standard and URL-safe at every alignment) becomes [secret:NAME], also when a form is split across
// chunks at every possible point, while output that merely resembles a secret's start is not held back.
#include "sandbox/secrets/secretmasker.h"

#include "testutil.h"

#include <QByteArray>
#include <QObject>
#include <QRandomGenerator>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>

using namespace Cordon;
using Cordon::Secrets::SecretMasker;

namespace {

// A value with characters that every encoding treats differently.
const std::string Value = "sk-test_9f\"Q/+x=\\ z~%7e\n";

std::string toStd(const QByteArray &bytes)
{
    return bytes.toStdString();
}

// %2F -> %2f, the rest as it is.
std::string lowerHexEscapes(std::string text)
{
    for (std::size_t i = 0; i + 2 < text.size(); ++i) {
        if (text[i] == '%') {
            text[i + 1] = char(std::tolower(static_cast<unsigned char>(text[i + 1])));
            text[i + 2] = char(std::tolower(static_cast<unsigned char>(text[i + 2])));
        }
    }
    return text;
}

// Every way a program is likely to print the value, each embedded in surrounding text.
std::vector<std::string> leaks(const std::string &value)
{
    const QByteArray raw = QByteArray::fromStdString(value);
    std::vector<std::string> out{
        "token=" + value + ";",
        "{\"token\": \"" +
            toStd(QByteArray::fromStdString(value)
                      .replace("\\", "\\\\")
                      .replace("\"", "\\\"")
                      .replace("\n", "\\n")) +
            "\"}",
        "url?t=" + toStd(raw.toPercentEncoding()) + "&x",
        "url?t=" + lowerHexEscapes(toStd(raw.toPercentEncoding())) + "&x",
        "hex " + toStd(raw.toHex()) + " end",
        "HEX " + toStd(raw.toHex().toUpper()) + " end",
    };
    // Base64 of the value after 0, 1 and 2 bytes of other data, standard and URL-safe, padded or not.
    for (const char *prefix : {"", "a", "ab"}) {
        const QByteArray data = QByteArray(prefix) + raw + QByteArray("tail");
        out.push_back("b64 " + toStd(data.toBase64()) + " end");
        out.push_back("b64url " +
                      toStd(data.toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals)) +
                      " end");
    }
    return out;
}

bool containsAnyForm(const std::string &text, const std::string &value)
{
    for (const std::string &form : Secrets::maskedForms(value)) {
        if (text.find(form) != std::string::npos)
            return true;
    }
    return false;
}

} // namespace

class TestSecretMasker final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void everyFormIsMaskedInACompleteText()
    {
        SecretMasker masker;
        QVERIFY_RESULT(masker.add("API_TOKEN", Value));
        for (const std::string &leak : leaks(Value)) {
            const std::string masked = masker.maskAll(leak);
            QVERIFY2(!containsAnyForm(masked, Value), masked.c_str());
            QVERIFY2(masked.find("[secret:API_TOKEN]") != std::string::npos, masked.c_str());
        }
        // Checked against Qt's own encoders, not the masker's: ten characters from the middle of the base64
        // of the value at each alignment must be gone.
        for (const char *prefix : {"", "a", "ab"}) {
            const QByteArray data =
                QByteArray(prefix) + QByteArray::fromStdString(Value) + QByteArray("tail");
            for (const auto options : {QByteArray::Base64Encoding, QByteArray::Base64UrlEncoding}) {
                const std::string encoded = toStd(data.toBase64(options));
                const std::size_t first = (8 * std::strlen(prefix) + 5) / 6;
                const std::string middle = encoded.substr(first + 4, 10);
                const std::string masked = masker.maskAll("x " + encoded + " y");
                QVERIFY2(masked.find(middle) == std::string::npos, (masked + " still has " + middle).c_str());
            }
        }
        // What is not the secret stays as it was.
        QCOMPARE(masker.maskAll("nothing to hide"), std::string("nothing to hide"));
    }

    // A program that writes the value in two writes, split anywhere, arrives in two chunks.
    void aFormSplitAcrossChunksIsStillMasked()
    {
        for (const std::string &leak : leaks(Value)) {
            for (std::size_t cut = 0; cut <= leak.size(); ++cut) {
                SecretMasker masker;
                QVERIFY_RESULT(masker.add("API_TOKEN", Value));
                std::string passed = masker.feed(std::string_view(leak).substr(0, cut));
                passed += masker.feed(std::string_view(leak).substr(cut));
                passed += masker.finish();
                QVERIFY2(!containsAnyForm(passed, Value),
                         (passed + " cut at " + std::to_string(cut)).c_str());
                QCOMPARE(passed, masker.maskOutput(leak));
            }
        }
    }

    // One byte at a time, with several secrets: the same result as masking the whole text at once.
    void byteByByteWithSeveralSecrets()
    {
        SecretMasker masker;
        QVERIFY_RESULT(masker.add("FIRST", "first-secret-value"));
        QVERIFY_RESULT(masker.add("SECOND", "second/secret+value"));
        const std::string text = "a first-secret-value b " +
                                 toStd(QByteArray("second/secret+value").toBase64()) +
                                 " c second%2Fsecret%2Bvalue d";
        std::string passed;
        for (char c : text)
            passed += masker.feed(std::string_view(&c, 1));
        passed += masker.finish();
        QCOMPARE(passed, masker.maskOutput(text));
        QVERIFY2(passed.find("[secret:FIRST]") != std::string::npos, passed.c_str());
        QCOMPARE(std::count(passed.begin(), passed.end(), '['), std::ptrdiff_t(3));
    }

    // A prompt waiting for input must reach the user now: only a tail that could start a form is held.
    void onlyAPossibleStartIsHeldBack()
    {
        SecretMasker masker;
        QVERIFY_RESULT(masker.add("API_TOKEN", "zebra-token-123"));
        QCOMPARE(masker.feed("Enter your name: "), std::string("Enter your name: "));
        QCOMPARE(masker.feed("hello zeb"), std::string("hello "));
        QCOMPARE(masker.feed("ra crossing\n"), std::string("zebra crossing\n"));
        QCOMPARE(masker.finish(), std::string());
    }

    // How other writers and normalisers print a value: lower-cased (a host name), JSON with every non-ASCII
    // character escaped (Python's default), JSON with "/" escaped (PHP).
    void otherWritersFormsAreMasked()
    {
        SecretMasker masker;
        const std::string value = "MiXeD/p\xc3\xa4ss-\xf0\x9f\x94\x91-Key";
        QVERIFY_RESULT(masker.add("KEY", value));
        for (const std::string &leak :
             {std::string("host mixed/p\xc3\xa4ss-\xf0\x9f\x94\x91-key.example"),
              std::string(R"({"k": "MiXeD/p\u00e4ss-\ud83d\udd11-Key"})"),
              std::string(R"({"k":"MiXeD\/p\u00e4ss-\ud83d\udd11-Key"})"),
              std::string("{\"k\":\"MiXeD\\/p\xc3\xa4ss-\xf0\x9f\x94\x91-Key\"}")}) {
            const std::string masked = masker.maskAll(leak);
            QVERIFY2(masked.find("[secret:KEY]") != std::string::npos, masked.c_str());
            QVERIFY2(masked.find("p\xc3\xa4ss") == std::string::npos &&
                         masked.find("u00e4ss") == std::string::npos,
                     masked.c_str());
        }
    }

    // A query string or a form body (application/x-www-form-urlencoded, Python's quote_plus) writes a space
    // as "+": masked like %20, also when the stream splits it at the "+".
    void aFormBodyEncodingIsMasked()
    {
        SecretMasker masker;
        QVERIFY_RESULT(masker.add("PASS", "open sesame/42"));
        QCOMPARE(masker.maskAll("user=ada&pass=open+sesame%2F42&next=1"),
                 std::string("user=ada&pass=[secret:PASS]&next=1"));
        QCOMPARE(masker.maskAll("pass=open+sesame%2f42"), std::string("pass=[secret:PASS]"));
        std::string streamed = masker.feed("POST body: pass=open+");
        streamed += masker.feed("sesame%2");
        streamed += masker.feed("F42\n");
        streamed += masker.finish();
        QCOMPARE(streamed, std::string("POST body: pass=[secret:PASS]\n"));
    }

    // base64 as `base64` (76 columns), PEM (64, CRLF here) and a terminal wrap it: the line breaks that fall
    // inside the value do not hide it, in a complete text and in a stream split anywhere.
    void wrappedBase64IsMasked()
    {
        const std::string value = "wrapped-secret-" + std::string(60, 'q') + "-end";
        for (const int columns : {76, 64, 10}) {
            for (const char *prefix : {"", "a", "ab", "some longer prefix before it: "}) {
                const std::string encoded = toStd(
                    QByteArray(QByteArray(prefix) + QByteArray::fromStdString(value) + "tail").toBase64());
                std::string wrapped;
                for (std::size_t at = 0; at < encoded.size(); at += columns)
                    wrapped += encoded.substr(at, columns) + (columns == 64 ? "\r\n" : "\n");
                SecretMasker masker;
                QVERIFY_RESULT(masker.add("WRAPPED", value));
                const std::string masked = masker.maskAll(wrapped);
                QVERIFY2(masked.find("[secret:WRAPPED]") != std::string::npos, masked.c_str());
                // No run of the inner encoding, however it was wrapped, is left.
                std::string unwrapped = masked;
                std::erase_if(unwrapped, [](char c) { return c == '\n' || c == '\r'; });
                const std::size_t first = (8 * std::strlen(prefix) + 5) / 6;
                QVERIFY2(unwrapped.find(encoded.substr(first + 2, 12)) == std::string::npos, masked.c_str());
                for (std::size_t cut = 0; cut <= wrapped.size(); cut += 7) {
                    SecretMasker stream;
                    QVERIFY_RESULT(stream.add("WRAPPED", value));
                    std::string passed = stream.feed(std::string_view(wrapped).substr(0, cut));
                    passed += stream.feed(std::string_view(wrapped).substr(cut));
                    passed += stream.finish();
                    QCOMPARE(passed, masked);
                }
            }
        }
        // Line breaks are skipped only inside base64-like forms: a value with other characters is not
        // matched across them.
        SecretMasker masker;
        QVERIFY_RESULT(masker.add("SPACED", "two words here"));
        QCOMPARE(masker.maskAll("two words\nhere"), std::string("two words\nhere"));
    }

    // Two secrets that share characters: one shorter form complete inside the start of a longer one (split
    // across chunks right there), and two forms that overlap. Nothing of either is left.
    void overlappingSecretsLeaveNothing()
    {
        SecretMasker nested;
        QVERIFY_RESULT(nested.add("PW", "hunter2pass"));
        QVERIFY_RESULT(nested.add("URL", "postgres://app:hunter2pass@db.internal/prod"));
        const std::string text = "connect postgres://app:hunter2pass@db.internal/prod now";
        for (std::size_t cut = 0; cut <= text.size(); ++cut) {
            SecretMasker stream = nested;
            std::string passed = stream.feed(std::string_view(text).substr(0, cut));
            passed += stream.feed(std::string_view(text).substr(cut));
            passed += stream.finish();
            QCOMPARE(passed, std::string("connect [secret:URL] now"));
        }
        SecretMasker overlapping;
        QVERIFY_RESULT(overlapping.add("A", "abcdefgh12"));
        QVERIFY_RESULT(overlapping.add("B", "12XYZsecret"));
        const std::string masked = overlapping.maskAll("x abcdefgh12XYZsecret y");
        QVERIFY2(masked.find("abcdefgh") == std::string::npos &&
                     masked.find("XYZsecret") == std::string::npos,
                 masked.c_str());
        QCOMPARE(std::count(masked.begin(), masked.end(), '['), std::ptrdiff_t(1));
    }

    // Empty lines after the start of a form end it: a stream does not hold them back, however many.
    void lineBreaksAreNotHeldWithoutLimit()
    {
        SecretMasker masker;
        QVERIFY_RESULT(masker.add("TOKEN", "Tok3nValue8"));
        QCOMPARE(masker.feed("x T"), std::string("x "));
        const std::string lines(100000, '\n');
        QCOMPARE(masker.feed(lines), "T" + lines);
        QCOMPARE(masker.finish(), std::string());
    }

    // A stream cut at its cap, or a program that prints the start of a value last: the start is masked too,
    // once it is long enough to tell (MinMaskedTail); shorter tails that merely could start it pass.
    void aValueCutShortAtTheEndIsMasked()
    {
        SecretMasker masker;
        QVERIFY_RESULT(masker.add("API_TOKEN", "zebra-token-123"));
        QCOMPARE(masker.feed("output ends in zebra-tok"), std::string("output ends in "));
        QCOMPARE(masker.finish(), std::string("[secret:API_TOKEN]"));
        QCOMPARE(masker.maskOutput("kept up to the cap: zebra-to"),
                 std::string("kept up to the cap: [secret:API_TOKEN]"));
        QCOMPARE(masker.maskOutput("a zebra"), std::string("a [secret:API_TOKEN]"));
        QCOMPARE(masker.maskOutput("a zeb"), std::string("a zeb"));
        // Line breaks after the start stay, and do not count toward its length.
        QCOMPARE(masker.maskOutput("a zebra\r\n\r\n"), std::string("a [secret:API_TOKEN]\r\n\r\n"));
        QCOMPARE(masker.maskOutput("X: z\r\n\r\n"), std::string("X: z\r\n\r\n"));
        // A field is not an output that was cut: only complete forms are masked in it.
        QCOMPARE(masker.maskAll("a field ending in zebra"), std::string("a field ending in zebra"));
        QCOMPARE(masker.feed("the end: zeb"), std::string("the end: "));
        QCOMPARE(masker.finish(), std::string("zeb"));
    }

    // Random bytes around random splits: never a form in what passes, always what maskAll gives.
    // The search across line breaks looks only in runs of a form's own characters: on random texts it finds
    // exactly the occurrences the rule defines, here spelled out directly: a form's characters in order, with
    // at most one line end ("\n", "\r\n", "\r") between two of them when the form is all base64 characters.
    void occurrencesAreExactlyTheRule()
    {
        const std::string value = "Zk9vYmFy-tok_42+x/y";
        const std::vector<std::string> forms = Secrets::maskedForms(value);
        const auto isBase64 = [](char c) {
            return std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '/' || c == '-' ||
                   c == '_';
        };
        const auto reference = [&](const std::string &text) {
            std::vector<std::pair<std::size_t, std::size_t>> spans;
            for (const std::string &form : forms) {
                const bool wraps = std::all_of(form.begin(), form.end(), isBase64);
                for (std::size_t start = 0; start < text.size(); ++start) {
                    std::size_t at = start;
                    std::size_t k = 0;
                    for (; k < form.size(); ++k) {
                        if (k > 0 && wraps && at < text.size() && (text[at] == '\r' || text[at] == '\n')) {
                            std::size_t end = at;
                            while (end < text.size() && (text[end] == '\r' || text[end] == '\n'))
                                ++end;
                            const std::string run = text.substr(at, end - at);
                            if (run != "\n" && run != "\r\n" && run != "\r")
                                break;
                            at = end;
                        }
                        if (at >= text.size() || text[at] != form[k])
                            break;
                        ++at;
                    }
                    if (k == form.size())
                        spans.emplace_back(start, at);
                }
            }
            std::sort(spans.begin(), spans.end(), [](const auto &a, const auto &b) {
                return a.first != b.first ? a.first < b.first : a.second > b.second;
            });
            std::vector<std::pair<std::size_t, std::size_t>> merged;
            for (const auto &span : spans) {
                if (!merged.empty() && span.first < merged.back().second)
                    merged.back().second = std::max(merged.back().second, span.second);
                else
                    merged.push_back(span);
            }
            return merged;
        };
        SecretMasker masker;
        QVERIFY_RESULT(masker.add("TOKEN", value));
        QRandomGenerator random(20261203);
        int wrappedFound = 0;
        const std::string noise = "ab Z9+/-_\r\n\n .,:";
        for (int round = 0; round < 3000; ++round) {
            std::string text;
            const int pieces = random.bounded(1, 6);
            for (int piece = 0; piece < pieces; ++piece) {
                for (int n = random.bounded(0, 12); n > 0; --n)
                    text += noise[random.bounded(int(noise.size()))];
                // A form, wrapped at random places with random line ends.
                const std::string &form = forms[random.bounded(int(forms.size()))];
                for (char c : form) {
                    text += c;
                    if (random.bounded(6) == 0)
                        text += std::array<const char *, 4>{"\n", "\r\n", "\r", "\n\n"}[random.bounded(4)];
                }
            }
            std::vector<std::pair<std::size_t, std::size_t>> found;
            for (const SecretMasker::Occurrence &occurrence : masker.occurrences(text))
                found.emplace_back(occurrence.start, occurrence.end);
            QVERIFY2(found == reference(text), text.c_str());
            for (const auto &[start, end] : found)
                wrappedFound +=
                    text.substr(start, end - start).find_first_of("\r\n") != std::string::npos ? 1 : 0;
        }
        // The texts exercise what the rule is about: matches across line ends.
        QVERIFY(wrappedFound > 500);
    }

    void randomChunksNeverLeak()
    {
        QRandomGenerator random(20261203);
        const std::string secret = "rNd-" + std::to_string(random.generate()) + "-value";
        SecretMasker masker;
        QVERIFY_RESULT(masker.add("RANDOM", secret));
        for (int round = 0; round < 200; ++round) {
            std::string text;
            for (int part = 0; part < 6; ++part) {
                const std::vector<std::string> forms = Secrets::maskedForms(secret);
                std::string form = forms[random.bounded(int(forms.size()))];
                // Now and then wrapped, as base64 writers and terminals wrap.
                if (random.bounded(3) == 0)
                    form.insert(random.bounded(int(form.size())), random.bounded(2) ? "\n" : "\r\n");
                text += form;
                for (int i = random.bounded(12); i > 0; --i)
                    text += char(random.bounded(32, 127));
            }
            SecretMasker stream;
            QVERIFY_RESULT(stream.add("RANDOM", secret));
            std::string passed;
            for (std::size_t at = 0; at < text.size();) {
                const std::size_t length = std::min<std::size_t>(random.bounded(1, 9), text.size() - at);
                passed += stream.feed(std::string_view(text).substr(at, length));
                at += length;
            }
            passed += stream.finish();
            QVERIFY2(!containsAnyForm(passed, secret), passed.c_str());
            QCOMPARE(passed, masker.maskOutput(text));
        }
    }

    void badNamesAndValuesAreRefused()
    {
        SecretMasker masker;
        for (const std::string &name : {std::string(), std::string("1ABC"), std::string("A-B"),
                                        std::string("A B"), std::string(129, 'A')}) {
            const auto added = masker.add(name, "long enough value");
            QVERIFY(!added);
            QCOMPARE(added.error().code(), std::string("secrets.bad_name"));
        }
        for (const std::string &value :
             {std::string("short"), std::string(Secrets::MaxValueBytes + 1, 'x')}) {
            const auto added = masker.add("OK_NAME", value);
            QVERIFY(!added);
            QCOMPARE(added.error().code(), std::string("secrets.bad_value"));
        }
        QVERIFY(masker.empty());
        QCOMPARE(masker.feed("unchanged"), std::string("unchanged"));
    }
};

QTEST_GUILESS_MAIN(TestSecretMasker)
#include "tst_secretmasker.moc"
