// SPDX-License-Identifier: MIT
#include "network/httpforward.h"

#include "network/httprequest.h"
#include "sandbox/weakening.h"

#include <QTcpSocket>

namespace Cordon::Network {

namespace {

QString limitReason(const ByteBudget &budget)
{
    return QStringLiteral("more than %1 bytes on one connection (limit)").arg(budget.limit());
}

} // namespace

HttpForward::HttpForward(QTcpSocket *client, QTcpSocket *upstream, HttpRequestParser &parser,
                         QByteArray upstreamHead, QByteArray &pending, ByteBudget &budget, QObject *parent)
    : QObject(parent), m_client(client), m_upstream(upstream), m_parser(parser),
      m_head(std::move(upstreamHead)), m_pending(pending), m_budget(budget), m_response(parser.head().method)
{}

void HttpForward::scrubResponse(Secrets::SecretMasker masker, bool refuseCompressed)
{
    if (weakened(Guarantee::EchoMasking))
        return;
    m_scrubber =
        std::make_unique<ResponseScrubber>(std::move(masker), m_parser.head().method, refuseCompressed);
}

void HttpForward::start()
{
    connect(m_client, &QTcpSocket::readyRead, this, &HttpForward::pumpRequest);
    connect(m_upstream, &QTcpSocket::bytesWritten, this, &HttpForward::pumpRequest);
    connect(m_upstream, &QTcpSocket::readyRead, this, &HttpForward::pumpResponse);
    connect(m_client, &QTcpSocket::bytesWritten, this, &HttpForward::pumpResponse);
    connect(m_upstream, &QTcpSocket::disconnected, this, &HttpForward::pumpResponse);
    connect(m_client, &QTcpSocket::disconnected, this, &HttpForward::clientGone);

    const QByteArray head = std::exchange(m_head, QByteArray());
    if (!m_budget.spend(head.size())) {
        fail(0, Decision::Denied, limitReason(m_budget));
        return;
    }
    m_upstream->write(head);
    m_bytesUp += head.size();
    emit activity();
    pumpRequest();
    pumpResponse();
}

void HttpForward::pumpRequest()
{
    if (m_stopped)
        return;
    bool moved = false;
    while (m_parser.state() == HttpRequestParser::State::Body) {
        if (m_upstream->bytesToWrite() >= HighWaterBytes)
            break;
        if (m_pending.isEmpty()) {
            m_pending = readChunk(*m_client);
            if (m_pending.isEmpty())
                break;
        }
        QByteArray out;
        const qsizetype used = m_parser.feed(m_pending, &out);
        m_pending.remove(0, used);
        if (m_parser.state() == HttpRequestParser::State::Failed) {
            fail(400, Decision::Error, toQt(m_parser.error().message()));
            return;
        }
        if (out.isEmpty())
            continue;
        if (!m_budget.spend(out.size())) {
            fail(0, Decision::Denied, limitReason(m_budget));
            return;
        }
        m_upstream->write(out);
        m_bytesUp += out.size();
        moved = true;
    }
    if (moved)
        emit activity();
    if (m_parser.state() == HttpRequestParser::State::Done && !m_requestDone) {
        m_requestDone = true;
        maybeFinish();
        return;
    }
    if (!m_requestDone && m_client->state() == QAbstractSocket::UnconnectedState &&
        m_client->bytesAvailable() == 0 && m_pending.isEmpty())
        clientGone();
}

void HttpForward::pumpResponse()
{
    if (m_stopped)
        return;
    bool moved = false;
    while (!m_response.isComplete()) {
        if (m_client->bytesToWrite() >= HighWaterBytes)
            break;
        const QByteArray chunk = readChunk(*m_upstream);
        if (chunk.isEmpty())
            break;
        const qsizetype used = m_response.feed(chunk);
        if (m_response.hasFailed()) {
            fail(502, Decision::Error, toQt(m_response.error().message()));
            return;
        }
        // Bytes after the end of the response: the upstream is confused or hostile, and its connection is not
        // reused. They are not passed on.
        if (used < chunk.size())
            m_trailingBytes = true;
        if (!m_budget.spend(used)) {
            fail(0, Decision::Denied, limitReason(m_budget));
            return;
        }
        QByteArray out = QByteArrayView(chunk).first(used).toByteArray();
        if (m_scrubber) {
            out = m_scrubber->feed(out);
            if (!m_scrubber->refusal().isEmpty()) {
                fail(502, Decision::Denied, m_scrubber->refusal());
                return;
            }
            if (m_scrubber->hasFailed()) {
                fail(502, Decision::Error, QStringLiteral("malformed response from the upstream"));
                return;
            }
        }
        m_client->write(out);
        m_bytesDown += used;
        m_relayed = m_relayed || !out.isEmpty();
        moved = true;
    }
    if (moved)
        emit activity();
    if (!m_response.isComplete() && m_upstream->state() == QAbstractSocket::UnconnectedState &&
        m_upstream->bytesAvailable() == 0) {
        m_response.finish();
        if (m_response.hasFailed()) {
            fail(502, Decision::Error,
                 m_relayed ? toQt(m_response.error().message())
                           : QStringLiteral("the upstream closed the connection without a response"));
            return;
        }
        // A response that ends with the connection: what the scrubber held back goes too.
        if (m_scrubber)
            m_client->write(m_scrubber->finish());
    }
    if (m_response.isComplete())
        maybeFinish();
}

void HttpForward::clientGone()
{
    if (m_stopped)
        return;
    fail(0, Decision::Allowed,
         m_requestDone
             ? QStringLiteral("the client closed the connection before the response was complete")
             : QStringLiteral("the client closed the connection before the request body was complete"));
}

void HttpForward::maybeFinish()
{
    if (m_stopped || !m_response.isComplete())
        return;
    if (!m_requestDone) {
        // The upstream answered before the body was complete (413, 401 ...). The rest of the body cannot be
        // told apart from a next request, so the connection ends here.
        abandon();
        emit finished(false, false);
        return;
    }
    const bool keepUpstream =
        m_response.keepAlive() && !m_trailingBytes && m_upstream->state() == QAbstractSocket::ConnectedState;
    const bool keepClient = m_parser.head().keepAlive && m_response.keepAlive() &&
                            m_client->state() == QAbstractSocket::ConnectedState;
    abandon();
    emit finished(keepClient, keepUpstream);
}

void HttpForward::fail(int status, Decision decision, const QString &reason)
{
    if (m_stopped)
        return;
    abandon();
    emit failed(m_relayed ? 0 : status, decision, reason);
}

void HttpForward::abandon()
{
    m_stopped = true;
    m_client->disconnect(this);
    m_upstream->disconnect(this);
}

} // namespace Cordon::Network
