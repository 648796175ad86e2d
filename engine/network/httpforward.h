// SPDX-License-Identifier: MIT
// One plain HTTP exchange through the proxy: the checked head goes upstream in origin-form, the body follows
// re-framed by the request parser, and the response comes back as the upstream sent it while a response
// parser finds its end, so that the client's connection can carry its next request (which is parsed and
// checked again, SECURITY.md 2.9).
#pragma once

#include "network/connectionrecord.h"
#include "network/domainsecrets.h"
#include "network/httpresponse.h"
#include "network/proxylimits.h"
#include "network/responsescrubber.h"

#include <QObject>

#include <memory>

class QTcpSocket;

namespace Cordon::Network {

class HttpRequestParser;

class HttpForward final : public QObject
{
    Q_OBJECT

public:
    // parser is in Body or Done with this request's head; upstreamHead is that head as it goes upstream
    // (HttpRequestHead::upstreamHead(), with domain secrets put in); pending holds client bytes read but not
    // parsed yet, and keeps what follows this request (a pipelined next request). Nothing is owned.
    HttpForward(QTcpSocket *client, QTcpSocket *upstream, HttpRequestParser &parser, QByteArray upstreamHead,
                QByteArray &pending, ByteBudget &budget, QObject *parent = nullptr);

    // Inside TLS the proxy terminated for domain secrets: the response is rewritten by a ResponseScrubber,
    // which masks every form of every value with '*'s and refuses a compressed one when refuseCompressed.
    void scrubResponse(Secrets::SecretMasker masker, bool refuseCompressed);

    void start();
    // Stops at once without finished() or failed(): the owner is closing the connection itself.
    void abandon();
    qint64 bytesUp() const { return m_bytesUp; }
    qint64 bytesDown() const { return m_bytesDown; }
    // The upstream's final status, 0 before its head arrived.
    int status() const { return m_response.statusCode(); }

signals:
    // The response was relayed completely. keepClient: the client's connection may carry another request;
    // keepUpstream: the upstream connection may serve the next request to the same host and port. After it
    // (and after failed) the exchange no longer touches the sockets.
    void finished(bool keepClient, bool keepUpstream);
    // status: what to answer the client (400 for a malformed body, 502 for a broken upstream) when nothing of
    // the response has been relayed yet, else 0: the client connection can only be closed.
    void failed(int status, Cordon::Network::Decision decision, const QString &reason);
    void activity();

private:
    void pumpRequest();
    void pumpResponse();
    void clientGone();
    void maybeFinish();
    void fail(int status, Decision decision, const QString &reason);

    QTcpSocket *m_client;
    QTcpSocket *m_upstream;
    HttpRequestParser &m_parser;
    QByteArray m_head;
    QByteArray &m_pending;
    ByteBudget &m_budget;
    HttpResponseFramer m_response;
    std::unique_ptr<ResponseScrubber> m_scrubber;
    qint64 m_bytesUp = 0;
    qint64 m_bytesDown = 0;
    bool m_requestDone = false;
    bool m_relayed = false;
    bool m_trailingBytes = false;
    bool m_stopped = false;
};

} // namespace Cordon::Network
