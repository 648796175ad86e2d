// SPDX-License-Identifier: MIT
#include "sandbox/files/filenames.h"

#include "sandbox/utf8.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <iterator>

namespace Cordon::Files {

namespace {

struct CodePointRange
{
    char32_t first;
    char32_t last;
};

constexpr CodePointRange EscapedCodePoints[] = {
#include "sandbox/files/escapedcodepoints.inc"
};

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
    const auto after =
        std::upper_bound(std::begin(EscapedCodePoints), std::end(EscapedCodePoints), c,
                         [](char32_t value, const CodePointRange &range) { return value < range.first; });
    return after != std::begin(EscapedCodePoints) && c <= std::prev(after)->last;
}

// Lower-case hex digits of `value`, zero-padded to `minDigits`.
void appendHex(std::string *shown, char32_t value, std::size_t minDigits)
{
    char digits[8];
    const auto converted = std::to_chars(std::begin(digits), std::end(digits), std::uint32_t(value), 16);
    const auto count = static_cast<std::size_t>(converted.ptr - digits);
    if (count < minDigits)
        shown->append(minDigits - count, '0');
    shown->append(digits, count);
}

} // namespace

Result<> validateName(std::string_view name)
{
    const auto refuse = [name](std::string_view why) {
        return fail("files.bad_name", "name `" + escapeForDisplay(name) + "` refused: " + std::string(why));
    };
    if (name.empty())
        return refuse("empty");
    if (name == "." || name == "..")
        return refuse("\".\" and \"..\" are not names");
    if (name.size() > MaxNameBytes)
        return refuse("longer than " + std::to_string(MaxNameBytes) + " bytes");
    if (name.front() == '-')
        return refuse("starts with '-', which tools read as an option");

    const auto *data = reinterpret_cast<const unsigned char *>(name.data());
    for (std::size_t i = 0; i < name.size();) {
        const unsigned char byte = data[i];
        if (byte == '/')
            return refuse("contains '/'");
        if (byte == 0)
            return refuse("contains a NUL byte");
        if (byte < 0x20 || byte == 0x7f)
            return refuse("contains a control character");
        char32_t codePoint = 0;
        const std::size_t length = decodeUtf8(name, i, &codePoint);
        if (length == 0)
            return refuse("not valid UTF-8");
        if (isC1Control(codePoint))
            return refuse("contains a C1 control character");
        if (isBidiControl(codePoint))
            return refuse("contains a bidirectional control character");
        i += length;
    }
    return {};
}

std::string escapeForDisplay(std::string_view name)
{
    std::string shown;
    shown.reserve(name.size());
    const auto *data = reinterpret_cast<const unsigned char *>(name.data());
    for (std::size_t i = 0; i < name.size();) {
        const unsigned char byte = data[i];
        if (byte == '\\') {
            shown += "\\\\";
            ++i;
            continue;
        }
        if (byte >= 0x20 && byte < 0x7f) {
            shown += char(byte);
            ++i;
            continue;
        }
        char32_t codePoint = 0;
        const std::size_t length = byte < 0x80 ? 0 : decodeUtf8(name, i, &codePoint);
        if (length == 0) {
            shown += "\\x";
            appendHex(&shown, byte, 2);
            ++i;
            continue;
        }
        // Valid UTF-8 is copied as it is: the bytes are the character.
        if (needsEscape(codePoint)) {
            shown += "\\u{";
            appendHex(&shown, codePoint, 1);
            shown += '}';
        } else {
            shown.append(name.substr(i, length));
        }
        i += length;
    }
    return shown;
}

} // namespace Cordon::Files
