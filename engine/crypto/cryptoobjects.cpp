// SPDX-License-Identifier: MIT
#include "crypto/cryptoobjects.h"

namespace Cordon::Crypto {

std::string takeError()
{
    const LibCrypto &crypto = *libCrypto();
    char text[256] = "unknown error";
    if (const unsigned long code = crypto.ERR_get_error(); code != 0)
        crypto.ERR_error_string_n(code, text, sizeof text);
    crypto.ERR_clear_error();
    return text;
}

bool addExtension(X509 *certificate, X509 *issuer, int nid, const char *value)
{
    const LibCrypto &crypto = *libCrypto();
    X509V3_CTX context;
    X509V3_set_ctx_nodb(&context);
    crypto.X509V3_set_ctx(&context, issuer, certificate, nullptr, nullptr, 0);
    X509_EXTENSION *extension = crypto.X509V3_EXT_nconf_nid(nullptr, &context, nid, value);
    if (!extension)
        return false;
    const bool added = crypto.X509_add_ext(certificate, extension, -1) == 1;
    crypto.X509_EXTENSION_free(extension);
    return added;
}

} // namespace Cordon::Crypto
