// SPDX-License-Identifier: MIT
// The answers the proxy gives on its own behalf. Policy denials are recognisable, "blocked by sandbox policy:
// ..." with 403, so that agents and people see a rule and not a network fault (sandbox-runtime#273: agents
// retried with --no-proxy); upstream failures are 502 with the cause.
#pragma once

#include "core/result.h"

#include <QByteArray>
#include <QString>

namespace Cordon::Network {

// 400, 403, 429 or 502 for an error of the request parser (network.bad_request: 400; network.request_refused,
// network.bad_authority: 403).
int statusForError(const Error &error);

// "blocked by sandbox policy: <reason>" for 403 and 429, "bad request: <reason>" for 400, "upstream error:
// <reason>" for 502 and others, each with a final newline.
QString replyText(int status, const QString &reason);

// A complete response with a plain-text body and "Connection: close": the proxy closes after its own answers.
QByteArray proxyReply(int status, const QString &reason);

} // namespace Cordon::Network
