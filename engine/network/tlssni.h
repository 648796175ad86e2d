// SPDX-License-Identifier: MIT
// Reads the server name (SNI) from the start of a TLS connection, so that a CONNECT tunnel to an allowed host
// cannot carry a TLS session for another name (SECURITY.md 2.6: peek and splice). Pure: bytes in, value out;
// every length is checked against what is there.
#pragma once

#include "core/result.h"

#include <QByteArrayView>
#include <QString>

namespace Cordon::Network {

// A ClientHello is normally one record of a few hundred bytes; one may span records, but none is legitimately
// this large, and the proxy buffers at most this much before deciding.
constexpr qsizetype MaxClientHelloBytes = 64 * 1024;

struct ClientHelloSni
{
    enum class Status
    {
        Incomplete, // the bytes so far are a valid prefix; read more
        Found,      // serverName holds the host_name entry
        Absent, // a complete ClientHello without a server_name extension (clients omit it for IP addresses)
    };
    Status status = Status::Incomplete;
    // The host_name as sent: ASCII letters, digits, '-', '.', '_' only (A-labels for IDNs).
    QString serverName;
};

// Parses the ClientHello at the start of data, reassembling it from consecutive handshake records. Errors:
// network.not_tls (the first record is not a TLS handshake record: plain HTTP, SSH, SSLv2), and
// network.bad_client_hello (malformed lengths, another handshake message first, a record of another type
// before the ClientHello is complete, duplicate extensions, more than one or an empty or non-ASCII host name,
// more than MaxClientHelloBytes).
Result<ClientHelloSni> parseClientHelloSni(QByteArrayView data);

} // namespace Cordon::Network
