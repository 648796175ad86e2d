// SPDX-License-Identifier: MIT
// SHA-256 for policy versions and copied files' checksums, from nettle: a vetted hash that links statically
// into the `cordon` launcher without the provider machinery (and dlopen) that OpenSSL's libcrypto brings.
#pragma once

#include <nettle/sha2.h>

#include <string>
#include <string_view>

namespace Cordon {

// An incremental hash: add() the bytes as they are read, then hexDigest() once.
class Sha256 final
{
public:
    Sha256();
    void add(std::string_view bytes);
    // Lower-case hex of the 32-byte digest. The hash starts over afterwards.
    std::string hexDigest();

private:
    sha256_ctx m_context;
};

// Lower-case hex SHA-256 of `bytes`.
std::string sha256Hex(std::string_view bytes);

} // namespace Cordon
