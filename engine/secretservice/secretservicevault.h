// SPDX-License-Identifier: MIT
// The desktop keyring as a secret store's vault: values kept by the Secret Service (GNOME Keyring, KeePassXC,
// KWallet's bridge) over the session bus, with libsecret. Each value is an item of the default collection
// with the attributes {store: the store's vault id, name: the secret's name} under the schema
// "org.cordon.Secret", labelled "Cordon secret NAME".
//
// It never asks the user anything: a locked keyring is an error (secrets.keyring_locked) that says to unlock
// it, never a prompt, because the daemon that calls it would wait on a dialog the user may not see. Reads
// search without unlocking; a write checks the lock first, and should the service prompt all the same (the
// keyring locked in between, a confirm-delete setting) the write is given up after 10 seconds.
// Every call is synchronous (a local D-Bus round trip); the service is connected on first use.
#pragma once

#include "sandbox/secrets/secretvault.h"

namespace Cordon::Secrets {

class SecretServiceVault final : public SecretVault
{
public:
    SecretServiceVault() = default;
    ~SecretServiceVault() override;
    SecretServiceVault(const SecretServiceVault &) = delete;
    SecretServiceVault &operator=(const SecretServiceVault &) = delete;

    // A service on the session bus with an unlocked default collection.
    bool usable() override;
    std::string kind() const override { return SecretServiceKind; }
    Result<std::string> read(const std::string &storeId, const std::string &name) override;
    Result<> write(const std::string &storeId, const std::string &name, std::string_view value) override;
    Result<> erase(const std::string &storeId, const std::string &name) override;

private:
    // The service, connected on first use (secrets.keyring_unavailable without one).
    Result<void *> service();
    // The default collection, looked up at each write (the user may lock it at any time):
    // secrets.keyring_unavailable when there is none, secrets.keyring_locked when it is locked.
    Result<> checkDefaultUnlocked();

    void *m_service = nullptr; // SecretService *, a reference we hold
};

} // namespace Cordon::Secrets
