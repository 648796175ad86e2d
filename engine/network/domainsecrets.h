// SPDX-License-Identifier: MIT
// What the proxy does with a container's domain secrets (docs/secrets.md, "Domain secrets"). The sandbox
// holds only placeholders; in a request head to a secret's domain over TLS the proxy terminated, each
// placeholder becomes the secret's value on the way upstream. A placeholder anywhere else (another host,
// plain HTTP, a CONNECT target) refuses the request: the value is never sent there, and the attempt is
// recorded. Pure: bytes in, bytes and a verdict out.
#pragma once

#include "sandbox/secrets/secretmasker.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>

namespace Cordon::Network {

struct DomainSecretValue
{
    QString name;           // the variable in the sandbox and the secret in the store
    QStringList domains;    // where its value may go, normalised host names
    QByteArray placeholder; // what the sandbox sees: placeholderFor()
    QByteArray value;       // never leaves the daemon except to one of domains; empty: removed from the store
    // The one header field it goes into, lower case (the policy's domain_secrets[].header).
    QByteArray header = QByteArrayLiteral("authorization");
    // Of domains, those whose answers may come compressed (allow_compressed_responses).
    QStringList compressedDomains = {};
};

// "cordon-placeholder-<name>-<hex>": recognisable in a log, made of characters no encoding changes; `hex`
// (32 digits) must be unguessable, so that the sandbox cannot guess another container's.
QByteArray placeholderFor(const QString &name, const QByteArray &hex);

// The head with every Accept-Encoding field replaced by `Accept-Encoding: identity`: an answer to a request
// that carries a value must come uncompressed for ResponseScrubber to look into it.
QByteArray withIdentityEncoding(const QByteArray &head);

class DomainSecrets
{
public:
    struct Verdict
    {
        // The request may go on (with the values substituted into the head).
        bool allowed = true;
        // When refused: the secret whose placeholder was found and why it may not go here.
        QString refusedSecret;
        QString reason;
        // Secrets whose values were put into the head, in the order of first occurrence, each once.
        QStringList sent;
    };

    DomainSecrets() = default;
    explicit DomainSecrets(QList<DomainSecretValue> secrets);

    bool isEmpty() const { return m_secrets.isEmpty(); }
    // Masks every form of every value the proxy holds with as many '*' as it has bytes, for the responses of
    // terminated TLS (ResponseScrubber).
    Secrets::SecretMasker echoMasker() const;
    // Whether the answer to a request to host that carried the values of `sent` may come compressed: every
    // one of them allows it for host.
    bool allowsCompressed(const QString &host, const QStringList &sent) const;
    const QList<DomainSecretValue> &secrets() const { return m_secrets; }
    // Whether the proxy terminates TLS for connections to host: some secret may be sent there.
    bool intercepts(const QString &host) const;

    // For a request head on its way to host: with `terminated` (inside TLS the proxy terminated for host),
    // placeholders of secrets for host in header field values are replaced by their values in `head`. Any
    // other placeholder refuses: for another host, without TLS, in the request line (servers echo URLs back),
    // a field name or any field but the secret's own header (servers echo and log User-Agent, Cookie,
    // Referer and request ids), of a secret removed from the store (an empty value), or whose value has a
    // control character. Placeholders are found in any letter case.
    Verdict apply(QByteArray &head, const QString &host, bool terminated) const;

private:
    QList<DomainSecretValue> m_secrets;
};

} // namespace Cordon::Network
