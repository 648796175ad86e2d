// SPDX-License-Identifier: MIT
#include "cgroup/migrationtuning.h"

#include "cgroup/cgroupconvert.h"
#include "sandbox/cgroup/migrationtuning.h"

namespace Cordon::Cgroup {

MigrationTuning inspectMigrationTuning(const QList<MountEntry> &mounts)
{
    std::vector<Core::MountEntry> plain;
    plain.reserve(size_t(mounts.size()));
    for (const MountEntry &mount : mounts)
        plain.push_back(Convert::toCore(mount));
    const Core::MigrationTuning tuning = Core::inspectMigrationTuning(plain);
    return MigrationTuning{Convert::toQt(tuning.unifiedMountPoint), tuning.favoured};
}

QString favourDynmodsOptions(const MountEntry &unified)
{
    return Convert::toQt(Core::favourDynmodsOptions(Convert::toCore(unified)));
}

Result<QString> favourDynmods()
{
    return Convert::toQt(Core::favourDynmods());
}

} // namespace Cordon::Cgroup
