// SPDX-License-Identifier: MIT
// A small, strict JSON reader and compact writer without Qt: the protocol frames of every client and the
// `cordon` launcher read and write with it. RFC 8259 only: no comments, no trailing
// commas, no NaN, strings must be valid UTF-8 (also after \u escapes: no lone surrogates), nesting is capped.
// Accessors answer like QJsonValue's, so code ported from Qt reads the same fields the same way.
#pragma once

#include "sandbox/error.h"
#include "sandbox/utf8.h"

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace Cordon {

// What a reader accepts. The defaults fit protocol frames (the frame reader caps their size first); a policy
// file is read with tighter ones (Policy::DocumentLimits, sandbox/policy/fields.h).
struct JsonLimits
{
    std::size_t maxBytes = 64 * 1024 * 1024;
    // The parser recurses once per level.
    int maxDepth = 128;
    // Members of one object or items of one array: a hostile megabyte of "a":0 pairs stays linear.
    std::size_t maxEntries = 1024 * 1024;
};

class Json
{
public:
    enum class Type
    {
        Undefined, // a missing member, as QJsonValue::Undefined
        Null,
        Bool,
        Number,
        String,
        Array,
        Object,
    };
    using Array = std::vector<Json>;
    using Member = std::pair<std::string, Json>;
    using Object = std::vector<Member>;

    static constexpr int MaxDepth = JsonLimits{}.maxDepth;

    Json() = default;
    Json(std::nullptr_t) : m_type(Type::Null) {}
    Json(bool value) : m_type(Type::Bool), m_bool(value) {}
    Json(int value) : Json(static_cast<std::int64_t>(value)) {}
    Json(std::int64_t value) : m_type(Type::Number), m_isInteger(true), m_integer(value) {}
    Json(double value) : m_type(Type::Number), m_double(value) {}
    Json(std::string value) : m_type(Type::String), m_string(std::move(value)) {}
    Json(std::string_view value) : Json(std::string(value)) {}
    Json(const char *value) : Json(std::string(value)) {}
    Json(Array items) : m_type(Type::Array), m_items(std::move(items)) {}
    static Json object(std::initializer_list<Member> members = {});

    // The one JSON value `text` holds. Refused with a message that says where and why: the key path when
    // inside a value ("env.A[0]: "), the reason, then the line and column in bytes from 1 (" (line 1, column
    // 27)"). The codes:
    // - json.invalid: bad syntax, invalid UTF-8 (also after \u escapes: no lone surrogates), a byte order
    //   mark, raw control characters in strings, trailing data;
    // - json.out_of_range: a number too large for a double (1e400);
    // - json.duplicate_key: an object names a key twice (a reader that keeps the last one would let two
    //   readers of one document disagree);
    // - json.too_deep, json.too_large: over the limits.
    // Integer literals that fit in 64 bits stay exact (isExactInteger()).
    static Result<Json> read(std::string_view text, const JsonLimits &limits = {});

    Type type() const { return m_type; }
    bool isUndefined() const { return m_type == Type::Undefined; }
    bool isNull() const { return m_type == Type::Null; }
    bool isBool() const { return m_type == Type::Bool; }
    bool isNumber() const { return m_type == Type::Number; }
    bool isString() const { return m_type == Type::String; }
    bool isArray() const { return m_type == Type::Array; }
    bool isObject() const { return m_type == Type::Object; }

    // The member `key`, or an Undefined value.
    const Json &operator[](std::string_view key) const;
    bool contains(std::string_view key) const;
    // Empty unless this is an array / object.
    const Array &items() const;
    const Object &members() const;

    // As QJsonValue::toString(): empty unless a string.
    const std::string &toString() const;
    bool toBool(bool defaultValue = false) const;
    // As QJsonValue::toInteger() / toInt(): a whole number in range, else defaultValue.
    std::int64_t toInteger(std::int64_t defaultValue = 0) const;
    int toInt(int defaultValue = 0) const;
    double toDouble(double defaultValue = 0) const;
    // True for a number written as an integer literal that fits in 64 bits (or built from an integer):
    // toInteger() then holds every digit. 1.0 and 1e2 are numbers with integral values, not literals.
    bool isExactInteger() const { return m_type == Type::Number && m_isInteger; }

    // Adds or replaces a member; turns an undefined or null value into an object first.
    void insert(std::string key, Json value);

    // Compact JSON, as QJsonDocument::Compact writes it (modulo member order and number spelling).
    std::string serialize() const;
    // For people: one member or item a line, indented by four spaces a level, as QJsonDocument::Indented
    // writes it (members in this value's order). depth is the indentation the value starts at.
    std::string serializeIndented(int depth = 0) const;

private:
    Type m_type = Type::Undefined;
    bool m_bool = false;
    bool m_isInteger = false;
    std::int64_t m_integer = 0;
    double m_double = 0;
    std::string m_string;
    Array m_items;
    Object m_members;

    friend class JsonParser;
};

// The key paths of read() errors and of the policy reader's messages: "limits" + "pids" gives "limits.pids",
// a key that is not an identifier is quoted ("env[\"A B\"]"); "mounts" + 2 gives "mounts[2]".
std::string jsonMemberPath(std::string_view parent, std::string_view key);
std::string jsonIndexPath(std::string_view parent, std::size_t index);

// `text` (UTF-8) as a JSON string literal, with the quotes: only '"', '\' and control characters escaped
// (\b \f \n \r \t, else \u00xx in lower-case hex), as RFC 8785 asks. Policy versions are hashes over this
// form (sandbox/policy/canonicaljson.h), so it must never change.
std::string jsonQuote(std::string_view text);

} // namespace Cordon
