// SPDX-License-Identifier: MIT
#include "cgroup/cgroupparsers.h"

#include "cgroup/cgroupconvert.h"
#include "sandbox/cgroup/cgroupparsers.h"

namespace Cordon::Cgroup {

namespace {

std::string_view view(QByteArrayView data)
{
    return std::string_view(data.data(), size_t(data.size()));
}

} // namespace

Result<QList<ProcCgroupEntry>> parseProcSelfCgroup(QByteArrayView data)
{
    auto entries = Core::parseProcSelfCgroup(view(data));
    if (!entries)
        return fail(Error(entries.error()));
    QList<ProcCgroupEntry> out;
    out.reserve(qsizetype(entries->size()));
    for (const Core::ProcCgroupEntry &entry : *entries)
        out.append(
            ProcCgroupEntry{entry.hierarchyId, Convert::toQt(entry.controllers), Convert::toQt(entry.path)});
    return out;
}

QList<MountEntry> parseCgroupMounts(QByteArrayView mountinfo)
{
    QList<MountEntry> out;
    for (const Core::MountEntry &mount : Core::parseCgroupMounts(view(mountinfo)))
        out.append(Convert::toQt(mount));
    return out;
}

QHash<QByteArray, qint64> parseFlatKeyed(QByteArrayView data)
{
    QHash<QByteArray, qint64> out;
    for (const auto &[key, value] : Core::parseFlatKeyed(view(data)))
        out.insert(QByteArray(key.data(), qsizetype(key.size())), value);
    return out;
}

Result<qint64> parseLimitValue(QByteArrayView data)
{
    return fromPlain(Core::parseLimitValue(view(data)));
}

QStringList parseControllerList(QByteArrayView data)
{
    return Convert::toQt(Core::parseControllerList(view(data)));
}

} // namespace Cordon::Cgroup
