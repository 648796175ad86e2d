// SPDX-License-Identifier: MIT
// A strict RFC 8259 reader for policy documents: it refuses what QJsonDocument lets through in Qt 6.4.
#pragma once

#include "core/result.h"

#include <QByteArrayView>
#include <QJsonValue>

namespace Cordon::Policy {

// Policy documents are small; anything larger is hostile or a mistake, and is refused before parsing.
constexpr qsizetype MaxDocumentBytes = 1024 * 1024;
// A valid policy nests at most five levels (document, network_policy, allowed_domains, rule, ports).
// Sixteen leaves room for error messages that name the real problem, and bounds the parser's recursion.
constexpr int MaxNestingDepth = 16;
// No object or array in a valid policy comes close (env has at most 128 keys, allowed_domains 256 entries);
// the cap keeps a hostile megabyte of "a":0 pairs from costing quadratic time.
constexpr qsizetype MaxContainerEntries = 1024;

// Parses one JSON value. Errors carry line and column, and the key path where it is known:
// - policy.too_large: more than MaxDocumentBytes, or an object or array with more than MaxContainerEntries.
// - policy.invalid_json: invalid UTF-8, a byte order mark, raw control characters in strings, escapes that
//   decode to unpaired surrogates, bad syntax, trailing data.
// - policy.duplicate_key: an object names a key twice (QJsonDocument keeps the last one silently).
// - policy.too_deep: objects and arrays nested more than MaxNestingDepth levels.
// - policy.out_of_range: a number that does not fit a double (1e400).
// Integer literals that fit in qint64 are stored as integers, so they keep every digit.
Result<QJsonValue> parseStrictJson(QByteArrayView bytes);

} // namespace Cordon::Policy
