// SPDX-License-Identifier: MIT
#include "sandbox/secrets/secretstore.h"

#include "sandbox/hex.h"

#include "sandbox/files/pendingfile.h"
#include "sandbox/json.h"
#include "sandbox/readall.h"
#include "sandbox/secrets/secretrules.h"
#include "sandbox/sha256.h"
#include "sandbox/uniquefd.h"
#include "sandbox/workspace.h"
#include "sandbox/writeall.h"

#include <nettle/hmac.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

namespace Cordon::Secrets {

namespace {

constexpr int Format = 1;
constexpr std::size_t KeyBytes = 32;
// Every secret and retired value at its largest, JSON-escaped at worst six bytes a byte, with room for names,
// times and the containers that hold a retired value.
constexpr std::size_t MaxHolderBytes = 64;
constexpr std::size_t MaxFileBytes =
    MaxStoredSecrets * (MaxValueBytes * 6 + 512) +
    MaxRetiredValues * (MaxValueBytes * 6 + 512 + MaxRetiredHolders * (MaxHolderBytes + 8)) +
    MaxPseudonymKeys * (PseudonymKeyBytes * 2 + 512) + 4096;
constexpr std::size_t MaxJsonEntries = std::max({MaxStoredSecrets, MaxRetiredValues, MaxRetiredHolders}) + 8;
constexpr char FileName[] = "secrets.json";
// A vault holds pseudonym keys under this prefix and the key's name: the colon keeps them apart from secrets.
constexpr char PseudonymVaultPrefix[] = "pseudonym-key:";
// The audit's signing key in a vault: a name no secret and no pseudonym key can have.
constexpr char SigningVaultName[] = "audit-signing-key";
// A vault holds retired values under this prefix, the secret's name and the value's fingerprint.
constexpr char RetiredVaultPrefix[] = "retired:";

// What the store records of its signing key: enough to tell that a vault's key is still the one it made,
// nothing that helps to guess it.
std::string signingKeyTag(const std::string &seed)
{
    return "seed-" + sha256Hex(seed).substr(0, 16);
}

Result<std::string> randomKey()
{
    std::string key(KeyBytes, '\0');
    std::size_t filled = 0;
    while (filled < key.size()) {
        const ssize_t got = ::getrandom(key.data() + filled, key.size() - filled, 0);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return failErrno("secrets.store_io", "getrandom", errno);
        filled += static_cast<std::size_t>(got);
    }
    return key;
}

Error corrupt(const std::string &path, std::string_view why)
{
    return Error("secrets.store_corrupt", "the secret store " + path + " is not one Cordon wrote (" +
                                              std::string(why) +
                                              "); move it aside and set the secrets again");
}

std::string directoryOf(const std::string &path)
{
    const std::size_t slash = path.rfind('/');
    return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

std::string baseName(const std::string &path)
{
    const std::size_t slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

} // namespace

std::string SecretStore::defaultPath()
{
    return Containers::dataDirectory() + "/" + FileName;
}

Result<SecretStore> SecretStore::open(std::string path, SecretVault *vault)
{
    SecretStore store;
    store.m_path = std::move(path);
    store.m_vault = vault;
    UniqueFd fd(::open(store.m_path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
    if (fd.get() < 0) {
        if (errno != ENOENT)
            return failErrno(errno == ELOOP ? "secrets.store_unsafe" : "secrets.store_io",
                             "open the secret store " + store.m_path, errno);
        auto key = randomKey();
        if (!key)
            return fail(key.error());
        store.m_key = std::move(*key);
        if (vault && vault->usable())
            store.m_valuesIn = vault->kind();
        return store;
    }
    struct stat status
    {
    };
    if (::fstat(fd.get(), &status) != 0)
        return failErrno("secrets.store_io", "stat the secret store " + store.m_path, errno);
    if (!S_ISREG(status.st_mode))
        return fail("secrets.store_unsafe", "the secret store " + store.m_path + " is not a regular file");
    if (status.st_uid != ::geteuid())
        return fail("secrets.store_unsafe", "the secret store " + store.m_path + " belongs to another user");
    if ((status.st_mode & 077) != 0)
        return fail("secrets.store_unsafe", "the secret store " + store.m_path +
                                                " may be read or written by others: chmod 600 it, and "
                                                "consider its values exposed");
    store.m_identity = identityOf(status);
    auto text =
        readToEnd(fd.get(), MaxFileBytes, "the secret store", "secrets.store_io", "secrets.store_corrupt");
    if (!text)
        return fail(text.error());
    auto document = Json::read(*text, JsonLimits{MaxFileBytes, 8, MaxJsonEntries});
    if (!document)
        return fail(corrupt(store.m_path, document.error().message()));
    if ((*document)["format"].toInteger(0) != Format)
        return fail(corrupt(store.m_path, "unknown format"));
    if (!fromHex((*document)["fingerprint_key"].toString(), store.m_key) || store.m_key.size() != KeyBytes)
        return fail(corrupt(store.m_path, "bad fingerprint_key"));
    // A store from before values could be kept elsewhere has no "values_in": its values are in it.
    const Json &valuesIn = (*document)["values_in"];
    store.m_valuesIn = valuesIn.isUndefined() ? std::string(FileValues) : valuesIn.toString();
    if (store.m_valuesIn.empty())
        return fail(corrupt(store.m_path, "bad values_in"));
    const Json &secrets = (*document)["secrets"];
    if (!secrets.isObject() || secrets.members().size() > MaxStoredSecrets)
        return fail(corrupt(store.m_path, "bad secrets"));
    for (const auto &[name, entry] : secrets.members()) {
        if (!isSecretName(name))
            return fail(corrupt(store.m_path, "bad secret name"));
        Entry read{{}, entry["set_at_ms"].toInteger(0), {}};
        if (store.valuesInFile()) {
            const Json &value = entry["value"];
            if (!value.isString() || !checkSecretValue(name, value.toString()))
                return fail(corrupt(store.m_path, "bad secret " + name));
            read.value = value.toString();
            read.fingerprint = store.fingerprint(read.value);
        } else {
            read.fingerprint = entry["fingerprint"].toString();
            if (read.fingerprint.rfind("hmac-sha256:", 0) != 0)
                return fail(corrupt(store.m_path, "bad fingerprint of " + name));
        }
        store.m_entries[name] = std::move(read);
    }
    CORDON_TRY(store.readRetired((*document)["retired"]));
    // A store from before pseudonym keys has none.
    const Json &keys = (*document)["pseudonym_keys"];
    if (!keys.isUndefined() && (!keys.isObject() || keys.members().size() > MaxPseudonymKeys))
        return fail(corrupt(store.m_path, "bad pseudonym_keys"));
    if (keys.isObject()) {
        for (const auto &[name, entry] : keys.members()) {
            if (!isSecretName(name))
                return fail(corrupt(store.m_path, "bad pseudonym key name"));
            KeyEntry read{{}, entry["id"].toString(), entry["created_at_ms"].toInteger(0)};
            if (store.valuesInFile() &&
                (!fromHex(entry["key"].toString(), read.bytes) || read.bytes.size() != PseudonymKeyBytes ||
                 pseudonymKeyId(read.bytes) != read.id))
                return fail(corrupt(store.m_path, "bad pseudonym key " + name));
            if (read.id.rfind("pk-", 0) != 0)
                return fail(corrupt(store.m_path, "bad id of pseudonym key " + name));
            store.m_keys[name] = std::move(read);
        }
    }
    // A store from before audit signing keys has none.
    const Json &signing = (*document)["audit_signing_key"];
    if (!signing.isUndefined()) {
        KeyEntry read{{}, signing["id"].toString(), signing["created_at_ms"].toInteger(0)};
        if (!signing.isObject() || read.id.rfind("seed-", 0) != 0 ||
            (store.valuesInFile() && (!fromHex(signing["key"].toString(), read.bytes) ||
                                      read.bytes.size() != KeyBytes || signingKeyTag(read.bytes) != read.id)))
            return fail(corrupt(store.m_path, "bad audit_signing_key"));
        store.m_signingKey = std::move(read);
    }
    return store;
}

Result<> SecretStore::set(const std::string &name, std::string_view value, std::int64_t nowMs,
                          const std::vector<std::string> &holders)
{
    CORDON_TRY(checkSecretName(name));
    CORDON_TRY(checkSecretValue(name, value));
    if (!contains(name) && m_entries.size() >= MaxStoredSecrets)
        return fail("secrets.store_full", "the secret store holds " + std::to_string(MaxStoredSecrets) +
                                              " secrets, its limit: remove one first");
    std::vector<RetiredEntry> retired = m_retired;
    CORDON_TRY(retire(name, value, holders, nowMs, retired));
    std::map<std::string, Entry> next = m_entries;
    if (valuesInFile()) {
        next[name] = Entry{std::string(value), nowMs, fingerprint(value)};
    } else {
        // The value first: should the file then fail to be written, value() finds the new value under the
        // old fingerprint and refuses it (secrets.keyring_changed) rather than give a run the wrong one.
        auto held = vault();
        if (!held)
            return fail(held.error());
        CORDON_TRY((*held)->write(vaultId(), name, value));
        next[name] = Entry{{}, nowMs, fingerprint(value)};
    }
    CORDON_TRY(save(next, m_keys, m_signingKey, retired));
    m_entries = std::move(next);
    m_retired = std::move(retired);
    return {};
}

Result<> SecretStore::remove(const std::string &name, const std::vector<std::string> &holders)
{
    if (!contains(name))
        return fail(value(name).error());
    std::vector<RetiredEntry> retired = m_retired;
    const auto now = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::system_clock::now().time_since_epoch());
    CORDON_TRY(retire(name, {}, holders, now.count(), retired));
    if (!valuesInFile()) {
        auto held = vault();
        if (!held)
            return fail(held.error());
        CORDON_TRY((*held)->erase(vaultId(), name));
    }
    std::map<std::string, Entry> next = m_entries;
    next.erase(name);
    CORDON_TRY(save(next, m_keys, m_signingKey, retired));
    m_entries = std::move(next);
    m_retired = std::move(retired);
    return {};
}

std::string SecretStore::retiredVaultName(const RetiredEntry &entry)
{
    return RetiredVaultPrefix + entry.name + ':' + entry.fingerprint.substr(entry.fingerprint.find(':') + 1);
}

Result<> SecretStore::retire(const std::string &name, std::string_view next,
                             const std::vector<std::string> &holders, std::int64_t nowMs,
                             std::vector<RetiredEntry> &retired)
{
    const auto current = m_entries.find(name);
    if (holders.empty() || current == m_entries.end())
        return {};
    if (!next.empty() && fingerprint(next) == current->second.fingerprint)
        return {}; // the same value again: nothing was replaced
    std::vector<std::string> named = holders;
    std::sort(named.begin(), named.end());
    named.erase(std::unique(named.begin(), named.end()), named.end());
    const auto same = std::find_if(retired.begin(), retired.end(), [&](const RetiredEntry &entry) {
        return entry.name == name && entry.fingerprint == current->second.fingerprint;
    });
    if (same != retired.end()) {
        std::vector<std::string> merged;
        std::set_union(same->holders.begin(), same->holders.end(), named.begin(), named.end(),
                       std::back_inserter(merged));
        named = std::move(merged);
    } else if (retired.size() >= MaxRetiredValues) {
        return fail(
            "secrets.store_full",
            "the secret store keeps " + std::to_string(MaxRetiredValues) +
                " previous values for the containers that received them, its limit: remove containers "
                "that no longer need them, then set " +
                name + " again");
    }
    if (named.size() > MaxRetiredHolders ||
        std::any_of(named.begin(), named.end(), [](const std::string &holder) {
            return holder.empty() || holder.size() > MaxHolderBytes;
        }))
        return fail("secrets.store_full", "too many containers received the value of " + name +
                                              " to keep it for them: remove some first");
    if (same != retired.end()) {
        same->holders = std::move(named);
        return {};
    }
    RetiredEntry entry{name, current->second.value, current->second.fingerprint, nowMs, std::move(named)};
    if (!valuesInFile()) {
        auto old = value(name);
        // A value the keyring no longer holds as Cordon set it was never given to a run (value() refuses
        // it): there is nothing to keep.
        if (!old && (old.error().code() == "secrets.keyring_changed" ||
                     old.error().code() == "secrets.keyring_missing"))
            return {};
        if (!old)
            return fail(old.error());
        auto held = vault();
        if (!held)
            return fail(held.error());
        CORDON_TRY((*held)->write(vaultId(), retiredVaultName(entry), *old));
    }
    retired.push_back(std::move(entry));
    return {};
}

Result<> SecretStore::readRetired(const Json &retired)
{
    // A store from before retired values keeps none.
    if (retired.isUndefined())
        return {};
    if (!retired.isArray() || retired.items().size() > MaxRetiredValues)
        return fail(corrupt(m_path, "bad retired"));
    for (const Json &item : retired.items()) {
        RetiredEntry read{item["name"].toString(), {}, {}, item["retired_at_ms"].toInteger(0), {}};
        if (!isSecretName(read.name))
            return fail(corrupt(m_path, "bad retired secret name"));
        if (valuesInFile()) {
            const Json &value = item["value"];
            if (!value.isString() || !checkSecretValue(read.name, value.toString()))
                return fail(corrupt(m_path, "bad retired value of " + read.name));
            read.value = value.toString();
            read.fingerprint = fingerprint(read.value);
        } else {
            read.fingerprint = item["fingerprint"].toString();
            if (read.fingerprint.rfind("hmac-sha256:", 0) != 0)
                return fail(corrupt(m_path, "bad fingerprint of a retired value of " + read.name));
        }
        const Json &holders = item["holders"];
        if (!holders.isArray() || holders.items().empty() || holders.items().size() > MaxRetiredHolders)
            return fail(corrupt(m_path, "bad holders of a retired value of " + read.name));
        for (const Json &holder : holders.items()) {
            if (!holder.isString() || holder.toString().empty() || holder.toString().size() > MaxHolderBytes)
                return fail(corrupt(m_path, "bad holder of a retired value of " + read.name));
            read.holders.push_back(holder.toString());
        }
        std::sort(read.holders.begin(), read.holders.end());
        read.holders.erase(std::unique(read.holders.begin(), read.holders.end()), read.holders.end());
        m_retired.push_back(std::move(read));
    }
    return {};
}

Result<std::vector<RetiredValue>> SecretStore::retiredValuesOf(const std::string &holder) const
{
    std::vector<RetiredValue> values;
    for (const RetiredEntry &entry : m_retired) {
        if (!std::binary_search(entry.holders.begin(), entry.holders.end(), holder))
            continue;
        if (valuesInFile()) {
            values.push_back({entry.name, entry.value});
            continue;
        }
        auto held = vault();
        if (!held)
            return fail(held.error());
        auto read = (*held)->read(vaultId(), retiredVaultName(entry));
        if (!read)
            return fail(read.error());
        if (fingerprint(*read) != entry.fingerprint)
            return fail("secrets.keyring_changed", "the keyring's previous value of secret " + entry.name +
                                                       " is not the one Cordon kept (it was changed outside "
                                                       "Cordon)");
        values.push_back({entry.name, std::move(*read)});
    }
    return values;
}

Result<> SecretStore::keepRetiredFor(const std::vector<std::string> &live)
{
    std::vector<std::string> sortedLive = live;
    std::sort(sortedLive.begin(), sortedLive.end());
    std::vector<RetiredEntry> kept;
    std::vector<RetiredEntry> dropped;
    bool changed = false;
    for (RetiredEntry entry : m_retired) {
        const std::size_t before = entry.holders.size();
        std::erase_if(entry.holders, [&](const std::string &holder) {
            return !std::binary_search(sortedLive.begin(), sortedLive.end(), holder);
        });
        changed |= entry.holders.size() != before;
        (entry.holders.empty() ? dropped : kept).push_back(std::move(entry));
    }
    if (!changed)
        return {};
    CORDON_TRY(save(m_entries, m_keys, m_signingKey, kept));
    m_retired = std::move(kept);
    // After the file no longer names them: a crash in between leaves a value in the keyring that nothing
    // reads, never a retired entry without its value.
    if (!valuesInFile() && !dropped.empty()) {
        auto held = vault();
        if (!held)
            return fail(held.error());
        for (const RetiredEntry &entry : dropped)
            CORDON_TRY((*held)->erase(vaultId(), retiredVaultName(entry)));
    }
    return {};
}

Result<std::string> SecretStore::value(const std::string &name) const
{
    const auto found = m_entries.find(name);
    if (found == m_entries.end()) {
        CORDON_TRY(checkSecretName(name));
        return fail("secrets.not_found", "no secret named " + name +
                                             " in the store: set it with `cordon secret set " + name + "`");
    }
    if (valuesInFile())
        return found->second.value;
    auto held = vault();
    if (!held)
        return fail(held.error());
    auto read = (*held)->read(vaultId(), name);
    if (read && fingerprint(*read) != found->second.fingerprint)
        return fail("secrets.keyring_changed",
                    "the keyring's value of secret " + name +
                        " is not the one Cordon stored (it was changed outside Cordon): set it again with "
                        "`cordon secret set " +
                        name + "`");
    return read;
}

Result<SecretVault *> SecretStore::vault() const
{
    if (!m_vault || m_vault->kind() != m_valuesIn)
        return fail("secrets.keyring_unavailable", "the values of the secret store " + m_path +
                                                       " are kept in the " + m_valuesIn +
                                                       " vault, which this program cannot read");
    return m_vault;
}

std::string SecretStore::vaultId() const
{
    return fingerprint("cordon-vault-id").substr(12, 16);
}

std::vector<StoredSecret> SecretStore::list() const
{
    std::vector<StoredSecret> out;
    for (const auto &[name, entry] : m_entries)
        out.push_back(StoredSecret{name, entry.setAtMs, entry.fingerprint});
    return out;
}

std::string SecretStore::fingerprint(std::string_view value) const
{
    hmac_sha256_ctx context;
    hmac_sha256_set_key(&context, m_key.size(), reinterpret_cast<const std::uint8_t *>(m_key.data()));
    hmac_sha256_update(&context, value.size(), reinterpret_cast<const std::uint8_t *>(value.data()));
    std::uint8_t digest[SHA256_DIGEST_SIZE];
    hmac_sha256_digest(&context, sizeof digest, digest);
    return "hmac-sha256:" + toHex({reinterpret_cast<const char *>(digest), 16});
}

Result<PseudonymKey> SecretStore::pseudonymKey(const std::string &name, std::int64_t nowMs)
{
    CORDON_TRY(checkSecretName(name));
    const std::string vaultName = std::string(PseudonymVaultPrefix) + name;
    if (const auto found = m_keys.find(name); found != m_keys.end()) {
        if (valuesInFile())
            return PseudonymKey{name, found->second.id, found->second.bytes};
        auto held = vault();
        if (!held)
            return fail(held.error());
        auto read = (*held)->read(vaultId(), vaultName);
        if (!read && read.error().code() == "secrets.keyring_missing")
            return fail(
                "secrets.keyring_missing",
                "the keyring no longer holds pseudonym key " + name +
                    " (removed outside Cordon): pseudonyms made with it cannot be made again; `cordon secret "
                    "rm --pseudonym-key " +
                    name + "` forgets it, and the next upload makes a new one");
        if (!read)
            return fail(read.error());
        std::string bytes;
        if (!fromHex(*read, bytes) || pseudonymKeyId(bytes) != found->second.id)
            return fail("secrets.keyring_changed",
                        "the keyring's pseudonym key " + name +
                            " is not the one Cordon made (it was changed outside "
                            "Cordon): pseudonyms made with it cannot be made again");
        return PseudonymKey{name, found->second.id, std::move(bytes)};
    }
    if (m_keys.size() >= MaxPseudonymKeys)
        return fail("secrets.store_full", "the secret store holds " + std::to_string(MaxPseudonymKeys) +
                                              " pseudonym keys, its limit");
    auto bytes = randomKey();
    if (!bytes)
        return fail(bytes.error());
    const std::string id = pseudonymKeyId(*bytes);
    std::map<std::string, KeyEntry> next = m_keys;
    if (valuesInFile()) {
        next[name] = KeyEntry{*bytes, id, nowMs};
    } else {
        auto held = vault();
        if (!held)
            return fail(held.error());
        // A key the keyring holds and this file does not know (a store file restored from a backup) is never
        // replaced unasked: pseudonyms made with it could not be made again.
        if (auto existing = (*held)->read(vaultId(), vaultName); existing)
            return fail("secrets.keyring_changed", "the keyring holds a pseudonym key " + name +
                                                       " this store did not record: `cordon secret rm "
                                                       "--pseudonym-key " +
                                                       name + "` removes it, if it is to be replaced");
        else if (existing.error().code() != "secrets.keyring_missing")
            return fail(existing.error());
        CORDON_TRY((*held)->write(vaultId(), vaultName, toHex(*bytes)));
        next[name] = KeyEntry{{}, id, nowMs};
    }
    CORDON_TRY(save(m_entries, next, m_signingKey, m_retired));
    m_keys = std::move(next);
    return PseudonymKey{name, id, std::move(*bytes)};
}

Result<std::string> SecretStore::auditSigningSeed(std::int64_t nowMs)
{
    if (m_signingKey) {
        if (valuesInFile())
            return m_signingKey->bytes;
        auto held = vault();
        if (!held)
            return fail(held.error());
        auto read = (*held)->read(vaultId(), SigningVaultName);
        if (!read)
            return fail(read.error());
        std::string bytes;
        if (!fromHex(*read, bytes) || signingKeyTag(bytes) != m_signingKey->id)
            return fail("secrets.keyring_changed",
                        "the keyring's audit signing key is not the one Cordon made "
                        "(it was changed outside Cordon)");
        return bytes;
    }
    auto bytes = randomKey();
    if (!bytes)
        return fail(bytes.error());
    KeyEntry made{{}, signingKeyTag(*bytes), nowMs};
    if (valuesInFile()) {
        made.bytes = *bytes;
    } else {
        auto held = vault();
        if (!held)
            return fail(held.error());
        // A key the keyring holds that this file does not record (a store file restored from a backup) is the
        // user's signing identity: never replaced unasked.
        if (auto existing = (*held)->read(vaultId(), SigningVaultName); existing)
            return fail("secrets.keyring_changed",
                        "the keyring holds an audit signing key this store did not record");
        else if (existing.error().code() != "secrets.keyring_missing")
            return fail(existing.error());
        CORDON_TRY((*held)->write(vaultId(), SigningVaultName, toHex(*bytes)));
    }
    CORDON_TRY(save(m_entries, m_keys, made, m_retired));
    m_signingKey = std::move(made);
    return std::move(*bytes);
}

Result<> SecretStore::removePseudonymKey(const std::string &name)
{
    CORDON_TRY(checkSecretName(name));
    const bool known = m_keys.count(name) != 0;
    if (!valuesInFile()) {
        auto held = vault();
        if (!held)
            return fail(held.error());
        const std::string vaultName = std::string(PseudonymVaultPrefix) + name;
        auto existing = (*held)->read(vaultId(), vaultName);
        if (!known && !existing && existing.error().code() == "secrets.keyring_missing")
            return fail("secrets.not_found", "no pseudonym key named " + name);
        CORDON_TRY((*held)->erase(vaultId(), vaultName));
    } else if (!known) {
        return fail("secrets.not_found", "no pseudonym key named " + name);
    }
    if (!known)
        return {};
    std::map<std::string, KeyEntry> next = m_keys;
    next.erase(name);
    CORDON_TRY(save(m_entries, next, m_signingKey, m_retired));
    m_keys = std::move(next);
    return {};
}

std::vector<StoredPseudonymKey> SecretStore::pseudonymKeys() const
{
    std::vector<StoredPseudonymKey> out;
    for (const auto &[name, entry] : m_keys)
        out.push_back(StoredPseudonymKey{name, entry.id, entry.createdAtMs});
    return out;
}

Result<> SecretStore::save(const std::map<std::string, Entry> &entries,
                           const std::map<std::string, KeyEntry> &keys,
                           const std::optional<KeyEntry> &signingKey,
                           const std::vector<RetiredEntry> &retired)
{
    Json secrets = Json::object();
    for (const auto &[name, entry] : entries) {
        secrets.insert(
            name, valuesInFile()
                      ? Json::object({{"value", entry.value}, {"set_at_ms", entry.setAtMs}})
                      : Json::object({{"fingerprint", entry.fingerprint}, {"set_at_ms", entry.setAtMs}}));
    }
    Json pseudonymKeys = Json::object();
    for (const auto &[name, entry] : keys) {
        Json stored = Json::object({{"id", entry.id}, {"created_at_ms", entry.createdAtMs}});
        if (valuesInFile())
            stored.insert("key", toHex(entry.bytes));
        pseudonymKeys.insert(name, std::move(stored));
    }
    Json::Array retiredValues;
    for (const RetiredEntry &entry : retired) {
        Json::Array holders;
        for (const std::string &holder : entry.holders)
            holders.emplace_back(holder);
        Json stored = Json::object({{"name", entry.name},
                                    {"retired_at_ms", entry.retiredAtMs},
                                    {"holders", Json(std::move(holders))}});
        stored.insert(valuesInFile() ? "value" : "fingerprint",
                      valuesInFile() ? entry.value : entry.fingerprint);
        retiredValues.push_back(std::move(stored));
    }
    Json document = Json::object({{"format", Format},
                                  {"fingerprint_key", toHex(m_key)},
                                  {"values_in", m_valuesIn},
                                  {"secrets", std::move(secrets)},
                                  {"retired", Json(std::move(retiredValues))},
                                  {"pseudonym_keys", std::move(pseudonymKeys)}});
    if (signingKey) {
        Json stored = Json::object({{"id", signingKey->id}, {"created_at_ms", signingKey->createdAtMs}});
        if (valuesInFile())
            stored.insert("key", toHex(signingKey->bytes));
        document.insert("audit_signing_key", std::move(stored));
    }
    const std::string directory = directoryOf(m_path);
    if (::mkdir(directory.c_str(), 0700) != 0 && errno != EEXIST)
        return failErrno("secrets.store_io", "create " + directory, errno);
    UniqueFd dirFd(::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (dirFd.get() < 0)
        return failErrno("secrets.store_io", "open " + directory, errno);
    auto pending = Files::PendingFile::create(dirFd.get(), directory);
    if (!pending)
        return fail(Error("secrets.store_io", pending.error().message(), pending.error().sysErrno()));
    // 0600 before the first byte is written: the file is nameless (O_TMPFILE) or has a random name until
    // then.
    if (::fchmod(pending->fd(), 0600) != 0)
        return failErrno("secrets.store_io", "chmod the new secret store", errno);
    int written = writeFully(pending->fd(), document.serializeIndented() + "\n");
    if (written == 0 && ::fsync(pending->fd()) != 0)
        written = errno;
    if (written != 0)
        return failErrno("secrets.store_io", "write the secret store " + m_path, written);
    auto committed = pending->commit(baseName(m_path), m_path, Files::ExistingName::Replace);
    if (!committed)
        return fail(Error("secrets.store_io", committed.error().message(), committed.error().sysErrno()));
    ::fsync(dirFd.get());
    m_identity = currentIdentity();
    return {};
}

SecretStore::FileIdentity SecretStore::identityOf(const struct stat &status)
{
    const auto nanoseconds = [](const timespec &time) {
        return std::int64_t(time.tv_sec) * 1000000000 + time.tv_nsec;
    };
    return FileIdentity{status.st_dev,
                        status.st_ino,
                        status.st_size,
                        nanoseconds(status.st_mtim),
                        nanoseconds(status.st_ctim),
                        status.st_mode,
                        status.st_uid};
}

SecretStore::FileIdentity SecretStore::currentIdentity() const
{
    struct stat status
    {
    };
    if (::lstat(m_path.c_str(), &status) != 0)
        return {};
    return identityOf(status);
}

bool SecretStore::changedOnDisk() const
{
    return currentIdentity() != m_identity;
}

} // namespace Cordon::Secrets
