// SPDX-License-Identifier: MIT
#include "files/removetree.h"

#include "files/filenames.h"
#include "files/safeopen.h"

#include <QFile>

#include <cerrno>
#include <cstdio>
#include <optional>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace Cordon::Files {

namespace {

// Directory levels that hold descriptors at once (two per level); deeper subtrees are moved up instead.
constexpr int HeldDepth = 64;
// Names read per pass over a directory; the directory is read again from its start until it is empty or a
// pass removes nothing (what is left then cannot be removed: mount points, permissions).
constexpr qsizetype NamesPerPass = 65536;

QString joined(const QString &parent, const QString &name)
{
    return parent.isEmpty() ? name : parent + QLatin1Char('/') + name;
}

class TreeRemover final
{
public:
    TreeRemover(int rootFd, dev_t rootDev) : m_rootFd(rootFd), m_rootDev(rootDev) {}

    // Removes everything inside the directory that `pathFd` (O_PATH, already checked to be a directory on the
    // tree's device) pins. `shown` is its escaped path relative to the tree, for messages.
    void emptyDirectory(int pathFd, const QString &shown, int depth);

    std::optional<Error> m_firstError;
    std::optional<Error> m_mountPoint;

private:
    // Returns true when the entry is gone (or moved away to be removed later).
    bool removeEntry(int dirFd, QByteArrayView name, const QString &shownParent, int depth);
    bool relocate(int dirFd, const QByteArray &name, int subFd, const QString &shown);
    void noteError(const QString &what, int error)
    {
        if (!m_firstError)
            m_firstError = Error::fromErrno(QStringLiteral("files.remove"), what, error);
    }
    void noteMountPoint(const QString &shown)
    {
        if (!m_mountPoint)
            m_mountPoint = Error(QStringLiteral("files.mount_point"),
                                 QStringLiteral("`%1` is a mount point; it was left in place").arg(shown));
    }

    int m_rootFd;
    dev_t m_rootDev;
    quint64 m_relocated = 0;
};

// The sandbox may leave directories mode 000 or 0500; entering and unlinking in them needs u+rwx. The chmod
// goes through the pinned descriptor, never through a name it could swap for a symlink to a host directory.
void makeAccessible(int pathFd)
{
    struct stat st;
    if (::fstat(pathFd, &st) == 0 && (st.st_mode & S_IRWXU) != S_IRWXU)
        changeModePinned(pathFd, (st.st_mode & 07777) | S_IRWXU);
}

void TreeRemover::emptyDirectory(int pathFd, const QString &shown, int depth)
{
    makeAccessible(pathFd);
    UniqueFd dir(::openat(pathFd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!dir.isValid()) {
        noteError(QStringLiteral("open `%1`").arg(shown), errno);
        return;
    }
    QList<QByteArray> names;
    for (;;) {
        if (!readDirectoryNames(dir.get(), NamesPerPass, &names)) {
            noteError(QStringLiteral("read `%1`").arg(shown), errno);
            return;
        }
        bool progress = false;
        for (const QByteArray &name : std::as_const(names))
            progress = removeEntry(dir.get(), name, shown, depth) || progress;
        if (names.isEmpty() || !progress)
            return;
    }
}

bool TreeRemover::removeEntry(int dirFd, QByteArrayView name, const QString &shownParent, int depth)
{
    const QByteArray nameBytes = name.toByteArray();
    const QString shown = joined(shownParent, escapeForDisplay(name));
    const auto removed = [&](int flags) {
        if (::unlinkat(dirFd, nameBytes.constData(), flags) == 0 || errno == ENOENT)
            return true;
        noteError(QStringLiteral("remove `%1`").arg(shown), errno);
        return false;
    };

    struct stat st;
    if (::fstatat(dirFd, nameBytes.constData(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
        if (errno == ENOENT)
            return true;
        noteError(QStringLiteral("stat `%1`").arg(shown), errno);
        return false;
    }
    // Symlinks, FIFOs, sockets, devices and files: the entry goes, whatever it points at stays.
    if (!S_ISDIR(st.st_mode))
        return removed(0);
    if (st.st_dev != m_rootDev) {
        noteMountPoint(shown);
        return false;
    }
    // An empty directory goes with one call: rmdir by name below the pinned parent follows nothing (a
    // symlink swapped in since the fstatat() fails ENOTDIR) and removes no mount point (EBUSY). Anything
    // else is opened and emptied first, below.
    if (::unlinkat(dirFd, nameBytes.constData(), AT_REMOVEDIR) == 0 || errno == ENOENT)
        return true;
    UniqueFd sub = openBeneath(dirFd, name, O_PATH | O_DIRECTORY);
    if (!sub.isValid()) {
        switch (errno) {
        case ENOENT:
            return true;
        case ELOOP:
        case ENOTDIR: // replaced by a symlink or a file since the fstatat(): remove that instead
            return removed(0);
        case EXDEV:
            noteMountPoint(shown);
            return false;
        default:
            noteError(QStringLiteral("open `%1`").arg(shown), errno);
            return false;
        }
    }
    struct stat subStat;
    if (::fstat(sub.get(), &subStat) != 0 || !S_ISDIR(subStat.st_mode) || subStat.st_dev != m_rootDev) {
        noteError(QStringLiteral("open `%1`").arg(shown), EXDEV);
        return false;
    }
    if (depth + 1 >= HeldDepth)
        return relocate(dirFd, nameBytes, sub.get(), shown);
    emptyDirectory(sub.get(), shown, depth + 1);
    return removed(AT_REMOVEDIR);
}

// Moves a deep subtree up to the top of the tree, where it is removed like any other entry. Nothing leaves
// the tree: both descriptors are inside it, and renameat2 works on names relative to them.
bool TreeRemover::relocate(int dirFd, const QByteArray &name, int subFd, const QString &shown)
{
    // Moving a directory to another parent rewrites its "..", which needs write permission on it.
    makeAccessible(subFd);
    for (int attempt = 0; attempt < 64; ++attempt) {
        const QByteArray target = ".cordon-rm-" + QByteArray::number(++m_relocated, 16);
        int rc = ::renameat2(dirFd, name.constData(), m_rootFd, target.constData(), RENAME_NOREPLACE);
        if (rc != 0 &&
            errno == EINVAL) // no RENAME_NOREPLACE here; replacing an entry of the doomed tree is fine
            rc = ::renameat(dirFd, name.constData(), m_rootFd, target.constData());
        if (rc == 0 || errno == ENOENT)
            return true;
        if (errno != EEXIST && errno != ENOTEMPTY)
            break;
    }
    noteError(QStringLiteral("move `%1` up for removal").arg(shown), errno);
    return false;
}

} // namespace

Result<> removeTree(const QString &path)
{
    QByteArray bytes = QFile::encodeName(path);
    while (bytes.size() > 1 && bytes.endsWith('/'))
        bytes.chop(1);
    const qsizetype slash = bytes.lastIndexOf('/');
    const QByteArray name = bytes.mid(slash + 1);
    const QByteArray parent =
        slash < 0 ? QByteArray(".") : (slash == 0 ? QByteArray("/") : bytes.left(slash));
    const QString shown = escapeForDisplay(bytes);
    if (name.isEmpty() || name == "." || name == "..")
        return fail(QStringLiteral("files.remove"),
                    QStringLiteral("remove `%1`: not a removable path").arg(shown));

    UniqueFd parentFd = openNoSymlinks(parent, O_PATH | O_DIRECTORY);
    if (!parentFd.isValid()) {
        if (errno == ENOENT)
            return {};
        if (errno == ELOOP)
            return fail(
                QStringLiteral("files.symlink"),
                QStringLiteral("remove `%1`: the parent directory is or passes through a symbolic link")
                    .arg(shown),
                ELOOP);
        return failErrno(QStringLiteral("files.remove"), QStringLiteral("remove `%1`").arg(shown), errno);
    }
    struct stat st;
    if (::fstatat(parentFd.get(), name.constData(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
        if (errno == ENOENT)
            return {};
        return failErrno(QStringLiteral("files.remove"), QStringLiteral("remove `%1`").arg(shown), errno);
    }
    UniqueFd root;
    if (S_ISDIR(st.st_mode)) {
        root = openBeneath(parentFd.get(), name, O_PATH | O_DIRECTORY);
        if (!root.isValid() && errno == EXDEV)
            return fail(QStringLiteral("files.mount_point"),
                        QStringLiteral("remove `%1`: it is a mount point").arg(shown), EXDEV);
    }
    if (!root.isValid()) {
        // A file, a symlink (the link goes, its target stays), or a directory just replaced by one of those.
        if (::unlinkat(parentFd.get(), name.constData(), 0) == 0 || errno == ENOENT)
            return {};
        return failErrno(QStringLiteral("files.remove"), QStringLiteral("remove `%1`").arg(shown), errno);
    }
    if (::fstat(root.get(), &st) != 0)
        return failErrno(QStringLiteral("files.remove"), QStringLiteral("stat `%1`").arg(shown), errno);

    TreeRemover remover(root.get(), st.st_dev);
    remover.emptyDirectory(root.get(), shown, 0);
    if (remover.m_mountPoint)
        return fail(remover.m_mountPoint->wrap(QStringLiteral("remove `%1`").arg(shown)));
    if (::unlinkat(parentFd.get(), name.constData(), AT_REMOVEDIR) != 0 && errno != ENOENT) {
        if (remover.m_firstError)
            return fail(remover.m_firstError->wrap(QStringLiteral("remove `%1`").arg(shown)));
        return failErrno(QStringLiteral("files.remove"), QStringLiteral("remove `%1`").arg(shown), errno);
    }
    return {};
}

} // namespace Cordon::Files
