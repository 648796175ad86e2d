// SPDX-License-Identifier: MIT
// Typed access to a policy document read with Json::read(). Every error names the field path ("limits.pids")
// so that a person can find the offending line, and quotes the offending value escaped and shortened
// (quoteUntrusted()), because it may be hostile.
#pragma once

#include "sandbox/error.h"
#include "sandbox/json.h"

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

namespace Cordon::Policy {

// What a policy document (a container policy, the organisation allowlist) may be before it is read:
// anything larger is hostile or a mistake. A valid policy nests at most five levels (document,
// network_policy, allowed_domains, rule, ports); sixteen leaves room for messages that name the real
// problem. No object or array in a valid policy comes close to 1024 entries (env has at most 128 keys,
// allowed_domains 256 entries).
constexpr JsonLimits DocumentLimits{1024 * 1024, 16, 1024};

} // namespace Cordon::Policy

namespace Cordon::Policy::Fields {

// Json::read() with DocumentLimits, its errors in the policy's codes, which users see for a policy file:
// policy.invalid_json, policy.duplicate_key, policy.too_deep, policy.too_large, policy.out_of_range (1e400).
Result<Json> readDocument(std::string_view bytes);

// Prefixes a message with its path; the document itself is called "policy".
std::string at(std::string_view path, std::string_view message);
// "string", "integer", "number", "boolean", "null", "array", "object".
std::string typeName(const Json &value);
// A number as a message shows it: every digit of an integer literal, else up to 17 significant digits.
std::string numberText(const Json &value);

// Each of these fails with policy.wrong_type (or policy.out_of_range for bounds) naming path.
Result<> expectObject(const Json &value, std::string_view path);
Result<> expectArray(const Json &value, std::string_view path, std::size_t maxEntries);
// At most maxLength characters (code points).
Result<std::string> toString(const Json &value, std::string_view path, std::size_t maxLength);
Result<bool> toBool(const Json &value, std::string_view path);
// Integral numbers only: 1.5 is policy.wrong_type, 0 for [1, 10] is policy.out_of_range.
Result<std::int64_t> toInteger(const Json &value, std::string_view path, std::int64_t min, std::int64_t max);
// True when value is a JSON number with an integral value (1, 1.0, 1e2); 1.5 is not. Integral values beyond
// 64 bits (1e300) are clamped into *out, so that bounds refuse them.
bool isIntegral(const Json &value, std::int64_t *out = nullptr);

// policy.unknown_key for the first key (in sorted order) not in known; the message lists the known keys.
Result<> checkKeys(const Json &object, std::string_view path, std::initializer_list<std::string_view> known);
// policy.missing_key when key is absent.
Result<> requireKey(const Json &object, std::string_view path, std::string_view key);

// Optional fields: leave out untouched when the key is absent, so the default stays.
Result<> readInteger(const Json &object, std::string_view path, std::string_view key, std::int64_t min,
                     std::int64_t max, int &out);
Result<> readBool(const Json &object, std::string_view path, std::string_view key, bool &out);
// The required "name" of a secret reference at path: a string in environment-variable syntax
// (Secrets::isSecretName), policy.invalid_secret otherwise.
Result<std::string> readSecretName(const Json &object, std::string_view path);

} // namespace Cordon::Policy::Fields
