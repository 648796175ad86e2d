// SPDX-License-Identifier: MIT
#include "daemon/framecodec.h"

#include "core/plainbridge.h"

#include <QJsonDocument>
#include <QJsonValue>
#include <QtEndian>

namespace Cordon::Daemon {

namespace {

const QString IdKey = QStringLiteral("id");
const QString MethodKey = QStringLiteral("method");
const QString ParamsKey = QStringLiteral("params");
const QString ResultKey = QStringLiteral("result");
const QString ErrorKey = QStringLiteral("error");
const QString EventKey = QStringLiteral("event");
const QString DataKey = QStringLiteral("data");

// A JSON number that is a whole number representable as qint64. Qt keeps integer literals as qint64, so ids
// beyond 2^53 survive; toInteger() falls back to its default for fractions and out-of-range values, and two
// different defaults tell "not an integer" apart from an id that happens to equal one of them.
std::optional<qint64> integerValue(const QJsonValue &value)
{
    if (!value.isDouble())
        return std::nullopt;
    const qint64 a = value.toInteger(0);
    const qint64 b = value.toInteger(1);
    if (a != b)
        return std::nullopt;
    return a;
}

tl::unexpected<Error> invalidResponse(const QString &why)
{
    return fail(QStringLiteral("protocol.invalid_response"),
                QStringLiteral("malformed message from cordond: ") + why);
}

} // namespace

QByteArray encodeFrame(const QJsonObject &message)
{
    const QByteArray json = QJsonDocument(message).toJson(QJsonDocument::Compact);
    QByteArray frame(FrameHeaderBytes, Qt::Uninitialized);
    qToBigEndian<quint32>(static_cast<quint32>(json.size()), frame.data());
    frame.append(json);
    return frame;
}

void FrameDecoder::feed(QByteArrayView bytes)
{
    m_splitter.feed(std::string_view(bytes.data(), static_cast<std::size_t>(bytes.size())));
}

std::optional<Result<QJsonObject>> FrameDecoder::next()
{
    std::string_view frame;
    quint32 length = 0;
    const Lite::FrameSplitter::Status status = m_splitter.next(frame, length);
    if (status == Lite::FrameSplitter::Status::NeedMore)
        return std::nullopt;
    if (status == Lite::FrameSplitter::Status::TooLarge) {
        return fail(
            QStringLiteral("protocol.frame_too_large"),
            QStringLiteral("a frame of %1 bytes is over the limit of %2 bytes; closing the connection")
                .arg(length)
                .arg(MaxFrameBytes));
    }

    // The one strict reader, as every client's: QJsonDocument would keep the last of two duplicate keys
    // (a policy's "name" twice) and pass a lone surrogate on. The body is read in place; the splitter's
    // buffer is not touched until the next feed().
    const Result<Json> document = Json::read(frame);
    if (!document) {
        return fail(QStringLiteral("protocol.invalid_json"),
                    QStringLiteral("a frame of %1 bytes is not valid JSON: %2")
                        .arg(length)
                        .arg(toQt(document.error().message())));
    }
    if (!document->isObject()) {
        return fail(QStringLiteral("protocol.invalid_json"),
                    QStringLiteral("a frame holds a JSON %1, not an object")
                        .arg(document->isArray() ? QStringLiteral("array") : QStringLiteral("value")));
    }
    return toQt(*document).toObject();
}

std::optional<qint64> requestId(const QJsonObject &message)
{
    return integerValue(message.value(IdKey));
}

Result<Request> parseRequest(const QJsonObject &message)
{
    const std::optional<qint64> id = requestId(message);
    if (!id) {
        return fail(QStringLiteral("protocol.invalid_request"),
                    message.contains(IdKey) ? QStringLiteral("request `id` must be an integer")
                                            : QStringLiteral("request has no `id`"));
    }
    const QJsonValue method = message.value(MethodKey);
    if (!method.isString() || method.toString().isEmpty()) {
        return fail(QStringLiteral("protocol.invalid_request"),
                    message.contains(MethodKey)
                        ? QStringLiteral("request `method` must be a non-empty string")
                        : QStringLiteral("request has no `method`"));
    }
    const QJsonValue params = message.value(ParamsKey);
    if (!params.isUndefined() && !params.isNull() && !params.isObject()) {
        return fail(QStringLiteral("protocol.invalid_request"),
                    QStringLiteral("request `params` must be an object"));
    }
    return Request{*id, method.toString(), params.toObject()};
}

QJsonObject makeRequest(qint64 id, const QString &method, const QJsonObject &params)
{
    return QJsonObject{{IdKey, id}, {MethodKey, method}, {ParamsKey, params}};
}

QJsonObject makeResult(qint64 id, QJsonObject result)
{
    return QJsonObject{{IdKey, id}, {ResultKey, std::move(result)}};
}

QJsonObject makeErrorResponse(qint64 id, const Error &error)
{
    return QJsonObject{{IdKey, id}, {ErrorKey, errorToJson(error)}};
}

QJsonObject makeConnectionError(const Error &error)
{
    return QJsonObject{{IdKey, QJsonValue::Null}, {ErrorKey, errorToJson(error)}};
}

QJsonObject makeEvent(const QString &name, QJsonObject data)
{
    return QJsonObject{{EventKey, name}, {DataKey, std::move(data)}};
}

QJsonObject errorToJson(const Error &error)
{
    // Messages may quote what a client or a sandbox sent: cut them, so that no error echoes megabytes back.
    QString message = toQt(error.message());
    if (message.size() > MaxErrorMessageChars) {
        message.truncate(MaxErrorMessageChars);
        if (message.back().isHighSurrogate())
            message.chop(1);
        message += QStringLiteral("... (cut)");
    }
    return QJsonObject{{QStringLiteral("code"), toQt(error.code())},
                       {QStringLiteral("message"), message},
                       {QStringLiteral("hint"), toQt(error.hint())}};
}

Error errorFromJson(const QJsonObject &error)
{
    const QJsonValue code = error.value(QStringLiteral("code"));
    const QJsonValue message = error.value(QStringLiteral("message"));
    if (!code.isString() || code.toString().isEmpty() || !message.isString()) {
        return makeError(QStringLiteral("protocol.invalid_response"),
                         QStringLiteral("malformed error from cordond: ") +
                             QString::fromUtf8(QJsonDocument(error).toJson(QJsonDocument::Compact)));
    }
    // The hint is not carried over: Error::hint() looks it up by code from the same table on this side.
    return makeError(code.toString(), message.toString());
}

bool isEvent(const QJsonObject &message)
{
    return !message.contains(IdKey) && message.contains(EventKey);
}

Result<Response> parseResponse(const QJsonObject &message)
{
    const QJsonValue idValue = message.value(IdKey);
    std::optional<qint64> id;
    if (!idValue.isNull()) {
        id = integerValue(idValue);
        if (!id)
            return invalidResponse(QStringLiteral("response without an integer `id`"));
    }
    const QJsonValue result = message.value(ResultKey);
    const QJsonValue error = message.value(ErrorKey);
    if (result.isObject() && error.isUndefined() && id)
        return Response{id, result.toObject()};
    if (error.isObject() && result.isUndefined())
        return Response{id, tl::unexpected(errorFromJson(error.toObject()))};
    return invalidResponse(
        QStringLiteral("a response needs exactly one of `result` or `error` as an object"));
}

Result<Event> parseEvent(const QJsonObject &message)
{
    const QJsonValue name = message.value(EventKey);
    const QJsonValue data = message.value(DataKey);
    if (!name.isString() || name.toString().isEmpty())
        return invalidResponse(QStringLiteral("event without a name"));
    if (!data.isUndefined() && !data.isObject())
        return invalidResponse(QStringLiteral("event `data` must be an object"));
    return Event{name.toString(), data.toObject()};
}

} // namespace Cordon::Daemon
