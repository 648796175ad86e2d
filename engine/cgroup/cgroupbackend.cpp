// SPDX-License-Identifier: MIT
#include "cgroup/cgroupbackend.h"

namespace Cordon::Cgroup {

Result<> validateGroupName(const QString &name)
{
    // The name becomes a path component under a directory the engine may write as root: no '/', no "..",
    // nothing that could collide with a control file ("memory.max") or the engine's own "engine.<pid>" leaf.
    constexpr qsizetype MaxLength = 64;
    if (name.isEmpty() || name.size() > MaxLength)
        return fail(
            QStringLiteral("cgroup.invalid_name"),
            QStringLiteral("cgroup name `%1` must be 1 to %2 characters long").arg(name).arg(MaxLength));
    for (QChar c : name) {
        const char16_t u = c.unicode();
        const bool ok = (u >= u'a' && u <= u'z') || (u >= u'A' && u <= u'Z') || (u >= u'0' && u <= u'9') ||
                        u == u'_' || u == u'-';
        if (!ok)
            return fail(
                QStringLiteral("cgroup.invalid_name"),
                QStringLiteral("cgroup name `%1` may only contain A-Z, a-z, 0-9, `_` and `-`").arg(name));
    }
    return {};
}

} // namespace Cordon::Cgroup
