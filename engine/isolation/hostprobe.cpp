// SPDX-License-Identifier: MIT
#include "isolation/hostprobe.h"

#include "core/plainbridge.h"
#include "isolation/sandbox.h"
#include "sandbox/cgroup/cgroupbackend.h"
#include "sandbox/cgroup/cgroupfs.h"
#include "sandbox/cgroup/migrationtuning.h"

#include <QCoreApplication>
#include <QDir>
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

// As a container start needs it: a new user namespace, and the capabilities it grants inside. Ubuntu's
// AppArmor restriction either refuses the clone or, where its unprivileged_userns profile exists (24.04),
// allows it and denies every capability in it, so only the second step tells.
UsernsProbe probeUserNamespaces()
{
    UsernsProbe probe;
    const pid_t pid = static_cast<pid_t>(
        ::syscall(SYS_clone, CLONE_NEWUSER | CLONE_NEWUTS | SIGCHLD, nullptr, nullptr, nullptr, 0));
    if (pid == 0) {
        // Only system calls until _exit: the parent is multithreaded. The status carries the errno.
        static const char name[] = "cordon-probe";
        ::_exit(::sethostname(name, sizeof name - 1) == 0 ? 0 : (errno > 0 && errno < 256 ? errno : EPERM));
    }
    if (pid < 0) {
        probe.error = errno;
        return probe;
    }
    probe.created = true;
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    probe.usable = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (!probe.usable)
        probe.error = WIFEXITED(status) ? WEXITSTATUS(status) : EINTR;
    return probe;
}

// Where this copy of Cordon lives: an installed one (helpers in <prefix>/libexec/cordon) ships the
// configured profile in <prefix>/share/cordon/apparmor; a build tree has every program in one directory.
AppArmorFix appArmorFix()
{
    const QString dir = QDir::cleanPath(QCoreApplication::applicationDirPath());
    AppArmorFix fix;
    if (dir.endsWith(QLatin1String("/libexec/cordon"))) {
        const QString prefix = QDir::cleanPath(dir + QStringLiteral("/../.."));
        const QString shipped = prefix + QStringLiteral("/share/cordon/apparmor/cordon");
        if (QFileInfo::exists(shipped))
            fix.shippedProfile = shipped;
        fix.programs = {prefix + QStringLiteral("/bin/cordon"), prefix + QStringLiteral("/bin/cordond"),
                        dir + QStringLiteral("/cordon-cli")};
    } else {
        for (const char *program : {"cordon", "cordond", "cordon-cli"})
            fix.programs.append(dir + QLatin1Char('/') + QLatin1String(program));
    }
    return fix;
}

HostCheck checkCgroups()
{
    const Cgroup::HostReport report = Cgroup::inspectHost(userNameFromNss);
    HostCheck check{QStringLiteral("cgroups"), CheckStatus::Missing, toQt(report.explanation), true};
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
    auto mountinfo = Cgroup::Fs::readFile("/proc/self/mountinfo");
    const Cgroup::MigrationTuning tuning = Cgroup::inspectMigrationTuning(
        mountinfo ? Cgroup::parseCgroupMounts(*mountinfo) : std::vector<Cgroup::MountEntry>());
    if (tuning.favoured) {
        check.detail =
            QStringLiteral("quick: %1 is mounted with favordynmods").arg(toQt(tuning.unifiedMountPoint));
    } else if (!tuning.unifiedMountPoint.empty()) {
        check.status = CheckStatus::Degraded;
        check.detail =
            QStringLiteral("slow: each container start waits 5-20 ms for the kernel (an RCU grace "
                           "period); as root, `cordon cgroup-delegate --favor-dynmods` remounts %1 "
                           "with favordynmods")
                .arg(toQt(tuning.unifiedMountPoint));
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

// The workspace mode in force, and the one sentence of what survives what, said where users look (there is
// one mode; the check fails only on a kernel without tmpfs).
HostCheck checkWorkspace()
{
    HostCheck check{QStringLiteral("workspace"), CheckStatus::Missing, {}, true};
    if (!readTrimmed(QStringLiteral("/proc/filesystems")).contains(QLatin1String("tmpfs"))) {
        check.detail = QStringLiteral("the kernel has no tmpfs: the workspace quota cannot be enforced");
        return check;
    }
    check.status = CheckStatus::Ok;
    check.detail = QStringLiteral(
        "in memory: /mnt/data is a tmpfs of workspace_mb inside each container, so the kernel ends a write "
        "past the quota with ENOSPC; its files count toward the memory limit. Containers outlive the daemon "
        "(a crash, kill or upgrade of cordond loses no file, run or output), and a running container's "
        "files are checkpointed to disk a minute after activity and saved when it stops, so a power loss "
        "loses at most its last minute of changes");
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

QList<HostCheck> judgeUserNamespaces(const UsernsFacts &facts)
{
    const UsernsProbe &probe = facts.probe;
    const bool restricted = facts.apparmorRestriction && facts.apparmorRestriction->trimmed() == "1";
    // Root is not covered by the restriction, so a failure of root's probe has another cause.
    const bool blameAppArmor = restricted && !facts.root && !probe.usable;
    const QString reason = QString::fromLocal8Bit(std::strerror(probe.error));

    HostCheck userns{QStringLiteral("user namespaces"), CheckStatus::Missing, {}, true};
    if (probe.usable) {
        userns.status = CheckStatus::Ok;
        userns.detail =
            QStringLiteral("available (user.max_user_namespaces = %1)").arg(facts.maxUserNamespaces);
    } else if (blameAppArmor) {
        userns.detail =
            (probe.created ? QStringLiteral("created one, but without the capabilities it should grant "
                                            "(sethostname: %1)")
                           : QStringLiteral("cannot create one (%1)"))
                .arg(reason) +
            QStringLiteral(": AppArmor restricts user namespaces on this host (see `apparmor userns`)");
    } else if (probe.created) {
        userns.detail =
            QStringLiteral("created one, but without the capabilities it should grant (sethostname: %1)")
                .arg(reason);
    } else {
        userns.detail = QStringLiteral("cannot create a user namespace (%1). Enable them: sysctl "
                                       "kernel.unprivileged_userns_clone=1 and user.max_user_namespaces > 0")
                            .arg(reason);
    }
    if (!restricted)
        return {userns};

    // The package's profile, or one written for the programs of this copy (a build tree, or an install
    // without the profile), in the form of packaging/apparmor/cordon.in.
    QString fix;
    if (!facts.fix.shippedProfile.isEmpty()) {
        fix = QStringLiteral("sudo install -m 0644 %1 /etc/apparmor.d/cordon && sudo apparmor_parser -r "
                             "/etc/apparmor.d/cordon")
                  .arg(facts.fix.shippedProfile);
    } else {
        QStringList quoted;
        for (const QString &program : facts.fix.programs)
            quoted.append(QLatin1Char('"') + program + QLatin1Char('"'));
        fix = QStringLiteral(
                  "for the programs of this copy (%1): printf '%s\\n' 'abi <abi/4.0>,' 'include "
                  "<tunables/global>' '@{cordon_programs} = %2' 'profile cordon-local @{cordon_programs} "
                  "flags=(unconfined) {' '  userns,' '}' | sudo tee /etc/apparmor.d/cordon-local >/dev/null "
                  "&& sudo apparmor_parser -r /etc/apparmor.d/cordon-local")
                  .arg(facts.fix.programs.join(QStringLiteral(", ")), quoted.join(QLatin1Char(' ')));
    }
    const QString hostWide = QStringLiteral("; or, for every program on the host, sudo sysctl "
                                            "kernel.apparmor_restrict_unprivileged_userns=0");
    const QString sysctl = QStringLiteral("kernel.apparmor_restrict_unprivileged_userns = 1");

    HostCheck apparmor{QStringLiteral("apparmor userns"), CheckStatus::Ok, {}, false};
    if (facts.root) {
        apparmor.status = CheckStatus::Degraded;
        apparmor.detail = sysctl +
                          QStringLiteral(": root may create user namespaces, other users only through an "
                                         "AppArmor profile that grants Cordon's programs `userns`. For "
                                         "them: ") +
                          fix + hostWide;
    } else if (probe.usable) {
        apparmor.detail = sysctl + QStringLiteral(", and Cordon may create user namespaces all the same: an "
                                                  "AppArmor profile grants it `userns`");
    } else {
        apparmor.status = CheckStatus::Missing;
        apparmor.essential = true;
        apparmor.detail = sysctl +
                          QStringLiteral(": AppArmor lets only programs whose profile grants `userns` "
                                         "use user namespaces, and no profile grants Cordon's. Fix: ") +
                          fix + hostWide;
    }
    return {userns, apparmor};
}

QList<HostCheck> probeHost()
{
    UsernsFacts userns;
    QFile restriction(QStringLiteral("/proc/sys/kernel/apparmor_restrict_unprivileged_userns"));
    if (restriction.open(QIODevice::ReadOnly))
        userns.apparmorRestriction = restriction.readAll();
    userns.maxUserNamespaces = readTrimmed(QStringLiteral("/proc/sys/user/max_user_namespaces"));
    userns.probe = probeUserNamespaces();
    userns.root = ::geteuid() == 0;
    userns.fix = appArmorFix();

    QList<HostCheck> checks = judgeUserNamespaces(userns);
    checks += {checkCgroups(),   checkCgroupMoves(), checkSeccomp(),   checkLandlock(),
               checkOverlayfs(), checkOpenat2(),     checkWorkspace(), checkInit()};
    return checks;
}

} // namespace Cordon::Isolation
