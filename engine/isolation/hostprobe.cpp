// SPDX-License-Identifier: MIT
#include "isolation/hostprobe.h"

#include "cgroup/cgroupbackend.h"
#include "cgroup/cgroupfs.h"
#include "cgroup/migrationtuning.h"
#include "isolation/sandbox.h"

#include <QFile>
#include <QFileInfo>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <linux/landlock.h>
#include <linux/openat2.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

namespace Cordon::Isolation {

namespace {

QString readTrimmed(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QString::fromUtf8(file.readAll()).trimmed();
}

HostCheck checkUserNamespaces()
{
    HostCheck check{QStringLiteral("user namespaces"), CheckStatus::Missing, {}, true};
    // The real test: a child creates a user namespace the way the engine will.
    const pid_t pid =
        static_cast<pid_t>(::syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, nullptr, nullptr, nullptr, 0));
    if (pid == 0)
        ::_exit(0);
    if (pid < 0) {
        check.detail = QStringLiteral("cannot create a user namespace (%1). Enable them: sysctl "
                                      "kernel.unprivileged_userns_clone=1 and user.max_user_namespaces > 0")
                           .arg(QString::fromLocal8Bit(std::strerror(errno)));
        return check;
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    check.status = CheckStatus::Ok;
    check.detail = QStringLiteral("available (user.max_user_namespaces = %1)")
                       .arg(readTrimmed(QStringLiteral("/proc/sys/user/max_user_namespaces")));
    return check;
}

HostCheck checkCgroups()
{
    const Cgroup::HostReport report = Cgroup::inspectHost();
    HostCheck check{QStringLiteral("cgroups"), CheckStatus::Missing, report.explanation, true};
    if (report.version != Cgroup::Version::None && report.writable && report.memoryController &&
        report.pidsController)
        check.status = CheckStatus::Ok;
    else if (report.version != Cgroup::Version::None)
        check.status = CheckStatus::Degraded;
    if (check.status != CheckStatus::Ok)
        check.detail +=
            QStringLiteral(" Without cgroups, runs need --allow-degraded and get no memory or pids limit.");
    return check;
}

HostCheck checkCgroupMoves()
{
    HostCheck check{QStringLiteral("cgroup moves"), CheckStatus::Ok, {}, false};
    auto mountinfo = Cgroup::Fs::readFile(QStringLiteral("/proc/self/mountinfo"));
    const Cgroup::MigrationTuning tuning = Cgroup::inspectMigrationTuning(
        mountinfo ? Cgroup::parseCgroupMounts(*mountinfo) : QList<Cgroup::MountEntry>());
    if (tuning.favoured) {
        check.detail = QStringLiteral("quick: %1 is mounted with favordynmods").arg(tuning.unifiedMountPoint);
    } else if (!tuning.unifiedMountPoint.isEmpty()) {
        check.status = CheckStatus::Degraded;
        check.detail =
            QStringLiteral("slow: each container start waits 5-20 ms for the kernel (an RCU grace "
                           "period); as root, `cordon cgroup-delegate --favor-dynmods` remounts %1 "
                           "with favordynmods")
                .arg(tuning.unifiedMountPoint);
    } else {
        check.status = CheckStatus::Degraded;
        check.detail =
            QStringLiteral("slow: each container start waits 5-20 ms for the kernel, and without a "
                           "cgroup2 mount there is no favordynmods to change that");
    }
    return check;
}

HostCheck checkSeccomp()
{
    HostCheck check{QStringLiteral("seccomp"), CheckStatus::Missing, {}, true};
    const QString actions = readTrimmed(QStringLiteral("/proc/sys/kernel/seccomp/actions_avail"));
    if (::prctl(PR_GET_SECCOMP, 0, 0, 0, 0) < 0 && errno == EINVAL) {
        check.detail = QStringLiteral("the kernel lacks CONFIG_SECCOMP: syscall filtering is impossible");
        return check;
    }
    check.status = actions.contains(QLatin1String("errno")) ? CheckStatus::Ok : CheckStatus::Degraded;
    check.detail = QStringLiteral("filter mode available (actions: %1)").arg(actions);
    return check;
}

HostCheck checkLandlock()
{
    HostCheck check{QStringLiteral("landlock"), CheckStatus::Missing, {}, false};
    const long abi = ::syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
    if (abi > 0) {
        check.status = CheckStatus::Ok;
        check.detail =
            QStringLiteral("ABI version %1 (optional second filesystem layer; not used yet)").arg(abi);
    } else {
        check.detail = QStringLiteral("not available (%1); optional, Cordon does not depend on it")
                           .arg(QString::fromLocal8Bit(std::strerror(errno)));
    }
    return check;
}

HostCheck checkOverlayfs()
{
    HostCheck check{QStringLiteral("overlayfs"), CheckStatus::Missing, {}, false};
    if (readTrimmed(QStringLiteral("/proc/filesystems")).contains(QLatin1String("overlay"))) {
        check.status = CheckStatus::Ok;
        check.detail = QStringLiteral("available (optional; the root is built from read-only binds instead)");
    } else {
        check.detail = QStringLiteral("not loaded; optional, Cordon builds its root from read-only binds");
    }
    return check;
}

HostCheck checkOpenat2()
{
    HostCheck check{QStringLiteral("openat2"), CheckStatus::Degraded, {}, false};
    open_how how{};
    how.flags = O_PATH | O_CLOEXEC;
    const long fd = ::syscall(SYS_openat2, AT_FDCWD, "/", &how, sizeof how);
    if (fd >= 0) {
        ::close(static_cast<int>(fd));
        check.status = CheckStatus::Ok;
        check.detail =
            QStringLiteral("available: artifacts are opened with RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS");
    } else {
        check.detail =
            QStringLiteral("missing (kernel < 5.6): files are opened by an O_NOFOLLOW walk instead");
    }
    return check;
}

HostCheck checkInit()
{
    const QString path = Sandbox::locateInit();
    HostCheck check{QStringLiteral("cordon-init"), CheckStatus::Missing, path, true};
    if (QFileInfo(path).isExecutable()) {
        check.status = CheckStatus::Ok;
        check.detail = path;
    } else {
        check.detail = QStringLiteral("not found at %1: set CORDON_INIT or reinstall").arg(path);
    }
    return check;
}

} // namespace

QString checkStatusName(CheckStatus status)
{
    switch (status) {
    case CheckStatus::Ok:
        return QStringLiteral("ok");
    case CheckStatus::Degraded:
        return QStringLiteral("degraded");
    case CheckStatus::Missing:
        return QStringLiteral("missing");
    }
    return {};
}

QList<HostCheck> probeHost()
{
    return {checkUserNamespaces(), checkCgroups(),   checkCgroupMoves(), checkSeccomp(),
            checkLandlock(),       checkOverlayfs(), checkOpenat2(),     checkInit()};
}

} // namespace Cordon::Isolation
