// SPDX-License-Identifier: MIT
#include "containers/workspace.h"

#include "files/removetree.h"

#include <QDir>
#include <QFile>
#include <QRandomGenerator>
#include <QStandardPaths>

#include <cerrno>
#include <sys/stat.h>
#include <unistd.h>

namespace Cordon::Containers {

namespace {

// The process's umask, from /proc/self/status (umask(2) can only read it by changing it, which would race
// with other threads creating files); 0777 when it cannot be read, so that every mode is set explicitly.
mode_t processUmask()
{
    static const mode_t mask = [] {
        QFile status(QStringLiteral("/proc/self/status"));
        if (!status.open(QIODevice::ReadOnly))
            return mode_t(0777);
        for (const QByteArray &line : status.readAll().split('\n')) {
            if (line.startsWith("Umask:")) {
                bool ok = false;
                const uint value = line.mid(6).trimmed().toUInt(&ok, 8);
                return ok ? mode_t(value) : mode_t(0777);
            }
        }
        return mode_t(0777);
    }();
    return mask;
}

Result<> makeDir(const QString &path, mode_t mode)
{
    const QByteArray encoded = QFile::encodeName(path);
    const bool created = ::mkdir(encoded.constData(), mode) == 0;
    if (!created && errno != EEXIST)
        return failErrno(QStringLiteral("workspace.io"), QStringLiteral("mkdir `%1`").arg(path), errno);
    // A directory we just made has its mode unless the umask took bits away; one that was there is set again
    // (a chmod costs a journal write on ext4, so it is not repeated when it would change nothing).
    if ((!created || (mode & processUmask()) != 0) && ::chmod(encoded.constData(), mode) != 0)
        return failErrno(QStringLiteral("workspace.io"), QStringLiteral("chmod `%1`").arg(path), errno);
    return {};
}

Result<> handTo(const QString &path, const Isolation::IdMapping &ids)
{
    const QByteArray encoded = QFile::encodeName(path);
    if (::lchown(encoded.constData(), ids.hostUid, ids.hostGid) != 0)
        return failErrno(QStringLiteral("workspace.io"), QStringLiteral("chown `%1`").arg(path), errno);
    return {};
}

} // namespace

QString dataDirectory()
{
    const QByteArray overridden = qgetenv("CORDON_DATA_DIR");
    if (!overridden.isEmpty())
        return QFile::decodeName(overridden);
    return QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation) + QStringLiteral("/cordon");
}

QString newContainerId()
{
    const quint64 value = QRandomGenerator::system()->generate64();
    return QStringLiteral("%1").arg(value, 16, 16, QLatin1Char('0'));
}

Result<Workspace> Workspace::create(const QString &containerId, const Isolation::IdMapping &ids,
                                    Layout layout)
{
    const QString containers = dataDirectory() + QStringLiteral("/containers");
    if (!QDir().mkpath(containers))
        return fail(QStringLiteral("workspace.io"), QStringLiteral("cannot create `%1`").arg(containers));
    // The safe file code refuses any symlink on the way to a root (even a trusted one such as a symlinked
    // /home), so the workspace is addressed by its canonical path.
    const QString canonical = QDir(containers).canonicalPath();
    if (canonical.isEmpty())
        return fail(QStringLiteral("workspace.io"), QStringLiteral("cannot resolve `%1`").arg(containers));
    Workspace workspace;
    workspace.m_root = canonical + QLatin1Char('/') + containerId;
    const Isolation::WorkspacePaths paths = workspace.paths(layout);
    CORDON_TRY(makeDir(workspace.m_root, 0700));
    CORDON_TRY(makeDir(paths.work, 0755));
    CORDON_TRY(makeDir(paths.inputs, 0755));
    CORDON_TRY(makeDir(paths.outputs, 0755));
    if (!paths.code.isEmpty())
        CORDON_TRY(makeDir(paths.code, 0755));
    // Mount points inside work/ are the sandbox's to change: an earlier run may have replaced them with a
    // symlink or a file. Put real directories back (the mount walk refuses anything else).
    const QStringList mountPoints = {paths.work + QStringLiteral("/inputs"),
                                     paths.work + QStringLiteral("/outputs")};
    for (const QString &mountPoint : mountPoints) {
        struct stat info
        {
        };
        const QByteArray encoded = QFile::encodeName(mountPoint);
        if (::lstat(encoded.constData(), &info) == 0 && !S_ISDIR(info.st_mode))
            CORDON_TRY(Files::removeTree(mountPoint));
        CORDON_TRY(makeDir(mountPoint, 0755));
    }
    // When the caller is root, code inside runs as an unprivileged host uid and must own what it may write.
    if (ids.hostUid != ::geteuid()) {
        CORDON_TRY(handTo(paths.work, ids));
        CORDON_TRY(handTo(paths.outputs, ids));
    }
    return workspace;
}

Workspace Workspace::at(const QString &containerId)
{
    Workspace workspace;
    const QString containers = dataDirectory() + QStringLiteral("/containers");
    const QString canonical = QDir(containers).canonicalPath();
    workspace.m_root = (canonical.isEmpty() ? containers : canonical) + QLatin1Char('/') + containerId;
    return workspace;
}

Isolation::WorkspacePaths Workspace::paths(Layout layout) const
{
    return {m_root + QStringLiteral("/work"), m_root + QStringLiteral("/inputs"),
            m_root + QStringLiteral("/outputs"),
            layout == Layout::WithCode ? m_root + QStringLiteral("/code") : QString()};
}

Result<> Workspace::remove() const
{
    if (m_root.isEmpty())
        return {};
    return Files::removeTree(m_root);
}

} // namespace Cordon::Containers
