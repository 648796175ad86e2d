// SPDX-License-Identifier: MIT
#include "cgroup/cgroupfs.h"

#include "cgroup/cgroupconvert.h"
#include "sandbox/cgroup/cgroupfs.h"

namespace Cordon::Cgroup::Fs {

Result<QByteArray> readFile(const QString &path)
{
    auto data = Core::Fs::readFile(path.toStdString());
    if (!data)
        return fail(Error(data.error()));
    return QByteArray(data->data(), qsizetype(data->size()));
}

QString fsPathOf(const MountEntry &mount, const QString &procPath)
{
    return Convert::toQt(Core::Fs::fsPathOf(Convert::toCore(mount), procPath.toStdString()));
}

QString commonAncestor(const QString &a, const QString &b)
{
    return Convert::toQt(Core::Fs::commonAncestor(a.toStdString(), b.toStdString()));
}

} // namespace Cordon::Cgroup::Fs
