// SPDX-License-Identifier: MIT
// The launcher's view of a secret store whose values are in the desktop keyring. The launcher is a static
// program and cannot load libsecret; this vault reads each value through cordon-secret-reader (found as
// cordon-init is: beside the launcher, then ../libexec/cordon/), over a pipe. It only reads: stores are
// created and changed by the daemon.
#pragma once

#include "sandbox/secrets/secretvault.h"

namespace Cordon::Launcher {

class KeyringReader final : public Secrets::SecretVault
{
public:
    bool usable() override { return false; } // never the vault of a store made here
    std::string kind() const override;
    // The reader's error, or secrets.keyring_unavailable when it cannot be run or answers nonsense.
    Result<std::string> read(const std::string &storeId, const std::string &name) override;
    Result<> write(const std::string &storeId, const std::string &name, std::string_view value) override;
    Result<> erase(const std::string &storeId, const std::string &name) override;
};

} // namespace Cordon::Launcher
