// SPDX-License-Identifier: MIT
#include "policy/strictjson.h"

#include "policy/jsonfields.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QList>

#include <cmath>

namespace Cordon::Policy {

namespace {

// Returns the byte offset of the first invalid UTF-8 sequence, or -1 when there is none.
qsizetype firstInvalidUtf8(QByteArrayView bytes)
{
    const auto *data = reinterpret_cast<const unsigned char *>(bytes.data());
    const qsizetype size = bytes.size();
    qsizetype i = 0;
    while (i < size) {
        const unsigned char lead = data[i];
        if (lead < 0x80) {
            ++i;
            continue;
        }
        // The lead byte gives the length, the payload bits, and the smallest code point that needs this
        // length.
        int length = 0;
        char32_t codePoint = 0;
        char32_t smallest = 0;
        if ((lead & 0xE0) == 0xC0) {
            length = 2;
            codePoint = lead & 0x1F;
            smallest = 0x80;
        } else if ((lead & 0xF0) == 0xE0) {
            length = 3;
            codePoint = lead & 0x0F;
            smallest = 0x800;
        } else if ((lead & 0xF8) == 0xF0) {
            length = 4;
            codePoint = lead & 0x07;
            smallest = 0x10000;
        } else {
            return i;
        }
        if (size - i < length)
            return i;
        for (int k = 1; k < length; ++k) {
            if ((data[i + k] & 0xC0) != 0x80)
                return i;
            codePoint = (codePoint << 6) | (data[i + k] & 0x3F);
        }
        // Overlong forms hide characters from filters ("\xc0\xaf" is "/"); encoded surrogates and values past
        // U+10FFFF are not characters at all (RFC 3629).
        if (codePoint < smallest || codePoint > 0x10FFFF || (codePoint >= 0xD800 && codePoint <= 0xDFFF))
            return i;
        i += length;
    }
    return -1;
}

int hexValue(QChar c)
{
    const char16_t u = c.unicode();
    if (u >= u'0' && u <= u'9')
        return u - u'0';
    if (u >= u'a' && u <= u'f')
        return u - u'a' + 10;
    if (u >= u'A' && u <= u'F')
        return u - u'A' + 10;
    return -1;
}

bool isAsciiDigit(QChar c)
{
    return c.unicode() >= u'0' && c.unicode() <= u'9';
}

class Parser
{
public:
    explicit Parser(QString text) : m_text(std::move(text)) {}

    Result<QJsonValue> parseDocument()
    {
        skipWhitespace();
        Result<QJsonValue> value = parseValue(0);
        if (!value)
            return value;
        skipWhitespace();
        if (m_pos != m_text.size())
            return error(QStringLiteral("policy.invalid_json"),
                         QStringLiteral("unexpected data after the document"));
        return value;
    }

private:
    QString currentPath() const { return m_paths.isEmpty() ? QString() : m_paths.last(); }

    tl::unexpected<Error> error(const QString &code, const QString &what) const
    {
        int line = 1;
        qsizetype lineStart = 0;
        for (qsizetype i = 0; i < m_pos && i < m_text.size(); ++i) {
            if (m_text.at(i) == u'\n') {
                ++line;
                lineStart = i + 1;
            }
        }
        const QString where = QStringLiteral(" (line %1, column %2)").arg(line).arg(m_pos - lineStart + 1);
        return fail(code, Json::at(currentPath(), what + where));
    }

    tl::unexpected<Error> syntaxError(const QString &expected) const
    {
        const QString found =
            m_pos < m_text.size() ? Json::quoted(QString(m_text.at(m_pos))) : QStringLiteral("end of input");
        return error(QStringLiteral("policy.invalid_json"), QStringLiteral("invalid JSON: expected ") +
                                                                expected + QStringLiteral(", found ") +
                                                                found);
    }

    bool atChar(char16_t c) const { return m_pos < m_text.size() && m_text.at(m_pos) == c; }

    void skipWhitespace()
    {
        // RFC 8259 whitespace only: no form feeds, no Unicode spaces, no comments.
        while (m_pos < m_text.size()) {
            const char16_t c = m_text.at(m_pos).unicode();
            if (c != u' ' && c != u'\t' && c != u'\n' && c != u'\r')
                break;
            ++m_pos;
        }
    }

    Result<QJsonValue> parseValue(int depth)
    {
        if (m_pos >= m_text.size())
            return syntaxError(QStringLiteral("a value"));
        const char16_t c = m_text.at(m_pos).unicode();
        if (c == u'{' || c == u'[') {
            // Checked before descending, so hostile nesting cannot exhaust the stack.
            if (depth + 1 > MaxNestingDepth)
                return error(QStringLiteral("policy.too_deep"),
                             QStringLiteral("nested deeper than %1 levels").arg(MaxNestingDepth));
            return c == u'{' ? parseObject(depth + 1) : parseArray(depth + 1);
        }
        if (c == u'"') {
            Result<QString> text = parseString();
            if (!text)
                return fail(text.error());
            return QJsonValue(*text);
        }
        if (c == u'-' || isAsciiDigit(m_text.at(m_pos)))
            return parseNumber();
        for (const auto &[word, value] :
             {std::pair{QLatin1StringView("true"), QJsonValue(true)},
              std::pair{QLatin1StringView("false"), QJsonValue(false)},
              std::pair{QLatin1StringView("null"), QJsonValue(QJsonValue::Null)}}) {
            if (QStringView(m_text).sliced(m_pos).startsWith(word)) {
                m_pos += word.size();
                return value;
            }
        }
        return syntaxError(QStringLiteral("a value"));
    }

    Result<QJsonValue> parseObject(int depth)
    {
        ++m_pos; // '{'
        QJsonObject object;
        skipWhitespace();
        if (atChar(u'}')) {
            ++m_pos;
            return object;
        }
        while (true) {
            if (!atChar(u'"'))
                return syntaxError(QStringLiteral("a key in double quotes"));
            const qsizetype keyPos = m_pos;
            Result<QString> key = parseString();
            if (!key)
                return fail(key.error());
            m_paths.append(Json::childPath(currentPath(), *key));
            if (object.contains(*key)) {
                m_pos = keyPos;
                return error(QStringLiteral("policy.duplicate_key"), QStringLiteral("duplicate key"));
            }
            if (object.size() >= MaxContainerEntries)
                return error(QStringLiteral("policy.too_large"),
                             QStringLiteral("object has more than %1 keys").arg(MaxContainerEntries));
            skipWhitespace();
            if (!atChar(u':'))
                return syntaxError(QStringLiteral("':'"));
            ++m_pos;
            skipWhitespace();
            Result<QJsonValue> value = parseValue(depth);
            if (!value)
                return value;
            object.insert(*key, *value);
            m_paths.removeLast();
            skipWhitespace();
            if (atChar(u',')) {
                ++m_pos;
                skipWhitespace();
                continue;
            }
            if (atChar(u'}')) {
                ++m_pos;
                return object;
            }
            return syntaxError(QStringLiteral("',' or '}'"));
        }
    }

    Result<QJsonValue> parseArray(int depth)
    {
        ++m_pos; // '['
        QJsonArray array;
        skipWhitespace();
        if (atChar(u']')) {
            ++m_pos;
            return array;
        }
        while (true) {
            if (array.size() >= MaxContainerEntries)
                return error(QStringLiteral("policy.too_large"),
                             QStringLiteral("array has more than %1 entries").arg(MaxContainerEntries));
            m_paths.append(Json::indexPath(currentPath(), array.size()));
            Result<QJsonValue> value = parseValue(depth);
            if (!value)
                return value;
            array.append(*value);
            m_paths.removeLast();
            skipWhitespace();
            if (atChar(u',')) {
                ++m_pos;
                skipWhitespace();
                continue;
            }
            if (atChar(u']')) {
                ++m_pos;
                return array;
            }
            return syntaxError(QStringLiteral("',' or ']'"));
        }
    }

    // Reads four hex digits after "\u"; -1 when they are not there.
    int parseHex4()
    {
        if (m_text.size() - m_pos < 4)
            return -1;
        int value = 0;
        for (int k = 0; k < 4; ++k) {
            const int digit = hexValue(m_text.at(m_pos + k));
            if (digit < 0)
                return -1;
            value = value * 16 + digit;
        }
        m_pos += 4;
        return value;
    }

    Result<QString> parseString()
    {
        ++m_pos; // '"'
        QString out;
        while (true) {
            if (m_pos >= m_text.size())
                return error(QStringLiteral("policy.invalid_json"),
                             QStringLiteral("invalid JSON: unterminated string"));
            const QChar c = m_text.at(m_pos);
            if (c == u'"') {
                ++m_pos;
                return out;
            }
            if (c.unicode() < 0x20)
                return error(QStringLiteral("policy.invalid_json"),
                             QStringLiteral("invalid JSON: control character in a string must be escaped"));
            if (c != u'\\') {
                out += c;
                ++m_pos;
                continue;
            }
            ++m_pos;
            if (m_pos >= m_text.size())
                return error(QStringLiteral("policy.invalid_json"),
                             QStringLiteral("invalid JSON: unterminated string"));
            const char16_t escape = m_text.at(m_pos++).unicode();
            switch (escape) {
            case u'"':
            case u'\\':
            case u'/':
                out += QChar(escape);
                break;
            case u'b':
                out += u'\b';
                break;
            case u'f':
                out += u'\f';
                break;
            case u'n':
                out += u'\n';
                break;
            case u'r':
                out += u'\r';
                break;
            case u't':
                out += u'\t';
                break;
            case u'u': {
                const int unit = parseHex4();
                if (unit < 0)
                    return error(QStringLiteral("policy.invalid_json"),
                                 QStringLiteral("invalid JSON: \\u must be followed by four hex digits"));
                // An unpaired surrogate is not a character; QJsonDocument passes it on as broken UTF-16.
                if (QChar::isLowSurrogate(char16_t(unit)))
                    return error(QStringLiteral("policy.invalid_json"),
                                 QStringLiteral("invalid JSON: unpaired surrogate escape"));
                if (QChar::isHighSurrogate(char16_t(unit))) {
                    int low = -1;
                    if (QStringView(m_text).sliced(m_pos).startsWith(QLatin1StringView("\\u"))) {
                        m_pos += 2;
                        low = parseHex4();
                    }
                    if (low < 0 || !QChar::isLowSurrogate(char16_t(low)))
                        return error(QStringLiteral("policy.invalid_json"),
                                     QStringLiteral("invalid JSON: unpaired surrogate escape"));
                    out += QChar(char16_t(unit));
                    out += QChar(char16_t(low));
                } else {
                    out += QChar(char16_t(unit));
                }
                break;
            }
            default:
                --m_pos;
                return error(QStringLiteral("policy.invalid_json"),
                             QStringLiteral("invalid JSON: unknown escape"));
            }
        }
    }

    Result<QJsonValue> parseNumber()
    {
        // -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?  exactly; no "+1", ".5", "01", "NaN" or "Infinity".
        const qsizetype start = m_pos;
        bool integral = true;
        if (atChar(u'-'))
            ++m_pos;
        if (atChar(u'0')) {
            ++m_pos;
        } else if (m_pos < m_text.size() && isAsciiDigit(m_text.at(m_pos))) {
            while (m_pos < m_text.size() && isAsciiDigit(m_text.at(m_pos)))
                ++m_pos;
        } else {
            return syntaxError(QStringLiteral("a digit"));
        }
        if (atChar(u'.')) {
            integral = false;
            ++m_pos;
            if (m_pos >= m_text.size() || !isAsciiDigit(m_text.at(m_pos)))
                return syntaxError(QStringLiteral("a digit after '.'"));
            while (m_pos < m_text.size() && isAsciiDigit(m_text.at(m_pos)))
                ++m_pos;
        }
        if (atChar(u'e') || atChar(u'E')) {
            integral = false;
            ++m_pos;
            if (atChar(u'+') || atChar(u'-'))
                ++m_pos;
            if (m_pos >= m_text.size() || !isAsciiDigit(m_text.at(m_pos)))
                return syntaxError(QStringLiteral("a digit in the exponent"));
            while (m_pos < m_text.size() && isAsciiDigit(m_text.at(m_pos)))
                ++m_pos;
        }
        // "01", "0x10", "1.2.3", "5abc": report the number at its own path rather than a stray character
        // later.
        if (m_pos < m_text.size() && (m_text.at(m_pos).isLetterOrNumber() || m_text.at(m_pos) == u'.'))
            return error(
                QStringLiteral("policy.invalid_json"),
                QStringLiteral("invalid JSON: malformed number (no leading zeros, hex, NaN or Infinity)"));
        const QStringView literal = QStringView(m_text).sliced(start, m_pos - start);
        if (integral) {
            bool ok = false;
            const qint64 number = literal.toLongLong(&ok);
            if (ok)
                return QJsonValue(number);
        }
        bool ok = false;
        const double number = literal.toDouble(&ok);
        if (!ok || !std::isfinite(number)) {
            m_pos = start;
            return error(
                QStringLiteral("policy.out_of_range"),
                QStringLiteral("number %1 cannot be represented").arg(Json::quoted(literal.toString())));
        }
        return QJsonValue(number);
    }

    QString m_text;
    qsizetype m_pos = 0;
    QList<QString> m_paths;
};

} // namespace

Result<QJsonValue> parseStrictJson(QByteArrayView bytes)
{
    if (bytes.size() > MaxDocumentBytes)
        return fail(QStringLiteral("policy.too_large"),
                    QStringLiteral("policy: document is %1 bytes, the limit is %2")
                        .arg(bytes.size())
                        .arg(MaxDocumentBytes));
    // Checked on the bytes: QString::fromUtf8() drops a leading byte order mark without a word.
    if (bytes.startsWith("\xef\xbb\xbf"))
        return fail(QStringLiteral("policy.invalid_json"),
                    QStringLiteral("policy: a byte order mark is not allowed"));
    const qsizetype bad = firstInvalidUtf8(bytes);
    if (bad >= 0)
        return fail(QStringLiteral("policy.invalid_json"),
                    QStringLiteral("policy: invalid UTF-8 at byte offset %1").arg(bad));
    return Parser(QString::fromUtf8(bytes)).parseDocument();
}

} // namespace Cordon::Policy
