// SPDX-License-Identifier: MIT
// The certificates the proxy verifies upstreams of terminated TLS against: the host's trust store and the
// extra CAs the daemon was given (cordond --upstream-ca). The trust store is read at the first handshake
// that needs it, not when the daemon starts: parsing it maps and touches most of libcrypto and Qt's TLS
// backend (about 11 MiB of a fresh daemon's memory), which a daemon without domain secrets never uses.
#pragma once

#include <QList>
#include <QSslCertificate>

#include <optional>

namespace Cordon::Network {

class UpstreamTrust
{
public:
    explicit UpstreamTrust(QList<QSslCertificate> extra = {}) : m_extra(std::move(extra)) {}

    // The host's trust store followed by the extra CAs; read once, on the first call.
    const QList<QSslCertificate> &certificates();

private:
    QList<QSslCertificate> m_extra;
    std::optional<QList<QSslCertificate>> m_all;
};

} // namespace Cordon::Network
