// SPDX-License-Identifier: MIT
#include "network/domainsecrets.h"

#include <QRandomGenerator>

#include <algorithm>

namespace Cordon::Network {

QByteArray newPlaceholder(const QString &name)
{
    quint32 words[4];
    QRandomGenerator::system()->fillRange(words);
    const QByteArray random(reinterpret_cast<const char *>(words), sizeof words);
    return "cordon-placeholder-" + name.toLatin1() + '-' + random.toHex();
}

DomainSecrets::DomainSecrets(QList<DomainSecretValue> secrets) : m_secrets(std::move(secrets)) {}

bool DomainSecrets::intercepts(const QString &host) const
{
    return std::any_of(m_secrets.begin(), m_secrets.end(),
                       [&](const DomainSecretValue &secret) { return secret.domains.contains(host); });
}

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
    for (const Found &hit : found) {
        if (terminated && hit.secret->domains.contains(host))
            continue;
        verdict.allowed = false;
        verdict.refusedSecret = hit.secret->name;
        verdict.reason =
            hit.secret->domains.contains(host)
                ? QStringLiteral("secret %1 is sent to %2 only over HTTPS").arg(hit.secret->name, host)
                : QStringLiteral("secret %1 may only be sent to %2")
                      .arg(hit.secret->name, hit.secret->domains.join(QStringLiteral(", ")));
        return verdict;
    }
    for (const Found &hit : found) {
        // A line break in a value would end the header field and let the value write fields of its own.
        const QByteArray &value = hit.secret->value;
        if (std::any_of(value.begin(), value.end(), [](char c) {
                return (static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7f;
            })) {
            verdict.allowed = false;
            verdict.refusedSecret = hit.secret->name;
            verdict.reason =
                QStringLiteral("secret %1 holds a control character and cannot be put in a request "
                               "head")
                    .arg(hit.secret->name);
            return verdict;
        }
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
