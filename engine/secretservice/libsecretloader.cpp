// SPDX-License-Identifier: MIT
#include "secretservice/libsecretloader.h"

#include "sandbox/sharedlibrary.h"

namespace Cordon::Secrets {

namespace {

Result<LibSecret> load()
{
    // Debian 12's libsecret-1-0, the library the headers this is compiled against describe. Its own code, not
    // keyring_unavailable: the hint is to install it, not to reach a desktop session. A failure is kept for
    // the life of the program, so the daemon must be restarted after the package is installed (the hint).
    auto library = SharedLibrary::open("libsecret-1.so.0", "libsecret-1-0", "secrets.no_libsecret");
    if (!library)
        return fail(library.error().wrap("the desktop keyring (Secret Service) cannot be reached"));
    LibSecret f;
    // GLib's functions come through libsecret's own dependencies.
    const bool found =
        library->find("secret_service_get_sync", f.serviceGetSync) &&
        library->find("secret_service_search_sync", f.serviceSearchSync) &&
        library->find("secret_service_store_sync", f.serviceStoreSync) &&
        library->find("secret_service_clear_sync", f.serviceClearSync) &&
        library->find("secret_collection_for_alias_sync", f.collectionForAliasSync) &&
        library->find("secret_collection_get_locked", f.collectionGetLocked) &&
        library->find("secret_item_get_locked", f.itemGetLocked) &&
        library->find("secret_item_get_secret", f.itemGetSecret) &&
        library->find("secret_value_new", f.valueNew) && library->find("secret_value_get", f.valueGet) &&
        library->find("secret_value_unref", f.valueUnref) && library->find("g_error_free", f.errorFree) &&
        library->find("g_object_unref", f.objectUnref) && library->find("g_list_free_full", f.listFreeFull) &&
        library->find("g_hash_table_new", f.hashTableNew) &&
        library->find("g_hash_table_insert", f.hashTableInsert) &&
        library->find("g_hash_table_unref", f.hashTableUnref) && library->find("g_str_hash", f.strHash) &&
        library->find("g_str_equal", f.strEqual) && library->find("g_cancellable_new", f.cancellableNew) &&
        library->find("g_cancellable_cancel", f.cancellableCancel);
    if (!found)
        return fail(library->missing().wrap("the desktop keyring (Secret Service) cannot be reached"));
    return f;
}

} // namespace

const Result<LibSecret> &libSecret()
{
    static const Result<LibSecret> loaded = load();
    return loaded;
}

} // namespace Cordon::Secrets
