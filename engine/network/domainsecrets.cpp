// SPDX-License-Identifier: MIT
#include "network/domainsecrets.h"

#include <algorithm>
#include <utility>

namespace Cordon::Network {

QByteArray placeholderFor(const QString &name, const QByteArray &hex)
{
    return "cordon-placeholder-" + name.toLatin1() + '-' + hex;
}

Secrets::SecretMasker DomainSecrets::echoMasker() const
{
    Secrets::SecretMasker masker(Secrets::SecretMasker::Mark::SameLength);
    for (const DomainSecretValue &secret : m_secrets) {
        // The store checked each value when it was set; an empty one was removed and is sent nowhere.
        if (!secret.value.isEmpty())
            (void)masker.add(secret.name.toStdString(), secret.value.toStdString());
    }
    return masker;
}

bool DomainSecrets::allowsCompressed(const QString &host, const QStringList &sent) const
{
    return std::all_of(sent.begin(), sent.end(), [&](const QString &name) {
        return std::any_of(m_secrets.begin(), m_secrets.end(), [&](const DomainSecretValue &secret) {
            return secret.name == name && secret.compressedDomains.contains(host);
        });
    });
}

QByteArray withIdentityEncoding(const QByteArray &head)
{
    const qsizetype end = head.indexOf("\r\n\r\n");
    if (end < 0)
        return head;
    QByteArray out;
    for (qsizetype from = 0; from < end;) {
        qsizetype next = head.indexOf("\r\n", from);
        if (next < 0 || next > end)
            next = end;
        const QByteArray line = head.mid(from, next - from);
        const qsizetype colon = line.indexOf(':');
        const bool acceptEncoding =
            from > 0 && colon > 0 &&
            line.left(colon).trimmed().compare("accept-encoding", Qt::CaseInsensitive) == 0;
        if (!acceptEncoding)
            out += line + "\r\n";
        from = next + 2;
    }
    return out + "Accept-Encoding: identity\r\n\r\n" + head.mid(end + 4);
}

DomainSecrets::DomainSecrets(QList<DomainSecretValue> secrets) : m_secrets(std::move(secrets)) {}

bool DomainSecrets::intercepts(const QString &host) const
{
    return std::any_of(m_secrets.begin(), m_secrets.end(),
                       [&](const DomainSecretValue &secret) { return secret.domains.contains(host); });
}

namespace {

bool hasControlCharacter(const QByteArray &value)
{
    return std::any_of(value.begin(), value.end(), [](char c) {
        return (static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7f;
    });
}

// Whether `at` lies in the value of a header field: after the request line, and after the colon of its line.
bool inFieldValue(const QByteArray &head, qsizetype at)
{
    const qsizetype lineStart = head.lastIndexOf('\n', at);
    if (lineStart < 0)
        return false; // the request line
    const qsizetype colon = head.indexOf(':', lineStart);
    return colon >= 0 && colon < at && head.indexOf('\n', lineStart + 1) > colon;
}

// The name of the header field whose value holds `at`, lower case; only for an `at` inFieldValue() accepts.
QByteArray fieldNameAt(const QByteArray &head, qsizetype at)
{
    const qsizetype lineStart = head.lastIndexOf('\n', at) + 1;
    const qsizetype colon = head.indexOf(':', lineStart);
    return head.mid(lineStart, colon - lineStart).trimmed().toLower();
}

} // namespace

DomainSecrets::Verdict DomainSecrets::apply(QByteArray &head, const QString &host, bool terminated) const
{
    Verdict verdict;
    struct Found
    {
        qsizetype at;
        const DomainSecretValue *secret;
    };
    QList<Found> found;
    const QByteArray folded = head.toLower();
    for (const DomainSecretValue &secret : m_secrets) {
        const QByteArray needle = secret.placeholder.toLower();
        for (qsizetype at = folded.indexOf(needle); at >= 0; at = folded.indexOf(needle, at + needle.size()))
            found.append({at, &secret});
    }
    if (found.isEmpty())
        return verdict;
    std::sort(found.begin(), found.end(), [](const Found &a, const Found &b) { return a.at < b.at; });
    const auto refuse = [&](const DomainSecretValue &secret, const QString &reason) {
        verdict.allowed = false;
        verdict.refusedSecret = secret.name;
        verdict.reason = reason;
        return verdict;
    };
    for (const Found &hit : found) {
        const DomainSecretValue &secret = *hit.secret;
        if (!secret.domains.contains(host))
            return refuse(secret, QStringLiteral("secret %1 may only be sent to %2")
                                      .arg(secret.name, secret.domains.join(QStringLiteral(", "))));
        if (!terminated)
            return refuse(secret,
                          QStringLiteral("secret %1 is sent to %2 only over HTTPS").arg(secret.name, host));
        // Servers repeat URLs in error pages and redirects, which would bring the value back into the
        // sandbox.
        if (!inFieldValue(head, hit.at))
            return refuse(secret,
                          QStringLiteral("secret %1 goes only in a header field's value, not in the URL "
                                         "or a field name")
                              .arg(secret.name));
        if (const QByteArray field = fieldNameAt(head, hit.at); field != secret.header)
            return refuse(secret, QStringLiteral("secret %1 goes only in the %2 header, not in %3: servers "
                                                 "echo and log other headers")
                                      .arg(secret.name, QString::fromLatin1(secret.header),
                                           QString::fromLatin1(field)));
        if (secret.value.isEmpty())
            return refuse(secret, QStringLiteral("secret %1 is no longer in the store (cordon secret set %1)")
                                      .arg(secret.name));
        // A line break in a value would end the field and let the value write fields of its own.
        if (hasControlCharacter(secret.value))
            return refuse(secret, QStringLiteral("secret %1 holds a control character and cannot be put in a "
                                                 "header field")
                                      .arg(secret.name));
    }
    // From the end, so that earlier offsets stay valid; placeholders never overlap (each ends in 32 random
    // hex digits after a name no placeholder contains).
    for (auto hit = found.crbegin(); hit != found.crend(); ++hit)
        head.replace(hit->at, hit->secret->placeholder.size(), hit->secret->value);
    for (const Found &hit : found) {
        if (!verdict.sent.contains(hit.secret->name))
            verdict.sent.append(hit.secret->name);
    }
    return verdict;
}

} // namespace Cordon::Network
