// SPDX-License-Identifier: MIT
#include "auditrunner/secretforms.h"

#include <utility>

namespace Cordon::Audit {

namespace {

QByteArray jsonEscaped(const QByteArray &value, bool unicode, bool slash)
{
    QByteArray out;
    for (qsizetype i = 0; i < value.size(); ++i) {
        const auto c = static_cast<unsigned char>(value[i]);
        if (c == '"' || c == '\\') {
            out += '\\';
            out += char(c);
        } else if (c == '/' && slash) {
            out += "\\/";
        } else if (c < 0x20) {
            out += QByteArray("\\u") + QByteArray::number(c, 16).rightJustified(4, '0');
        } else if (unicode && c >= 0xc0 && c < 0xe0 && i + 1 < value.size()) {
            // A two-byte UTF-8 sequence (the audit's key holds one): its code point.
            const unsigned point = ((c & 0x1fu) << 6) | (static_cast<unsigned char>(value[i + 1]) & 0x3fu);
            out += QByteArray("\\u") + QByteArray::number(point, 16).rightJustified(4, '0');
            ++i;
        } else {
            out += char(c);
        }
    }
    return out;
}

QByteArray lowerAscii(QByteArray value)
{
    for (char &c : value) {
        if (c >= 'A' && c <= 'Z')
            c = char(c + ('a' - 'A'));
    }
    return value;
}

// Percent-encoding with lower-case hex digits: every %XX of the upper-case form lowered.
QByteArray percentLower(const QByteArray &upper)
{
    QByteArray out = upper;
    for (qsizetype i = 0; i + 2 < out.size(); ++i) {
        if (out[i] == '%')
            out.replace(i + 1, 2, lowerAscii(out.mid(i + 1, 2)));
    }
    return out;
}

} // namespace

QList<SecretForm> secretForms(const QByteArray &value)
{
    QList<SecretForm> forms;
    const auto add = [&forms](const char *label, const QByteArray &text) {
        forms.append(SecretForm{QString::fromLatin1(label), text, text});
    };
    add("raw", value);
    add("lower", lowerAscii(value));
    add("json", jsonEscaped(value, false, false));
    add("json-unicode", jsonEscaped(value, true, false));
    add("json-slash", jsonEscaped(value, false, true));
    const QByteArray percent = value.toPercentEncoding();
    add("percent", percent);
    add("percent-lower", percentLower(percent));
    // A form body's encoding: the same with a space as "+" (the key the audit prints has a space).
    QByteArray plus = value.toPercentEncoding(" ");
    plus.replace(' ', '+');
    add("percent-plus", plus);
    add("percent-plus-lower", percentLower(plus));
    add("hex", value.toHex());
    add("hex-upper", value.toHex().toUpper());
    for (int prefix = 0; prefix < 3; ++prefix) {
        const QByteArray shifted = QByteArray(prefix, 'x') + value;
        for (const auto &[label, encoding] : {std::pair{"base64-", QByteArray::Base64Encoding},
                                              std::pair{"base64url-", QByteArray::Base64UrlEncoding}}) {
            const QByteArray text = shifted.toBase64(encoding);
            // Four characters at each end may share bits with the prefix or the padding.
            forms.append(SecretForm{QString::fromLatin1(label) + QString::number(prefix), text,
                                    text.mid(4, text.size() - 8)});
        }
    }
    return forms;
}

} // namespace Cordon::Audit
