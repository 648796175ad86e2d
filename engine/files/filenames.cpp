// SPDX-License-Identifier: MIT
#include "files/filenames.h"

#include <QChar>

namespace Cordon::Files {

namespace {

// Decodes one strict UTF-8 sequence at data[0..size): no overlong forms, no surrogates, nothing above
// U+10FFFF. Returns its length, or 0 when the bytes are not valid UTF-8.
qsizetype decodeUtf8(const uchar *data, qsizetype size, char32_t *codePoint)
{
    const uchar lead = data[0];
    qsizetype length;
    char32_t value;
    char32_t minimum;
    if (lead < 0x80) {
        *codePoint = lead;
        return 1;
    } else if (lead >= 0xc2 && lead <= 0xdf) {
        length = 2;
        value = lead & 0x1f;
        minimum = 0x80;
    } else if (lead >= 0xe0 && lead <= 0xef) {
        length = 3;
        value = lead & 0x0f;
        minimum = 0x800;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
        length = 4;
        value = lead & 0x07;
        minimum = 0x10000;
    } else {
        return 0;
    }
    if (size < length)
        return 0;
    for (qsizetype i = 1; i < length; ++i) {
        if ((data[i] & 0xc0) != 0x80)
            return 0;
        value = (value << 6) | (data[i] & 0x3f);
    }
    if (value < minimum || value > 0x10ffff || (value >= 0xd800 && value <= 0xdfff))
        return 0;
    *codePoint = value;
    return length;
}

bool isC1Control(char32_t c)
{
    return c >= 0x80 && c <= 0x9f;
}

// Unicode's Bidi_Control property.
bool isBidiControl(char32_t c)
{
    return c == 0x061c || c == 0x200e || c == 0x200f || (c >= 0x202a && c <= 0x202e) ||
           (c >= 0x2066 && c <= 0x2069);
}

// Characters a reader cannot see or that change how the rest of a line is shown.
bool needsEscape(char32_t c)
{
    if (isC1Control(c) || isBidiControl(c))
        return true;
    switch (QChar::category(c)) {
    case QChar::Other_Control:
    case QChar::Other_Format:
    case QChar::Other_Surrogate:
    case QChar::Other_PrivateUse:
    case QChar::Other_NotAssigned:
    case QChar::Separator_Line:
    case QChar::Separator_Paragraph:
        return true;
    default:
        return false;
    }
}

QString hexByte(uchar byte)
{
    return QStringLiteral("\\x%1").arg(uint(byte), 2, 16, QLatin1Char('0'));
}

} // namespace

Result<> validateName(QByteArrayView name)
{
    const auto refuse = [name](const QString &why) {
        return fail(QStringLiteral("files.bad_name"),
                    QStringLiteral("name `%1` refused: %2").arg(escapeForDisplay(name), why));
    };
    if (name.isEmpty())
        return refuse(QStringLiteral("empty"));
    if (name == QByteArrayView(".") || name == QByteArrayView(".."))
        return refuse(QStringLiteral("\".\" and \"..\" are not names"));
    if (name.size() > MaxNameBytes)
        return refuse(QStringLiteral("longer than %1 bytes").arg(MaxNameBytes));
    if (name.front() == '-')
        return refuse(QStringLiteral("starts with '-', which tools read as an option"));

    const auto *data = reinterpret_cast<const uchar *>(name.data());
    for (qsizetype i = 0; i < name.size();) {
        const uchar byte = data[i];
        if (byte == '/')
            return refuse(QStringLiteral("contains '/'"));
        if (byte == 0)
            return refuse(QStringLiteral("contains a NUL byte"));
        if (byte < 0x20 || byte == 0x7f)
            return refuse(QStringLiteral("contains a control character"));
        char32_t codePoint = 0;
        const qsizetype length = decodeUtf8(data + i, name.size() - i, &codePoint);
        if (length == 0)
            return refuse(QStringLiteral("not valid UTF-8"));
        if (isC1Control(codePoint))
            return refuse(QStringLiteral("contains a C1 control character"));
        if (isBidiControl(codePoint))
            return refuse(QStringLiteral("contains a bidirectional control character"));
        i += length;
    }
    return {};
}

QString escapeForDisplay(QByteArrayView name)
{
    QString shown;
    shown.reserve(name.size());
    const auto *data = reinterpret_cast<const uchar *>(name.data());
    for (qsizetype i = 0; i < name.size();) {
        const uchar byte = data[i];
        if (byte == '\\') {
            shown += QLatin1String("\\\\");
            ++i;
            continue;
        }
        if (byte >= 0x20 && byte < 0x7f) {
            shown += QLatin1Char(char(byte));
            ++i;
            continue;
        }
        char32_t codePoint = 0;
        const qsizetype length = byte < 0x80 ? 0 : decodeUtf8(data + i, name.size() - i, &codePoint);
        if (length == 0) {
            shown += hexByte(byte);
            ++i;
            continue;
        }
        if (needsEscape(codePoint))
            shown += QStringLiteral("\\u{%1}").arg(uint(codePoint), 0, 16);
        else
            shown += QString::fromUcs4(&codePoint, 1);
        i += length;
    }
    return shown;
}

} // namespace Cordon::Files
