// SPDX-License-Identifier: MIT
// The secrets the host holds for its containers (docs/secrets.md): names with values, in one file of the
// data folder that only its owner can read (mode 0600, in the 0700 data folder), never in the history
// database; or, when the store was made while a desktop keyring was open, names in that file and values in
// the keyring (a SecretVault). The daemon is its only writer; the `cordon` launcher reads it for one-shot
// runs. Plain C++.
//
// The file is JSON: {"format": 1, "fingerprint_key": <64 hex>, "values_in": "file" | <vault kind>,
// "secrets": {NAME: {"value", "set_at_ms"}}, "retired": [{"name", "value", "retired_at_ms", "holders":
// [ID]}], "pseudonym_keys": {NAME: {"key": <64 hex>, "id", "created_at_ms"}}, "audit_signing_key": {"key":
// <64 hex>, "id", "created_at_ms"}}, with {"fingerprint", "set_at_ms"} (and a retired value's "fingerprint")
// in place of the value, and no "key", when a vault holds them. It is replaced whole at each change (a new
// file, fsync'd, renamed over the old one), so a crash leaves the old store or the new one, never half of
// one.
#pragma once

#include "sandbox/error.h"
#include "sandbox/secrets/pseudonymkey.h"
#include "sandbox/secrets/secretvault.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <sys/stat.h>
#include <vector>

namespace Cordon {
class Json;
}

namespace Cordon::Secrets {

// More would be a store used as a database; each value is at most MaxValueBytes.
constexpr std::size_t MaxStoredSecrets = 256;

// More pseudonym keys would be one per file rather than per user or project.
constexpr std::size_t MaxPseudonymKeys = 64;

// Previous values kept at most (retiredValuesOf()), and containers that one of them names: each secret set
// again or removed while containers that received it live keeps one until the last of them is gone.
constexpr std::size_t MaxRetiredValues = 256;
constexpr std::size_t MaxRetiredHolders = 256;

// A value a secret had before it was set again or removed.
struct RetiredValue
{
    std::string name;
    std::string value;
};

struct StoredPseudonymKey
{
    std::string name;
    std::string id; // pseudonymKeyId() of the key
    std::int64_t createdAtMs = 0;
};

struct StoredSecret
{
    std::string name;
    std::int64_t setAtMs = 0; // when the value was last set, ms since the epoch
    std::string fingerprint;  // fingerprint() of the value
};

class SecretStore final
{
public:
    // <dataDirectory()>/secrets.json.
    static std::string defaultPath();

    // Reads the store at `path`; a missing file is an empty store (created at the first set()), which keeps
    // its values in `vault` when one is given and usable() now, else in its own file. A store keeps them
    // where it was made to: a store of the keyring opened without a vault lists its secrets, and value()
    // refuses. secrets.store_unsafe when it is not a regular file of ours, or others may read or write it
    // (group or other mode bits, as ssh refuses a private key); secrets.store_corrupt when it is not a store
    // this code wrote; secrets.store_io for read errors.
    static Result<SecretStore> open(std::string path, SecretVault *vault = nullptr);

    // Checks name and value (secretrules.h), then writes the whole store. secrets.store_full past
    // MaxStoredSecrets, secrets.store_io when the file cannot be written (the store in memory is unchanged).
    // `holders`: the containers that received the value it replaces, which may have saved it in their files
    // and print it later; that value is kept (retired) for them until keepRetiredFor() drops the last of
    // them, so that what Cordon keeps of them is masked also after a daemon restart. secrets.store_full past
    // MaxRetiredValues.
    Result<> set(const std::string &name, std::string_view value, std::int64_t nowMs,
                 const std::vector<std::string> &holders = {});
    // secrets.not_found for a name the store does not hold. `holders` as for set().
    Result<> remove(const std::string &name, const std::vector<std::string> &holders = {});

    // The previous values of secrets that `holder` received, where the values are; the vault's errors.
    Result<std::vector<RetiredValue>> retiredValuesOf(const std::string &holder) const;
    // Forgets the containers not in `live`, and each previous value none of `live` holds (a container
    // removed or expired no longer has it). Writes the store only when something was dropped.
    Result<> keepRetiredFor(const std::vector<std::string> &live);

    bool contains(const std::string &name) const { return m_entries.count(name) != 0; }
    // secrets.not_found, with the command that sets it; the vault's errors, and secrets.keyring_changed when
    // the vault's value is not the one this store set (changed outside Cordon).
    Result<std::string> value(const std::string &name) const;
    // Names in order, with when each was set and its fingerprint; never values.
    std::vector<StoredSecret> list() const;

    // The pseudonym key of that name (secret-name syntax), made from the system's random source at its first
    // use and kept where the values are: in this file, or in the vault under "pseudonym-key:NAME", a name no
    // secret can have. Policies name secrets only, so a key never reaches a run. secrets.bad_name,
    // secrets.store_full past MaxPseudonymKeys, the vault's errors, secrets.keyring_changed when the vault's
    // key is not the one this store made.
    Result<PseudonymKey> pseudonymKey(const std::string &name, std::int64_t nowMs);
    // Names in order, with ids and when each was made; never the keys.
    std::vector<StoredPseudonymKey> pseudonymKeys() const;
    // Forgets the key of that name (in the vault too, also one this store never made): pseudonyms made with
    // it can never be made again, and the next use makes a new key. secrets.not_found when neither holds it.
    Result<> removePseudonymKey(const std::string &name);

    // The Go/No-Go audit's signing key of this user (docs/audit.md): a 32-byte Ed25519 seed made from the
    // system's random source at its first use and kept where the values are (in this file, or in the vault
    // under "audit-signing-key", a name no secret can have). Never listed with the secrets, never given to a
    // run. Errors as pseudonymKey()'s.
    Result<std::string> auditSigningSeed(std::int64_t nowMs);
    // When it was made; 0 while there is none.
    std::int64_t auditSigningKeyCreatedAt() const { return m_signingKey ? m_signingKey->createdAtMs : 0; }

    // "hmac-sha256:" and the first 32 hex digits of HMAC-SHA256(store key, value). Runs record it: the same
    // value gives the same fingerprint in one store, so a reviewer can tell which value a run had without
    // the value, and without the key nobody can test guesses against it.
    std::string fingerprint(std::string_view value) const;

    const std::string &path() const { return m_path; }
    // "file", or the kind() of the vault that holds the values.
    const std::string &valuesIn() const { return m_valuesIn; }
    bool valuesInFile() const { return m_valuesIn == FileValues; }
    // What names this store in its vault: derived from its key, so two stores (two data folders) never
    // share a value, and nothing of the key is given away.
    std::string vaultId() const;

    static constexpr char FileValues[] = "file";

    // The file is no longer the one this store read or wrote (replaced, removed, its mode changed): a holder
    // that keeps the store open (the daemon) opens it again, so that the user's change, and a refusal of a
    // file others may now read, take effect.
    bool changedOnDisk() const;

private:
    // What identifies the file as read or written; all zero when there was none.
    struct FileIdentity
    {
        std::uint64_t device = 0;
        std::uint64_t inode = 0;
        std::int64_t size = 0;
        std::int64_t modifiedNs = 0;
        std::int64_t changedNs = 0; // ctime: a chmod, a chown, a rewrite in place
        std::uint32_t mode = 0;
        std::uint32_t owner = 0;

        bool operator==(const FileIdentity &other) const = default;
    };
    FileIdentity currentIdentity() const;
    static FileIdentity identityOf(const struct stat &status);

    struct Entry
    {
        std::string value; // empty when a vault holds it
        std::int64_t setAtMs = 0;
        std::string fingerprint;
    };

    struct KeyEntry
    {
        std::string bytes; // empty when a vault holds it
        std::string id;
        std::int64_t createdAtMs = 0;
    };

    // A previous value; in a vault under "retired:NAME:<fingerprint>", a name no secret can have.
    struct RetiredEntry
    {
        std::string name;
        std::string value; // empty when a vault holds it
        std::string fingerprint;
        std::int64_t retiredAtMs = 0;
        std::vector<std::string> holders; // sorted, unique
    };
    static std::string retiredVaultName(const RetiredEntry &entry);
    // Adds the current value of `name` to `retired` for `holders` (nothing when it has none, or the new value
    // is the same); in a vault, the value is copied under its retired name first.
    Result<> retire(const std::string &name, std::string_view next, const std::vector<std::string> &holders,
                    std::int64_t nowMs, std::vector<RetiredEntry> &retired);
    Result<> readRetired(const Json &retired);

    Result<> save(const std::map<std::string, Entry> &entries, const std::map<std::string, KeyEntry> &keys,
                  const std::optional<KeyEntry> &signingKey, const std::vector<RetiredEntry> &retired);
    // The vault of a store whose values are not in its file: secrets.keyring_unavailable when this program
    // has none of its kind.
    Result<SecretVault *> vault() const;

    std::string m_path;
    std::string m_key; // 32 random bytes, made with the store
    std::map<std::string, Entry> m_entries;
    std::map<std::string, KeyEntry> m_keys;
    std::optional<KeyEntry> m_signingKey;
    std::vector<RetiredEntry> m_retired;
    FileIdentity m_identity;
    std::string m_valuesIn = FileValues;
    SecretVault *m_vault = nullptr; // not owned; null in the launcher
};

} // namespace Cordon::Secrets
