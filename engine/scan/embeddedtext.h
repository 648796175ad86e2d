// SPDX-License-Identifier: MIT
// Text hidden from the rules by an encoding that is not an archive (docs/artifact-scan.md, "Encodings"): a
// zlib stream (a file of its own, or a PDF's FlateDecode content stream), UTF-16 and base64 data URIs. Each
// is decoded here into bytes the scanner searches as it searches an archive's member. Pure functions on
// bytes: the bounds are the caller's (`maxOut`), and a stream that would pass them says so instead of
// growing.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace Cordon::Scan {

// A zlib header (RFC 1950: deflate, a window of at most 32 KiB, the check bits right): Python's
// zlib.compress, git's loose objects, PDF streams.
bool isZlibStream(std::string_view bytes);

struct Inflated
{
    enum class Status
    {
        Complete,
        TooLarge,
        Damaged
    };
    Status status = Status::Damaged;
    std::string bytes; // what was inflated, at most maxOut bytes
};
// Inflates a zlib stream; stops at `maxOut` bytes (TooLarge) rather than allocating past them.
Inflated inflateZlib(std::string_view bytes, std::size_t maxOut);

// Calls `each(offset, data)` for every "stream ... endstream" of a PDF (a file that starts with "%PDF-")
// whose data is a zlib stream: the content streams that hold a page's text, compressed.
void forEachPdfStream(std::string_view bytes,
                      const std::function<void(std::size_t offset, std::string_view data)> &each);

// UTF-16 text, told by its byte-order mark or, in the first bytes, by most code units of one byte being NUL
// at the same parity (what Windows tools and PowerShell's `>` write), as UTF-8; nullopt for anything else.
std::optional<std::string> utf16AsUtf8(std::string_view bytes);

// Calls `each(offset, decoded)` for every "data:...;base64," URI in `bytes` whose payload decodes to at
// least 12 bytes, `decoded` at most maxOut bytes (then `truncated`).
void forEachDataUri(
    std::string_view bytes, std::size_t maxOut,
    const std::function<void(std::size_t offset, std::string_view decoded, bool truncated)> &each);

} // namespace Cordon::Scan
