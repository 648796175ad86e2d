// SPDX-License-Identifier: MIT
#include "sandbox/secrets/secretmasker.h"

#include "sandbox/json.h"
#include "sandbox/utf8.h"

#include <nettle/base64.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
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

enum class Space
{
    Percent, // %20, as in a URL's path (RFC 3986)
    Plus,    // +, as in a query string or a form body (application/x-www-form-urlencoded, quote_plus)
};

std::string percentEncoded(std::string_view value, const char *digits, Space space = Space::Percent)
{
    std::string out;
    for (unsigned char c : value) {
        const bool unreserved = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                                c == '-' || c == '.' || c == '_' || c == '~';
        if (unreserved) {
            out += char(c);
        } else if (c == ' ' && space == Space::Plus) {
            out += '+';
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

std::vector<std::uint32_t> borders(const std::string &form)
{
    std::vector<std::uint32_t> border(form.size(), 0);
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
                                   percentEncoded(value, HexUpper, Space::Plus),
                                   percentEncoded(value, HexLower, Space::Plus),
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
        std::vector<std::uint32_t> border = borders(form);
        const bool acrossLineBreaks = std::all_of(form.begin(), form.end(), isBase64Character);
        m_patterns.push_back(Pattern{std::move(form), marker, std::move(border), acrossLineBreaks, {}});
    }
    std::stable_sort(m_patterns.begin(), m_patterns.end(),
                     [](const Pattern &a, const Pattern &b) { return a.form.size() > b.form.size(); });
    return {};
}

namespace {

// Whether a run of line breaks may stand between two characters of a form that is found across them: one
// line end, as writers that wrap put it ("\n", "\r\n", "\r"). A longer run ends any partial match, so that
// a program printing empty lines cannot make a stream hold them back.
bool isOneLineEnd(std::string_view run)
{
    return run == "\n" || run == "\r\n" || run == "\r";
}

} // namespace

template<typename OnMatch>
SecretMasker::ScanEnd SecretMasker::scan(std::string_view text, std::size_t begin, const Pattern &pattern,
                                         bool skipBreaks, OnMatch onMatch)
{
    const std::size_t length = pattern.form.size();
    std::vector<std::uint32_t> &positions =
        pattern.positions; // where the last `length` counted characters were
    positions.assign(length, 0);
    std::size_t state = 0;
    std::size_t seen = 0;
    std::size_t breakStart = std::string_view::npos;
    for (std::size_t i = begin; i < text.size(); ++i) {
        const char c = text[i];
        if (skipBreaks && isLineBreak(c)) {
            if (breakStart == std::string_view::npos)
                breakStart = i;
            continue;
        }
        if (breakStart != std::string_view::npos) {
            if (!isOneLineEnd(text.substr(breakStart, i - breakStart)))
                state = 0;
            breakStart = std::string_view::npos;
        }
        while (state > 0 && (state == length || c != pattern.form[state]))
            state = pattern.border[state - 1];
        if (c == pattern.form[state])
            ++state;
        positions[seen++ % length] = std::uint32_t(i - begin);
        if (state == length)
            onMatch(begin + positions[(seen - length) % length], i + 1);
    }
    if (state == length)
        state = pattern.border[state - 1];
    // Trailing breaks longer than one line end: nothing that came before can continue.
    if (breakStart != std::string_view::npos && !isOneLineEnd(text.substr(breakStart)))
        state = 0;
    return {state, state == 0 ? text.size() : begin + positions[(seen - state) % length]};
}

std::vector<SecretMasker::Span> SecretMasker::matches(std::string_view text) const
{
    const bool hasBreaks = text.find_first_of("\r\n") != std::string_view::npos;
    std::vector<Span> found;
    std::vector<const Pattern *> acrossBreaks;
    for (const Pattern &pattern : m_patterns) {
        if (hasBreaks && pattern.acrossLineBreaks) {
            acrossBreaks.push_back(&pattern);
            continue;
        }
        // A plain substring search: glibc's memmem is several times faster than the byte-at-a-time KMP on a
        // large text (an artifact being scanned), with the same occurrences, overlapping ones too.
        const std::string &form = pattern.form;
        for (std::size_t from = 0; from + form.size() <= text.size();) {
            const void *hit = ::memmem(text.data() + from, text.size() - from, form.data(), form.size());
            if (!hit)
                break;
            const std::size_t start = std::size_t(static_cast<const char *>(hit) - text.data());
            found.push_back({start, start + form.size(), &pattern.marker});
            from = start + 1;
        }
    }
    if (acrossBreaks.empty())
        return merged(std::move(found));
    // Across line breaks, the byte-at-a-time search runs only where a match can be: in runs of the form's own
    // characters and line breaks at least as long as the form. Any other character sets the search back to
    // its start (it is none of the form's), so searching each run alone finds exactly what one search of the
    // whole text would. One pass finds the runs of every such form's characters together; each form's own
    // runs lie inside them. Log and code text is mostly short words between other characters.
    std::array<bool, 256> inAnyRun{};
    std::vector<std::array<bool, 256>> inRuns(acrossBreaks.size());
    std::size_t shortest = std::string::npos;
    for (std::size_t p = 0; p < acrossBreaks.size(); ++p) {
        for (unsigned char c : acrossBreaks[p]->form)
            inAnyRun[c] = inRuns[p][c] = true;
        inRuns[p]['\r'] = inRuns[p]['\n'] = true;
        shortest = std::min(shortest, acrossBreaks[p]->form.size());
    }
    inAnyRun['\r'] = inAnyRun['\n'] = true;
    const auto runsOf = [&text](const std::array<bool, 256> &in, std::size_t from, std::size_t to,
                                std::size_t minimum, auto onRun) {
        for (std::size_t i = from; i < to;) {
            while (i < to && !in[static_cast<unsigned char>(text[i])])
                ++i;
            const std::size_t start = i;
            while (i < to && in[static_cast<unsigned char>(text[i])])
                ++i;
            if (i - start >= minimum)
                onRun(start, i);
        }
    };
    runsOf(inAnyRun, 0, text.size(), shortest, [&](std::size_t start, std::size_t end) {
        for (std::size_t p = 0; p < acrossBreaks.size(); ++p) {
            const Pattern *pattern = acrossBreaks[p];
            if (end - start < pattern->form.size())
                continue;
            runsOf(inRuns[p], start, end, pattern->form.size(), [&](std::size_t from, std::size_t to) {
                scan(text.substr(0, to), from, *pattern, true,
                     [&](std::size_t matchStart, std::size_t matchEnd) {
                         found.push_back({matchStart, matchEnd, &pattern->marker});
                     });
            });
        }
    });
    return merged(std::move(found));
}

std::vector<SecretMasker::Span> SecretMasker::merged(std::vector<Span> found)
{
    // Occurrences that overlap (two secrets sharing characters, one form inside another) become one span:
    // masking them one after the other would leave part of one of them.
    std::sort(found.begin(), found.end(), [](const Span &a, const Span &b) {
        return a.start != b.start ? a.start < b.start : a.end > b.end;
    });
    std::vector<Span> spans;
    for (const Span &span : found) {
        if (!spans.empty() && span.start < spans.back().end) {
            spans.back().end = std::max(spans.back().end, span.end);
            continue;
        }
        spans.push_back(span);
    }
    return spans;
}

std::vector<SecretMasker::Occurrence> SecretMasker::occurrences(std::string_view text) const
{
    std::vector<Occurrence> out;
    for (const Span &span : matches(text)) {
        // The marker is "[secret:NAME]".
        const std::string_view marker = *span.marker;
        out.push_back({span.start, span.end, marker.substr(8, marker.size() - 9)});
    }
    return out;
}

void SecretMasker::appendMask(std::string &out, std::string_view text, std::size_t start, std::size_t end,
                              const std::string &marker) const
{
    if (m_mark == Mark::Name) {
        out += marker;
        return;
    }
    for (std::size_t i = start; i < end; ++i)
        out += isLineBreak(text[i]) ? text[i] : '*';
}

std::string SecretMasker::replaced(std::string_view text, const std::vector<Span> &spans) const
{
    std::string out;
    out.reserve(text.size());
    std::size_t from = 0;
    for (const Span &span : spans) {
        out.append(text.substr(from, span.start - from));
        appendMask(out, text, span.start, span.end, *span.marker);
        from = span.end;
    }
    out.append(text.substr(from));
    return out;
}

std::size_t SecretMasker::pendingStart(std::string_view text) const
{
    std::size_t start = text.size();
    for (const Pattern &pattern : m_patterns) {
        // Far enough back for form.size() - 1 counted characters, each after at most one line end.
        const std::size_t window = pattern.acrossLineBreaks ? 3 * pattern.form.size() : pattern.form.size();
        const std::size_t begin = text.size() > window ? text.size() - window : 0;
        const ScanEnd end =
            scan(text, begin, pattern, pattern.acrossLineBreaks, [](std::size_t, std::size_t) {});
        start = std::min(start, end.partialStart);
    }
    return start;
}

std::string SecretMasker::feed(std::string_view chunk)
{
    if (m_patterns.empty())
        return std::string(chunk);
    const std::string text = m_held + std::string(chunk);
    // Held back: the tail that could still become a form, and any match that reaches into it (a shorter
    // form complete inside a longer one's start must wait for the longer one to end or fail).
    std::size_t cut = pendingStart(text);
    std::vector<Span> spans = matches(text);
    for (auto it = spans.rbegin(); it != spans.rend(); ++it) {
        if (it->end > cut)
            cut = std::min(cut, it->start);
    }
    std::erase_if(spans, [cut](const Span &span) { return span.end > cut; });
    m_held = text.substr(cut);
    return replaced(std::string_view(text).substr(0, cut), spans);
}

std::string SecretMasker::maskedEnd(std::string_view text) const
{
    std::string masked = replaced(text, matches(text));
    // The start of a form left at the very end (a value cut at the output cap, or printed in part): masked
    // once it has MinMaskedTail characters that count; line breaks after it stay.
    std::size_t end = masked.size();
    while (end > 0 && isLineBreak(masked[end - 1]))
        --end;
    const std::string_view body = std::string_view(masked).substr(0, end);
    const std::size_t start = pendingStart(body);
    std::string counted(body.substr(start));
    std::erase_if(counted, isLineBreak);
    if (counted.size() < MinMaskedTail)
        return masked;
    for (const Pattern &pattern : m_patterns) {
        if (pattern.form.starts_with(counted)) {
            std::string out = masked.substr(0, start);
            appendMask(out, masked, start, end, pattern.marker);
            return out + masked.substr(end);
        }
    }
    return masked;
}

std::string SecretMasker::finish()
{
    const std::string rest = std::move(m_held);
    m_held.clear();
    return m_patterns.empty() ? rest : maskedEnd(rest);
}

std::string SecretMasker::maskAll(std::string_view text) const
{
    return m_patterns.empty() ? std::string(text) : replaced(text, matches(text));
}

std::string SecretMasker::maskOutput(std::string_view text) const
{
    return m_patterns.empty() ? std::string(text) : maskedEnd(text);
}

} // namespace Cordon::Secrets
