// SPDX-License-Identifier: MIT
#include "sandbox/json.h"

#include "sandbox/quoteuntrusted.h"
#include "sandbox/utf8.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <set>

namespace Cordon {

namespace {

const Json UndefinedValue;
const Json::Array NoItems;
const Json::Object NoMembers;
const std::string NoString;

} // namespace

class JsonParser
{
public:
    JsonParser(std::string_view text, const JsonLimits &limits) : m_text(text), m_limits(limits) {}

    std::optional<Json> document()
    {
        Json value;
        if (m_text.size() > m_limits.maxBytes) {
            // Refused before reading, so there is no place in it to name.
            m_code = "json.too_large";
            m_error = "the document is " + std::to_string(m_text.size()) + " bytes, the limit is " +
                      std::to_string(m_limits.maxBytes);
            return std::nullopt;
        }
        if (m_text.starts_with("\xef\xbb\xbf"))
            return failure("a byte order mark is not allowed");
        skipSpace();
        if (!parseValue(value, 0))
            return std::nullopt;
        skipSpace();
        if (m_pos != m_text.size())
            return failure("unexpected data after the document");
        return value;
    }

    Error error() const { return {m_code, m_error, 0}; }

private:
    std::nullopt_t failure(const std::string &why)
    {
        if (!m_error.empty())
            return std::nullopt;
        std::size_t line = 1;
        std::size_t lineStart = 0;
        const std::size_t end = std::min(m_pos, m_text.size());
        for (std::size_t i = 0; i < end; ++i) {
            if (m_text[i] == '\n') {
                ++line;
                lineStart = i + 1;
            }
        }
        const std::string path = currentPath();
        m_error = (path.empty() ? std::string() : path + ": ") + why + " (line " + std::to_string(line) +
                  ", column " + std::to_string(end - lineStart + 1) + ")";
        return std::nullopt;
    }

    // Where the reader is, as a person finds it in the document: "env.A[0]".
    std::string currentPath() const
    {
        std::string path;
        for (const PathStep &step : m_path)
            path = step.key ? jsonMemberPath(path, *step.key) : jsonIndexPath(path, step.index);
        return path;
    }

    bool failWith(const char *code, const std::string &why)
    {
        m_code = code;
        return fail(why);
    }

    bool tooMany(std::size_t entries) { return entries >= m_limits.maxEntries; }

    bool fail(const std::string &why)
    {
        failure(why);
        return false;
    }

    void skipSpace()
    {
        while (m_pos < m_text.size() && (m_text[m_pos] == ' ' || m_text[m_pos] == '\t' ||
                                         m_text[m_pos] == '\n' || m_text[m_pos] == '\r'))
            ++m_pos;
    }

    bool literal(std::string_view word)
    {
        if (m_text.substr(m_pos, word.size()) != word)
            return fail("invalid literal");
        m_pos += word.size();
        return true;
    }

    bool parseValue(Json &out, int depth)
    {
        if (m_pos >= m_text.size())
            return fail("unexpected end of data");
        switch (m_text[m_pos]) {
        case '{':
            return parseObject(out, depth + 1);
        case '[':
            return parseArray(out, depth + 1);
        case '"':
            out.m_type = Json::Type::String;
            return parseString(out.m_string);
        case 't':
            out = Json(true);
            return literal("true");
        case 'f':
            out = Json(false);
            return literal("false");
        case 'n':
            out = Json(nullptr);
            return literal("null");
        default:
            return parseNumber(out);
        }
    }

    bool parseObject(Json &out, int depth)
    {
        if (depth > m_limits.maxDepth)
            return failWith("json.too_deep",
                            "nested deeper than " + std::to_string(m_limits.maxDepth) + " levels");
        out.m_type = Json::Type::Object;
        ++m_pos; // {
        skipSpace();
        if (m_pos < m_text.size() && m_text[m_pos] == '}') {
            ++m_pos;
            return true;
        }
        std::set<std::string> keys; // the member names, once the object is large (repeats())
        for (;;) {
            skipSpace();
            if (m_pos >= m_text.size() || m_text[m_pos] != '"')
                return fail("expected a member name");
            if (tooMany(out.m_members.size()))
                return failWith("json.too_large", "too many members in one object");
            const std::size_t keyPos = m_pos;
            Json::Member member;
            if (!parseString(member.first))
                return false;
            m_path.push_back({&member.first, 0});
            if (repeats(out.m_members, member.first, keys)) {
                m_pos = keyPos;
                return failWith("json.duplicate_key", "duplicate key");
            }
            skipSpace();
            if (m_pos >= m_text.size() || m_text[m_pos] != ':')
                return fail("expected ':'");
            ++m_pos;
            skipSpace();
            if (!parseValue(member.second, depth))
                return false;
            m_path.pop_back();
            out.m_members.push_back(std::move(member));
            skipSpace();
            if (m_pos < m_text.size() && m_text[m_pos] == ',') {
                ++m_pos;
                continue;
            }
            if (m_pos < m_text.size() && m_text[m_pos] == '}') {
                ++m_pos;
                return true;
            }
            return fail("expected ',' or '}'");
        }
    }

    // Whether `key` is already a member. Small objects are searched in place; from 32 members on, `keys`
    // holds their names, so that a hostile object with many members costs n log n rather than n^2.
    static bool repeats(const Json::Object &members, const std::string &key, std::set<std::string> &keys)
    {
        if (members.size() < 32)
            return std::any_of(members.begin(), members.end(),
                               [&](const Json::Member &member) { return member.first == key; });
        if (keys.empty()) {
            for (const Json::Member &member : members)
                keys.insert(member.first);
        }
        return !keys.insert(key).second;
    }

    bool parseArray(Json &out, int depth)
    {
        if (depth > m_limits.maxDepth)
            return failWith("json.too_deep",
                            "nested deeper than " + std::to_string(m_limits.maxDepth) + " levels");
        out.m_type = Json::Type::Array;
        ++m_pos; // [
        skipSpace();
        if (m_pos < m_text.size() && m_text[m_pos] == ']') {
            ++m_pos;
            return true;
        }
        for (;;) {
            skipSpace();
            if (tooMany(out.m_items.size()))
                return failWith("json.too_large", "too many items in one array");
            Json item;
            m_path.push_back({nullptr, out.m_items.size()});
            if (!parseValue(item, depth))
                return false;
            m_path.pop_back();
            out.m_items.push_back(std::move(item));
            skipSpace();
            if (m_pos < m_text.size() && m_text[m_pos] == ',') {
                ++m_pos;
                continue;
            }
            if (m_pos < m_text.size() && m_text[m_pos] == ']') {
                ++m_pos;
                return true;
            }
            return fail("expected ',' or ']'");
        }
    }

    bool hex4(std::uint32_t &value)
    {
        if (m_pos + 4 > m_text.size())
            return fail("truncated \\u escape");
        value = 0;
        for (int i = 0; i < 4; ++i) {
            const char c = m_text[m_pos++];
            value <<= 4;
            if (c >= '0' && c <= '9')
                value |= static_cast<std::uint32_t>(c - '0');
            else if (c >= 'a' && c <= 'f')
                value |= static_cast<std::uint32_t>(c - 'a' + 10);
            else if (c >= 'A' && c <= 'F')
                value |= static_cast<std::uint32_t>(c - 'A' + 10);
            else
                return fail("invalid \\u escape");
        }
        return true;
    }

    bool parseString(std::string &out)
    {
        ++m_pos; // "
        for (;;) {
            if (m_pos >= m_text.size())
                return fail("unterminated string");
            const auto c = static_cast<unsigned char>(m_text[m_pos]);
            if (c == '"') {
                ++m_pos;
                return true;
            }
            if (c < 0x20)
                return fail("control character in a string");
            if (c != '\\') {
                char32_t codePoint = 0;
                const std::size_t length = decodeUtf8(m_text, m_pos, &codePoint);
                if (length == 0)
                    return fail("invalid UTF-8 in a string");
                out.append(m_text.substr(m_pos, length));
                m_pos += length;
                continue;
            }
            if (++m_pos >= m_text.size())
                return fail("unterminated escape");
            const char escape = m_text[m_pos++];
            switch (escape) {
            case '"':
            case '\\':
            case '/':
                out += escape;
                break;
            case 'b':
                out += '\b';
                break;
            case 'f':
                out += '\f';
                break;
            case 'n':
                out += '\n';
                break;
            case 'r':
                out += '\r';
                break;
            case 't':
                out += '\t';
                break;
            case 'u': {
                std::uint32_t unit = 0;
                if (!hex4(unit))
                    return false;
                if (unit >= 0xdc00 && unit <= 0xdfff)
                    return fail("lone low surrogate");
                if (unit >= 0xd800 && unit <= 0xdbff) {
                    std::uint32_t low = 0;
                    if (m_text.substr(m_pos, 2) != "\\u")
                        return fail("lone high surrogate");
                    m_pos += 2;
                    if (!hex4(low))
                        return false;
                    if (low < 0xdc00 || low > 0xdfff)
                        return fail("lone high surrogate");
                    unit = 0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00);
                }
                appendUtf8(out, unit);
                break;
            }
            default:
                return fail("invalid escape");
            }
        }
    }

    // RFC 8259: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?. Integers that fit stay exact (as Qt keeps
    // them as qint64); everything else is a double. std::from_chars does not depend on the C locale, which a
    // Qt program sets from the environment.
    bool parseNumber(Json &out)
    {
        const std::size_t start = m_pos;
        const auto digits = [&] {
            const std::size_t from = m_pos;
            while (m_pos < m_text.size() && m_text[m_pos] >= '0' && m_text[m_pos] <= '9')
                ++m_pos;
            return m_pos - from;
        };
        const bool negative = m_pos < m_text.size() && m_text[m_pos] == '-';
        if (negative)
            ++m_pos;
        if (m_pos < m_text.size() && m_text[m_pos] == '0') {
            ++m_pos;
            if (m_pos < m_text.size() && m_text[m_pos] >= '0' && m_text[m_pos] <= '9')
                return fail("invalid number: leading zeros are not allowed");
        } else if (digits() == 0) {
            return fail(negative ? "invalid number" : "invalid value");
        }
        bool integral = true;
        if (m_pos < m_text.size() && m_text[m_pos] == '.') {
            ++m_pos;
            integral = false;
            if (digits() == 0)
                return fail("invalid number");
        }
        if (m_pos < m_text.size() && (m_text[m_pos] == 'e' || m_text[m_pos] == 'E')) {
            ++m_pos;
            integral = false;
            if (m_pos < m_text.size() && (m_text[m_pos] == '+' || m_text[m_pos] == '-'))
                ++m_pos;
            if (digits() == 0)
                return fail("invalid number");
        }
        // "1.2.3", "0x10" or "12abc": the number runs on into what no JSON number holds.
        if (m_pos < m_text.size() &&
            (m_text[m_pos] == '.' || std::isalnum(static_cast<unsigned char>(m_text[m_pos]))))
            return fail("invalid number");
        const char *first = m_text.data() + start;
        const char *last = m_text.data() + m_pos;
        out.m_type = Json::Type::Number;
        if (integral) {
            std::int64_t value = 0;
            const auto [end, ec] = std::from_chars(first, last, value);
            if (ec == std::errc() && end == last) {
                out.m_isInteger = true;
                out.m_integer = value;
                return true;
            }
        }
        double value = 0;
        const auto [end, ec] = std::from_chars(first, last, value);
        if (end != last)
            return fail("invalid number");
        if (ec == std::errc::result_out_of_range) {
            // Too small to tell from zero is zero; too large to be finite is refused.
            const std::string_view token(first, static_cast<std::size_t>(last - first));
            if (token.find("e-") == std::string_view::npos && token.find("E-") == std::string_view::npos)
                return failWith("json.out_of_range", "number out of range");
            value = 0;
        } else if (ec != std::errc() || !std::isfinite(value)) {
            return fail("invalid number");
        }
        out.m_double = value;
        return true;
    }

    std::string_view m_text;
    const JsonLimits &m_limits;
    std::size_t m_pos = 0;
    std::string m_code = "json.invalid";
    std::string m_error;
    // The members and items being read, outermost first: key points at the member's name, which lives
    // until the member is stored.
    struct PathStep
    {
        const std::string *key;
        std::size_t index;
    };
    std::vector<PathStep> m_path;
};

std::string jsonMemberPath(std::string_view parent, std::string_view key)
{
    bool identifier = !key.empty();
    for (std::size_t i = 0; i < key.size(); ++i) {
        const char c = key[i];
        const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
        identifier = identifier && (letter || (i > 0 && c >= '0' && c <= '9'));
    }
    if (!identifier)
        return std::string(parent) + "[" + quoteUntrusted(key) + "]";
    return parent.empty() ? std::string(key) : std::string(parent) + "." + std::string(key);
}

std::string jsonIndexPath(std::string_view parent, std::size_t index)
{
    return std::string(parent) + "[" + std::to_string(index) + "]";
}

Json Json::object(std::initializer_list<Member> members)
{
    Json json;
    json.m_type = Type::Object;
    json.m_members.assign(members.begin(), members.end());
    return json;
}

Result<Json> Json::read(std::string_view text, const JsonLimits &limits)
{
    JsonParser parser(text, limits);
    std::optional<Json> document = parser.document();
    if (!document)
        return tl::unexpected(parser.error());
    return std::move(*document);
}

const Json &Json::operator[](std::string_view key) const
{
    for (auto it = m_members.rbegin(); it != m_members.rend(); ++it) {
        if (it->first == key)
            return it->second;
    }
    return UndefinedValue;
}

bool Json::contains(std::string_view key) const
{
    return !(*this)[key].isUndefined();
}

const Json::Array &Json::items() const
{
    return m_type == Type::Array ? m_items : NoItems;
}

const Json::Object &Json::members() const
{
    return m_type == Type::Object ? m_members : NoMembers;
}

const std::string &Json::toString() const
{
    return m_type == Type::String ? m_string : NoString;
}

bool Json::toBool(bool defaultValue) const
{
    return m_type == Type::Bool ? m_bool : defaultValue;
}

std::int64_t Json::toInteger(std::int64_t defaultValue) const
{
    if (m_type != Type::Number)
        return defaultValue;
    if (m_isInteger)
        return m_integer;
    // 2^63 is exactly representable; anything at or above it (or below -2^63) is out of range.
    constexpr double Limit = 9223372036854775808.0;
    if (m_double != std::trunc(m_double) || m_double >= Limit || m_double < -Limit)
        return defaultValue;
    return static_cast<std::int64_t>(m_double);
}

int Json::toInt(int defaultValue) const
{
    const std::int64_t a = toInteger(0);
    const std::int64_t b = toInteger(1);
    if (a != b || a < std::numeric_limits<int>::min() || a > std::numeric_limits<int>::max())
        return defaultValue;
    return static_cast<int>(a);
}

double Json::toDouble(double defaultValue) const
{
    if (m_type != Type::Number)
        return defaultValue;
    return m_isInteger ? static_cast<double>(m_integer) : m_double;
}

void Json::insert(std::string key, Json value)
{
    if (m_type == Type::Undefined || m_type == Type::Null)
        m_type = Type::Object;
    for (Member &member : m_members) {
        if (member.first == key) {
            member.second = std::move(value);
            return;
        }
    }
    m_members.emplace_back(std::move(key), std::move(value));
}

std::string Json::serializeIndented(int depth) const
{
    const std::string inner(static_cast<std::size_t>(4 * (depth + 1)), ' ');
    const std::string outer(static_cast<std::size_t>(4 * depth), ' ');
    if (m_type == Type::Array && !m_items.empty()) {
        std::string text = "[\n";
        for (std::size_t i = 0; i < m_items.size(); ++i)
            text += inner + m_items[i].serializeIndented(depth + 1) + (i + 1 < m_items.size() ? ",\n" : "\n");
        return text + outer + ']';
    }
    if (m_type == Type::Object && !m_members.empty()) {
        std::string text = "{\n";
        for (std::size_t i = 0; i < m_members.size(); ++i)
            text += inner + jsonQuote(m_members[i].first) + ": " +
                    m_members[i].second.serializeIndented(depth + 1) +
                    (i + 1 < m_members.size() ? ",\n" : "\n");
        return text + outer + '}';
    }
    return serialize();
}

std::string Json::serialize() const
{
    switch (m_type) {
    case Type::Undefined:
    case Type::Null:
        return "null";
    case Type::Bool:
        return m_bool ? "true" : "false";
    case Type::Number: {
        if (m_isInteger)
            return std::to_string(m_integer);
        // "-0" would read back as the integer 0 and lose its sign; a fraction keeps it a double.
        if (m_double == 0 && std::signbit(m_double))
            return "-0.0";
        char buffer[32];
        const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, m_double);
        return ec == std::errc() ? std::string(buffer, end) : std::string("null");
    }
    case Type::String:
        return jsonQuote(m_string);
    case Type::Array: {
        std::string text = "[";
        for (const Json &item : m_items) {
            if (text.size() > 1)
                text += ',';
            text += item.serialize();
        }
        return text + ']';
    }
    case Type::Object: {
        std::string text = "{";
        for (const Member &member : m_members) {
            if (text.size() > 1)
                text += ',';
            text += jsonQuote(member.first);
            text += ':';
            text += member.second.serialize();
        }
        return text + '}';
    }
    }
    return "null";
}

std::string jsonQuote(std::string_view text)
{
    static const char Hex[] = "0123456789abcdef";
    std::string out;
    out.reserve(text.size() + 2);
    out += '"';
    for (const char c : text) {
        const auto u = static_cast<unsigned char>(c);
        switch (c) {
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\r':
            out += "\\r";
            break;
        case '\t':
            out += "\\t";
            break;
        case '\b':
            out += "\\b";
            break;
        case '\f':
            out += "\\f";
            break;
        default:
            if (u < 0x20) {
                out += "\\u00";
                out += Hex[u >> 4];
                out += Hex[u & 0xf];
            } else {
                out += c;
            }
        }
    }
    out += '"';
    return out;
}

} // namespace Cordon
