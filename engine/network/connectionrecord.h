// SPDX-License-Identifier: MIT
// What the proxy tells the rest of the daemon about each request it handled: the history's connection events
// and the GUI's live view are made from these.
#pragma once

#include <QDateTime>
#include <QHostAddress>
#include <QJsonObject>
#include <QMetaType>
#include <QString>
#include <QStringList>

namespace Cordon::Network {

enum class Decision
{
    // Passed every check. reason is empty, or says why an established connection ended early ("idle for 300
    // s", "the container's proxy was removed").
    Allowed,
    // Refused or cut by policy: the allowlists, the address guard, the TLS server name, a limit, a policy
    // change that no longer allows the host, a request the proxy refuses to interpret (403).
    Denied,
    // Malformed requests (400), upstream failures (502: DNS, refused, timeout), timeouts before a request was
    // complete.
    Error,
};

// "allowed", "denied", "error".
QString decisionName(Decision decision);

struct ConnectionRecord
{
    QString containerId;
    // Unique per EgressProxy; every request on one keep-alive client connection has the same one.
    quint64 connectionId = 0;
    // 0 for the first request (or the tunnel) of a connection, 1 for the next on keep-alive, ...
    int requestIndex = 0;
    QDateTime startedAt; // UTC, when the request head was complete (or the connection accepted)
    QString host;        // normalised; empty when the request could not be parsed
    // Only when host is empty: what came of the request line, quoted and cut (quoteUntrusted()), "" when
    // nothing did. `cordon network show` counts refusals per target, so that one garbled request does not
    // hide another.
    QString target;
    quint16 port = 0;
    QString method; // "CONNECT" for tunnels
    QString path;   // plain HTTP only, without the query
    Decision decision = Decision::Error;
    QString reason;
    // What the client was answered by the proxy itself (200 for an established tunnel, 400, 403, 429, 502),
    // or for plain HTTP the upstream's final status; 0 when the connection was closed without an answer.
    int status = 0;
    QHostAddress address; // the one address connected to; null when none was
    qint64 bytesUp = 0;   // to the upstream: request heads, bodies and tunnel data
    qint64 bytesDown = 0; // from the upstream to the client
    qint64 durationMs = 0;
    // Domain secrets (docs/secrets.md): the proxy terminated this CONNECT's TLS (and reads the requests
    // inside it, each recorded on its own); the secrets whose values it put into this request; the secret
    // whose placeholder made it refuse the request (an attempted exfiltration).
    bool tlsTerminated = false;
    QStringList secretsSent;
    QString secretRefused;

    // {"container_id", "connection_id", "request_index", "started_at" (ISO 8601), "host", "port", "method",
    // "path", "decision", "reason", "status", "address", "bytes_up", "bytes_down", "duration_ms"}, and
    // "target" when host is empty, "tls_terminated" when true, "secrets_sent" and "secret_refused" when set.
    QJsonObject toJson() const;
};

} // namespace Cordon::Network

Q_DECLARE_METATYPE(Cordon::Network::ConnectionRecord)
