// SPDX-License-Identifier: MIT
// The control protocol's wire format (docs/protocol.md) as pure functions: frames are a 4-byte big-endian
// length and that many bytes of compact UTF-8 JSON; messages are requests, responses, errors and events.
#pragma once

#include "core/result.h"
#include "daemon/lite/frames.h"
#include "sandbox/json.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QJsonObject>
#include <QString>

#include <optional>

namespace Cordon::Daemon {

// The framing is the Qt-free client's (daemon/lite/frames.h); only the JSON is parsed with Qt here.
inline constexpr int ProtocolVersion = Lite::ProtocolVersion;
inline constexpr qint64 MaxFrameBytes = Lite::MaxFrameBytes;
inline constexpr int FrameHeaderBytes = Lite::FrameHeaderBytes;

QByteArray encodeFrame(const QJsonObject &message);

// Splits a byte stream into JSON objects. Feed it whatever arrived; next() yields each complete frame once.
class FrameDecoder
{
public:
    void feed(QByteArrayView bytes);

    // std::nullopt: no complete frame buffered (or the decoder is broken and has already said so).
    // An error: `protocol.invalid_json` for that frame only (decoding continues with the next one), or
    // `protocol.frame_too_large`, after which the stream cannot be resynchronised: the decoder drops
    // everything and isBroken() is true, and the caller must close the connection.
    std::optional<Result<QJsonObject>> next();

    bool isBroken() const { return m_splitter.isBroken(); }
    qsizetype bufferedBytes() const { return static_cast<qsizetype>(m_splitter.bufferedBytes()); }

private:
    Lite::FrameSplitter m_splitter;
};

struct Request
{
    qint64 id = 0;
    QString method;
    QJsonObject params;
};

// `protocol.invalid_request` for a missing or ill-typed id or method, or params that are not an object.
Result<Request> parseRequest(const QJsonObject &message);
// The request's id if it has a usable one, so even a refused request can be answered under its own id.
std::optional<qint64> requestId(const QJsonObject &message);

QJsonObject makeRequest(qint64 id, const QString &method, const QJsonObject &params);
QJsonObject makeResult(qint64 id, QJsonObject result);
QJsonObject makeErrorResponse(qint64 id, const Error &error);
// An error that answers no particular request (unreadable frame, refused connection): its id is null.
QJsonObject makeConnectionError(const Error &error);
QJsonObject makeEvent(const QString &name, QJsonObject data);

// The wire form of an error, {code, message, hint}, and back. A malformed error object becomes
// `protocol.invalid_response`.
// {code, message, hint}; a message longer than MaxErrorMessageChars is cut there, marked "... (cut)".
constexpr qsizetype MaxErrorMessageChars = 2048;
QJsonObject errorToJson(const Error &error);
Error errorFromJson(const QJsonObject &error);

struct Response
{
    std::optional<qint64> id; // empty for a connection error (id null)
    Result<QJsonObject> outcome;
};

struct Event
{
    QString name;
    QJsonObject data;
};

// Events are the frames without an id that carry `event`.
bool isEvent(const QJsonObject &message);
// `protocol.invalid_response` when the message is neither a well-formed result nor a well-formed error.
Result<Response> parseResponse(const QJsonObject &message);
Result<Event> parseEvent(const QJsonObject &message);

} // namespace Cordon::Daemon
