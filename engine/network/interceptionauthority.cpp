// SPDX-License-Identifier: MIT
#include "network/interceptionauthority.h"

#include "crypto/cryptoobjects.h"

#include <algorithm>

namespace Cordon::Network {

namespace {

// create() loads libcrypto before it makes anything, and only an authority that create() made has leaves.
const Crypto::LibCrypto &crypto()
{
    return *Crypto::libCrypto();
}

// A leaf lives a week and is made again a day before it ends: a container may live for weeks (kept alive),
// and short leaves keep what a stolen one could do short too.
constexpr int LeafValidDays = 7;
constexpr qint64 LeafRenewSeconds = 24 * 3600;
// Clocks of the sandbox and the host are the same; an hour back covers a host clock set back a little.
constexpr long BackdateSeconds = 3600;

using Crypto::BioPtr;
using Crypto::PkeyPtr;
using Crypto::X509Ptr;

tl::unexpected<Error> cryptoFailure(const QString &what)
{
    return fail(QStringLiteral("network.tls_authority"),
                QStringLiteral("%1: %2").arg(what, QString::fromStdString(Crypto::takeError())));
}

PkeyPtr newKey()
{
    return PkeyPtr(crypto().EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256"));
}

bool setName(X509_NAME *name, const QString &commonName)
{
    const QByteArray cn = commonName.toUtf8().left(64);
    return crypto().X509_NAME_add_entry_by_txt(
               name, "O", MBSTRING_ASC, reinterpret_cast<const unsigned char *>("Cordon"), -1, -1, 0) == 1 &&
           crypto().X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8,
                                               reinterpret_cast<const unsigned char *>(cn.constData()),
                                               int(cn.size()), -1, 0) == 1;
}

bool addExtension(X509 *cert, X509 *issuer, int nid, const QByteArray &value)
{
    return Crypto::addExtension(cert, issuer, nid, value.constData());
}

// A certificate with a random 128-bit serial, valid from an hour ago for `days`, for `key`'s public half.
X509Ptr newCertificate(EVP_PKEY *key, const QString &commonName, long days)
{
    X509Ptr cert(crypto().X509_new());
    if (!cert || crypto().X509_set_version(cert.get(), 2) != 1)
        return nullptr;
    BIGNUM *serial = crypto().BN_new();
    const bool serialSet =
        serial && crypto().BN_rand(serial, 127, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) == 1 &&
        crypto().BN_to_ASN1_INTEGER(serial, crypto().X509_get_serialNumber(cert.get())) != nullptr;
    crypto().BN_free(serial);
    if (!serialSet || !crypto().X509_gmtime_adj(crypto().X509_getm_notBefore(cert.get()), -BackdateSeconds) ||
        !crypto().X509_gmtime_adj(crypto().X509_getm_notAfter(cert.get()), days * 24 * 3600) ||
        crypto().X509_set_pubkey(cert.get(), key) != 1 ||
        !setName(crypto().X509_get_subject_name(cert.get()), commonName))
        return nullptr;
    return cert;
}

Result<QByteArray> toPem(X509 *cert)
{
    BioPtr bio(crypto().BIO_new(crypto().BIO_s_mem()));
    if (!bio || crypto().PEM_write_bio_X509(bio.get(), cert) != 1)
        return cryptoFailure(QStringLiteral("writing a certificate"));
    char *data = nullptr;
    const long size = crypto().BIO_ctrl(bio.get(), BIO_CTRL_INFO, 0, reinterpret_cast<char *>(&data));
    return QByteArray(data, qsizetype(size));
}

Result<QSslKey> toQtKey(EVP_PKEY *key)
{
    BioPtr bio(crypto().BIO_new(crypto().BIO_s_mem()));
    if (!bio || crypto().PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr) != 1)
        return cryptoFailure(QStringLiteral("writing a key"));
    char *data = nullptr;
    const long size = crypto().BIO_ctrl(bio.get(), BIO_CTRL_INFO, 0, reinterpret_cast<char *>(&data));
    QByteArray pem(data, qsizetype(size));
    QSslKey qtKey(pem, QSsl::Ec, QSsl::Pem, QSsl::PrivateKey);
    // The PEM held the key in the clear; wipe our copy of it.
    pem.fill('\0');
    if (qtKey.isNull())
        return fail(QStringLiteral("network.tls_authority"),
                    QStringLiteral("Qt could not read a new EC key"));
    return qtKey;
}

} // namespace

struct InterceptionAuthority::Key
{
    PkeyPtr key;
    X509Ptr certificate;
};

InterceptionAuthority::InterceptionAuthority() : m_key(std::make_unique<Key>()) {}

InterceptionAuthority::~InterceptionAuthority() = default;

Result<std::shared_ptr<InterceptionAuthority>>
InterceptionAuthority::create(const QString &containerId, const QStringList &domains, int validDays)
{
    if (domains.isEmpty())
        return fail(QStringLiteral("network.tls_authority"), QStringLiteral("a CA for no domain"));
    if (const auto &loaded = Crypto::libCrypto(); !loaded)
        return fail(loaded.error());
    std::shared_ptr<InterceptionAuthority> authority(new InterceptionAuthority());
    authority->m_domains = domains;
    Key &key = *authority->m_key;
    key.key = newKey();
    if (!key.key)
        return cryptoFailure(QStringLiteral("making the CA key"));
    key.certificate =
        newCertificate(key.key.get(), QStringLiteral("Cordon container %1 CA").arg(containerId), validDays);
    if (!key.certificate)
        return cryptoFailure(QStringLiteral("making the CA certificate"));
    X509 *cert = key.certificate.get();
    crypto().X509_set_issuer_name(cert, crypto().X509_get_subject_name(cert));
    // Each domain and not its subdomains (a DNS constraint covers both), and no address at all.
    QByteArray permitted = "critical";
    for (const QString &domain : domains)
        permitted += ",permitted;DNS:" + domain.toLatin1() + ",excluded;DNS:." + domain.toLatin1();
    permitted += ",excluded;IP:0.0.0.0/0.0.0.0,excluded;IP:::/::";
    if (!addExtension(cert, cert, NID_basic_constraints, "critical,CA:TRUE,pathlen:0") ||
        !addExtension(cert, cert, NID_key_usage, "critical,keyCertSign,cRLSign") ||
        !addExtension(cert, cert, NID_subject_key_identifier, "hash") ||
        !addExtension(cert, cert, NID_name_constraints, permitted) ||
        crypto().X509_sign(cert, key.key.get(), crypto().EVP_sha256()) == 0)
        return cryptoFailure(QStringLiteral("signing the CA certificate"));
    if (auto shown = authority->showCertificate(); !shown)
        return fail(shown.error());
    return authority;
}

Result<std::shared_ptr<InterceptionAuthority>> InterceptionAuthority::restore(const QStringList &domains,
                                                                              const QByteArray &saved)
{
    if (const auto &loaded = Crypto::libCrypto(); !loaded)
        return fail(loaded.error());
    std::shared_ptr<InterceptionAuthority> authority(new InterceptionAuthority());
    authority->m_domains = domains;
    Key &key = *authority->m_key;
    // PEM_read_bio_* skip the blocks of other kinds, so each reads its own from the one text.
    BioPtr keyText(crypto().BIO_new_mem_buf(saved.constData(), int(saved.size())));
    BioPtr certText(crypto().BIO_new_mem_buf(saved.constData(), int(saved.size())));
    if (!keyText || !certText)
        return cryptoFailure(QStringLiteral("reading the saved CA"));
    key.key.reset(crypto().PEM_read_bio_PrivateKey(keyText.get(), nullptr, nullptr, nullptr));
    key.certificate.reset(crypto().PEM_read_bio_X509(certText.get(), nullptr, nullptr, nullptr));
    if (!key.key || !key.certificate)
        return cryptoFailure(QStringLiteral("reading the saved CA's key and certificate"));
    if (crypto().X509_check_private_key(key.certificate.get(), key.key.get()) != 1)
        return cryptoFailure(QStringLiteral("the saved CA's key is not its certificate's"));
    if (auto shown = authority->showCertificate(); !shown)
        return fail(shown.error());
    return authority;
}

Result<QByteArray> InterceptionAuthority::savedForm() const
{
    BioPtr bio(crypto().BIO_new(crypto().BIO_s_mem()));
    if (!bio || crypto().PEM_write_bio_PrivateKey(bio.get(), m_key->key.get(), nullptr, nullptr, 0, nullptr,
                                                  nullptr) != 1)
        return cryptoFailure(QStringLiteral("writing the CA key"));
    char *data = nullptr;
    const long size = crypto().BIO_ctrl(bio.get(), BIO_CTRL_INFO, 0, reinterpret_cast<char *>(&data));
    QByteArray saved(data, qsizetype(size));
    // The memory BIO's copy of the key is freed without being cleared: clear it first.
    std::fill(data, data + size, '\0');
    return saved + m_certificate.toPem();
}

Result<> InterceptionAuthority::showCertificate()
{
    auto pem = toPem(m_key->certificate.get());
    if (!pem)
        return fail(pem.error());
    m_certificate = QSslCertificate(*pem, QSsl::Pem);
    m_notAfter = m_certificate.expiryDate();
    if (m_certificate.isNull())
        return fail(QStringLiteral("network.tls_authority"), QStringLiteral("Qt could not read the CA"));
    return {};
}

Result<InterceptionAuthority::Leaf> InterceptionAuthority::leafFor(const QString &host)
{
    if (!m_domains.contains(host))
        return fail(QStringLiteral("network.tls_authority"),
                    QStringLiteral("no certificate is issued for %1: it has no domain secret").arg(host));
    const QDateTime now = QDateTime::currentDateTimeUtc();
    if (const auto cached = m_leaves.constFind(host);
        cached != m_leaves.cend() && now.secsTo(cached->certificate.expiryDate()) > LeafRenewSeconds)
        return *cached;
    if (now.secsTo(m_notAfter) <= LeafRenewSeconds)
        return fail(QStringLiteral("network.tls_authority"),
                    QStringLiteral("the container's CA expires on %1: restart the container for a new one")
                        .arg(m_notAfter.toString(Qt::ISODate)));

    PkeyPtr leafKey = newKey();
    if (!leafKey)
        return cryptoFailure(QStringLiteral("making a leaf key"));
    const long days = std::min<long>(LeafValidDays, now.secsTo(m_notAfter) / (24 * 3600));
    X509Ptr cert = newCertificate(leafKey.get(), host, std::max<long>(days, 1));
    if (!cert)
        return cryptoFailure(QStringLiteral("making a leaf certificate"));
    X509 *leaf = cert.get();
    crypto().X509_set_issuer_name(leaf, crypto().X509_get_subject_name(m_key->certificate.get()));
    if (!addExtension(leaf, m_key->certificate.get(), NID_basic_constraints, "critical,CA:FALSE") ||
        !addExtension(leaf, m_key->certificate.get(), NID_key_usage, "critical,digitalSignature") ||
        !addExtension(leaf, m_key->certificate.get(), NID_ext_key_usage, "serverAuth") ||
        !addExtension(leaf, m_key->certificate.get(), NID_subject_alt_name, "DNS:" + host.toLatin1()) ||
        !addExtension(leaf, m_key->certificate.get(), NID_authority_key_identifier, "keyid:always") ||
        crypto().X509_sign(leaf, m_key->key.get(), crypto().EVP_sha256()) == 0)
        return cryptoFailure(QStringLiteral("signing a leaf certificate"));
    auto pem = toPem(leaf);
    if (!pem)
        return fail(pem.error());
    auto key = toQtKey(leafKey.get());
    if (!key)
        return fail(key.error());
    Leaf made{QSslCertificate(*pem, QSsl::Pem), *key};
    m_leaves.insert(host, made);
    return made;
}

} // namespace Cordon::Network
