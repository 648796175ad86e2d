// SPDX-License-Identifier: MIT
#include "audit/reviewerkeyring.h"

#include "audit/reportsignature.h"
#include "sandbox/hex.h"

namespace Cordon::Audit {

namespace {

std::string_view trimmed(std::string_view text)
{
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t' || text.front() == '\r'))
        text.remove_prefix(1);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r'))
        text.remove_suffix(1);
    return text;
}

bool isLowerHex(std::string_view text)
{
    return text.find_first_not_of("0123456789abcdef") == std::string_view::npos;
}

} // namespace

const TrustedKey *ReviewerKeyring::signer(const std::string &keyId, const std::string &publicKeyHex) const
{
    for (const TrustedKey &key : keys) {
        // A public key is compared whole; a line that names only the id trusts the key with that id.
        if (key.publicKey.empty() ? key.keyId == keyId : key.publicKey == publicKeyHex)
            return &key;
    }
    return nullptr;
}

Result<ReviewerKeyring> parseKeyring(std::string_view text)
{
    ReviewerKeyring keyring;
    int number = 0;
    while (!text.empty()) {
        const std::size_t end = text.find('\n');
        const std::string_view line = trimmed(text.substr(0, end));
        text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
        ++number;
        if (line.empty() || line.front() == '#')
            continue;
        const std::size_t space = line.find_first_of(" \t");
        const std::string_view key = line.substr(0, space);
        const std::string_view name =
            space == std::string_view::npos ? std::string_view() : trimmed(line.substr(space));
        TrustedKey trusted;
        trusted.name = std::string(name);
        std::string publicKey;
        if (key.size() == 64 && isLowerHex(key) && fromHex(std::string(key), publicKey)) {
            trusted.publicKey = std::string(key);
            trusted.keyId = signingKeyId(publicKey);
        } else if (key.size() == 19 && key.substr(0, 3) == "ak-" && isLowerHex(key.substr(3))) {
            trusted.keyId = std::string(key);
        } else {
            return fail("audit.bad_keyring", "line " + std::to_string(number) +
                                                 ": a trusted key is a public key (64 lower-case hex digits) "
                                                 "or a key id (ak- and 16 hex digits)");
        }
        if (trusted.name.empty())
            return fail("audit.bad_keyring",
                        "line " + std::to_string(number) + ": the key " + std::string(key) + " has no name");
        keyring.keys.push_back(std::move(trusted));
    }
    return keyring;
}

} // namespace Cordon::Audit
