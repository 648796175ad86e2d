// SPDX-License-Identifier: MIT
// How long it takes to move a process into a cgroup, and the root step that makes it quick: the Qt face of
// cgroup/core/migrationtuning.h, which explains the kernel's reasons and holds the logic.
#pragma once

#include "cgroup/cgroupparsers.h"
#include "core/result.h"

#include <QList>
#include <QString>

namespace Cordon::Cgroup {

struct MigrationTuning
{
    QString unifiedMountPoint; // the cgroup2 mount, empty when there is none
    bool favoured = false;     // mounted with favordynmods
};

MigrationTuning inspectMigrationTuning(const QList<MountEntry> &mounts);

// The mount options for a remount of `unified` that keeps what it has (nsdelegate, memory_recursiveprot, ...)
// and adds favordynmods: a remount sets the cgroup2 options anew, so leaving one out would switch it off.
QString favourDynmodsOptions(const MountEntry &unified);

// Root only: remounts the cgroup2 hierarchy with favordynmods (idempotent). Returns what was done, in words.
// `cgroup.permission` when not root, `cgroup.unavailable` when no cgroup2 hierarchy is mounted.
Result<QString> favourDynmods();

} // namespace Cordon::Cgroup
