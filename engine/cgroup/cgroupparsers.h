// SPDX-License-Identifier: MIT
// The cgroup parsers with Qt types: adapters over the plain parsers in cgroup/core/cgroupparsers.h, which
// take bytes and never touch the filesystem. Strings are the kernel's bytes read as UTF-8.
#pragma once

#include "core/result.h"

#include <QByteArrayView>
#include <QHash>
#include <QList>
#include <QString>
#include <QStringList>

namespace Cordon::Cgroup {

// One line of /proc/<pid>/cgroup: "4:memory:/a/b" (v1) or "0::/user.slice" (v2).
struct ProcCgroupEntry
{
    int hierarchyId = 0;
    QStringList controllers; // v1 controllers, "name=systemd" for named hierarchies; empty for v2
    QString path;            // relative to the hierarchy's root as seen from the reader's cgroup namespace

    bool isUnified() const { return hierarchyId == 0 && controllers.isEmpty(); }
    bool operator==(const ProcCgroupEntry &) const = default;
};

// One cgroup or cgroup2 mount from /proc/self/mountinfo.
struct MountEntry
{
    QString mountPoint;   // octal escapes (\040) decoded
    QString root;         // the part of the hierarchy this mount shows, "/" unless bind-mounted or namespaced
    bool unified = false; // fstype cgroup2
    QStringList
        controllers;     // v1 only: controllers bound to this hierarchy (v2 lists them in cgroup.controllers)
    QStringList options; // every super option, e.g. "rw", "nsdelegate", "name=systemd"

    bool operator==(const MountEntry &) const = default;
};

// Fails on lines that are not "id:controllers:/path"; an empty input yields an empty list.
Result<QList<ProcCgroupEntry>> parseProcSelfCgroup(QByteArrayView data);

// Lines of other filesystems and malformed lines are skipped: mountinfo is the kernel's, but a reader must
// not fail just because one unrelated mount has an odd shape.
QList<MountEntry> parseCgroupMounts(QByteArrayView mountinfo);

// "key value" lines (memory.events, memory.oom_control, memory.stat, cgroup.events); lines whose value is not
// an integer are skipped.
QHash<QByteArray, qint64> parseFlatKeyed(QByteArrayView data);

// A limit file: "max" (v2) and the v1 "unlimited" page-counter maximum give -1; otherwise a non-negative
// integer.
Result<qint64> parseLimitValue(QByteArrayView data);

// Space-separated controller lists (cgroup.controllers, cgroup.subtree_control).
QStringList parseControllerList(QByteArrayView data);

} // namespace Cordon::Cgroup
