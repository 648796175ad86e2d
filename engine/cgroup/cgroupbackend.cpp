// SPDX-License-Identifier: MIT
// The Qt cgroup API as a thin adapter: every decision, path and message comes from the plain core
// (cgroup/core/); this file only converts types.
#include "cgroup/cgroupbackend.h"

#include "cgroup/cgroupconvert.h"

#include <pwd.h>

namespace Cordon::Cgroup {

namespace {

class CoreBackend final : public CgroupBackend
{
public:
    explicit CoreBackend(std::unique_ptr<Core::CgroupBackend> backend) : m_core(std::move(backend)) {}
    Q_DISABLE_COPY_MOVE(CoreBackend)

    Core::CgroupBackend &core() override { return *m_core; }
    Version version() const override { return m_core->version(); }
    QString describe() const override { return Convert::toQt(m_core->describe()); }
    Result<> prepareSelf() override { return fromPlain(m_core->prepareSelf()); }

    Result<> create(const QString &name, const ResourceLimits &limits) override
    {
        return fromPlain(m_core->create(name.toStdString(), {limits.memoryBytes, limits.pidsMax}));
    }

    Result<> addProcess(const QString &name, pid_t pid) override
    {
        return fromPlain(m_core->addProcess(name.toStdString(), pid));
    }

    Result<MemoryStats> memoryStats(const QString &name) const override
    {
        auto stats = m_core->memoryStats(name.toStdString());
        if (!stats)
            return fail(Error(stats.error()));
        return MemoryStats{stats->current,  stats->peak,      stats->limit,
                           stats->oomKills, stats->oomEvents, stats->pidsLimitHits};
    }

    Result<int> pidsCurrent(const QString &name) const override
    {
        return fromPlain(m_core->pidsCurrent(name.toStdString()));
    }

    Result<QList<pid_t>> processes(const QString &name) const override
    {
        auto pids = m_core->processes(name.toStdString());
        if (!pids)
            return fail(Error(pids.error()));
        return Convert::toQList(*pids);
    }

    Result<> killAll(const QString &name) override { return fromPlain(m_core->killAll(name.toStdString())); }
    Result<> destroy(const QString &name) override { return fromPlain(m_core->destroy(name.toStdString())); }

    QStringList groupPaths(const QString &name) const override
    {
        return Convert::toQt(m_core->groupPaths(name.toStdString()));
    }

private:
    std::unique_ptr<Core::CgroupBackend> m_core;
};

} // namespace

// The engine is dynamically linked, so its advice may name users that only NSS knows (LDAP, sssd).
std::string userNameFromNss(uid_t uid)
{
    const passwd *pw = ::getpwuid(uid);
    return pw ? std::string(pw->pw_name) : std::to_string(uid);
}

std::unique_ptr<CgroupBackend> adaptBackend(std::unique_ptr<Core::CgroupBackend> backend)
{
    return std::make_unique<CoreBackend>(std::move(backend));
}

Result<> validateGroupName(const QString &name)
{
    return fromPlain(Core::validateGroupName(name.toStdString()));
}

Result<std::unique_ptr<CgroupBackend>> detectBackend()
{
    auto backend = Core::detectBackend(userNameFromNss);
    if (!backend)
        return fail(Error(backend.error()));
    return adaptBackend(std::move(*backend));
}

HostReport inspectHost()
{
    const Core::HostReport report = Core::inspectHost(userNameFromNss);
    return HostReport{report.version,  report.memoryController,    report.pidsController,
                      report.writable, Convert::toQt(report.base), Convert::toQt(report.explanation)};
}

Result<QString> delegateToUser(uid_t uid, gid_t gid)
{
    return Convert::toQt(Core::delegateToUser(uid, gid));
}

} // namespace Cordon::Cgroup
