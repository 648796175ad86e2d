// SPDX-License-Identifier: MIT
// Masking secrets at the logging boundary (docs/secrets.md): every form in which a program is likely to print
// an injected value, in a stream that arrives in chunks. Plain C++, so that the launcher's one-shot runs and
// the daemon mask alike.
//
// The forms of a value V (bytes) are: V itself and lower-cased (host names are recorded so); V JSON-escaped,
// also with every non-ASCII character as \uXXXX and with "/" as "\/"; V percent-encoded (upper- and
// lower-case hex digits, a space as %20 and as + as form bodies and query strings write it); V in hex (both
// cases); and V in base64, standard and URL-safe, at each of the three alignments V can have inside a longer
// encoded text. For base64 only the characters that V alone decides are matched (the one or two at each end
// that share bits with the neighbouring bytes are not), so at most two characters of a partial symbol stay
// visible next to the mask. Each form becomes `[secret:NAME]`.
#pragma once

#include "sandbox/error.h"
#include "sandbox/secrets/secretrules.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace Cordon::Secrets {

// The forms of `value` that SecretMasker looks for, longest first, without duplicates.
std::vector<std::string> maskedForms(std::string_view value);

class SecretMasker final
{
public:
    // How a form is masked: `[secret:NAME]` in what Cordon keeps; as many '*' as the form has bytes (line
    // breaks kept) where the length must stay, in a response on its way to the sandbox whose framing
    // (Content-Length) was sent before its body.
    enum class Mark
    {
        Name,
        SameLength
    };
    SecretMasker() = default;
    explicit SecretMasker(Mark mark) : m_mark(mark) {}

    // Errors: checkSecretName() and checkSecretValue() (secretrules.h).
    Result<> add(const std::string &name, std::string_view value);
    bool empty() const { return m_patterns.empty(); }

    // Masks what `chunk` completes and returns what can be passed on now. Only the shortest tail that could
    // still become a form with the next chunk is held back, so output that does not look like the start of a
    // secret (a prompt waiting for input) is never delayed.
    std::string feed(std::string_view chunk);
    // The tail held back: the stream has ended (or was cut at its cap). A tail of at least MinMaskedTail
    // characters that is the start of a form is masked too: a value cut short by an output cap, or printed
    // in part, must not leave its first bytes behind.
    std::string finish();

    // Masks every complete form in a text (an error message, an event's field, a path). Overlapping
    // occurrences become one mask.
    std::string maskAll(std::string_view text) const;
    // Masks a whole output as feed() and finish() would: also the start of a form left at its very end.
    std::string maskOutput(std::string_view text) const;

    static constexpr std::size_t MinMaskedTail = 4;

    // Where maskAll() would put a mask, in order, overlapping occurrences merged: for the artifact scan,
    // which reports where a value is rather than rewriting the text.
    struct Occurrence
    {
        std::size_t start;
        std::size_t end;
        std::string_view name; // of the secret (of the first, where two overlap)
    };
    std::vector<Occurrence> occurrences(std::string_view text) const;

private:
    struct Pattern
    {
        std::string form;
        std::string marker;
        std::vector<std::uint32_t> border; // KMP failure function of `form`
        // Matched across line breaks too (one line end between two characters): a form made only of base64
        // characters, as base64 and PEM writers wrap it at 64 or 76 columns and terminals wrap long tokens.
        bool acrossLineBreaks = false;
        // Scratch space of scan(), kept so that a stream's every chunk does not allocate it anew.
        mutable std::vector<std::uint32_t> positions;
    };
    struct Span
    {
        std::size_t start;
        std::size_t end;
        const std::string *marker;
    };
    struct ScanEnd
    {
        std::size_t state;        // characters of the form matched at the end of the text
        std::size_t partialStart; // where that partial match starts; the text's size when there is none
    };

    // KMP of `pattern` over text[begin..]: onMatch(start, end) for every occurrence, overlapping ones too;
    // with skipBreaks, one line end between two characters is skipped. Linear in the text.
    template<typename OnMatch>
    static ScanEnd scan(std::string_view text, std::size_t begin, const Pattern &pattern, bool skipBreaks,
                        OnMatch onMatch);
    // Every occurrence of every form, overlapping ones merged, in order.
    std::vector<Span> matches(std::string_view text) const;
    // Sorted, overlapping spans made one.
    static std::vector<Span> merged(std::vector<Span> found);
    std::string replaced(std::string_view text, const std::vector<Span> &spans) const;
    // Appends the mask of text[start, end), a form of the secret whose marker is given.
    void appendMask(std::string &out, std::string_view text, std::size_t start, std::size_t end,
                    const std::string &marker) const;
    // Where the longest suffix of `text` that is a proper prefix of some form starts (text.size() if none).
    std::size_t pendingStart(std::string_view text) const;
    // maskAll() and the start of a form left at the very end of `text` masked.
    std::string maskedEnd(std::string_view text) const;

    Mark m_mark = Mark::Name;
    std::vector<Pattern> m_patterns;
    std::string m_held;
};

} // namespace Cordon::Secrets
