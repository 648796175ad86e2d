// SPDX-License-Identifier: MIT
#include "sandbox/secrets/secretrules.h"

#include "sandbox/quoteuntrusted.h"
#include "sandbox/utf8.h"

#include <algorithm>
#include <string>

namespace Cordon::Secrets {

bool isSecretName(std::string_view name)
{
    if (name.empty() || name.size() > MaxNameLength)
        return false;
    const auto letter = [](char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; };
    if (!letter(name.front()))
        return false;
    return std::all_of(name.begin(), name.end(), [&](char c) { return letter(c) || (c >= '0' && c <= '9'); });
}

Result<> checkSecretName(std::string_view name)
{
    if (isSecretName(name))
        return {};
    return fail("secrets.bad_name", "a secret's name is a variable name ([A-Za-z_][A-Za-z0-9_]*, at most " +
                                        std::to_string(MaxNameLength) + " characters), not " +
                                        quoteUntrusted(name));
}

Result<> checkSecretValue(std::string_view name, std::string_view value)
{
    const std::string which = "the value of secret " + std::string(name);
    if (value.size() < MinValueBytes || value.size() > MaxValueBytes)
        return fail("secrets.bad_value", which + " must have " + std::to_string(MinValueBytes) + " to " +
                                             std::to_string(MaxValueBytes) + " bytes, it has " +
                                             std::to_string(value.size()));
    if (value.find('\0') != std::string_view::npos)
        return fail("secrets.bad_value",
                    which + " contains a NUL byte, which no environment variable can hold");
    if (!isValidUtf8(value))
        return fail("secrets.bad_value", which + " is not UTF-8 text");
    return {};
}

} // namespace Cordon::Secrets
