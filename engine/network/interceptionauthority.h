// SPDX-License-Identifier: MIT
// The certificate authority of one container's terminated TLS (docs/secrets.md, "Domain secrets"). The daemon
// makes one per container that has domain secrets: an ECDSA P-256 key that exists in this object and, while
// the container runs, in one file beside its workspace on the host (mode 0600, never in the sandbox; a daemon
// started after this one reads it to adopt the running container), and a CA certificate whose name
// constraints permit only the domains of the container's domain secrets, so that even a leaked key could not
// vouch for any other site. The sandbox trusts its certificate (a CA bundle mounted read-only); the proxy
// presents a leaf certificate signed by it for each of those domains. Made with OpenSSL's libcrypto: Qt can
// use certificates but cannot issue them.
#pragma once

#include "core/result.h"

#include <QByteArray>
#include <QDateTime>
#include <QHash>
#include <QSslCertificate>
#include <QSslKey>
#include <QStringList>

#include <memory>

namespace Cordon::Network {

class InterceptionAuthority
{
public:
    struct Leaf
    {
        QSslCertificate certificate;
        QSslKey key;
    };

    // A new key and CA certificate for `containerId` (its common name), valid for `validDays` from an hour
    // ago, name-constrained to `domains` (host names in normaliseHost() form). network.tls_authority when
    // libcrypto fails.
    static Result<std::shared_ptr<InterceptionAuthority>>
    create(const QString &containerId, const QStringList &domains, int validDays = 365);
    // The authority saved by savedForm(), for the same `domains`: network.tls_authority when the text holds
    // no key and certificate that belong together.
    static Result<std::shared_ptr<InterceptionAuthority>> restore(const QStringList &domains,
                                                                  const QByteArray &saved);
    ~InterceptionAuthority();
    InterceptionAuthority(const InterceptionAuthority &) = delete;
    InterceptionAuthority &operator=(const InterceptionAuthority &) = delete;

    const QSslCertificate &certificate() const { return m_certificate; }
    QByteArray certificatePem() const { return m_certificate.toPem(); }
    const QStringList &domains() const { return m_domains; }
    // The key and the certificate as PEM, for restore(). The caller wipes it after writing it.
    Result<QByteArray> savedForm() const;

    // A certificate for `host` (one of domains()) with a key of its own, made at first use and kept until
    // a day before it expires. network.tls_authority for another host or when libcrypto fails.
    Result<Leaf> leafFor(const QString &host);

private:
    struct Key;
    InterceptionAuthority();
    // Sets m_certificate and m_notAfter from the key's certificate.
    Result<> showCertificate();

    std::unique_ptr<Key> m_key;
    QSslCertificate m_certificate;
    QDateTime m_notAfter;
    QStringList m_domains;
    QHash<QString, Leaf> m_leaves;
};

} // namespace Cordon::Network
