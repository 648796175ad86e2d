// SPDX-License-Identifier: MIT
#include "auditrunner/echoupstream.h"

#include <QMutexLocker>
#include <QSslCertificate>
#include <QSslConfiguration>
#include <QSslKey>
#include <QSslSocket>
#include <QTcpServer>

namespace Cordon::Audit {

namespace {

// A request head is a few hundred bytes; anything past this is not the sandbox's curl or Python.
constexpr qsizetype MaxHeadBytes = 64 * 1024;

QByteArray authorizationOf(const QByteArray &head)
{
    for (const QByteArray &line : head.split('\n')) {
        const qsizetype colon = line.indexOf(':');
        if (colon > 0 && line.left(colon).trimmed().toLower() == "authorization")
            return line.mid(colon + 1).trimmed();
    }
    return {};
}

QByteArray sized(int status, const QByteArray &body)
{
    return "HTTP/1.1 " + QByteArray::number(status) + (status == 200 ? " OK" : " Not Found") +
           "\r\nContent-Type: text/plain\r\nContent-Length: " + QByteArray::number(body.size()) + "\r\n\r\n" +
           body;
}

QByteArray chunked(const QByteArray &body)
{
    QByteArray framed = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n";
    for (qsizetype at = 0; at < body.size(); at += EchoUpstream::ChunkBytes) {
        const QByteArray piece = body.mid(at, EchoUpstream::ChunkBytes);
        framed += QByteArray::number(piece.size(), 16) + "\r\n" + piece + "\r\n";
    }
    return framed + "0\r\n\r\n";
}

class Server final : public QTcpServer
{
public:
    Server(const LoopbackCertificate &identity, std::shared_ptr<EchoUpstream::Log> log)
        : m_certificate(identity.certificatePem, QSsl::Pem),
          m_key(identity.keyPem, QSsl::Ec, QSsl::Pem, QSsl::PrivateKey), m_log(std::move(log))
    {}

    bool hasIdentity() const { return !m_certificate.isNull() && !m_key.isNull(); }

protected:
    void incomingConnection(qintptr descriptor) override
    {
        auto *socket = new QSslSocket(this);
        if (!socket->setSocketDescriptor(descriptor)) {
            delete socket;
            return;
        }
        QSslConfiguration config = socket->sslConfiguration();
        config.setLocalCertificate(m_certificate);
        config.setPrivateKey(m_key);
        config.setPeerVerifyMode(QSslSocket::VerifyNone);
        socket->setSslConfiguration(config);
        auto buffer = std::make_shared<QByteArray>();
        connect(socket, &QSslSocket::readyRead, socket, [this, socket, buffer] { serve(*socket, *buffer); });
        connect(socket, &QSslSocket::disconnected, socket, &QObject::deleteLater);
        connect(socket, &QSslSocket::errorOccurred, socket, [socket] { socket->close(); });
        socket->startServerEncryption();
    }

private:
    // Every whole request head in `buffer` (GET only: nothing the row sends has a body), answered in order
    // on the same connection, which the proxy may keep for the next request.
    void serve(QSslSocket &socket, QByteArray &buffer)
    {
        buffer += socket.readAll();
        for (qsizetype end = buffer.indexOf("\r\n\r\n"); end >= 0; end = buffer.indexOf("\r\n\r\n")) {
            const QByteArray head = buffer.left(end);
            buffer.remove(0, end + 4);
            const QList<QByteArray> requestLine = head.left(head.indexOf("\r\n")).split(' ');
            const QByteArray path = requestLine.size() >= 2 ? requestLine.at(1) : QByteArray();
            const QByteArray authorization = authorizationOf(head);
            {
                const QMutexLocker locker(&m_log->mutex);
                m_log->requests.append({path, authorization});
            }
            if (!EchoUpstream::paths().contains(path))
                socket.write(sized(404, "no such echo\n"));
            else if (path == "/split")
                socket.write(chunked(EchoUpstream::body(path, authorization)));
            else
                socket.write(sized(200, EchoUpstream::body(path, authorization)));
        }
        if (buffer.size() > MaxHeadBytes)
            socket.abort();
    }

    QSslCertificate m_certificate;
    QSslKey m_key;
    std::shared_ptr<EchoUpstream::Log> m_log;
};

} // namespace

const QList<QByteArray> &EchoUpstream::paths()
{
    static const QList<QByteArray> all{"/raw", "/base64", "/hex", "/split"};
    return all;
}

QByteArray EchoUpstream::body(const QByteArray &path, const QByteArray &authorization)
{
    if (path == "/base64")
        return "b64=" + authorization.toBase64() + " end\n";
    if (path == "/hex")
        return "hex=" + authorization.toHex() + " end\n";
    if (path == "/split") {
        // The value's middle on the first chunk boundary: framing bytes ("\r\n1000\r\n") then split it.
        const qsizetype padding = qMax<qsizetype>(0, ChunkBytes - authorization.size() / 2);
        return QByteArray(padding, 'x') + authorization + " end\n";
    }
    return "echo: " + authorization + " end\n";
}

EchoUpstream::EchoUpstream() : m_log(std::make_shared<Log>()) {}

EchoUpstream::~EchoUpstream()
{
    m_thread.quit();
    m_thread.wait();
}

Result<quint16> EchoUpstream::start(const LoopbackCertificate &identity)
{
    if (!QSslSocket::supportsSsl())
        return fail(QStringLiteral("audit.echo_upstream"), QStringLiteral("Qt has no TLS backend here"));
    auto *server = new Server(identity, m_log);
    if (!server->hasIdentity()) {
        delete server;
        return fail(QStringLiteral("audit.echo_upstream"),
                    QStringLiteral("Qt could not read the echo upstream's certificate and key"));
    }
    server->moveToThread(&m_thread);
    QObject::connect(&m_thread, &QThread::finished, server, &QObject::deleteLater);
    m_thread.start();
    quint16 port = 0;
    QMetaObject::invokeMethod(
        server,
        [server] { return server->listen(QHostAddress::LocalHost, 0) ? server->serverPort() : quint16(0); },
        Qt::BlockingQueuedConnection, &port);
    if (port == 0)
        return fail(QStringLiteral("audit.echo_upstream"),
                    QStringLiteral("the echo upstream could not listen on 127.0.0.1"));
    return port;
}

QList<EchoUpstream::Request> EchoUpstream::requests() const
{
    const QMutexLocker locker(&m_log->mutex);
    return m_log->requests;
}

} // namespace Cordon::Audit
