// SPDX-License-Identifier: MIT
// Masking secrets at the logging boundary (docs/secrets.md): every form in which a program is likely to print
// an injected value, in a stream that arrives in chunks. Plain C++, so that the launcher's one-shot runs and
// the daemon mask alike.
//
// The forms of a value V (bytes) are: V itself and lower-cased (host names are recorded so); V JSON-escaped,
// also with every non-ASCII character as \uXXXX and with "/" as "\/"; V percent-encoded (upper- and
// lower-case hex digits); V in hex (both cases); and V in base64, standard and URL-safe, at each of the three
// alignments V can have inside a longer encoded text. For base64 only the characters that V alone decides are
// matched (the one or two at each end that share bits with the neighbouring bytes are not), so at most two
// characters of a partial symbol stay visible next to the mask. Each form becomes `[secret:NAME]`.
#pragma once

#include "sandbox/error.h"
#include "sandbox/secrets/secretrules.h"

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace Cordon::Secrets {

// The forms of `value` that SecretMasker looks for, longest first, without duplicates.
std::vector<std::string> maskedForms(std::string_view value);

class SecretMasker final
{
public:
    // Errors: checkSecretName() and checkSecretValue() (secretrules.h).
    Result<> add(const std::string &name, std::string_view value);
    bool empty() const { return m_patterns.empty(); }

    // Masks what `chunk` completes and returns what can be passed on now. Only the shortest tail that could
    // still become a form with the next chunk is held back, so output that does not look like the start of a
    // secret (a prompt waiting for input) is never delayed.
    std::string feed(std::string_view chunk);
    // The tail held back: the stream has ended (or was cut at its cap). A tail of at least MinMaskedTail
    // bytes that is the start of a form is masked too: a value cut short by an output cap, or printed in
    // part, must not leave its first bytes behind.
    std::string finish();

    // Masks a complete text (an error message, a stored output, an export): the same as feed() and finish()
    // of the whole text.
    std::string maskAll(std::string_view text) const;

    static constexpr std::size_t MinMaskedTail = 4;

private:
    struct Pattern
    {
        std::string form;
        std::string marker;
        std::vector<std::size_t> border; // KMP failure function of `form`
        // Matched across line breaks (CR, LF) too: a form made only of base64 characters, as base64 and
        // PEM writers wrap it at 64 or 76 columns and terminals wrap long tokens.
        bool acrossLineBreaks = false;
    };

    // The first occurrence of `pattern` in `text` at or after `from`, as [start, end); {npos, npos} if none.
    static std::pair<std::size_t, std::size_t> findForm(std::string_view text, const Pattern &pattern,
                                                        std::size_t from);
    // The length of the longest suffix of `text` that is a proper prefix of `pattern` (line breaks inside
    // skipped as findForm skips them).
    static std::size_t pendingPrefixOf(std::string_view text, const Pattern &pattern);

    // Replaces every complete form in `text`.
    std::string replaceAll(std::string_view text) const;
    // The length of the longest suffix of `text` that is a proper prefix of some form.
    std::size_t pendingPrefix(std::string_view text) const;
    // `text` with its last `tail` bytes (a proper prefix of some form) masked when long enough.
    std::string maskedTail(std::string text, std::size_t tail) const;

    std::vector<Pattern> m_patterns;
    std::string m_held;
};

} // namespace Cordon::Secrets
