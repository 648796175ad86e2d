// SPDX-License-Identifier: MIT
#include "isolation/sandboxspec.h"

#include <QFile>

namespace Cordon::Isolation {

Result<SandboxSpec> buildSandboxSpec(const Policy::ContainerPolicy &policy, const WorkspacePaths &workspace,
                                     const IdMapping &ids, const QString &hostRoot)
{
    MountPlanInput input;
    input.workspace = {
        QFile::encodeName(workspace.work).toStdString(), QFile::encodeName(workspace.inputs).toStdString(),
        QFile::encodeName(workspace.outputs).toStdString(), QFile::encodeName(workspace.code).toStdString()};
    input.insideUid = ids.insideUid;
    input.insideGid = ids.insideGid;
    input.tmpMb = policy.limits.tmpMb;
    input.proxyListener = policy.network.type == Policy::NetworkPolicy::Type::Allowlist;
    for (const Policy::Mount &mount : policy.mounts)
        input.mounts.push_back(
            {QFile::encodeName(mount.host).toStdString(), mount.target.toStdString(), mount.readOnly});
    input.hostRoot = QFile::encodeName(hostRoot).toStdString();
    auto setup = buildMountPlan(input);
    if (!setup)
        return fail(Error(setup.error()));

    SandboxSpec spec;
    spec.ids = ids;
    spec.setup = std::move(*setup);
    for (const std::string &source : spec.setup.bindSources)
        spec.bindSources.append(QFile::decodeName(QByteArray::fromStdString(source)));
    return spec;
}

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
