// SPDX-License-Identifier: MIT
#include "network/proxyreply.h"

namespace Cordon::Network {

namespace {

QByteArray statusLine(int status)
{
    switch (status) {
    case 400:
        return "400 Bad Request";
    case 403:
        return "403 Forbidden";
    case 408:
        return "408 Request Timeout";
    case 429:
        return "429 Too Many Requests";
    case 502:
        return "502 Bad Gateway";
    case 504:
        return "504 Gateway Timeout";
    default:
        break;
    }
    return QByteArray::number(status) + " Error";
}

} // namespace

int statusForError(const Error &error)
{
    if (error.code() == "network.bad_request")
        return 400;
    if (error.code() == "network.request_refused" || error.code() == "network.bad_authority")
        return 403;
    return 502;
}

QString replyText(int status, const QString &reason)
{
    if (status == 403 || status == 429)
        return QStringLiteral("blocked by sandbox policy: ") + reason + u'\n';
    if (status == 400)
        return QStringLiteral("bad request: ") + reason + u'\n';
    return QStringLiteral("upstream error: ") + reason + u'\n';
}

QByteArray proxyReply(int status, const QString &reason)
{
    const QByteArray body = replyText(status, reason).toUtf8();
    return "HTTP/1.1 " + statusLine(status) +
           "\r\n"
           "Content-Type: text/plain; charset=utf-8\r\n"
           "Content-Length: " +
           QByteArray::number(body.size()) +
           "\r\n"
           "Connection: close\r\n"
           "Proxy-Connection: close\r\n"
           "\r\n" +
           body;
}

} // namespace Cordon::Network
