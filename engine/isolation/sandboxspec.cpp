// SPDX-License-Identifier: MIT
#include "isolation/sandboxspec.h"

#include <QFile>

namespace Cordon::Isolation {

QStringList runEnvironment(const Policy::ContainerPolicy &policy)
{
    std::map<std::string, std::string> policyEnv;
    for (auto it = policy.env.cbegin(); it != policy.env.cend(); ++it)
        policyEnv[it.key().toStdString()] = it.value().toStdString();
    QStringList entries;
    for (const std::string &entry :
         Isolation::runEnvironment(policy.network.type == Policy::NetworkPolicy::Type::Allowlist, policyEnv))
        entries.append(QString::fromStdString(entry));
    return entries;
}

} // namespace Cordon::Isolation
