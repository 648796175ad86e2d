// SPDX-License-Identifier: MIT
// The canonical serialisation that policy versions are hashed over. It must never change for a given value:
// stored runs refer to policies by the sha256 of these bytes.
#pragma once

#include <QByteArray>
#include <QJsonValue>

namespace Cordon::Policy {

// RFC 8785 (JSON Canonicalization Scheme) for the values a policy holds: no whitespace, object keys sorted by
// UTF-16 code units, strings as UTF-8 with only '"', '\' and control characters escaped (\b \f \n \r \t, else
// \u00xx in lower-case hex), integers in plain decimal. We write it ourselves rather than rely on
// QJsonDocument::toJson, whose escaping and number formatting are not promised to stay the same across Qt
// releases.
QByteArray toCanonicalJson(const QJsonValue &value);

} // namespace Cordon::Policy
