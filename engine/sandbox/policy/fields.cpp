// SPDX-License-Identifier: MIT
#include "sandbox/policy/fields.h"

#include "sandbox/quoteuntrusted.h"
#include "sandbox/secrets/secretrules.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

namespace Cordon::Policy::Fields {

Result<Json> readDocument(std::string_view bytes)
{
    Result<Json> document = Json::read(bytes, DocumentLimits);
    if (document)
        return document;
    static const std::pair<std::string_view, std::string_view> Codes[] = {
        {"json.invalid", "policy.invalid_json"},      {"json.duplicate_key", "policy.duplicate_key"},
        {"json.too_deep", "policy.too_deep"},         {"json.too_large", "policy.too_large"},
        {"json.out_of_range", "policy.out_of_range"},
    };
    const Error &error = document.error();
    for (const auto &[from, to] : Codes) {
        if (error.code() == from)
            return fail(std::string(to), error.message());
    }
    return fail(error);
}

std::string at(std::string_view path, std::string_view message)
{
    return (path.empty() ? std::string("policy") : std::string(path)) + ": " + std::string(message);
}

std::string numberText(const Json &value)
{
    if (value.isExactInteger())
        return std::to_string(value.toInteger());
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.17g", value.toDouble());
    return buffer;
}

std::string typeName(const Json &value)
{
    switch (value.type()) {
    case Json::Type::Null:
        return "null";
    case Json::Type::Bool:
        return "boolean";
    case Json::Type::Number:
        return isIntegral(value) ? "integer" : "number";
    case Json::Type::String:
        return "string";
    case Json::Type::Array:
        return "array";
    case Json::Type::Object:
        return "object";
    case Json::Type::Undefined:
        break;
    }
    return "nothing";
}

Result<> expectObject(const Json &value, std::string_view path)
{
    if (!value.isObject())
        return fail("policy.wrong_type", at(path, "must be an object, got " + typeName(value)));
    return {};
}

Result<> expectArray(const Json &value, std::string_view path, std::size_t maxEntries)
{
    if (!value.isArray())
        return fail("policy.wrong_type", at(path, "must be an array, got " + typeName(value)));
    if (value.items().size() > maxEntries)
        return fail("policy.out_of_range",
                    at(path, "must have at most " + std::to_string(maxEntries) + " entries, got " +
                                 std::to_string(value.items().size())));
    return {};
}

Result<std::string> toString(const Json &value, std::string_view path, std::size_t maxLength)
{
    if (!value.isString())
        return fail("policy.wrong_type", at(path, "must be a string, got " + typeName(value)));
    const std::size_t length = codePointCount(value.toString());
    if (length > maxLength)
        return fail("policy.out_of_range", at(path, "must be at most " + std::to_string(maxLength) +
                                                        " characters, got " + std::to_string(length)));
    return value.toString();
}

Result<bool> toBool(const Json &value, std::string_view path)
{
    if (!value.isBool())
        return fail("policy.wrong_type", at(path, "must be true or false, got " + typeName(value)));
    return value.toBool();
}

bool isIntegral(const Json &value, std::int64_t *out)
{
    if (!value.isNumber())
        return false;
    // Integer literals are kept exactly; going through double would round 2^53 + 1.
    if (value.isExactInteger()) {
        if (out)
            *out = value.toInteger();
        return true;
    }
    const double number = value.toDouble();
    if (!std::isfinite(number) || std::trunc(number) != number)
        return false;
    if (out) {
        if (number >= 9.2e18)
            *out = std::numeric_limits<std::int64_t>::max();
        else if (number <= -9.2e18)
            *out = std::numeric_limits<std::int64_t>::min();
        else
            *out = static_cast<std::int64_t>(number);
    }
    return true;
}

Result<std::int64_t> toInteger(const Json &value, std::string_view path, std::int64_t min, std::int64_t max)
{
    std::int64_t number = 0;
    if (!isIntegral(value, &number))
        return fail(
            "policy.wrong_type",
            at(path, "must be an integer, got " + (value.isNumber() ? numberText(value) : typeName(value))));
    if (number < min || number > max)
        return fail("policy.out_of_range", at(path, "must be between " + std::to_string(min) + " and " +
                                                        std::to_string(max) + ", got " + numberText(value)));
    return number;
}

Result<> checkKeys(const Json &object, std::string_view path, std::initializer_list<std::string_view> known)
{
    std::vector<std::string_view> unknown;
    for (const Json::Member &member : object.members()) {
        if (std::find(known.begin(), known.end(), member.first) == known.end())
            unknown.push_back(member.first);
    }
    if (unknown.empty())
        return {};
    std::vector<std::string_view> names(known);
    std::sort(names.begin(), names.end());
    std::string list;
    for (std::string_view name : names)
        list += (list.empty() ? "" : ", ") + std::string(name);
    return fail("policy.unknown_key",
                at(jsonMemberPath(path, *std::min_element(unknown.begin(), unknown.end())),
                   "unknown key (known keys: " + list + ")"));
}

Result<> requireKey(const Json &object, std::string_view path, std::string_view key)
{
    if (!object.contains(key))
        return fail("policy.missing_key", at(jsonMemberPath(path, key), "is required"));
    return {};
}

Result<> readInteger(const Json &object, std::string_view path, std::string_view key, std::int64_t min,
                     std::int64_t max, int &out)
{
    const Json &value = object[key];
    if (value.isUndefined())
        return {};
    const Result<std::int64_t> number = toInteger(value, jsonMemberPath(path, key), min, max);
    if (!number)
        return fail(number.error());
    out = static_cast<int>(*number);
    return {};
}

Result<> readBool(const Json &object, std::string_view path, std::string_view key, bool &out)
{
    const Json &value = object[key];
    if (value.isUndefined())
        return {};
    const Result<bool> flag = toBool(value, jsonMemberPath(path, key));
    if (!flag)
        return fail(flag.error());
    out = *flag;
    return {};
}

Result<std::string> readSecretName(const Json &object, std::string_view path)
{
    CORDON_TRY(requireKey(object, path, "name"));
    const std::string namePath = jsonMemberPath(path, "name");
    Result<std::string> name = toString(object["name"], namePath, Secrets::MaxNameLength);
    if (!name)
        return fail(name.error());
    if (!Secrets::isSecretName(*name))
        return fail("policy.invalid_secret",
                    at(namePath, "must match [A-Za-z_][A-Za-z0-9_]*, got " + quoteUntrusted(*name)));
    return name;
}

} // namespace Cordon::Policy::Fields
