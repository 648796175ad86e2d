// SPDX-License-Identifier: MIT
// The reviewers' keyring: the signing keys a reader of reports trusts, each with the name of whose it is. A
// valid signature only proves that some key signed; anyone can sign an edited report with a key of their own,
// so `cordon audit verify` accepts a signature only from a key named here (or given with --key), and says
// who signed.
//
// One key a line: its public key (64 hex digits) or its key id (ak- and 16 hex digits), then the name;
// blank lines and lines starting with # are ignored:
//   # the security team
//   3b6a27bcceb6a42d62a3a8d02a6f0d73653215771de243a63ac048a18b59da29 Ada Reviewer
#pragma once

#include "sandbox/error.h"

#include <string>
#include <string_view>
#include <vector>

namespace Cordon::Audit {

struct TrustedKey
{
    std::string keyId;     // ak-...
    std::string publicKey; // hex; empty when the line gave the key id only
    std::string name;
};

struct ReviewerKeyring
{
    std::vector<TrustedKey> keys;

    // The key that made a signature by `publicKeyHex` (whose id is `keyId`); nullptr when none is trusted.
    const TrustedKey *signer(const std::string &keyId, const std::string &publicKeyHex) const;
};

// audit.bad_keyring naming the line that is neither a key and a name nor a comment.
Result<ReviewerKeyring> parseKeyring(std::string_view text);

} // namespace Cordon::Audit
