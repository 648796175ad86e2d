// SPDX-License-Identifier: MIT
#include "sandbox/sha256.h"

namespace Cordon {

Sha256::Sha256()
{
    sha256_init(&m_context);
}

void Sha256::add(std::string_view bytes)
{
    sha256_update(&m_context, bytes.size(), reinterpret_cast<const std::uint8_t *>(bytes.data()));
}

std::string Sha256::hexDigest()
{
    std::uint8_t digest[SHA256_DIGEST_SIZE];
    sha256_digest(&m_context, sizeof digest, digest);
    static constexpr char Hex[] = "0123456789abcdef";
    std::string text;
    text.reserve(2 * sizeof digest);
    for (const std::uint8_t byte : digest) {
        text += Hex[byte >> 4];
        text += Hex[byte & 0xf];
    }
    return text;
}

std::string sha256Hex(std::string_view bytes)
{
    Sha256 hash;
    hash.add(bytes);
    return hash.hexDigest();
}

} // namespace Cordon
