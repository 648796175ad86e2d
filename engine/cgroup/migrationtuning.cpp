// SPDX-License-Identifier: MIT
#include "cgroup/migrationtuning.h"

#include "cgroup/cgroupfs.h"

#include <cerrno>
#include <sys/mount.h>
#include <unistd.h>

namespace Cordon::Cgroup {

namespace {

const QString FavourOption = QStringLiteral("favordynmods");

const MountEntry *unifiedMount(const QList<MountEntry> &mounts)
{
    for (const MountEntry &mount : mounts) {
        // The host's own hierarchy, not a bind of a subtree (a container's view of its cgroup).
        if (mount.unified && mount.root == QLatin1String("/"))
            return &mount;
    }
    return nullptr;
}

} // namespace

MigrationTuning inspectMigrationTuning(const QList<MountEntry> &mounts)
{
    MigrationTuning tuning;
    if (const MountEntry *unified = unifiedMount(mounts)) {
        tuning.unifiedMountPoint = unified->mountPoint;
        tuning.favoured = unified->options.contains(FavourOption);
    }
    return tuning;
}

QString favourDynmodsOptions(const MountEntry &unified)
{
    QStringList options;
    for (const QString &option : unified.options) {
        // rw/ro are the superblock's flags, not cgroup2 options; a remount leaves them as they are.
        if (option != QLatin1String("rw") && option != QLatin1String("ro") && option != FavourOption)
            options.append(option);
    }
    options.append(FavourOption);
    return options.join(QLatin1Char(','));
}

Result<QString> favourDynmods()
{
    if (::geteuid() != 0)
        return failErrno(
            QStringLiteral("cgroup.permission"),
            QStringLiteral("remount the cgroup2 hierarchy with favordynmods: only root may, and this "
                           "runs as uid %1")
                .arg(::geteuid()),
            EPERM);
    auto mountinfo = Fs::readFile(QStringLiteral("/proc/self/mountinfo"));
    if (!mountinfo)
        return tl::unexpected(mountinfo.error());
    const QList<MountEntry> mounts = parseCgroupMounts(*mountinfo);
    const MountEntry *unified = unifiedMount(mounts);
    if (!unified)
        return fail(QStringLiteral("cgroup.unavailable"),
                    QStringLiteral("remount with favordynmods: this host mounts no cgroup2 hierarchy"));
    if (unified->options.contains(FavourOption))
        return QStringLiteral("%1 is already mounted with favordynmods").arg(unified->mountPoint);
    const QByteArray target = unified->mountPoint.toLocal8Bit();
    const QByteArray options = favourDynmodsOptions(*unified).toLocal8Bit();
    if (::mount(nullptr, target.constData(), nullptr, MS_REMOUNT, options.constData()) != 0)
        return failErrno(QStringLiteral("cgroup.io"),
                         QStringLiteral("remount %1 with `%2` (the kernel may be older than 6.0, which added "
                                        "favordynmods)")
                             .arg(unified->mountPoint, QString::fromLocal8Bit(options)),
                         errno);
    return QStringLiteral(
               "%1 remounted with favordynmods: moving a process into a cgroup no longer waits for an "
               "RCU grace period (forks and exits pay a little more); it lasts until the next boot")
        .arg(unified->mountPoint);
}

} // namespace Cordon::Cgroup
