// SPDX-License-Identifier: MIT
#include "secretservice/secretservicevault.h"

#include "secretservice/libsecretloader.h"

#include <cassert>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

namespace Cordon::Secrets {

namespace {

// The loaded library. Only called once service() has succeeded, which needs it loaded.
const LibSecret &api()
{
    assert(libSecret());
    return *libSecret();
}

const SecretSchema &schema()
{
    static const SecretSchema Schema = {"org.cordon.Secret",
                                        SECRET_SCHEMA_NONE,
                                        {{"store", SECRET_SCHEMA_ATTRIBUTE_STRING},
                                         {"name", SECRET_SCHEMA_ATTRIBUTE_STRING},
                                         {nullptr, SECRET_SCHEMA_ATTRIBUTE_STRING}},
                                        0,
                                        nullptr,
                                        nullptr,
                                        nullptr,
                                        nullptr,
                                        nullptr,
                                        nullptr,
                                        nullptr};
    return Schema;
}

struct GErrorFree
{
    void operator()(GError *error) const { api().errorFree(error); }
};
struct HashTableUnref
{
    void operator()(GHashTable *table) const { api().hashTableUnref(table); }
};
struct ObjectUnref
{
    void operator()(gpointer object) const { api().objectUnref(object); }
};
struct ValueUnref
{
    void operator()(SecretValue *value) const { api().valueUnref(value); }
};
struct ItemListFree
{
    void operator()(GList *items) const { api().listFreeFull(items, api().objectUnref); }
};

std::string messageOf(const GError *error)
{
    return error && error->message ? error->message : "no reason given";
}

Error unavailable(const std::string &why)
{
    return Error("secrets.keyring_unavailable",
                 "the desktop keyring (Secret Service) cannot be reached: " + why);
}

Error locked(const std::string &what)
{
    return Error("secrets.keyring_locked",
                 "the desktop keyring is locked, so " + what + " cannot be read or changed");
}

// Cancels `cancellable` after `timeout` unless destroyed first. A write checks that the collection is
// unlocked, but the service may still prompt: the keyring locked between the check and the write (libsecret
// then unlocks it, with a dialog), or a confirm-before-delete setting. The daemon gives such a prompt up
// instead of waiting on a dialog nobody may be looking at.
class CancelAfter
{
public:
    CancelAfter(GCancellable *cancellable, std::chrono::seconds timeout)
        : m_thread([this, cancellable, timeout] {
              std::unique_lock lock(m_mutex);
              if (!m_finished.wait_for(lock, timeout, [this] { return m_done; }))
                  api().cancellableCancel(cancellable);
          })
    {}
    ~CancelAfter()
    {
        {
            std::lock_guard lock(m_mutex);
            m_done = true;
        }
        m_finished.notify_one();
        m_thread.join();
    }
    CancelAfter(const CancelAfter &) = delete;
    CancelAfter &operator=(const CancelAfter &) = delete;

private:
    std::mutex m_mutex;
    std::condition_variable m_finished;
    bool m_done = false;
    std::thread m_thread; // last: it runs as soon as it is made
};

constexpr std::chrono::seconds PromptTimeout{10};

// The attributes that name one value. The strings must outlive the table.
std::unique_ptr<GHashTable, HashTableUnref> attributesFor(const std::string &storeId, const std::string &name)
{
    const LibSecret &lib = api();
    GHashTable *table = lib.hashTableNew(lib.strHash, lib.strEqual);
    lib.hashTableInsert(table, const_cast<char *>("store"), const_cast<char *>(storeId.c_str()));
    lib.hashTableInsert(table, const_cast<char *>("name"), const_cast<char *>(name.c_str()));
    return std::unique_ptr<GHashTable, HashTableUnref>(table);
}

} // namespace

SecretServiceVault::~SecretServiceVault()
{
    if (m_service)
        api().objectUnref(m_service);
}

Result<void *> SecretServiceVault::service()
{
    if (m_service)
        return m_service;
    if (const Result<LibSecret> &loaded = libSecret(); !loaded)
        return fail(loaded.error());
    GError *rawError = nullptr;
    // OPEN_SESSION: values travel encrypted between the service and us, not in the clear on the bus.
    SecretService *connected = api().serviceGetSync(SECRET_SERVICE_OPEN_SESSION, nullptr, &rawError);
    std::unique_ptr<GError, GErrorFree> error(rawError);
    if (!connected)
        return fail(unavailable(messageOf(error.get())));
    m_service = connected;
    return m_service;
}

Result<> SecretServiceVault::checkDefaultUnlocked()
{
    auto connected = service();
    if (!connected)
        return fail(connected.error());
    GError *rawError = nullptr;
    std::unique_ptr<SecretCollection, ObjectUnref> collection(
        api().collectionForAliasSync(static_cast<SecretService *>(*connected), SECRET_COLLECTION_DEFAULT,
                                     SECRET_COLLECTION_NONE, nullptr, &rawError));
    std::unique_ptr<GError, GErrorFree> error(rawError);
    if (error)
        return fail(unavailable(messageOf(error.get())));
    // Making one would ask the user for a password.
    if (!collection)
        return fail(unavailable("it has no default collection"));
    if (api().collectionGetLocked(collection.get()))
        return fail(locked("its default collection"));
    return {};
}

bool SecretServiceVault::usable()
{
    return bool(checkDefaultUnlocked());
}

Result<std::string> SecretServiceVault::read(const std::string &storeId, const std::string &name)
{
    auto connected = service();
    if (!connected)
        return fail(connected.error());
    const auto attributes = attributesFor(storeId, name);
    GError *rawError = nullptr;
    // Without SECRET_SEARCH_UNLOCK: a locked item comes back locked, with no value, and no prompt opens.
    std::unique_ptr<GList, ItemListFree> items(api().serviceSearchSync(
        static_cast<SecretService *>(*connected), &schema(), attributes.get(),
        static_cast<SecretSearchFlags>(SECRET_SEARCH_ALL | SECRET_SEARCH_LOAD_SECRETS), nullptr, &rawError));
    std::unique_ptr<GError, GErrorFree> error(rawError);
    if (error)
        return fail(unavailable(messageOf(error.get())));
    bool sawLocked = false;
    for (GList *node = items.get(); node; node = node->next) {
        auto *item = static_cast<SecretItem *>(node->data);
        if (api().itemGetLocked(item)) {
            sawLocked = true;
            continue;
        }
        std::unique_ptr<SecretValue, ValueUnref> value(api().itemGetSecret(item));
        if (!value)
            continue;
        gsize length = 0;
        const gchar *bytes = api().valueGet(value.get(), &length);
        return std::string(bytes, length);
    }
    if (sawLocked)
        return fail(locked("secret " + name));
    return fail("secrets.keyring_missing",
                "the desktop keyring holds no value for secret " + name +
                    " (removed outside Cordon?): set it again with `cordon secret set " + name + "`");
}

Result<> SecretServiceVault::write(const std::string &storeId, const std::string &name,
                                   std::string_view value)
{
    CORDON_TRY(checkDefaultUnlocked());
    const auto attributes = attributesFor(storeId, name);
    const std::string label = "Cordon secret " + name;
    std::unique_ptr<SecretValue, ValueUnref> secret(
        api().valueNew(value.data(), static_cast<gssize>(value.size()), "text/plain"));
    GError *rawError = nullptr;
    std::unique_ptr<GCancellable, ObjectUnref> cancellable(api().cancellableNew());
    gboolean stored = false;
    {
        const CancelAfter giveUp(cancellable.get(), PromptTimeout);
        stored = api().serviceStoreSync(static_cast<SecretService *>(m_service), &schema(), attributes.get(),
                                        SECRET_COLLECTION_DEFAULT, label.c_str(), secret.get(),
                                        cancellable.get(), &rawError);
    }
    std::unique_ptr<GError, GErrorFree> error(rawError);
    if (!stored)
        return fail("secrets.keyring_io",
                    "the desktop keyring did not store secret " + name + ": " + messageOf(error.get()));
    return {};
}

Result<> SecretServiceVault::erase(const std::string &storeId, const std::string &name)
{
    CORDON_TRY(checkDefaultUnlocked());
    const auto attributes = attributesFor(storeId, name);
    GError *rawError = nullptr;
    std::unique_ptr<GCancellable, ObjectUnref> cancellable(api().cancellableNew());
    {
        const CancelAfter giveUp(cancellable.get(), PromptTimeout);
        // False with no error when nothing matched.
        api().serviceClearSync(static_cast<SecretService *>(m_service), &schema(), attributes.get(),
                               cancellable.get(), &rawError);
    }
    std::unique_ptr<GError, GErrorFree> error(rawError);
    if (error)
        return fail("secrets.keyring_io",
                    "the desktop keyring did not remove secret " + name + ": " + messageOf(error.get()));
    return {};
}

} // namespace Cordon::Secrets
