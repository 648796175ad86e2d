// SPDX-License-Identifier: MIT
// What a secret's name and value may be, checked alike by the store, the policy reader and the masker.
#pragma once

#include "sandbox/error.h"

#include <cstddef>
#include <string_view>

namespace Cordon::Secrets {

constexpr std::size_t MaxNameLength = 128;
// Values shorter than this are refused: a two-letter value would mask half of every output. Longer than
// MaxValueBytes are refused too (a secret is a token or a key, not a file).
constexpr std::size_t MinValueBytes = 8;
constexpr std::size_t MaxValueBytes = 4096;

// Environment-variable syntax, [A-Za-z_][A-Za-z0-9_]*, at most MaxNameLength characters.
bool isSecretName(std::string_view name);
// secrets.bad_name, the name quoted as untrusted text.
Result<> checkSecretName(std::string_view name);
// secrets.bad_value: MinValueBytes to MaxValueBytes of UTF-8 without NUL (a value becomes an environment
// variable, a C string; and it is shown nowhere, so a typing mistake must fail here).
Result<> checkSecretValue(std::string_view name, std::string_view value);

} // namespace Cordon::Secrets
