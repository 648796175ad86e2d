// SPDX-License-Identifier: MIT
#include "policyfile.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>

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
    auto policy = Policy::ContainerPolicy::fromJson(bytes);
    if (!policy)
        return fail(policy.error().wrap(toPlain(QStringLiteral("policy `%1`").arg(path))));
    // The strict reader accepted it, so Qt's reader sees the same single object.
    if (givesName)
        *givesName = QJsonDocument::fromJson(bytes).object().contains(QStringLiteral("name"));
    return policy;
}

} // namespace Cordon::Cli
