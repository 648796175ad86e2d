// SPDX-License-Identifier: MIT
#include "sandbox/policy/canonicaljson.h"

#include "sandbox/utf8.h"

#include <algorithm>
#include <charconv>
#include <vector>

namespace Cordon::Policy {

namespace {

// A code point's place in UTF-16 code unit order: supplementary characters (surrogate pairs, 0xD800..)
// sort before U+E000..U+FFFF.
char32_t utf16Order(char32_t codePoint)
{
    if (codePoint >= 0x10000)
        return 0xd800 + ((codePoint - 0x10000) >> 10);
    if (codePoint >= 0xe000)
        return codePoint + 0x110000;
    return codePoint;
}

bool lessInUtf16(std::string_view a, std::string_view b)
{
    std::size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        char32_t x = 0, y = 0;
        const std::size_t lengthA = decodeUtf8(a, i, &x);
        const std::size_t lengthB = decodeUtf8(b, j, &y);
        if (lengthA == 0 || lengthB == 0) // not UTF-8: bytes decide, deterministically
            return a.substr(i) < b.substr(j);
        if (x != y) {
            // The high surrogates of two supplementary characters can tie; their low surrogates keep the
            // code point order.
            const char32_t ox = utf16Order(x), oy = utf16Order(y);
            return ox != oy ? ox < oy : x < y;
        }
        i += lengthA;
        j += lengthB;
    }
    return a.size() - i < b.size() - j;
}

void append(std::string &out, const Json &value)
{
    switch (value.type()) {
    case Json::Type::Undefined:
    case Json::Type::Null:
        out += "null";
        return;
    case Json::Type::Bool:
        out += value.toBool() ? "true" : "false";
        return;
    case Json::Type::Number: {
        // Policies hold integers only; the fallback keeps the function total and deterministic.
        if (value.isExactInteger()) {
            out += std::to_string(value.toInteger());
            return;
        }
        char buffer[32];
        const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value.toDouble());
        out.append(buffer, ec == std::errc() ? end : buffer);
        return;
    }
    case Json::Type::String:
        out += jsonQuote(value.toString());
        return;
    case Json::Type::Array: {
        out += '[';
        bool first = true;
        for (const Json &item : value.items()) {
            if (!first)
                out += ',';
            first = false;
            append(out, item);
        }
        out += ']';
        return;
    }
    case Json::Type::Object: {
        std::vector<const Json::Member *> members;
        for (const Json::Member &member : value.members())
            members.push_back(&member);
        std::sort(members.begin(), members.end(), [](const Json::Member *a, const Json::Member *b) {
            return lessInUtf16(a->first, b->first);
        });
        out += '{';
        bool first = true;
        for (const Json::Member *member : members) {
            if (!first)
                out += ',';
            first = false;
            out += jsonQuote(member->first);
            out += ':';
            append(out, member->second);
        }
        out += '}';
        return;
    }
    }
}

} // namespace

std::string toCanonicalJson(const Json &value)
{
    std::string out;
    append(out, value);
    return out;
}

} // namespace Cordon::Policy
