// SPDX-License-Identifier: MIT
// Keys that turn values into pseudonyms (docs/pseudonymize.md). A key is 32 random bytes the secret store
// keeps beside its secrets, never among them: no policy can name it, so no run ever receives it. A pseudonym
// is keyed (without the key nobody can test a guessed value against it) and deterministic (the same value
// gives the same pseudonym in every file and container that share the key, so joins still work); no mapping
// back is kept anywhere.
#pragma once

#include <nettle/hmac.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace Cordon::Secrets {

constexpr std::size_t PseudonymKeyBytes = 32;
// The key `cordon cp --pseudonymize` and the workbench use unless told otherwise.
constexpr char DefaultPseudonymKey[] = "default";
// What every pseudonym starts with, so that one is recognisable in a file.
constexpr char PseudonymPrefix[] = "psn_";
// Hex digits of the HMAC kept: 64 bits, so that ten million distinct values collide with a chance of about
// one in 370 000.
constexpr std::size_t PseudonymDigits = 16;

struct PseudonymKey
{
    std::string name;  // as the user names it: "default", "project_x"
    std::string id;    // pseudonymKeyId(bytes)
    std::string bytes; // PseudonymKeyBytes, never shown
};

// "pk-" and 16 hex digits of HMAC-SHA256(key, "cordon pseudonym key id"): names a key in histories and
// listings without giving anything of it away.
std::string pseudonymKeyId(std::string_view keyBytes);

// One key's pseudonyms: PseudonymPrefix and the first PseudonymDigits hex digits of
// HMAC-SHA256(key, "cordon pseudonym" NUL value). The key schedule is computed once.
class Pseudonymizer final
{
public:
    explicit Pseudonymizer(std::string_view keyBytes);
    std::string operator()(std::string_view value) const;

private:
    hmac_sha256_ctx m_keyed;
};

} // namespace Cordon::Secrets
