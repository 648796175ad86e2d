// SPDX-License-Identifier: MIT
// Where a secret store keeps its values when they are not in its own file: the desktop keyring, through the
// Secret Service (engine/secretservice/). The store file then keeps the names, when each was set and the
// fingerprints; the vault keeps each value under the store's id and the secret's name. The interface is here,
// in the sandbox library, so that the store stays plain C++ for the static `cordon` launcher, which has no
// vault: it hands the reading of a vault's values to `cordon-secret-reader` (docs/secrets.md).
#pragma once

#include "sandbox/error.h"

#include <string>
#include <string_view>

namespace Cordon::Secrets {

// The kind() of the desktop keyring's vault, as secrets.json names it: here, so that the launcher's reader
// of that vault (which cannot link it) names it the same.
constexpr char SecretServiceKind[] = "secret-service";

class SecretVault
{
public:
    virtual ~SecretVault() = default;

    // Whether values can be kept here now: asked once, when a store is created. False, not an error, when
    // there is no such service, or it is locked, so that the store falls back to its own file.
    virtual bool usable() = 0;
    // What the store says it keeps values in ("secret-service"), as written in the store file.
    virtual std::string kind() const = 0;

    // secrets.keyring_unavailable when the service cannot be reached, secrets.keyring_locked when the value
    // is behind a lock (a vault never asks the user to unlock: a daemon must not wait on a dialog),
    // secrets.keyring_missing when it holds no value of that name.
    virtual Result<std::string> read(const std::string &storeId, const std::string &name) = 0;
    // Replaces the value of that name.
    virtual Result<> write(const std::string &storeId, const std::string &name, std::string_view value) = 0;
    // Removing a value that is not there is not an error.
    virtual Result<> erase(const std::string &storeId, const std::string &name) = 0;
};

} // namespace Cordon::Secrets
