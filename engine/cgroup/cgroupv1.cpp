// SPDX-License-Identifier: MIT
#include "cgroup/cgroupv1.h"

#include "cgroup/cgroupfs.h"

#include <cerrno>

namespace Cordon::Cgroup {

namespace {

using namespace std::chrono_literals;
constexpr auto KillTimeout = 5000ms;

} // namespace

CgroupV1::CgroupV1(QString memoryBase, QString pidsBase, bool createBase)
    : m_memoryBase(std::move(memoryBase)), m_pidsBase(std::move(pidsBase)), m_createBase(createBase)
{}

QString CgroupV1::describe() const
{
    if (m_memoryBase == m_pidsBase)
        return QStringLiteral("cgroup v1: memory and pids at ") + m_memoryBase;
    return QStringLiteral("cgroup v1: memory at ") + m_memoryBase + QStringLiteral(", pids at ") + m_pidsBase;
}

Result<> CgroupV1::prepareSelf()
{
    // v1 has no common-ancestor rule and no "no internal processes" rule: the engine may stay where it is.
    return {};
}

QStringList CgroupV1::bases() const
{
    if (m_memoryBase == m_pidsBase)
        return {m_memoryBase};
    return {m_memoryBase, m_pidsBase};
}

QStringList CgroupV1::groupPaths(const QString &name) const
{
    QStringList paths;
    for (const QString &base : bases())
        paths.append(Fs::joinPath(base, name));
    return paths;
}

QStringList CgroupV1::procsFiles(const QString &name) const
{
    QStringList files;
    for (const QString &path : groupPaths(name))
        files.append(path + QStringLiteral("/cgroup.procs"));
    return files;
}

Result<> CgroupV1::ensureBases()
{
    if (!m_createBase)
        return {};
    for (const QString &base : bases()) {
        CORDON_TRY(Fs::makeDir(Fs::parentOf(base)));
        CORDON_TRY(Fs::makeDir(base));
    }
    return {};
}

Result<> CgroupV1::create(const QString &name, const ResourceLimits &limits)
{
    CORDON_TRY(validateGroupName(name));
    CORDON_TRY(ensureBases());
    QStringList created;
    auto rollback = [&created] {
        for (const QString &path : std::as_const(created))
            (void)Fs::removeDir(path);
    };
    for (const QString &path : groupPaths(name)) {
        auto made = Fs::makeDir(path);
        if (!made && made.error().sysErrno() == ENOENT && m_createBase) {
            // The empty base was removed under us (by an administrator or a test cleaning up): make it again.
            made = ensureBases().and_then([&path] { return Fs::makeDir(path); });
        }
        if (!made) {
            rollback();
            return tl::unexpected(made.error());
        }
        if (*made)
            created.append(path);
    }
    if (created.size() != groupPaths(name).size()) {
        // A group left over from a crashed engine may be reused, but never one that still runs something.
        auto pids = processes(name);
        if (!pids || !pids->isEmpty()) {
            rollback();
            if (!pids)
                return tl::unexpected(pids.error());
            return fail(QStringLiteral("cgroup.io"),
                        QStringLiteral("create group `%1`: it already exists and holds %2 process(es)")
                            .arg(name)
                            .arg(pids->size()),
                        EEXIST);
        }
    }
    auto written = writeLimits(name, limits);
    if (!written) {
        rollback();
        return written;
    }
    return {};
}

Result<> CgroupV1::writeLimits(const QString &name, const ResourceLimits &limits)
{
    const QString memory = Fs::joinPath(m_memoryBase, name);
    const QByteArray bytes =
        limits.memoryBytes > 0 ? QByteArray::number(limits.memoryBytes) : QByteArray("-1");
    // memory.memsw (memory plus swap) must never be below memory.limit_in_bytes: open it fully first, then
    // set the memory limit, then close it down to the same value so the container gets no swap beyond its
    // memory. It is absent when the kernel runs without swap accounting; swappiness 0 then keeps limit
    // reclaim from swapping the group's anonymous memory, which is the best v1 offers there.
    const QString memsw = memory + QStringLiteral("/memory.memsw.limit_in_bytes");
    const bool haveMemsw = Fs::exists(memsw);
    if (haveMemsw)
        CORDON_TRY(Fs::writeFile(memsw, "-1"));
    CORDON_TRY(Fs::writeFile(memory + QStringLiteral("/memory.limit_in_bytes"), bytes));
    if (haveMemsw)
        CORDON_TRY(Fs::writeFile(memsw, bytes));
    CORDON_TRY(Fs::writeFile(memory + QStringLiteral("/memory.swappiness"), "0"));

    const QByteArray pids = limits.pidsMax > 0 ? QByteArray::number(limits.pidsMax) : QByteArray("max");
    CORDON_TRY(Fs::writeFile(Fs::joinPath(m_pidsBase, name) + QStringLiteral("/pids.max"), pids));
    return {};
}

Result<> CgroupV1::addProcess(const QString &name, pid_t pid)
{
    CORDON_TRY(validateGroupName(name));
    if (pid <= 0)
        return fail(QStringLiteral("cgroup.io"),
                    QStringLiteral("add pid %1 to `%2`: not a process").arg(pid).arg(name), EINVAL);
    // cgroup.procs moves the whole thread group; in v1 each hierarchy is joined separately.
    for (const QString &file : procsFiles(name))
        CORDON_TRY(Fs::writeFile(file, QByteArray::number(pid)));
    return {};
}

Result<MemoryStats> CgroupV1::memoryStats(const QString &name) const
{
    CORDON_TRY(validateGroupName(name));
    const QString dir = Fs::joinPath(m_memoryBase, name);
    MemoryStats stats;
    auto current = Fs::readValue(dir + QStringLiteral("/memory.usage_in_bytes"));
    auto peak = Fs::readValue(dir + QStringLiteral("/memory.max_usage_in_bytes"));
    auto limit = Fs::readValue(dir + QStringLiteral("/memory.limit_in_bytes"));
    auto oom = Fs::readFlatKeyed(dir + QStringLiteral("/memory.oom_control"));
    for (const Result<qint64> *value : {&current, &peak, &limit}) {
        if (!*value)
            return tl::unexpected(value->error());
    }
    if (!oom)
        return tl::unexpected(oom.error());
    stats.current = *current;
    stats.peak = *peak;
    stats.limit = *limit < 0 ? 0 : *limit;
    // v1 reports no separate count of OOM events; with the OOM killer enabled every event ends in a kill.
    // (oom_kill appeared in 4.13; older kernels show 0.)
    stats.oomKills = oom->value("oom_kill", 0);
    stats.oomEvents = stats.oomKills;
    return stats;
}

Result<int> CgroupV1::pidsCurrent(const QString &name) const
{
    CORDON_TRY(validateGroupName(name));
    auto value = Fs::readValue(Fs::joinPath(m_pidsBase, name) + QStringLiteral("/pids.current"));
    if (!value)
        return tl::unexpected(value.error());
    return int(*value);
}

Result<QList<pid_t>> CgroupV1::processes(const QString &name) const
{
    CORDON_TRY(validateGroupName(name));
    return Fs::readPids(procsFiles(name));
}

Result<> CgroupV1::killAll(const QString &name)
{
    CORDON_TRY(validateGroupName(name));
    // The freezer would make this race-free but is a third hierarchy to delegate; pids.max bounds how many
    // processes a fork loop can add between rounds, so the bounded loop converges.
    return Fs::killUntilEmpty(procsFiles(name), KillTimeout);
}

Result<> CgroupV1::destroy(const QString &name)
{
    CORDON_TRY(validateGroupName(name));
    QStringList present;
    for (const QString &path : groupPaths(name)) {
        if (Fs::exists(path))
            present.append(path);
    }
    if (present.isEmpty())
        return {};
    QStringList files;
    for (const QString &path : std::as_const(present))
        files.append(path + QStringLiteral("/cgroup.procs"));
    CORDON_TRY(Fs::killUntilEmpty(files, KillTimeout));
    for (const QString &path : std::as_const(present))
        CORDON_TRY(Fs::removeDir(path));
    return {};
}

} // namespace Cordon::Cgroup
