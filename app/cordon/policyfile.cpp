// SPDX-License-Identifier: MIT
#include "policyfile.h"

#include "core/plainbridge.h"

#include <QFile>

namespace Cordon::Cli {

Result<Policy::ContainerPolicy> loadPolicyFile(const QString &path, bool *givesName)
{
    if (givesName)
        *givesName = false;
    if (path.isEmpty())
        return Policy::ContainerPolicy{};
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return fail(QStringLiteral("cli.policy_unreadable"),
                    QStringLiteral("cannot read policy `%1`: %2").arg(path, file.errorString()));
    // One byte over the policy module's own size limit, so an oversized file gets its clear error.
    const QByteArray bytes = file.read(2 * 1024 * 1024);
    const std::string where = toPlain(QStringLiteral("policy `%1`").arg(path));
    const Result<Json> document = Policy::Fields::readDocument(toPlain(bytes));
    if (!document)
        return fail(document.error().wrap(where));
    auto policy = Policy::ContainerPolicy::fromJsonValue(*document);
    if (!policy)
        return fail(policy.error().wrap(where));
    if (givesName)
        *givesName = document->contains("name");
    return policy;
}

} // namespace Cordon::Cli
