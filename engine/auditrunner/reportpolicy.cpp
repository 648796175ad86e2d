// SPDX-License-Identifier: MIT
#include "auditrunner/reportpolicy.h"

#include "core/plainbridge.h"
#include "sandbox/policy/containerpolicy.h"

namespace Cordon::Audit {

Result<QJsonObject> canonicalPolicy(const QString &text)
{
    auto policy = Policy::ContainerPolicy::fromJson(toPlain(text));
    if (!policy)
        return tl::unexpected(policy.error());
    return toQt(policy->toJson()).toObject();
}

} // namespace Cordon::Audit
