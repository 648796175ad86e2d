// SPDX-License-Identifier: MIT
// libsecret, loaded at the first keyring call. Linked, it and what it pulls in beyond what Qt already loads
// (GObject, GIO, libgcrypt, libmount, libselinux: 10 shared objects) were mapped and initialised by every
// daemon at start, 1.9 MiB of a fresh daemon's memory, although most daemons never touch a keyring
// (docs/benchmarks.md).
// Only the functions the vault calls are looked up; GLib's come through libsecret's own dependencies.
#pragma once

#include "sandbox/error.h"

#include <libsecret/secret.h>

namespace Cordon::Secrets {

struct LibSecret
{
    decltype(&secret_service_get_sync) serviceGetSync = nullptr;
    decltype(&secret_service_search_sync) serviceSearchSync = nullptr;
    decltype(&secret_service_store_sync) serviceStoreSync = nullptr;
    decltype(&secret_service_clear_sync) serviceClearSync = nullptr;
    decltype(&secret_collection_for_alias_sync) collectionForAliasSync = nullptr;
    decltype(&secret_collection_get_locked) collectionGetLocked = nullptr;
    decltype(&secret_item_get_locked) itemGetLocked = nullptr;
    decltype(&secret_item_get_secret) itemGetSecret = nullptr;
    decltype(&secret_value_new) valueNew = nullptr;
    decltype(&secret_value_get) valueGet = nullptr;
    decltype(&secret_value_unref) valueUnref = nullptr;
    decltype(&g_error_free) errorFree = nullptr;
    decltype(&g_object_unref) objectUnref = nullptr;
    decltype(&g_list_free_full) listFreeFull = nullptr;
    decltype(&g_hash_table_new) hashTableNew = nullptr;
    decltype(&g_hash_table_insert) hashTableInsert = nullptr;
    decltype(&g_hash_table_unref) hashTableUnref = nullptr;
    decltype(&g_str_hash) strHash = nullptr;
    decltype(&g_str_equal) strEqual = nullptr;
    decltype(&g_cancellable_new) cancellableNew = nullptr;
    decltype(&g_cancellable_cancel) cancellableCancel = nullptr;
};

// The library, loaded once (thread-safe); without it (libsecret-1-0 not installed, or lacking a function)
// the error is secrets.no_libsecret.
const Result<LibSecret> &libSecret();

} // namespace Cordon::Secrets
