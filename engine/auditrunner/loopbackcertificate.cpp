// SPDX-License-Identifier: MIT
#include "auditrunner/loopbackcertificate.h"

#include "crypto/cryptoobjects.h"

namespace Cordon::Audit {

namespace {

const Crypto::LibCrypto &crypto()
{
    return *Crypto::libCrypto();
}

using Crypto::BioPtr;
using Crypto::PkeyPtr;
using Crypto::X509Ptr;

tl::unexpected<Error> cryptoFailure(const char *what)
{
    return fail(
        QStringLiteral("audit.echo_certificate"),
        QStringLiteral("%1: %2").arg(QLatin1String(what), QString::fromStdString(Crypto::takeError())));
}

bool addExtension(X509 *cert, int nid, const char *value)
{
    return Crypto::addExtension(cert, cert, nid, value); // self-signed
}

QByteArray bioText(BIO *bio)
{
    char *data = nullptr;
    const long size = crypto().BIO_ctrl(bio, BIO_CTRL_INFO, 0, reinterpret_cast<char *>(&data));
    return QByteArray(data, qsizetype(size));
}

} // namespace

Result<LoopbackCertificate> makeLoopbackCertificate()
{
    if (const auto &loaded = Crypto::libCrypto(); !loaded)
        return fail(loaded.error());
    PkeyPtr key(crypto().EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256"));
    X509Ptr cert(crypto().X509_new());
    if (!key || !cert || crypto().X509_set_version(cert.get(), 2) != 1)
        return cryptoFailure("making the echo upstream's key");
    // A random serial: a proxy that cached an earlier audit's certificate must not take this one for it.
    BIGNUM *serial = crypto().BN_new();
    const bool serialSet =
        serial && crypto().BN_rand(serial, 127, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) == 1 &&
        crypto().BN_to_ASN1_INTEGER(serial, crypto().X509_get_serialNumber(cert.get())) != nullptr;
    crypto().BN_free(serial);
    X509_NAME *name = crypto().X509_get_subject_name(cert.get());
    // Self-signed and its own trust anchor: CA:TRUE lets a verifier take it as the root it also is, and the
    // names are the loopback ones the proxy dials.
    if (!serialSet || !crypto().X509_gmtime_adj(crypto().X509_getm_notBefore(cert.get()), -3600) ||
        !crypto().X509_gmtime_adj(crypto().X509_getm_notAfter(cert.get()), 24 * 3600) ||
        crypto().X509_set_pubkey(cert.get(), key.get()) != 1 ||
        crypto().X509_NAME_add_entry_by_txt(
            name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char *>("localhost"), -1, -1, 0) != 1 ||
        crypto().X509_set_issuer_name(cert.get(), name) != 1 ||
        !addExtension(cert.get(), NID_basic_constraints, "critical,CA:TRUE,pathlen:0") ||
        !addExtension(cert.get(), NID_key_usage, "critical,digitalSignature,keyCertSign") ||
        !addExtension(cert.get(), NID_ext_key_usage, "serverAuth") ||
        !addExtension(cert.get(), NID_subject_key_identifier, "hash") ||
        !addExtension(cert.get(), NID_subject_alt_name, "DNS:localhost,IP:127.0.0.1") ||
        crypto().X509_sign(cert.get(), key.get(), crypto().EVP_sha256()) == 0)
        return cryptoFailure("signing the echo upstream's certificate");
    BioPtr certText(crypto().BIO_new(crypto().BIO_s_mem()));
    BioPtr keyText(crypto().BIO_new(crypto().BIO_s_mem()));
    if (!certText || !keyText || crypto().PEM_write_bio_X509(certText.get(), cert.get()) != 1 ||
        crypto().PEM_write_bio_PrivateKey(keyText.get(), key.get(), nullptr, nullptr, 0, nullptr, nullptr) !=
            1)
        return cryptoFailure("writing the echo upstream's certificate");
    return LoopbackCertificate{bioText(certText.get()), bioText(keyText.get())};
}

} // namespace Cordon::Audit
