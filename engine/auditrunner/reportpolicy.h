// SPDX-License-Identifier: MIT
// The policy a report names, read by the daemon's own rules into the canonical object that container.get
// answers, so that a report's policy is put into words (core/policywords.h) exactly as a container's is. A
// report keeps the policy's text as the reviewer gave it ("1g", rules as strings, any key order), which the
// wording does not read.
#pragma once

#include "core/result.h"

#include <QJsonObject>
#include <QString>

namespace Cordon::Audit {

// The canonical policy object of `text`; the policy.* error of a text that is not a policy.
Result<QJsonObject> canonicalPolicy(const QString &text);

} // namespace Cordon::Audit
