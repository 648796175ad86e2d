// SPDX-License-Identifier: MIT
#include "network/tlssni.h"

#include <QSet>

namespace Cordon::Network {

namespace {

constexpr quint8 HandshakeRecord = 22;
constexpr quint8 ClientHelloMessage = 1;
constexpr qsizetype RecordHeaderBytes = 5;
// RFC 8446 5.1: a plaintext record carries at most 2^14 bytes.
constexpr qsizetype MaxRecordPayload = 16384;
constexpr quint16 ServerNameExtension = 0;
constexpr quint8 HostNameType = 0;
constexpr qsizetype MaxHostNameBytes = 255;

tl::unexpected<Error> notTls(const QString &why)
{
    return fail(QStringLiteral("network.not_tls"), QStringLiteral("not a TLS connection: ") + why);
}

tl::unexpected<Error> bad(const QString &why)
{
    return fail(QStringLiteral("network.bad_client_hello"),
                QStringLiteral("malformed TLS ClientHello: ") + why);
}

// A cursor over bytes that never reads past its end; every read says whether there was enough.
class Reader
{
public:
    explicit Reader(QByteArrayView bytes) : m_bytes(bytes) {}

    qsizetype left() const { return m_bytes.size() - m_pos; }

    bool read(int width, quint32 &out)
    {
        if (left() < width)
            return false;
        out = 0;
        for (int i = 0; i < width; ++i)
            out = (out << 8) | static_cast<quint8>(m_bytes[m_pos++]);
        return true;
    }

    bool take(qsizetype count, QByteArrayView &out)
    {
        if (count < 0 || left() < count)
            return false;
        out = m_bytes.sliced(m_pos, count);
        m_pos += count;
        return true;
    }

    // A vector with a width-byte length prefix.
    bool vector(int width, QByteArrayView &out)
    {
        quint32 length = 0;
        return read(width, length) && take(qsizetype(length), out);
    }

private:
    QByteArrayView m_bytes;
    qsizetype m_pos = 0;
};

bool isHostNameByte(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '.' || c == '_';
}

Result<QString> parseServerNameList(QByteArrayView extension)
{
    Reader outer(extension);
    QByteArrayView list;
    if (!outer.vector(2, list) || outer.left() != 0 || list.isEmpty())
        return bad(QStringLiteral("server_name list length"));
    Reader entries(list);
    QString name;
    while (entries.left() > 0) {
        quint32 type = 0;
        QByteArrayView value;
        if (!entries.read(1, type) || !entries.vector(2, value))
            return bad(QStringLiteral("server_name entry length"));
        // RFC 6066 3: host_name is the only type, and at most one name of a type is allowed. Two names are
        // how one would smuggle a second host past a check that reads only the first.
        if (type != HostNameType)
            return bad(QStringLiteral("unknown server_name type %1").arg(type));
        if (!name.isNull())
            return bad(QStringLiteral("more than one host_name"));
        if (value.isEmpty() || value.size() > MaxHostNameBytes ||
            !std::all_of(value.begin(), value.end(), isHostNameByte))
            return bad(QStringLiteral("the host_name is empty, too long or not an ASCII host name"));
        name = QString::fromLatin1(value);
    }
    return name;
}

Result<ClientHelloSni> parseClientHello(QByteArrayView body)
{
    Reader hello(body);
    quint32 version = 0;
    QByteArrayView skipped;
    if (!hello.read(2, version) || (version >> 8) != 3)
        return bad(QStringLiteral("client version"));
    if (!hello.take(32, skipped))
        return bad(QStringLiteral("random"));
    QByteArrayView sessionId;
    if (!hello.vector(1, sessionId) || sessionId.size() > 32)
        return bad(QStringLiteral("session id"));
    QByteArrayView cipherSuites;
    if (!hello.vector(2, cipherSuites) || cipherSuites.isEmpty() || cipherSuites.size() % 2 != 0)
        return bad(QStringLiteral("cipher suites"));
    QByteArrayView compression;
    if (!hello.vector(1, compression) || compression.isEmpty())
        return bad(QStringLiteral("compression methods"));
    ClientHelloSni result;
    result.status = ClientHelloSni::Status::Absent;
    if (hello.left() == 0)
        return result;
    QByteArrayView extensionBlock;
    if (!hello.vector(2, extensionBlock) || hello.left() != 0)
        return bad(QStringLiteral("extensions length"));
    Reader extensions(extensionBlock);
    QSet<quint32> seen;
    while (extensions.left() > 0) {
        quint32 type = 0;
        QByteArrayView data;
        if (!extensions.read(2, type) || !extensions.vector(2, data))
            return bad(QStringLiteral("extension length"));
        // RFC 8446 4.2: no extension type twice (a second server_name would be a second opinion).
        if (seen.contains(type))
            return bad(QStringLiteral("extension %1 appears twice").arg(type));
        seen.insert(type);
        if (type != ServerNameExtension)
            continue;
        const Result<QString> name = parseServerNameList(data);
        if (!name)
            return fail(name.error());
        result.status = ClientHelloSni::Status::Found;
        result.serverName = *name;
    }
    return result;
}

} // namespace

Result<ClientHelloSni> parseClientHelloSni(QByteArrayView data)
{
    // The handshake message may be split over several records: gather their payloads until it is complete.
    QByteArray handshake;
    qsizetype pos = 0;
    bool first = true;
    while (true) {
        const QByteArrayView rest = data.sliced(pos);
        // Judge the first bytes as soon as they are there, so that plain HTTP or SSH in a tunnel is refused
        // without waiting for five bytes that may never come.
        if (!rest.isEmpty() && static_cast<quint8>(rest[0]) != HandshakeRecord)
            return first ? notTls(QStringLiteral("the first record is not a handshake"))
                         : bad(QStringLiteral("another record type before the ClientHello is complete"));
        if (rest.size() >= 2 && static_cast<quint8>(rest[1]) != 3)
            return first ? notTls(QStringLiteral("unknown record version"))
                         : bad(QStringLiteral("record version"));
        if (rest.size() < RecordHeaderBytes)
            return ClientHelloSni{};
        const qsizetype length =
            (qsizetype(static_cast<quint8>(rest[3])) << 8) | qsizetype(static_cast<quint8>(rest[4]));
        if (length == 0 || length > MaxRecordPayload)
            return bad(QStringLiteral("record length %1").arg(length));
        const QByteArrayView payload = rest.sliced(RecordHeaderBytes);
        handshake.append(payload.first(std::min(payload.size(), length)));
        first = false;
        if (!handshake.isEmpty() && static_cast<quint8>(handshake[0]) != ClientHelloMessage)
            return bad(QStringLiteral("the first handshake message is not a ClientHello"));
        if (handshake.size() >= 4) {
            const qsizetype messageLength = (qsizetype(static_cast<quint8>(handshake[1])) << 16) |
                                            (qsizetype(static_cast<quint8>(handshake[2])) << 8) |
                                            qsizetype(static_cast<quint8>(handshake[3]));
            if (messageLength + 4 > MaxClientHelloBytes)
                return bad(QStringLiteral("ClientHello of %1 bytes").arg(messageLength));
            if (handshake.size() >= messageLength + 4)
                return parseClientHello(QByteArrayView(handshake).sliced(4, messageLength));
        }
        if (payload.size() < length)
            return ClientHelloSni{};
        pos += RecordHeaderBytes + length;
        if (pos > MaxClientHelloBytes + RecordHeaderBytes * 8)
            return bad(QStringLiteral("too many records before the ClientHello is complete"));
    }
}

} // namespace Cordon::Network
