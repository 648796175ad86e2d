// SPDX-License-Identifier: MIT
#include "sandbox/secrets/pseudonymkey.h"

namespace Cordon::Secrets {

namespace {

// The two uses of a key hash different domains: a value that happens to read "cordon pseudonym key id"
// never gets the key's id as its pseudonym.
constexpr char ValueDomain[] = "cordon pseudonym";
constexpr char IdDomain[] = "cordon pseudonym key id";

std::string hexDigits(const std::uint8_t *bytes, std::size_t digits)
{
    static constexpr char Digits[] = "0123456789abcdef";
    std::string out;
    out.reserve(digits);
    for (std::size_t i = 0; out.size() < digits; ++i) {
        out += Digits[bytes[i] >> 4];
        if (out.size() < digits)
            out += Digits[bytes[i] & 15];
    }
    return out;
}

} // namespace

std::string pseudonymKeyId(std::string_view keyBytes)
{
    hmac_sha256_ctx context;
    hmac_sha256_set_key(&context, keyBytes.size(), reinterpret_cast<const std::uint8_t *>(keyBytes.data()));
    hmac_sha256_update(&context, sizeof IdDomain - 1, reinterpret_cast<const std::uint8_t *>(IdDomain));
    std::uint8_t digest[SHA256_DIGEST_SIZE];
    hmac_sha256_digest(&context, sizeof digest, digest);
    return "pk-" + hexDigits(digest, 16);
}

Pseudonymizer::Pseudonymizer(std::string_view keyBytes)
{
    hmac_sha256_set_key(&m_keyed, keyBytes.size(), reinterpret_cast<const std::uint8_t *>(keyBytes.data()));
    // The domain and its NUL are part of every message: hash them into the saved state once.
    hmac_sha256_update(&m_keyed, sizeof ValueDomain, reinterpret_cast<const std::uint8_t *>(ValueDomain));
}

std::string Pseudonymizer::operator()(std::string_view value) const
{
    hmac_sha256_ctx context = m_keyed;
    hmac_sha256_update(&context, value.size(), reinterpret_cast<const std::uint8_t *>(value.data()));
    std::uint8_t digest[SHA256_DIGEST_SIZE];
    hmac_sha256_digest(&context, sizeof digest, digest);
    return PseudonymPrefix + hexDigits(digest, PseudonymDigits);
}

} // namespace Cordon::Secrets
