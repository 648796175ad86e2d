// SPDX-License-Identifier: MIT
#include "sandbox/quoteuntrusted.h"

#include "sandbox/utf8.h"

#include <unictype.h>

namespace Cordon {

namespace {

void appendHex(std::string &out, unsigned value, int digits)
{
    static constexpr char Hex[] = "0123456789abcdef";
    for (int shift = 4 * (digits - 1); shift >= 0; shift -= 4)
        out += Hex[(value >> shift) & 0xf];
}

void appendEscape(std::string &out, char32_t codePoint)
{
    const auto unit = [&out](unsigned value) {
        out += "\\u";
        appendHex(out, value, 4);
    };
    if (codePoint < 0x10000) {
        unit(codePoint);
        return;
    }
    const char32_t offset = codePoint - 0x10000;
    unit(0xd800 + (offset >> 10));
    unit(0xdc00 + (offset & 0x3ff));
}

} // namespace

bool isFormatCharacter(char32_t codePoint)
{
    return uc_is_general_category(codePoint, UC_CATEGORY_Cf);
}

bool isSeparatorCharacter(char32_t codePoint)
{
    return uc_is_general_category(codePoint, UC_CATEGORY_Z);
}

std::string quoteUntrusted(std::string_view text)
{
    constexpr std::size_t MaxShown = 80;
    std::string out = "\"";
    std::size_t shown = 0;
    std::size_t pos = 0;
    for (; pos < text.size() && shown < MaxShown; ++shown) {
        char32_t codePoint = 0;
        const std::size_t length = decodeUtf8(text, pos, &codePoint);
        if (length == 0) {
            out += "\\x";
            appendHex(out, static_cast<unsigned char>(text[pos]), 2);
            ++pos;
            continue;
        }
        if (codePoint == '"' || codePoint == '\\') {
            out += '\\';
            out += static_cast<char>(codePoint);
        } else if (uc_is_general_category(codePoint, UC_CATEGORY_Cc) || isFormatCharacter(codePoint)) {
            appendEscape(out, codePoint);
        } else {
            out.append(text.substr(pos, length));
        }
        pos += length;
    }
    if (pos < text.size())
        out += "...";
    return out + '"';
}

} // namespace Cordon
