// SPDX-License-Identifier: MIT
#include "scan/embeddedtext.h"

#include <nettle/base64.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>

namespace Cordon::Scan {

namespace {

// Where UTF-16 is told from other bytes, as the binary probe does.
constexpr std::size_t Utf16ProbeBytes = 8000;
// A data URI's media type and parameters ("image/png;charset=x") are short; a longer run is not one.
constexpr std::size_t MaxDataUriHeader = 200;
// A shorter payload holds no key worth a search (the shortest rule's match is longer).
constexpr std::size_t MinDataUriBytes = 12;

std::string_view::size_type find(std::string_view bytes, std::string_view what, std::size_t from)
{
    // memchr for the first byte, then a compare: on 64 MiB of text memmem took 160 ms looking for
    // ";base64," (a fifth of the whole scan, docs/benchmarks.md), this 10 ms. Linear either way; ';' is rare
    // in text, and "stream" is looked for in PDFs only.
    while (from < bytes.size()) {
        const void *hit = std::memchr(bytes.data() + from, what[0], bytes.size() - from);
        if (!hit)
            return std::string_view::npos;
        const std::size_t at = std::size_t(static_cast<const char *>(hit) - bytes.data());
        if (bytes.substr(at, what.size()) == what)
            return at;
        from = at + 1;
    }
    return std::string_view::npos;
}

bool isBase64Character(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '/';
}

void appendUtf8(std::string &out, std::uint32_t code)
{
    if (code < 0x80) {
        out += char(code);
    } else if (code < 0x800) {
        out += char(0xC0 | (code >> 6));
        out += char(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
        out += char(0xE0 | (code >> 12));
        out += char(0x80 | ((code >> 6) & 0x3F));
        out += char(0x80 | (code & 0x3F));
    } else {
        out += char(0xF0 | (code >> 18));
        out += char(0x80 | ((code >> 12) & 0x3F));
        out += char(0x80 | ((code >> 6) & 0x3F));
        out += char(0x80 | (code & 0x3F));
    }
}

} // namespace

bool isZlibStream(std::string_view bytes)
{
    if (bytes.size() < 2)
        return false;
    const unsigned cmf = static_cast<unsigned char>(bytes[0]);
    const unsigned flg = static_cast<unsigned char>(bytes[1]);
    // Deflate, a window of at most 32 KiB, the header a multiple of 31, no preset dictionary.
    return (cmf & 0x0F) == 8 && (cmf >> 4) <= 7 && (cmf * 256 + flg) % 31 == 0 && (flg & 0x20) == 0;
}

Inflated inflateZlib(std::string_view bytes, std::size_t maxOut)
{
    Inflated result;
    z_stream stream{};
    if (::inflateInit(&stream) != Z_OK)
        return result;
    stream.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(bytes.data()));
    stream.avail_in = uInt(std::min<std::size_t>(bytes.size(), UINT32_MAX));
    std::array<char, 65536> block;
    for (;;) {
        stream.next_out = reinterpret_cast<Bytef *>(block.data());
        stream.avail_out = uInt(block.size());
        const int rc = ::inflate(&stream, Z_NO_FLUSH);
        const std::size_t got = block.size() - stream.avail_out;
        if (result.bytes.size() + got > maxOut) {
            result.bytes.append(block.data(), maxOut - result.bytes.size());
            result.status = Inflated::Status::TooLarge;
            break;
        }
        result.bytes.append(block.data(), got);
        if (rc == Z_STREAM_END) {
            result.status = Inflated::Status::Complete;
            break;
        }
        // Z_BUF_ERROR with input left and no output is impossible; without input it is a truncated stream.
        if (rc != Z_OK) {
            result.status = Inflated::Status::Damaged;
            break;
        }
    }
    ::inflateEnd(&stream);
    return result;
}

void forEachPdfStream(std::string_view bytes,
                      const std::function<void(std::size_t offset, std::string_view data)> &each)
{
    if (bytes.substr(0, 5) != "%PDF-")
        return;
    for (std::size_t at = find(bytes, "stream", 0); at != std::string_view::npos;
         at = find(bytes, "stream", at + 6)) {
        // "endstream" ends one; the keyword that starts one is followed by an end of line (ISO 32000 7.3.8).
        if (at >= 3 && bytes.substr(at - 3, 3) == "end")
            continue;
        std::size_t start = at + 6;
        if (bytes.substr(start, 2) == "\r\n")
            start += 2;
        else if (bytes.substr(start, 1) == "\n")
            start += 1;
        else
            continue;
        const std::size_t end = find(bytes, "endstream", start);
        const std::string_view data =
            bytes.substr(start, (end == std::string_view::npos ? bytes.size() : end) - start);
        if (isZlibStream(data))
            each(start, data);
        if (end == std::string_view::npos)
            return;
        at = end + 3; // past "end", so that the next search starts after this "stream"
    }
}

std::optional<std::string> utf16AsUtf8(std::string_view bytes)
{
    bool little = true;
    std::size_t from = 0;
    if (bytes.substr(0, 2) == "\xFF\xFE") {
        from = 2;
    } else if (bytes.substr(0, 2) == "\xFE\xFF") {
        little = false;
        from = 2;
    } else {
        // No mark: ASCII text as UTF-16 has a NUL in every other byte, and the rest not.
        const std::size_t probe = std::min(bytes.size(), Utf16ProbeBytes) / 2;
        if (probe < 16)
            return std::nullopt;
        std::size_t evenNul = 0, oddNul = 0, pairs = 0;
        for (std::size_t i = 0; i < probe; ++i) {
            const bool even = bytes[2 * i] == '\0', odd = bytes[2 * i + 1] == '\0';
            evenNul += even && !odd;
            oddNul += odd && !even;
            ++pairs;
        }
        if (oddNul * 10 >= pairs * 9)
            little = true;
        else if (evenNul * 10 >= pairs * 9)
            little = false;
        else
            return std::nullopt;
    }
    std::string out;
    out.reserve((bytes.size() - from) / 2);
    std::uint32_t high = 0; // a high surrogate waiting for its low one
    for (std::size_t i = from; i + 1 < bytes.size(); i += 2) {
        const auto first = static_cast<unsigned char>(bytes[i]),
                   second = static_cast<unsigned char>(bytes[i + 1]);
        const std::uint32_t unit = little ? first | (second << 8) : (first << 8) | second;
        if (unit >= 0xD800 && unit < 0xDC00) {
            high = unit;
            continue;
        }
        if (unit >= 0xDC00 && unit < 0xE000) {
            appendUtf8(out, high ? 0x10000 + ((high - 0xD800) << 10) + (unit - 0xDC00) : 0xFFFD);
            high = 0;
            continue;
        }
        if (high)
            appendUtf8(out, 0xFFFD);
        high = 0;
        appendUtf8(out, unit);
    }
    return out;
}

void forEachDataUri(
    std::string_view bytes, std::size_t maxOut,
    const std::function<void(std::size_t offset, std::string_view decoded, bool truncated)> &each)
{
    std::string decoded;
    for (std::size_t at = find(bytes, ";base64,", 0); at != std::string_view::npos;
         at = find(bytes, ";base64,", at + 8)) {
        // "data:" and a media type without spaces or quotes before it.
        const std::size_t floor = at > MaxDataUriHeader ? at - MaxDataUriHeader : 0;
        const std::string_view before = bytes.substr(floor, at - floor);
        const std::size_t scheme = before.rfind("data:");
        if (scheme == std::string_view::npos ||
            before.find_first_of(" \t\r\n\"'<>()", scheme) != std::string_view::npos)
            continue;
        // The payload: base64 characters up to the first other one (a quote, a parenthesis), decoded by
        // nettle, as far as the bound allows.
        std::size_t end = at + 8;
        while (end < bytes.size() && isBase64Character(static_cast<unsigned char>(bytes[end])))
            ++end;
        const std::size_t usable = std::min(end - (at + 8), BASE64_ENCODE_LENGTH(maxOut) / 4 * 4);
        const bool truncated = usable < end - (at + 8);
        decoded.resize(BASE64_DECODE_LENGTH(usable));
        base64_decode_ctx context;
        base64_decode_init(&context);
        std::size_t length = decoded.size();
        if (!base64_decode_update(&context, &length, reinterpret_cast<std::uint8_t *>(decoded.data()), usable,
                                  bytes.data() + at + 8))
            length = 0;
        decoded.resize(std::min(length, maxOut));
        if (decoded.size() >= MinDataUriBytes)
            each(at + 8, decoded, truncated);
        at = end - 8; // the next search starts past this payload
    }
}

} // namespace Cordon::Scan
