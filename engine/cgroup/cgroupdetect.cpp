// SPDX-License-Identifier: MIT
// Chooses the backend once, from what this host mounts and what it lets this user write. The same evaluation
// feeds inspectHost(), so `cordon doctor` explains exactly the choice the engine makes.
#include "cgroup/cgroupbackend.h"
#include "cgroup/cgroupfs.h"
#include "cgroup/cgroupv1.h"
#include "cgroup/cgroupv2.h"

#include <functional>
#include <pwd.h>
#include <unistd.h>

namespace Cordon::Cgroup {

namespace {

const QStringList Needed = {QStringLiteral("memory"), QStringLiteral("pids")};

QString ticked(const QString &path)
{
    return QStringLiteral("`") + path + QStringLiteral("`");
}

struct HostFacts
{
    QList<MountEntry> mounts;
    QList<ProcCgroupEntry> self;
    QString problem; // set when /proc could not be read; nothing else is then known
    uid_t uid = 0;
};

struct Candidate
{
    bool usable = false;
    bool memory = false;
    bool pids = false;
    bool writable = false;
    QString base;
    QString reason; // why it is not usable
    std::function<std::unique_ptr<CgroupBackend>()> make;
};

HostFacts readFacts()
{
    HostFacts facts;
    facts.uid = ::geteuid();
    auto mountinfo = Fs::readFile(QStringLiteral("/proc/self/mountinfo"));
    if (!mountinfo) {
        facts.problem = mountinfo.error().message();
        return facts;
    }
    facts.mounts = parseCgroupMounts(*mountinfo);
    auto self = Fs::readFile(QStringLiteral("/proc/self/cgroup"));
    if (!self) {
        facts.problem = self.error().message();
        return facts;
    }
    auto entries = parseProcSelfCgroup(*self);
    if (!entries) {
        facts.problem = QStringLiteral("parse `/proc/self/cgroup`: ") + entries.error().message();
        return facts;
    }
    facts.self = *entries;
    return facts;
}

// Several mounts of one hierarchy can exist (bind mounts); the one showing the whole hierarchy is preferred.
const MountEntry *pickMount(const QList<MountEntry> &mounts,
                            const std::function<bool(const MountEntry &)> &match)
{
    const MountEntry *found = nullptr;
    for (const MountEntry &mount : mounts) {
        if (!match(mount))
            continue;
        if (mount.root == QLatin1String("/"))
            return &mount;
        if (!found)
            found = &mount;
    }
    return found;
}

QString userName(uid_t uid)
{
    const passwd *pw = ::getpwuid(uid);
    return pw ? QString::fromLocal8Bit(pw->pw_name) : QString::number(uid);
}

// "the memory controller", "the memory and pids controllers"
QString missingOf(const QStringList &available)
{
    QStringList missing;
    for (const QString &controller : Needed) {
        if (!available.contains(controller))
            missing.append(controller);
    }
    return QStringLiteral("the ") + missing.join(QStringLiteral(" and ")) +
           (missing.size() > 1 ? QStringLiteral(" controllers") : QStringLiteral(" controller"));
}

bool hasAll(const QStringList &available)
{
    return available.contains(Needed[0]) && available.contains(Needed[1]);
}

// Whether this user owns a delegated directory: the directory and the files systemd's Delegate=yes hands
// over.
bool ownedAndWritable(const QString &dir, uid_t uid)
{
    return Fs::ownerOf(dir) == qint64(uid) && Fs::writable(dir) &&
           Fs::writable(dir + QStringLiteral("/cgroup.procs")) &&
           Fs::writable(dir + QStringLiteral("/cgroup.subtree_control"));
}

Candidate evaluateV2(const HostFacts &facts)
{
    Candidate c;
    const MountEntry *mount = pickMount(facts.mounts, [](const MountEntry &m) { return m.unified; });
    if (!mount) {
        c.reason = QStringLiteral("no cgroup2 filesystem is mounted");
        return c;
    }
    auto rootControllers = Fs::readControllers(mount->mountPoint + QStringLiteral("/cgroup.controllers"));
    if (!rootControllers) {
        c.reason = rootControllers.error().message();
        return c;
    }
    c.memory = rootControllers->contains(QLatin1String("memory"));
    c.pids = rootControllers->contains(QLatin1String("pids"));
    if (!hasAll(*rootControllers)) {
        const bool boundToV1 = pickMount(facts.mounts, [](const MountEntry &m) {
            return !m.unified && (m.controllers.contains(QLatin1String("memory")) ||
                                  m.controllers.contains(QLatin1String("pids")));
        });
        c.reason = QStringLiteral("the cgroup2 hierarchy at %1 lacks %2%3")
                       .arg(ticked(mount->mountPoint), missingOf(*rootControllers),
                            boundToV1 ? QStringLiteral(" (this host binds them to cgroup v1 hierarchies)")
                                      : QString());
        return c;
    }

    QString selfPath;
    for (const ProcCgroupEntry &entry : facts.self) {
        if (entry.isUnified())
            selfPath = Fs::fsPathOf(*mount, entry.path);
    }
    const MountEntry mountCopy = *mount;

    if (facts.uid == 0) {
        // Root may write anywhere and move any process, so it gets its own base next to everyone's and stays
        // in its cgroup: leaving a system service's cgroup would hide the engine from its service manager.
        c.base = Fs::joinPath(mount->mountPoint, QStringLiteral("cordon/uid-0"));
        c.writable = Fs::writable(mount->mountPoint + QStringLiteral("/cgroup.subtree_control"));
        if (!c.writable) {
            c.reason =
                QStringLiteral("%1 is not writable (mounted read-only?)").arg(ticked(mount->mountPoint));
            return c;
        }
        c.usable = true;
        c.make = [layout = V2Layout{mountCopy, mount->mountPoint, c.base, false}] {
            return std::make_unique<CgroupV2>(layout);
        };
        return c;
    }

    QStringList reasons;
    // A base made by `cordon cgroup-delegate`. The kernel lets a user move a process only below a common
    // ancestor whose cgroup.procs the user may write, so it is usable only by an engine that runs inside it
    // already or can reach it through such an ancestor.
    const QString userBase = Fs::joinPath(mount->mountPoint, QStringLiteral("cordon/uid-%1").arg(facts.uid));
    if (Fs::exists(userBase)) {
        auto controllers = Fs::readControllers(userBase + QStringLiteral("/cgroup.controllers"));
        const QString ancestor =
            selfPath.isEmpty() ? mount->mountPoint : Fs::commonAncestor(selfPath, userBase);
        if (!ownedAndWritable(userBase, facts.uid)) {
            reasons.append(QStringLiteral("%1 is not delegated to you").arg(ticked(userBase)));
        } else if (!controllers || !hasAll(*controllers)) {
            reasons.append(QStringLiteral("%1 lacks %2")
                               .arg(ticked(userBase), missingOf(controllers ? *controllers : QStringList())));
        } else if (!Fs::writable(ancestor + QStringLiteral("/cgroup.procs"))) {
            reasons.append(
                QStringLiteral("%1 is yours, but Cordon runs in %2 and the kernel only lets you move "
                               "processes below a common ancestor you may write (here %3); start "
                               "Cordon inside %1")
                    .arg(ticked(userBase), ticked(selfPath), ticked(ancestor)));
        } else {
            c.usable = c.writable = true;
            c.base = userBase;
            c.make = [layout = V2Layout{mountCopy, userBase, userBase, true}] {
                return std::make_unique<CgroupV2>(layout);
            };
            return c;
        }
    }

    // systemd's delegation: user@UID.service and the units below it belong to the user. The topmost cgroup of
    // the engine's own chain that the user owns is the delegation root; containers go into <root>/cordon.
    QString top;
    for (QString dir = selfPath; !selfPath.isEmpty() && dir.startsWith(mount->mountPoint + QLatin1Char('/'));
         dir = Fs::parentOf(dir)) {
        if (!ownedAndWritable(dir, facts.uid))
            break;
        top = dir;
    }
    if (top.isEmpty()) {
        reasons.append(QStringLiteral("your cgroup %1 is not delegated to you (systemd delegates "
                                      "user@%2.service to each user; Cordon started from an ssh or console "
                                      "session runs outside it)")
                           .arg(ticked(selfPath.isEmpty() ? QStringLiteral("?") : selfPath))
                           .arg(facts.uid));
    } else {
        auto controllers = Fs::readControllers(top + QStringLiteral("/cgroup.controllers"));
        if (!controllers || !hasAll(*controllers)) {
            reasons.append(QStringLiteral("the subtree %1 delegated to you lacks %2")
                               .arg(ticked(top), missingOf(controllers ? *controllers : QStringList())));
        } else {
            c.usable = c.writable = true;
            c.base = Fs::joinPath(top, QStringLiteral("cordon"));
            c.make = [layout = V2Layout{mountCopy, top, c.base, true}] {
                return std::make_unique<CgroupV2>(layout);
            };
            return c;
        }
    }
    c.reason = reasons.join(QStringLiteral("; "));
    return c;
}

Candidate evaluateV1(const HostFacts &facts)
{
    Candidate c;
    auto withController = [](const QString &name) {
        return [name](const MountEntry &m) { return !m.unified && m.controllers.contains(name); };
    };
    const MountEntry *memory = pickMount(facts.mounts, withController(QStringLiteral("memory")));
    const MountEntry *pids = pickMount(facts.mounts, withController(QStringLiteral("pids")));
    c.memory = memory != nullptr;
    c.pids = pids != nullptr;
    if (!memory || !pids) {
        c.reason = QStringLiteral("no cgroup v1 %1 hierarchy is mounted")
                       .arg(!memory && !pids ? QStringLiteral("memory or pids")
                            : !memory        ? QStringLiteral("memory")
                                             : QStringLiteral("pids"));
        return c;
    }
    const QString relative = QStringLiteral("cordon/uid-%1").arg(facts.uid);
    const QString memoryBase = Fs::joinPath(memory->mountPoint, relative);
    const QString pidsBase = Fs::joinPath(pids->mountPoint, relative);
    c.base = memoryBase;
    const bool root = facts.uid == 0;
    if (root) {
        for (const QString &mountPoint : {memory->mountPoint, pids->mountPoint}) {
            if (!Fs::writable(mountPoint)) {
                c.reason = QStringLiteral("%1 is not writable (mounted read-only?)").arg(ticked(mountPoint));
                return c;
            }
        }
    } else {
        for (const QString &base : {memoryBase, pidsBase}) {
            const qint64 owner = Fs::ownerOf(base);
            if (owner < 0) {
                c.reason = QStringLiteral("%1 does not exist").arg(ticked(base));
                return c;
            }
            if (owner != qint64(facts.uid) || !Fs::writable(base)) {
                c.reason = QStringLiteral("%1 belongs to uid %2, not to you").arg(ticked(base)).arg(owner);
                return c;
            }
        }
    }
    c.usable = c.writable = true;
    c.make = [memoryBase, pidsBase, root] { return std::make_unique<CgroupV1>(memoryBase, pidsBase, root); };
    return c;
}

QString advice(uid_t uid)
{
    if (uid == 0)
        return {};
    return QStringLiteral(" Run `sudo cordon cgroup-delegate --user %1` once to delegate a cgroup subtree.")
        .arg(userName(uid));
}

} // namespace

Result<std::unique_ptr<CgroupBackend>> detectBackend()
{
    const HostFacts facts = readFacts();
    if (!facts.problem.isEmpty())
        return fail(QStringLiteral("cgroup.unavailable"),
                    QStringLiteral("inspect cgroups: ") + facts.problem);
    const Candidate v2 = evaluateV2(facts);
    if (v2.usable)
        return v2.make();
    const Candidate v1 = evaluateV1(facts);
    if (v1.usable)
        return v1.make();
    return fail(
        QStringLiteral("cgroup.unavailable"),
        QStringLiteral("no cgroup hierarchy can hold memory and pids limits for uid %1: cgroup v2: %2; "
                       "cgroup v1: %3.")
                .arg(facts.uid)
                .arg(v2.reason, v1.reason) +
            advice(facts.uid));
}

HostReport inspectHost()
{
    HostReport report;
    const HostFacts facts = readFacts();
    if (!facts.problem.isEmpty()) {
        report.explanation = QStringLiteral("Cannot inspect cgroups: ") + facts.problem;
        return report;
    }
    const Candidate v2 = evaluateV2(facts);
    const Candidate v1 = evaluateV1(facts);
    const Candidate &chosen = v2.usable ? v2 : v1;
    report.memoryController = v2.usable || v1.usable ? chosen.memory : v2.memory || v1.memory;
    report.pidsController = v2.usable || v1.usable ? chosen.pids : v2.pids || v1.pids;
    report.writable = chosen.writable && (v2.usable || v1.usable);
    if (v2.usable) {
        report.version = Version::V2;
        report.base = v2.base;
        report.explanation =
            QStringLiteral("cgroup v2: containers get memory and pids limits under %1.").arg(ticked(v2.base));
    } else if (v1.usable) {
        report.version = Version::V1;
        report.base = v1.base;
        report.explanation =
            QStringLiteral("cgroup v1: containers get memory and pids limits under %1 (and its "
                           "pids twin); cgroup v2 is not used because %2.")
                .arg(ticked(v1.base), v2.reason);
    } else {
        report.explanation =
            QStringLiteral("No memory or pids limits are possible for uid %1: cgroup v2: %2; "
                           "cgroup v1: %3.")
                .arg(facts.uid)
                .arg(v2.reason, v1.reason) +
            advice(facts.uid);
    }
    return report;
}

} // namespace Cordon::Cgroup
