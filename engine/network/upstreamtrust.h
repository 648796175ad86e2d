// SPDX-License-Identifier: MIT
// The certificates the proxy verifies upstreams of terminated TLS against: the host's trust store and the
// extra CAs the daemon was given (cordond --upstream-ca). The trust store is read at the first handshake
// that needs it, not when the daemon starts: parsing it loads Qt's TLS backend and libssl and touches most
// of libcrypto (7.3 MiB of a fresh daemon's memory, docs/benchmarks.md), which a daemon without domain
// secrets never uses. (The --upstream-ca files themselves are read at start, so that a bad one stops the
// daemon there; that loads the backend too, but only for those who give them.)
//
// Used on the daemon's main thread only, like the whole proxy. The first read blocks that thread once, for
// as long as parsing the host's bundle takes, at the first connection to a domain whose secret the proxy
// adds.
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
