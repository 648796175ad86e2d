// SPDX-License-Identifier: MIT
// The few cgroupfs helpers the rest of the engine and its tests use, with Qt types: adapters over
// cgroup/core/cgroupfs.h, which the backends use directly.
#pragma once

#include "cgroup/cgroupparsers.h"
#include "core/result.h"

#include <QByteArray>
#include <QString>

namespace Cordon::Cgroup::Fs {

// Reads a small kernel file until EOF; errors name the path ("read `/proc/self/mountinfo`: ...").
Result<QByteArray> readFile(const QString &path);

// Where a path from /proc/<pid>/cgroup lives under a mount of its hierarchy; empty when the mount does not
// show it (a bind mount of another subtree).
QString fsPathOf(const MountEntry &mount, const QString &procPath);

// The deepest directory containing both absolute paths.
QString commonAncestor(const QString &a, const QString &b);

} // namespace Cordon::Cgroup::Fs
