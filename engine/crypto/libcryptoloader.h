// SPDX-License-Identifier: MIT
// OpenSSL's libcrypto, loaded at its first use (dlopen) instead of linked: for the audit's Ed25519 signatures
// (audit/reportsignature.cpp) and the certificate authority of a container's terminated TLS
// (network/interceptionauthority.cpp). Linked, every daemon mapped and initialised it at start, 1.4 MiB of a
// fresh daemon's memory, although most daemons never sign a report or terminate TLS (docs/benchmarks.md).
// The members carry the names of the functions they point to, so that a call reads as OpenSSL's own
// (`crypto.EVP_PKEY_free(key)`); a call of the function itself would not link, since nothing links libcrypto.
#pragma once

#include "sandbox/error.h"

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

namespace Cordon::Crypto {

// Every function of libcrypto that Cordon calls, once.
#define CORDON_LIBCRYPTO_FUNCTIONS(F)                                                                        \
    F(BIO_ctrl)                                                                                              \
    F(BIO_free)                                                                                              \
    F(BIO_new)                                                                                               \
    F(BIO_new_mem_buf)                                                                                       \
    F(BIO_s_mem)                                                                                             \
    F(BN_free)                                                                                               \
    F(BN_new)                                                                                                \
    F(BN_rand)                                                                                               \
    F(BN_to_ASN1_INTEGER)                                                                                    \
    F(ERR_clear_error)                                                                                       \
    F(ERR_error_string_n)                                                                                    \
    F(ERR_get_error)                                                                                         \
    F(EVP_DigestSign)                                                                                        \
    F(EVP_DigestSignInit)                                                                                    \
    F(EVP_DigestVerify)                                                                                      \
    F(EVP_DigestVerifyInit)                                                                                  \
    F(EVP_MD_CTX_free)                                                                                       \
    F(EVP_MD_CTX_new)                                                                                        \
    F(EVP_PKEY_Q_keygen)                                                                                     \
    F(EVP_PKEY_free)                                                                                         \
    F(EVP_PKEY_get_raw_public_key)                                                                           \
    F(EVP_PKEY_new_raw_private_key)                                                                          \
    F(EVP_PKEY_new_raw_public_key)                                                                           \
    F(EVP_sha256)                                                                                            \
    F(PEM_read_bio_PrivateKey)                                                                               \
    F(PEM_read_bio_X509)                                                                                     \
    F(PEM_write_bio_PrivateKey)                                                                              \
    F(PEM_write_bio_X509)                                                                                    \
    F(RAND_bytes)                                                                                            \
    F(X509V3_EXT_nconf_nid)                                                                                  \
    F(X509V3_set_ctx)                                                                                        \
    F(X509_EXTENSION_free)                                                                                   \
    F(X509_NAME_add_entry_by_txt)                                                                            \
    F(X509_add_ext)                                                                                          \
    F(X509_check_private_key)                                                                                \
    F(X509_free)                                                                                             \
    F(X509_get_serialNumber)                                                                                 \
    F(X509_get_subject_name)                                                                                 \
    F(X509_getm_notAfter)                                                                                    \
    F(X509_getm_notBefore)                                                                                   \
    F(X509_gmtime_adj)                                                                                       \
    F(X509_new)                                                                                              \
    F(X509_set_issuer_name)                                                                                  \
    F(X509_set_pubkey)                                                                                       \
    F(X509_set_version)                                                                                      \
    F(X509_sign)

struct LibCrypto
{
#define CORDON_LIBCRYPTO_MEMBER(name) decltype(&::name) name = nullptr;
    CORDON_LIBCRYPTO_FUNCTIONS(CORDON_LIBCRYPTO_MEMBER)
#undef CORDON_LIBCRYPTO_MEMBER
};

// The library, loaded once (thread-safe); without it (libssl3 not installed, or lacking a function) the
// error is crypto.no_libcrypto, kept for the life of the program.
const Result<LibCrypto> &libCrypto();

} // namespace Cordon::Crypto
