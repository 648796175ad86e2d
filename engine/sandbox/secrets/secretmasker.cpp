// SPDX-License-Identifier: MIT
#include "sandbox/secrets/secretmasker.h"

#include "sandbox/json.h"
#include "sandbox/utf8.h"

#include <nettle/base64.h>

#include <algorithm>
#include <cstdint>
#include <tuple>

namespace Cordon::Secrets {

namespace {

constexpr char HexLower[] = "0123456789abcdef";
constexpr char HexUpper[] = "0123456789ABCDEF";

std::string hex(std::string_view value, const char *digits)
{
    std::string out;
    out.reserve(value.size() * 2);
    for (unsigned char c : value) {
        out += digits[c >> 4];
        out += digits[c & 15];
    }
    return out;
}

std::string percentEncoded(std::string_view value, const char *digits)
{
    std::string out;
    for (unsigned char c : value) {
        const bool unreserved = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                                c == '-' || c == '.' || c == '_' || c == '~';
        if (unreserved) {
            out += char(c);
        } else {
            out += '%';
            out += digits[c >> 4];
            out += digits[c & 15];
        }
    }
    return out;
}

// What a JSON writer prints for the value inside its quotes (the engine's own writer, jsonQuote()).
std::string jsonEscaped(std::string_view value)
{
    const std::string quoted = jsonQuote(value);
    return quoted.substr(1, quoted.size() - 2);
}

// Base64 without padding, by nettle (the library that already hashes copied files).
std::string base64(std::string_view data, bool urlSafe)
{
    base64_encode_ctx context;
    if (urlSafe)
        base64url_encode_init(&context);
    else
        base64_encode_init(&context);
    std::string out(BASE64_ENCODE_LENGTH(data.size()) + BASE64_ENCODE_FINAL_LENGTH, '\0');
    std::size_t length = base64_encode_update(&context, out.data(), data.size(),
                                              reinterpret_cast<const std::uint8_t *>(data.data()));
    length += base64_encode_final(&context, out.data() + length);
    out.resize(length);
    while (!out.empty() && out.back() == '=')
        out.pop_back();
    return out;
}

// The characters of any base64 text holding `value` at a byte offset of `alignment` (mod 3) that `value`
// alone decides: those whose six bits lie wholly inside it.
std::string base64Core(std::string_view value, std::size_t alignment, bool urlSafe)
{
    std::string padded(alignment, '\0');
    padded.append(value);
    const std::string encoded = base64(padded, urlSafe);
    const std::size_t first = (8 * alignment + 5) / 6;
    const std::size_t end = 8 * (alignment + value.size()) / 6;
    return end > first ? encoded.substr(first, end - first) : std::string();
}

// JSON as writers that escape every non-ASCII character write it (Python's json.dumps by default):
// \u00e4, surrogate pairs beyond the basic plane, lower-case hex digits.
std::string jsonAsciiEscaped(std::string_view value)
{
    const std::string escaped = jsonEscaped(value);
    std::string out;
    for (std::size_t i = 0; i < escaped.size();) {
        char32_t codePoint = 0;
        const std::size_t length = decodeUtf8(escaped, i, &codePoint);
        if (length <= 1 || codePoint < 0x80) {
            out += escaped[i];
            i += length == 0 ? 1 : length;
            continue;
        }
        const auto unit = [&out](unsigned code) {
            out += "\\u";
            for (int shift = 12; shift >= 0; shift -= 4)
                out += HexLower[(code >> shift) & 15];
        };
        if (codePoint >= 0x10000) {
            unit(0xD800 + ((codePoint - 0x10000) >> 10));
            unit(0xDC00 + ((codePoint - 0x10000) & 0x3FF));
        } else {
            unit(codePoint);
        }
        i += length;
    }
    return out;
}

// A value as a logger or a host-name normaliser lower-cases it (a host name is recorded in lower case).
std::string lowerCase(std::string_view value)
{
    std::string out(value);
    for (char &c : out) {
        if (c >= 'A' && c <= 'Z')
            c = char(c - 'A' + 'a');
    }
    return out;
}

bool isLineBreak(char c)
{
    return c == '\n' || c == '\r';
}

// Both alphabets, standard and URL-safe.
bool isBase64Character(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' ||
           c == '/' || c == '-' || c == '_';
}

std::vector<std::size_t> borders(const std::string &form)
{
    std::vector<std::size_t> border(form.size(), 0);
    for (std::size_t i = 1, k = 0; i < form.size(); ++i) {
        while (k > 0 && form[i] != form[k])
            k = border[k - 1];
        if (form[i] == form[k])
            ++k;
        border[i] = k;
    }
    return border;
}

} // namespace

std::vector<std::string> maskedForms(std::string_view value)
{
    // JSON with "/" escaped too, as PHP writes it (with non-ASCII escaped, its default).
    const auto slashEscaped = [](const std::string &json) {
        std::string out;
        for (char c : json) {
            if (c == '/')
                out += '\\';
            out += c;
        }
        return out;
    };
    std::vector<std::string> forms{std::string(value),
                                   lowerCase(value),
                                   jsonEscaped(value),
                                   jsonAsciiEscaped(value),
                                   slashEscaped(jsonEscaped(value)),
                                   slashEscaped(jsonAsciiEscaped(value)),
                                   percentEncoded(value, HexUpper),
                                   percentEncoded(value, HexLower),
                                   hex(value, HexLower),
                                   hex(value, HexUpper)};
    for (const bool urlSafe : {false, true}) {
        for (std::size_t alignment = 0; alignment < 3; ++alignment)
            forms.push_back(base64Core(value, alignment, urlSafe));
    }
    std::sort(forms.begin(), forms.end(), [](const std::string &a, const std::string &b) {
        return a.size() != b.size() ? a.size() > b.size() : a < b;
    });
    forms.erase(std::unique(forms.begin(), forms.end()), forms.end());
    forms.erase(std::remove(forms.begin(), forms.end(), std::string()), forms.end());
    return forms;
}

Result<> SecretMasker::add(const std::string &name, std::string_view value)
{
    CORDON_TRY(checkSecretName(name));
    CORDON_TRY(checkSecretValue(name, value));
    const std::string marker = "[secret:" + name + "]";
    for (std::string &form : maskedForms(value)) {
        std::vector<std::size_t> border = borders(form);
        const bool acrossLineBreaks = std::all_of(form.begin(), form.end(), isBase64Character);
        m_patterns.push_back(Pattern{std::move(form), marker, std::move(border), acrossLineBreaks});
    }
    std::stable_sort(m_patterns.begin(), m_patterns.end(),
                     [](const Pattern &a, const Pattern &b) { return a.form.size() > b.form.size(); });
    return {};
}

std::pair<std::size_t, std::size_t> SecretMasker::findForm(std::string_view text, const Pattern &pattern,
                                                           std::size_t from)
{
    constexpr auto none = std::pair{std::string_view::npos, std::string_view::npos};
    if (!pattern.acrossLineBreaks || text.find_first_of("\r\n", from) == std::string_view::npos) {
        const std::size_t at = text.find(pattern.form, from);
        return at == std::string_view::npos ? none : std::pair{at, at + pattern.form.size()};
    }
    // KMP over the characters that are not line breaks, remembering where the last form.size() of them
    // were, so that a match's start is known in the text as it is: linear however hostile the output.
    const std::size_t length = pattern.form.size();
    std::vector<std::size_t> positions(length);
    std::size_t state = 0;
    std::size_t seen = 0;
    for (std::size_t i = from; i < text.size(); ++i) {
        if (isLineBreak(text[i]))
            continue;
        while (state > 0 && text[i] != pattern.form[state])
            state = pattern.border[state - 1];
        if (text[i] == pattern.form[state])
            ++state;
        positions[seen++ % length] = i;
        if (state == length)
            return {positions[(seen - length) % length], i + 1};
    }
    return none;
}

std::size_t SecretMasker::pendingPrefixOf(std::string_view text, const Pattern &pattern)
{
    const std::size_t length = pattern.form.size();
    // Far enough back to see length - 1 characters that count (line breaks do not, for such patterns).
    std::size_t begin = text.size();
    for (std::size_t counted = 0; begin > 0 && counted + 1 < length;) {
        --begin;
        if (!(pattern.acrossLineBreaks && isLineBreak(text[begin])))
            ++counted;
    }
    std::vector<std::size_t> positions(length);
    std::size_t state = 0;
    std::size_t seen = 0;
    for (std::size_t i = begin; i < text.size(); ++i) {
        if (pattern.acrossLineBreaks && isLineBreak(text[i]))
            continue;
        while (state > 0 && (state == length || text[i] != pattern.form[state]))
            state = pattern.border[state - 1];
        if (text[i] == pattern.form[state])
            ++state;
        positions[seen++ % length] = i;
    }
    if (state == length)
        state = pattern.border[state - 1];
    return state == 0 ? 0 : text.size() - positions[(seen - state) % length];
}

std::string SecretMasker::replaceAll(std::string_view text) const
{
    std::string current(text);
    for (const Pattern &pattern : m_patterns) {
        auto [at, end] = findForm(current, pattern, 0);
        if (at == std::string::npos)
            continue;
        std::string replaced;
        replaced.reserve(current.size());
        std::size_t from = 0;
        while (at != std::string::npos) {
            replaced.append(current, from, at - from);
            replaced += pattern.marker;
            from = end;
            std::tie(at, end) = findForm(current, pattern, from);
        }
        replaced.append(current, from, std::string::npos);
        current = std::move(replaced);
    }
    return current;
}

std::size_t SecretMasker::pendingPrefix(std::string_view text) const
{
    std::size_t longest = 0;
    for (const Pattern &pattern : m_patterns)
        longest = std::max(longest, pendingPrefixOf(text, pattern));
    return longest;
}

std::string SecretMasker::feed(std::string_view chunk)
{
    if (m_patterns.empty())
        return std::string(chunk);
    std::string masked = replaceAll(m_held + std::string(chunk));
    const std::size_t hold = pendingPrefix(masked);
    m_held = masked.substr(masked.size() - hold);
    masked.resize(masked.size() - hold);
    return masked;
}

std::string SecretMasker::maskedTail(std::string text, std::size_t tail) const
{
    if (tail < MinMaskedTail)
        return text;
    const std::string_view held = std::string_view(text).substr(text.size() - tail);
    std::string withoutBreaks(held);
    std::erase_if(withoutBreaks, isLineBreak);
    for (const Pattern &pattern : m_patterns) {
        if (pattern.form.starts_with(held) ||
            (pattern.acrossLineBreaks && pattern.form.starts_with(withoutBreaks))) {
            text.resize(text.size() - tail);
            return text + pattern.marker;
        }
    }
    return text;
}

std::string SecretMasker::finish()
{
    std::string rest = std::move(m_held);
    m_held.clear();
    const std::size_t tail = rest.size();
    return maskedTail(std::move(rest), tail);
}

std::string SecretMasker::maskAll(std::string_view text) const
{
    if (m_patterns.empty())
        return std::string(text);
    std::string masked = replaceAll(text);
    const std::size_t tail = pendingPrefix(masked);
    return maskedTail(std::move(masked), tail);
}

} // namespace Cordon::Secrets
