// SPDX-License-Identifier: MIT
// What every user of libcrypto needs around its calls, defined once: owners that free its objects through the
// loaded library, the text of its last error, and an X.509 extension added by name. Only for code that has
// loaded the library (libCrypto() succeeded): the owners call it unchecked.
#pragma once

#include "crypto/libcryptoloader.h"

#include <memory>
#include <string>

namespace Cordon::Crypto {

struct PkeyFree
{
    void operator()(EVP_PKEY *key) const { libCrypto()->EVP_PKEY_free(key); }
};
struct X509Free
{
    void operator()(X509 *certificate) const { libCrypto()->X509_free(certificate); }
};
struct BioFree
{
    void operator()(BIO *bio) const { libCrypto()->BIO_free(bio); }
};
struct MdCtxFree
{
    void operator()(EVP_MD_CTX *context) const { libCrypto()->EVP_MD_CTX_free(context); }
};
using PkeyPtr = std::unique_ptr<EVP_PKEY, PkeyFree>;
using X509Ptr = std::unique_ptr<X509, X509Free>;
using BioPtr = std::unique_ptr<BIO, BioFree>;
using MdCtxPtr = std::unique_ptr<EVP_MD_CTX, MdCtxFree>;

// The oldest error on libcrypto's queue as text ("unknown error" when there is none); the queue is emptied,
// so that the next failure does not report this one.
std::string takeError();

// Adds the extension `nid` with OpenSSL's text form `value` ("critical,CA:TRUE") to `certificate`, issued by
// `issuer` (the certificate itself when self-signed). False when libcrypto refused it.
bool addExtension(X509 *certificate, X509 *issuer, int nid, const char *value);

} // namespace Cordon::Crypto
