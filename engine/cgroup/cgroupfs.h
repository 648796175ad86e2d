// SPDX-License-Identifier: MIT
// Small POSIX helpers shared by the v1 and v2 backends. cgroupfs files are tiny, written in one write(2) and
// read until EOF; errors carry the path and errno ("write `/sys/fs/cgroup/...`: Permission denied").
#pragma once

#include "cgroup/cgroupparsers.h"
#include "core/result.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>

#include <chrono>
#include <sys/types.h>

namespace Cordon::Cgroup::Fs {

Result<QByteArray> readFile(const QString &path);
Result<> writeFile(const QString &path, QByteArrayView data);
// A limit or counter file: "max" and the v1 unlimited value give -1.
Result<qint64> readValue(const QString &path);
Result<QHash<QByteArray, qint64>> readFlatKeyed(const QString &path);
Result<QStringList> readControllers(const QString &path);

bool exists(const QString &path);
// True when created, false when it already existed.
Result<bool> makeDir(const QString &path);
// ENOENT is success; EBUSY (a group whose last process is still exiting) is retried for a bounded time.
Result<> removeDir(const QString &path);
// The stat(2) owner of a path, or -1 when it cannot be read.
qint64 ownerOf(const QString &path);
bool writable(const QString &path);

// The union of the pids listed in each file (cgroup.procs of every hierarchy), sorted and unique.
Result<QList<pid_t>> readPids(const QStringList &procsFiles);
// SIGKILLs every process listed until the files are empty or the timeout passes. Each pid is pinned with a
// pidfd and signalled only if it is still listed after the pidfd was opened, so a pid that exited and was
// reused by a process outside the group is never signalled.
Result<> killUntilEmpty(const QStringList &procsFiles, std::chrono::milliseconds timeout);
// Waits until the files list no process (after cgroup.kill), bounded.
Result<> waitUntilEmpty(const QStringList &procsFiles, std::chrono::milliseconds timeout);

// Where a path from /proc/<pid>/cgroup lives under a mount of its hierarchy; empty when the mount does not
// show it (a bind mount of another subtree).
QString fsPathOf(const MountEntry &mount, const QString &procPath);

QString joinPath(const QString &dir, const QString &name);
QString parentOf(const QString &path);
// The deepest directory containing both absolute paths.
QString commonAncestor(const QString &a, const QString &b);

// v2: adds the controllers missing from dir/cgroup.subtree_control. Nothing is written when they are all
// there already, because the write fails with EBUSY while dir holds processes, which a configured cgroup may.
// `cgroup.unavailable` when dir's own cgroup.controllers lacks one (its parent does not pass it down).
Result<> enableControllers(const QString &dir, const QStringList &controllers);

} // namespace Cordon::Cgroup::Fs
