// SPDX-License-Identifier: MIT
// ProxyConnection: domain secrets (docs/secrets.md). A CONNECT to a domain that one of the container's domain
// secrets may go to is terminated: the proxy first makes its own TLS connection upstream, verified against
// the host's trust store (a certificate error refuses the CONNECT with 502 before the client is told
// anything), then answers 200 and accepts the client's TLS with a leaf certificate of the container's
// authority. Each request inside is then parsed, checked against the allowlist (methods and path prefixes
// too), has its placeholders replaced, and is forwarded like plain HTTP. Every other CONNECT stays a blind
// tunnel, and every request head anywhere is searched for placeholders that may not go there.
#include "network/proxyconnection.h"

#include "network/domainsecrets.h"
#include "network/interceptionauthority.h"
#include "network/proxycontext.h"

#include <QSslConfiguration>
#include <QSslSocket>

namespace Cordon::Network {

namespace {

// HTTP/2 would need a parser of its own: the upstream is offered HTTP/1.1 only. The program is offered
// nothing: Qt's server answers a client whose ALPN list lacks its own protocols with one anyway, which the
// client refuses (bad_extension), so one that offers only http/1.0 or h2 could not even connect. Without
// ALPN it speaks HTTP/1.x, or HTTP/2, which refuseHttp2() answers.
const QList<QByteArray> &http11()
{
    static const QList<QByteArray> protocols{QByteArrayLiteral("http/1.1")};
    return protocols;
}

QString errorList(const QList<QSslError> &errors)
{
    QStringList texts;
    for (const QSslError &error : errors)
        texts.append(error.errorString());
    return texts.join(QStringLiteral("; "));
}

} // namespace

bool ProxyConnection::applySecrets()
{
    const HttpRequestHead &head = m_parser->head();
    m_outgoingHead = head.isConnect() ? QByteArray() : head.upstreamHead();
    if (!m_context->secrets || m_context->secrets->isEmpty())
        return true;
    // A CONNECT's own fields go nowhere; its target becomes a DNS query and a TLS server name.
    QByteArray connectTarget = head.target;
    QByteArray &searched = head.isConnect() ? connectTarget : m_outgoingHead;
    const DomainSecrets::Verdict verdict = m_context->secrets->apply(searched, m_target.host, m_intercepting);
    if (!verdict.allowed) {
        m_outgoingHead.clear();
        m_record.secretRefused = verdict.refusedSecret;
        refuse(403, Decision::Denied, verdict.reason);
        return false;
    }
    m_record.secretsSent = verdict.sent;
    // Its answer must come uncompressed for the proxy to look into it for an echo of the value.
    if (!verdict.sent.isEmpty() && !m_context->secrets->allowsCompressed(m_target.host, verdict.sent))
        m_outgoingHead = withIdentityEncoding(m_outgoingHead);
    return true;
}

bool ProxyConnection::interceptsTarget() const
{
    return m_context->secrets && m_context->authority && m_context->secrets->intercepts(m_target.host);
}

void ProxyConnection::startInterception()
{
    m_phase = Phase::Handshaking;
    m_record.tlsTerminated = true;
    // Decided when the CONNECT was checked (a rule with methods or paths allowed it only because of this).
    if (!qobject_cast<QSslSocket *>(m_client) || !m_context->authority) {
        refuse(502, Decision::Error, QStringLiteral("the proxy cannot terminate TLS on this connection"));
        return;
    }
    // The client's TLS begins after our 200; anything it sent before would be read as plain text.
    if (!m_pending.isEmpty() || m_client->bytesAvailable() > 0) {
        refuse(400, Decision::Error,
               QStringLiteral("data after the CONNECT head, before the tunnel was open"));
        return;
    }
    startUpstreamTls(&ProxyConnection::clientTlsReady);
}

// TLS upstream on the connected m_upstream, verified for m_target.host; `then` runs once it is encrypted.
void ProxyConnection::startUpstreamTls(void (ProxyConnection::*then)())
{
    m_phase = Phase::Handshaking;
    auto *upstream = qobject_cast<QSslSocket *>(m_upstream);
    if (!upstream) {
        refuse(502, Decision::Error, QStringLiteral("the proxy cannot start TLS to %1").arg(m_target.host));
        return;
    }
    QSslConfiguration config = QSslConfiguration::defaultConfiguration();
    if (m_context->upstreamTrust)
        config.setCaCertificates(m_context->upstreamTrust->certificates());
    config.setPeerVerifyMode(QSslSocket::VerifyPeer);
    config.setProtocol(QSsl::SecureProtocols);
    config.setAllowedNextProtocols(http11());
    upstream->setSslConfiguration(config);
    upstream->setPeerVerifyName(m_target.host);
    m_handshake.append(connect(upstream, &QSslSocket::encrypted, this, [this, then] {
        endHandshake();
        (this->*then)();
    }));
    // Never ignored: a certificate the host does not trust is where a secret would go to the wrong party.
    // The refusal is queued: it drops the socket, which is still inside its handshake here.
    m_handshake.append(
        connect(upstream, &QSslSocket::sslErrors, this, [this](const QList<QSslError> &errors) {
            endHandshake();
            const QString reason = QStringLiteral("the TLS certificate of %1 is not trusted: %2")
                                       .arg(m_target.host, errorList(errors));
            QMetaObject::invokeMethod(
                this, [this, reason] { refuse(502, Decision::Denied, reason); }, Qt::QueuedConnection);
        }));
    m_handshake.append(connect(upstream, &QSslSocket::errorOccurred, this, [this, upstream] {
        endHandshake();
        const QString reason =
            QStringLiteral("TLS to %1 failed: %2").arg(m_target.host, upstream->errorString());
        QMetaObject::invokeMethod(
            this, [this, reason] { refuse(502, Decision::Error, reason); }, Qt::QueuedConnection);
    }));
    upstream->startClientEncryption();
}

void ProxyConnection::clientTlsReady()
{
    auto *client = qobject_cast<QSslSocket *>(m_client);
    // Again: bytes may have come while the proxy spoke TLS upstream, and they would be read as a handshake.
    if (!m_pending.isEmpty() || m_client->bytesAvailable() > 0) {
        refuse(400, Decision::Error,
               QStringLiteral("data after the CONNECT head, before the tunnel was open"));
        return;
    }
    auto leaf = m_context->authority->leafFor(m_target.host);
    if (!leaf) {
        refuse(502, Decision::Error, toQt(leaf.error().message()));
        return;
    }
    QSslConfiguration config = QSslConfiguration::defaultConfiguration();
    config.setLocalCertificateChain({leaf->certificate, m_context->authority->certificate()});
    config.setPrivateKey(leaf->key);
    config.setPeerVerifyMode(QSslSocket::VerifyNone);
    config.setProtocol(QSsl::TlsV1_2OrLater);
    config.setAllowedNextProtocols({});
    client->setSslConfiguration(config);
    m_record.status = 200;
    client->write("HTTP/1.1 200 Connection established\r\n\r\n");
    m_handshake.append(connect(client, &QSslSocket::encrypted, this, [this] {
        endHandshake();
        // The CONNECT itself ends here; each request inside is recorded on its own.
        finishRecord(Decision::Allowed, QString(), 200);
        m_intercepting = true;
        m_parser = std::make_unique<HttpRequestParser>(Authority{m_target.host, m_target.port});
        ++m_requestIndex;
        m_phase = Phase::Head;
        QMetaObject::invokeMethod(this, &ProxyConnection::readHead, Qt::QueuedConnection);
    }));
    const auto clientRefused = [this, client](const QString &why) {
        endHandshake();
        // A program that does not trust the authority sends a certificate alert, or (many TLS libraries)
        // just closes the connection; any other alert (a protocol it lacks, an extension it refused) is
        // named as it was.
        const bool certificate = !why.contains(QLatin1String("alert"), Qt::CaseInsensitive) ||
                                 why.contains(QLatin1String("certificate"), Qt::CaseInsensitive) ||
                                 why.contains(QLatin1String("unknown ca"), Qt::CaseInsensitive);
        finishRecord(Decision::Error,
                     certificate
                         ? QStringLiteral("the program did not accept the proxy's certificate for %1 (%2); "
                                          "it must trust /etc/cordon/ca-certificates.crt")
                               .arg(m_target.host, why)
                         : QStringLiteral("the TLS handshake with the program for %1 failed: %2")
                               .arg(m_target.host, why),
                     200);
        client->abort();
        closeNow();
    };
    m_handshake.append(
        connect(client, &QSslSocket::sslErrors, this,
                [clientRefused](const QList<QSslError> &errors) { clientRefused(errorList(errors)); }));
    m_handshake.append(connect(client, &QSslSocket::errorOccurred, this,
                               [clientRefused, client] { clientRefused(client->errorString()); }));
    client->startServerEncryption();
}

void ProxyConnection::endHandshake()
{
    for (const QMetaObject::Connection &connection : std::as_const(m_handshake))
        disconnect(connection);
    m_handshake.clear();
}

} // namespace Cordon::Network
