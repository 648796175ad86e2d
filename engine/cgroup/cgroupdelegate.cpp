// SPDX-License-Identifier: MIT
// The one root step for hosts without systemd delegation: a per-user base handed over the way systemd's
// Delegate=yes does it. The user gets the directory and the files that let them create groups and move their
// own processes, never the base's limit files, so root can still cap everything the user runs.
#include "cgroup/cgroupbackend.h"
#include "cgroup/cgroupfs.h"

#include <cerrno>
#include <unistd.h>

namespace Cordon::Cgroup {

namespace {

const QStringList Needed = {QStringLiteral("memory"), QStringLiteral("pids")};

Result<> chownTo(const QString &path, uid_t uid, gid_t gid)
{
    if (::chown(path.toLocal8Bit().constData(), uid, gid) != 0)
        return failErrno(QStringLiteral("cgroup.io"),
                         QStringLiteral("chown `%1` to %2:%3").arg(path).arg(uid).arg(gid), errno);
    return {};
}

Result<> makeBase(const QString &mountPoint, const QString &userDir)
{
    CORDON_TRY(Fs::makeDir(Fs::joinPath(mountPoint, QStringLiteral("cordon"))));
    CORDON_TRY(Fs::makeDir(userDir));
    return {};
}

const MountEntry *firstMount(const QList<MountEntry> &mounts, bool unified, const QString &controller)
{
    const MountEntry *found = nullptr;
    for (const MountEntry &mount : mounts) {
        if (mount.unified != unified || (!unified && !mount.controllers.contains(controller)))
            continue;
        if (mount.root == QLatin1String("/"))
            return &mount;
        if (!found)
            found = &mount;
    }
    return found;
}

Result<QString> delegateV2(const MountEntry &mount, uid_t uid, gid_t gid)
{
    const QString cordon = Fs::joinPath(mount.mountPoint, QStringLiteral("cordon"));
    const QString userDir = Fs::joinPath(cordon, QStringLiteral("uid-%1").arg(uid));
    // Controllers flow down: the root passes memory and pids to `cordon`, `cordon` to each uid-N. The user's
    // engine enables them in uid-N itself once it has moved into a leaf (a cgroup with controllers enabled
    // for its children may not hold processes, and a login hook may place the user's session right in uid-N).
    CORDON_TRY(Fs::enableControllers(mount.mountPoint, Needed));
    CORDON_TRY(makeBase(mount.mountPoint, userDir));
    CORDON_TRY(Fs::enableControllers(cordon, Needed));
    for (const QString &file : {QString(), QStringLiteral("cgroup.procs"),
                                QStringLiteral("cgroup.subtree_control"), QStringLiteral("cgroup.threads")})
        CORDON_TRY(chownTo(file.isEmpty() ? userDir : Fs::joinPath(userDir, file), uid, gid));
    return QStringLiteral("cgroup v2: %1 delegated to %2:%3").arg(userDir).arg(uid).arg(gid);
}

Result<QString> delegateV1(const MountEntry &memory, const MountEntry &pids, uid_t uid, gid_t gid)
{
    QStringList dirs;
    for (const MountEntry *mount : {&memory, &pids}) {
        const QString userDir = Fs::joinPath(mount->mountPoint, QStringLiteral("cordon/uid-%1").arg(uid));
        if (dirs.contains(userDir))
            continue;
        CORDON_TRY(makeBase(mount->mountPoint, userDir));
        // v1 checks only the target file's permission (and that the mover's uid matches the moved process),
        // so the directory, cgroup.procs and tasks are all a user needs; the new groups' files then belong to
        // the user who creates them.
        CORDON_TRY(chownTo(userDir, uid, gid));
        CORDON_TRY(chownTo(Fs::joinPath(userDir, QStringLiteral("cgroup.procs")), uid, gid));
        CORDON_TRY(chownTo(Fs::joinPath(userDir, QStringLiteral("tasks")), uid, gid));
        dirs.append(userDir);
    }
    return QStringLiteral("cgroup v1: %1 delegated to %2:%3")
        .arg(dirs.join(QStringLiteral(", ")))
        .arg(uid)
        .arg(gid);
}

} // namespace

Result<QString> delegateToUser(uid_t uid, gid_t gid)
{
    if (::geteuid() != 0)
        return fail(
            QStringLiteral("cgroup.permission"),
            QStringLiteral("delegate a cgroup subtree to uid %1: only root may, and this runs as uid %2")
                .arg(uid)
                .arg(::geteuid()),
            EPERM);
    if (uid == uid_t(-1) || gid == gid_t(-1))
        return fail(QStringLiteral("cgroup.permission"),
                    QStringLiteral("delegate a cgroup subtree: invalid uid or gid"), EINVAL);
    auto mountinfo = Fs::readFile(QStringLiteral("/proc/self/mountinfo"));
    if (!mountinfo)
        return tl::unexpected(mountinfo.error());
    const QList<MountEntry> mounts = parseCgroupMounts(*mountinfo);

    // The same preference as detectBackend(): v2 when its hierarchy has the controllers, else v1.
    if (const MountEntry *unified = firstMount(mounts, true, {})) {
        auto controllers = Fs::readControllers(unified->mountPoint + QStringLiteral("/cgroup.controllers"));
        if (controllers && controllers->contains(Needed[0]) && controllers->contains(Needed[1]))
            return delegateV2(*unified, uid, gid);
    }
    const MountEntry *memory = firstMount(mounts, false, QStringLiteral("memory"));
    const MountEntry *pids = firstMount(mounts, false, QStringLiteral("pids"));
    if (memory && pids)
        return delegateV1(*memory, *pids, uid, gid);
    return fail(
        QStringLiteral("cgroup.unavailable"),
        QStringLiteral("delegate a cgroup subtree: this host mounts neither a cgroup2 hierarchy with the "
                       "memory and pids controllers nor cgroup v1 memory and pids hierarchies"));
}

} // namespace Cordon::Cgroup
