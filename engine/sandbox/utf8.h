// SPDX-License-Identifier: MIT
// Strict UTF-8, the one decoder of the sandbox library: no overlong forms, no surrogates, nothing above
// U+10FFFF. The JSON reader, file names and policy text all decode with it, so they agree on what is valid.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace Cordon {

// Decodes the sequence at text[pos] into *codePoint and returns its length, or 0 when it is not well-formed.
std::size_t decodeUtf8(std::string_view text, std::size_t pos, char32_t *codePoint);
// Appends a code point (at most U+10FFFF, not a surrogate) as UTF-8.
void appendUtf8(std::string &out, char32_t codePoint);
// True when `text` is well-formed UTF-8 without surrogates or code points above U+10FFFF.
bool isValidUtf8(std::string_view text);
// `text` with every byte that does not start a well-formed sequence replaced by U+FFFD: a run's output, which
// may be any bytes, as a JSON string can hold it.
std::string toValidUtf8(std::string_view text);
// The code points of well-formed UTF-8 (an invalid byte counts as one): what "characters" means in limits.
std::size_t codePointCount(std::string_view text);

} // namespace Cordon
