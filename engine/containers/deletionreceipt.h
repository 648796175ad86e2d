// SPDX-License-Identifier: MIT
// A deletion receipt: what an expiring or deleted container held (each file's scope, path, size and SHA-256,
// listed before anything is removed) and, after the wipe, whether its workspace directory, its cgroup and its
// processes are gone. The daemon records it as the event `container.deletion_receipt`, so that a reviewer
// (and the Go/No-Go audit's deletion row) can show what was removed and when, not only that it was.
#pragma once

#include "containers/container.h"
#include "sandbox/cgroup/cgroupbackend.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QString>

namespace Cordon::Containers {

class DeletionReceipt final
{
public:
    // At most this many files are itemised; the rest are counted in `files_total` and `bytes_total`.
    static constexpr int MaxListed = 2000;

    // Lists the container's files, through the same walk as `cordon files` (nothing followed; symlinks,
    // FIFOs and devices named with their code), and its processes. Call it before stop().
    static DeletionReceipt take(const Container &container, const Cgroup::CgroupBackend *cgroup);

    // Call it after the wipe: looks again for each place and process the receipt named. Without a cgroup
    // (degraded mode) `cgroups_gone` is false and `processes_after` -1: unknown, never claimed.
    void confirm(const Cgroup::CgroupBackend *cgroup);

    QJsonObject toJson() const;

private:
    QString m_containerId;
    QString m_workspaceRoot;
    QJsonArray m_files;
    qint64 m_filesTotal = 0;
    qint64 m_bytesTotal = 0;
    bool m_truncated = false;
    QJsonArray m_cgroupPaths;
    int m_processesBefore = 0;
    bool m_workspaceGone = false;
    bool m_cgroupGone = false;
    int m_processesAfter = -1;
    qint64 m_listedAt = 0;
    qint64 m_confirmedAt = 0;
};

} // namespace Cordon::Containers
