// SPDX-License-Identifier: MIT
// Typed access to parsed policy JSON. Every error names the field path ("limits.pids") so that a person can
// find the offending line, and quotes the offending value escaped and shortened, because it may be hostile.
#pragma once

#include "core/result.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QLatin1StringView>

#include <initializer_list>

namespace Cordon::Policy::Json {

// "limits" + "pids" -> "limits.pids"; keys that are not identifiers are quoted: env["A B"].
QString childPath(const QString &parent, const QString &key);
// "mounts" + 2 -> "mounts[2]".
QString indexPath(const QString &parent, qsizetype index);
// Prefixes a message with its path; the document itself is called "policy".
QString at(const QString &path, const QString &message);

// A string as it may appear in a message: JSON-quoted, control characters escaped, at most 80 characters.
QString quoted(const QString &text);
// "string", "integer", "number", "boolean", "null", "array", "object".
QString typeName(const QJsonValue &value);

// Each of these fails with policy.wrong_type (or policy.out_of_range for bounds) naming path.
Result<QJsonObject> toObject(const QJsonValue &value, const QString &path);
Result<QJsonArray> toArray(const QJsonValue &value, const QString &path, qsizetype maxEntries);
Result<QString> toString(const QJsonValue &value, const QString &path, qsizetype maxLength);
Result<bool> toBool(const QJsonValue &value, const QString &path);
// Integral numbers only: 1.5 is policy.wrong_type, 0 for [1, 10] is policy.out_of_range.
Result<qint64> toInteger(const QJsonValue &value, const QString &path, qint64 min, qint64 max);
// True when value is a JSON number with an integral value (1, 1.0, 1e2); 1.5 and 1e300 are not.
bool isIntegral(const QJsonValue &value, qint64 *out = nullptr);

// policy.unknown_key for the first key (in sorted order) not in known; the message lists the known keys.
Result<void> checkKeys(const QJsonObject &object, const QString &path,
                       std::initializer_list<QLatin1StringView> known);
// policy.missing_key when key is absent.
Result<QJsonValue> required(const QJsonObject &object, const QString &path, QLatin1StringView key);

// Optional fields: leave out untouched when the key is absent, so the default stays.
Result<void> readInteger(const QJsonObject &object, const QString &path, QLatin1StringView key, qint64 min,
                         qint64 max, int &out);
Result<void> readBool(const QJsonObject &object, const QString &path, QLatin1StringView key, bool &out);

} // namespace Cordon::Policy::Json
