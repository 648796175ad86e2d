// SPDX-License-Identifier: MIT
// Text from a document, a request or a sandbox, shown in a message: it may be hostile, so it is quoted,
// escaped and shortened before it reaches someone's terminal or log.
#pragma once

#include <string>
#include <string_view>

namespace Cordon {

// `text` (UTF-8) JSON-quoted: '"' and '\' escaped, control and invisible formatting characters (general
// categories Cc and Cf) as \uXXXX (UTF-16 escapes, as JSON writes them), bytes that are not UTF-8 as \xNN,
// and at most 80 characters followed by "...".
std::string quoteUntrusted(std::string_view text);

// Unicode properties the policy checks name, from libunistring (Unicode 14, as Qt 6.4's QChar).
bool isFormatCharacter(char32_t codePoint);    // general category Cf: U+200B, U+202E, U+FEFF, ...
bool isSeparatorCharacter(char32_t codePoint); // Zs, Zl, Zp: U+00A0, U+3000, U+2028, ...

} // namespace Cordon
