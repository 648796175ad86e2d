// SPDX-License-Identifier: MIT
// Type conversions between the plain cgroup core (cgroup/core/) and the Qt cgroup API that adapts it: UTF-8
// std::string to QString and back, std::vector to QList, Plain::Failure to Cordon::Error. Internal to
// engine/cgroup.
#pragma once

#include "cgroup/cgroupparsers.h"
#include "core/result.h"
#include "sandbox/cgroup/cgroupparsers.h"

#include <QList>
#include <QString>
#include <QStringList>

#include <string>
#include <vector>

namespace Cordon::Cgroup::Convert {

inline QString toQt(const std::string &text)
{
    return QString::fromStdString(text);
}

inline QStringList toQt(const std::vector<std::string> &texts)
{
    QStringList out;
    out.reserve(qsizetype(texts.size()));
    for (const std::string &text : texts)
        out.append(QString::fromStdString(text));
    return out;
}

inline std::vector<std::string> toCore(const QStringList &texts)
{
    std::vector<std::string> out;
    out.reserve(size_t(texts.size()));
    for (const QString &text : texts)
        out.push_back(text.toStdString());
    return out;
}

template<typename T> QList<T> toQList(const std::vector<T> &values)
{
    return QList<T>(values.begin(), values.end());
}

inline MountEntry toQt(const Core::MountEntry &mount)
{
    return MountEntry{toQt(mount.mountPoint), toQt(mount.root), mount.unified, toQt(mount.controllers),
                      toQt(mount.options)};
}

inline Core::MountEntry toCore(const MountEntry &mount)
{
    return Core::MountEntry{mount.mountPoint.toStdString(), mount.root.toStdString(), mount.unified,
                            toCore(mount.controllers), toCore(mount.options)};
}

// A core result whose value is a string, as a Qt result.
inline Result<QString> toQt(Plain::Result<std::string> result)
{
    if (!result)
        return fail(Error(result.error()));
    return toQt(*result);
}

} // namespace Cordon::Cgroup::Convert
