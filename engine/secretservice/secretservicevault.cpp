// SPDX-License-Identifier: MIT
#include "secretservice/secretservicevault.h"

#include <libsecret/secret.h>

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

namespace Cordon::Secrets {

namespace {

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
    void operator()(GError *error) const { g_error_free(error); }
};
struct HashTableUnref
{
    void operator()(GHashTable *table) const { g_hash_table_unref(table); }
};
struct ObjectUnref
{
    void operator()(gpointer object) const { g_object_unref(object); }
};
struct ValueUnref
{
    void operator()(SecretValue *value) const { secret_value_unref(value); }
};
struct ItemListFree
{
    void operator()(GList *items) const { g_list_free_full(items, g_object_unref); }
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
                  g_cancellable_cancel(cancellable);
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
    GHashTable *table = g_hash_table_new(g_str_hash, g_str_equal);
    g_hash_table_insert(table, const_cast<char *>("store"), const_cast<char *>(storeId.c_str()));
    g_hash_table_insert(table, const_cast<char *>("name"), const_cast<char *>(name.c_str()));
    return std::unique_ptr<GHashTable, HashTableUnref>(table);
}

} // namespace

SecretServiceVault::~SecretServiceVault()
{
    if (m_service)
        g_object_unref(m_service);
}

Result<void *> SecretServiceVault::service()
{
    if (m_service)
        return m_service;
    GError *rawError = nullptr;
    // OPEN_SESSION: values travel encrypted between the service and us, not in the clear on the bus.
    SecretService *connected = secret_service_get_sync(SECRET_SERVICE_OPEN_SESSION, nullptr, &rawError);
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
        secret_collection_for_alias_sync(static_cast<SecretService *>(*connected), SECRET_COLLECTION_DEFAULT,
                                         SECRET_COLLECTION_NONE, nullptr, &rawError));
    std::unique_ptr<GError, GErrorFree> error(rawError);
    if (error)
        return fail(unavailable(messageOf(error.get())));
    // Making one would ask the user for a password.
    if (!collection)
        return fail(unavailable("it has no default collection"));
    if (secret_collection_get_locked(collection.get()))
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
    std::unique_ptr<GList, ItemListFree> items(secret_service_search_sync(
        static_cast<SecretService *>(*connected), &schema(), attributes.get(),
        static_cast<SecretSearchFlags>(SECRET_SEARCH_ALL | SECRET_SEARCH_LOAD_SECRETS), nullptr, &rawError));
    std::unique_ptr<GError, GErrorFree> error(rawError);
    if (error)
        return fail(unavailable(messageOf(error.get())));
    bool sawLocked = false;
    for (GList *node = items.get(); node; node = node->next) {
        auto *item = static_cast<SecretItem *>(node->data);
        if (secret_item_get_locked(item)) {
            sawLocked = true;
            continue;
        }
        std::unique_ptr<SecretValue, ValueUnref> value(secret_item_get_secret(item));
        if (!value)
            continue;
        gsize length = 0;
        const gchar *bytes = secret_value_get(value.get(), &length);
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
        secret_value_new(value.data(), static_cast<gssize>(value.size()), "text/plain"));
    GError *rawError = nullptr;
    std::unique_ptr<GCancellable, ObjectUnref> cancellable(g_cancellable_new());
    gboolean stored = false;
    {
        const CancelAfter giveUp(cancellable.get(), PromptTimeout);
        stored = secret_service_store_sync(static_cast<SecretService *>(m_service), &schema(),
                                           attributes.get(), SECRET_COLLECTION_DEFAULT, label.c_str(),
                                           secret.get(), cancellable.get(), &rawError);
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
    std::unique_ptr<GCancellable, ObjectUnref> cancellable(g_cancellable_new());
    {
        const CancelAfter giveUp(cancellable.get(), PromptTimeout);
        // False with no error when nothing matched.
        secret_service_clear_sync(static_cast<SecretService *>(m_service), &schema(), attributes.get(),
                                  cancellable.get(), &rawError);
    }
    std::unique_ptr<GError, GErrorFree> error(rawError);
    if (error)
        return fail("secrets.keyring_io",
                    "the desktop keyring did not remove secret " + name + ": " + messageOf(error.get()));
    return {};
}

} // namespace Cordon::Secrets
