// SPDX-License-Identifier: MIT
// Strict parameter readers for the protocol's methods: a wrong type is an error that names the parameter
// (`protocol.invalid_params`), never a silent default.
#pragma once

#include "core/result.h"

#include <QByteArray>
#include <QJsonObject>
#include <QString>

#include <optional>

namespace Cordon::Api {

Error invalidParams(const QString &message);

Result<QString> requireString(const QJsonObject &params, const QString &key);
// Empty when absent or null.
Result<QString> optionalString(const QJsonObject &params, const QString &key);
Result<qint64> optionalInteger(const QJsonObject &params, const QString &key, qint64 fallback, qint64 min,
                               qint64 max);
// False when absent or null.
Result<bool> optionalBool(const QJsonObject &params, const QString &key);
// Base64 text of at most 9 MiB decoded; std::nullopt when absent or null.
Result<std::optional<QByteArray>> optionalBase64(const QJsonObject &params, const QString &key);

// Who asks for a container or a secret change on someone else's behalf: empty when absent, else only
// "audit:<id>" (a Go/No-Go audit), which history lists leave out by default (docs/protocol.md).
Result<QString> optionalOrigin(const QJsonObject &params);

// {key: value}: the answer shape of methods that return one object.
QJsonObject wrap(const QString &key, const QJsonObject &value);

} // namespace Cordon::Api
