// SPDX-License-Identifier: MIT
#include "cgroup/cgroupv2.h"

#include "cgroup/cgroupfs.h"

#include <cerrno>
#include <csignal>
#include <dirent.h>
#include <unistd.h>

namespace Cordon::Cgroup {

namespace {

using namespace std::chrono_literals;
constexpr auto KillTimeout = 5000ms;
const QStringList Needed = {QStringLiteral("memory"), QStringLiteral("pids")};

QString ticked(const QString &path)
{
    return QStringLiteral("`") + path + QStringLiteral("`");
}

Result<QString> ownCgroupPath(const MountEntry &mount)
{
    auto data = Fs::readFile(QStringLiteral("/proc/self/cgroup"));
    if (!data)
        return tl::unexpected(data.error());
    auto entries = parseProcSelfCgroup(*data);
    if (!entries)
        return fail(entries.error().wrap(QStringLiteral("parse `/proc/self/cgroup`")));
    for (const ProcCgroupEntry &entry : std::as_const(*entries)) {
        if (entry.isUnified())
            return Fs::fsPathOf(mount, entry.path);
    }
    return fail(QStringLiteral("cgroup.unavailable"),
                QStringLiteral("/proc/self/cgroup has no cgroup v2 entry"));
}

} // namespace

CgroupV2::CgroupV2(V2Layout layout) : m_layout(std::move(layout)) {}

QString CgroupV2::describe() const
{
    return QStringLiteral("cgroup v2: memory and pids at ") + m_layout.base;
}

QString CgroupV2::engineLeaf() const
{
    // A '.' cannot appear in a container name, so the engine's leaf never collides with a container's group.
    return Fs::joinPath(m_layout.base, QStringLiteral("engine.%1").arg(::getpid()));
}

QStringList CgroupV2::groupPaths(const QString &name) const
{
    return {Fs::joinPath(m_layout.base, name)};
}

QStringList CgroupV2::chainToBase() const
{
    QStringList chain{m_layout.delegationRoot};
    const QString rest = m_layout.base.mid(m_layout.delegationRoot.size());
    QString path = m_layout.delegationRoot;
    for (const QString &part : rest.split(QLatin1Char('/'), Qt::SkipEmptyParts)) {
        path = Fs::joinPath(path, part);
        chain.append(path);
    }
    return chain;
}

Result<> CgroupV2::makeChain()
{
    const QStringList chain = chainToBase();
    for (qsizetype i = 1; i < chain.size(); ++i)
        CORDON_TRY(Fs::makeDir(chain[i]));
    return {};
}

Result<> CgroupV2::enableControllers()
{
    // A child can only use a controller its parent lists in cgroup.subtree_control, so memory and pids are
    // switched on from the delegation root down to the base.
    for (const QString &dir : chainToBase()) {
        auto enabled = Fs::enableControllers(dir, Needed);
        if (!enabled && enabled.error().sysErrno() == EBUSY)
            return fail(enabled.error().wrap(
                QStringLiteral(
                    "enable memory and pids in %1, which holds processes itself (a cgroup that passes "
                    "controllers to its children may not; the engine leaves it in prepareSelf())")
                    .arg(ticked(dir))));
        CORDON_TRY(enabled);
    }
    return {};
}

void CgroupV2::removeStaleEngineLeaves() const
{
    // Leaves of engines that have exited stay behind (a process cannot remove the group it is in). rmdir only
    // succeeds on an empty group, and a leaf whose engine still lives is left alone even if it is empty yet,
    // because that engine may be about to move in.
    DIR *dir = ::opendir(m_layout.base.toLocal8Bit().constData());
    if (!dir)
        return;
    while (const dirent *entry = ::readdir(dir)) {
        const QString name = QString::fromLocal8Bit(entry->d_name);
        if (!name.startsWith(QLatin1String("engine.")))
            continue;
        bool ok = false;
        const int pid = name.mid(7).toInt(&ok);
        if (!ok || pid <= 0 || pid == ::getpid())
            continue;
        if (::kill(pid, 0) == 0 || errno != ESRCH)
            continue;
        (void)::rmdir(Fs::joinPath(m_layout.base, name).toLocal8Bit().constData());
    }
    ::closedir(dir);
}

Result<> CgroupV2::prepareSelf()
{
    if (!m_layout.moveSelf)
        return {};
    CORDON_TRY(makeChain());
    const QString leaf = engineLeaf();
    auto current = ownCgroupPath(m_layout.mount);
    if (!current)
        return tl::unexpected(current.error());
    if (*current != leaf) {
        CORDON_TRY(Fs::makeDir(leaf));
        auto moved = Fs::writeFile(leaf + QStringLiteral("/cgroup.procs"), QByteArray::number(::getpid()));
        if (!moved) {
            (void)Fs::removeDir(leaf);
            const int err = moved.error().sysErrno();
            if (err == EACCES || err == EPERM) {
                const QString ancestor =
                    current->isEmpty() ? m_layout.mount.mountPoint : Fs::commonAncestor(*current, leaf);
                return fail(
                    QStringLiteral("cgroup.permission"),
                    QStringLiteral("move the engine from %1 into %2: %3. The kernel lets a process be "
                                   "moved only by someone who may write cgroup.procs of the common "
                                   "ancestor, here %4; start Cordon inside the delegated subtree %5 "
                                   "(from the desktop session, or `systemd-run --user --scope -p "
                                   "Delegate=yes cordon ...`)")
                        .arg(ticked(current->isEmpty() ? QStringLiteral("?") : *current), ticked(leaf),
                             moved.error().message(), ticked(ancestor), ticked(m_layout.delegationRoot)),
                    err);
            }
            return moved;
        }
    }
    CORDON_TRY(enableControllers());
    m_baseReady = true;
    removeStaleEngineLeaves();
    return {};
}

Result<> CgroupV2::create(const QString &name, const ResourceLimits &limits)
{
    CORDON_TRY(validateGroupName(name));
    if (!m_baseReady) {
        CORDON_TRY(makeChain());
        CORDON_TRY(enableControllers());
        m_baseReady = true;
    }
    const QString dir = Fs::joinPath(m_layout.base, name);
    auto made = Fs::makeDir(dir);
    if (!made)
        return tl::unexpected(made.error());
    if (!*made) {
        // A group left over from a crashed engine may be reused, but never one that still runs something.
        auto pids = processes(name);
        if (!pids)
            return tl::unexpected(pids.error());
        if (!pids->isEmpty())
            return fail(QStringLiteral("cgroup.io"),
                        QStringLiteral("create group `%1`: it already exists and holds %2 process(es)")
                            .arg(name)
                            .arg(pids->size()),
                        EEXIST);
    }
    auto rollback = [&] {
        if (*made)
            (void)Fs::removeDir(dir);
    };
    auto write = [&](const QString &file, QByteArrayView value) -> Result<> {
        auto written = Fs::writeFile(Fs::joinPath(dir, file), value);
        if (!written)
            rollback();
        return written;
    };

    auto controllers = Fs::readControllers(dir + QStringLiteral("/cgroup.controllers"));
    if (!controllers) {
        rollback();
        return tl::unexpected(controllers.error());
    }
    const bool memory = controllers->contains(QLatin1String("memory"));
    const bool pids = controllers->contains(QLatin1String("pids"));
    if ((limits.memoryBytes > 0 && !memory) || (limits.pidsMax > 0 && !pids)) {
        rollback();
        return fail(
            QStringLiteral("cgroup.unavailable"),
            QStringLiteral("create group `%1`: %2 offers only `%3`, not the controllers for its limits")
                .arg(name, ticked(dir), controllers->join(QLatin1Char(' '))));
    }
    if (memory) {
        CORDON_TRY(write(QStringLiteral("memory.max"), limits.memoryBytes > 0
                                                           ? QByteArray::number(limits.memoryBytes)
                                                           : QByteArray("max")));
        // Absent when the kernel runs without swap accounting; then there is no swap to limit per group.
        if (Fs::exists(dir + QStringLiteral("/memory.swap.max")))
            CORDON_TRY(write(QStringLiteral("memory.swap.max"), "0"));
        // One OOM kill takes the whole container down rather than leaving it half alive.
        CORDON_TRY(write(QStringLiteral("memory.oom.group"), "1"));
    }
    if (pids)
        CORDON_TRY(write(QStringLiteral("pids.max"),
                         limits.pidsMax > 0 ? QByteArray::number(limits.pidsMax) : QByteArray("max")));
    return {};
}

Result<> CgroupV2::addProcess(const QString &name, pid_t pid)
{
    CORDON_TRY(validateGroupName(name));
    if (pid <= 0)
        return fail(QStringLiteral("cgroup.io"),
                    QStringLiteral("add pid %1 to `%2`: not a process").arg(pid).arg(name), EINVAL);
    const QString file = Fs::joinPath(m_layout.base, name) + QStringLiteral("/cgroup.procs");
    auto written = Fs::writeFile(file, QByteArray::number(pid));
    if (!written && (written.error().sysErrno() == EACCES || written.error().sysErrno() == EPERM) &&
        m_layout.moveSelf)
        return fail(
            written.error().wrap(QStringLiteral("add pid %1 (a process may only be moved below a common "
                                                "ancestor whose cgroup.procs the mover may write; was "
                                                "prepareSelf() called before it was started?)")
                                     .arg(pid)));
    return written;
}

Result<MemoryStats> CgroupV2::memoryStats(const QString &name) const
{
    CORDON_TRY(validateGroupName(name));
    const QString dir = Fs::joinPath(m_layout.base, name);
    auto current = Fs::readValue(dir + QStringLiteral("/memory.current"));
    if (!current)
        return tl::unexpected(current.error());
    auto limit = Fs::readValue(dir + QStringLiteral("/memory.max"));
    if (!limit)
        return tl::unexpected(limit.error());
    auto events = Fs::readFlatKeyed(dir + QStringLiteral("/memory.events"));
    if (!events)
        return tl::unexpected(events.error());
    MemoryStats stats;
    stats.current = *current;
    stats.limit = *limit < 0 ? 0 : *limit;
    // memory.peak appeared in 5.19.
    const QString peakFile = dir + QStringLiteral("/memory.peak");
    if (Fs::exists(peakFile)) {
        auto peak = Fs::readValue(peakFile);
        if (!peak)
            return tl::unexpected(peak.error());
        stats.peak = *peak;
    }
    stats.oomEvents = events->value("oom", 0);
    stats.oomKills = events->value("oom_kill", 0);
    return stats;
}

Result<int> CgroupV2::pidsCurrent(const QString &name) const
{
    CORDON_TRY(validateGroupName(name));
    auto value = Fs::readValue(Fs::joinPath(m_layout.base, name) + QStringLiteral("/pids.current"));
    if (!value)
        return tl::unexpected(value.error());
    return int(*value);
}

Result<QList<pid_t>> CgroupV2::processes(const QString &name) const
{
    CORDON_TRY(validateGroupName(name));
    return Fs::readPids({Fs::joinPath(m_layout.base, name) + QStringLiteral("/cgroup.procs")});
}

Result<> CgroupV2::killAll(const QString &name)
{
    CORDON_TRY(validateGroupName(name));
    const QString dir = Fs::joinPath(m_layout.base, name);
    const QStringList procs{dir + QStringLiteral("/cgroup.procs")};
    // cgroup.kill (5.14) kills the whole subtree atomically with respect to forks; without it, kill in
    // rounds.
    const QString killFile = dir + QStringLiteral("/cgroup.kill");
    if (Fs::exists(killFile)) {
        CORDON_TRY(Fs::writeFile(killFile, "1"));
        return Fs::waitUntilEmpty(procs, KillTimeout);
    }
    return Fs::killUntilEmpty(procs, KillTimeout);
}

Result<> CgroupV2::destroy(const QString &name)
{
    CORDON_TRY(validateGroupName(name));
    const QString dir = Fs::joinPath(m_layout.base, name);
    if (!Fs::exists(dir))
        return {};
    CORDON_TRY(killAll(name));
    return Fs::removeDir(dir);
}

} // namespace Cordon::Cgroup
