// SPDX-License-Identifier: MIT
// Names written by untrusted code, handled as bytes: validated before they are used as a path component on
// the host, escaped before a person or a log sees them.
#pragma once

#include "sandbox/error.h"

#include <cstddef>
#include <string>
#include <string_view>

namespace Cordon::Files {

// Longest path component Linux accepts (NAME_MAX).
constexpr std::size_t MaxNameBytes = 255;

// Accepts one path component, or fails with `files.bad_name` and the escaped name. Refused: empty, "." and
// "..", '/', NUL, C0 controls and DEL (newline/ESC inject into logs, CSV and terminals: CVE-2023-28101), C1
// controls, bidi controls U+061C, U+200E, U+200F, U+202A..U+202E, U+2066..U+2069 ("exe.txt" shown for
// "txt\u202eexe"), invalid UTF-8 (toolkits decode it lossily, so another name gets written or the entry
// vanishes), more than 255 bytes, and a leading '-' (option injection when the name reaches a command line).
Result<> validateName(std::string_view name);

// A printable rendering of untrusted bytes for logs and the UI, in UTF-8: printable ASCII and printable
// non-ASCII characters as they are, a backslash as "\\", other bytes below 0x80 and invalid UTF-8 as "\xNN",
// and C1 controls, bidi and other format, line/paragraph separator, private-use or unassigned characters
// (Unicode 14, as Qt 6.4's QChar::category() has them) as "\u{202e}". Distinct inputs give distinct outputs.
std::string escapeForDisplay(std::string_view name);

} // namespace Cordon::Files
