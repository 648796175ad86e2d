// SPDX-License-Identifier: MIT
#include "policyfile.h"

#include <QFile>

namespace Cordon::Cli {

Result<Policy::ContainerPolicy> loadPolicyFile(const QString &path)
{
    if (path.isEmpty())
        return Policy::ContainerPolicy{};
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return fail(QStringLiteral("cli.policy_unreadable"),
                    QStringLiteral("cannot read policy `%1`: %2").arg(path, file.errorString()));
    // One byte over the policy module's own size limit, so an oversized file gets its clear error.
    auto policy = Policy::ContainerPolicy::fromJson(file.read(2 * 1024 * 1024));
    if (!policy)
        return fail(policy.error().wrap(QStringLiteral("policy `%1`").arg(path)));
    return policy;
}

} // namespace Cordon::Cli
