// SPDX-License-Identifier: MIT
#include "policyfile.h"

#include "core/plainbridge.h"

#include "sandbox/policy/policyfile.h"

namespace Cordon::Cli {

Result<Policy::ContainerPolicy> loadPolicyFile(const QString &path, bool *givesName)
{
    if (givesName)
        *givesName = false;
    if (path.isEmpty())
        return Policy::ContainerPolicy{};
    const Result<Json> document = Policy::readPolicyFile(toPlain(path));
    if (!document)
        return fail(document.error());
    auto policy = Policy::ContainerPolicy::fromJsonValue(*document);
    if (!policy)
        return fail(policy.error().wrap(toPlain(QStringLiteral("policy `%1`").arg(path))));
    if (givesName)
        *givesName = document->contains("name");
    return policy;
}

} // namespace Cordon::Cli
