// SPDX-License-Identifier: MIT
#include "crypto/libcryptoloader.h"

#include "sandbox/sharedlibrary.h"

namespace Cordon::Crypto {

namespace {

Result<LibCrypto> load()
{
    // OpenSSL 3's libcrypto, the one the headers this is compiled against describe; Debian ships it in
    // libssl3.
    auto library = SharedLibrary::open("libcrypto.so.3", "libssl3", "crypto.no_libcrypto");
    if (!library)
        return fail(library.error());
    LibCrypto f;
#define CORDON_LIBCRYPTO_FIND(name) library->find(#name, f.name) &&
    const bool found = CORDON_LIBCRYPTO_FUNCTIONS(CORDON_LIBCRYPTO_FIND) true;
#undef CORDON_LIBCRYPTO_FIND
    if (!found)
        return fail(library->missing());
    return f;
}

} // namespace

const Result<LibCrypto> &libCrypto()
{
    static const Result<LibCrypto> loaded = load();
    return loaded;
}

} // namespace Cordon::Crypto
