// SPDX-License-Identifier: MIT
#include "files/treecopier.h"

#include "core/plainbridge.h"
#include "files/pendingfile.h"
#include "sandbox/files/filenames.h"

#include <QFile>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <unistd.h>

namespace Cordon::Files {

namespace {

// O_NONBLOCK: a FIFO swapped in after our fstatat() opens at once instead of waiting for a writer forever.
// O_NOCTTY: a terminal device must not become our controlling terminal.
constexpr int SourceFileFlags = O_RDONLY | O_NONBLOCK | O_NOCTTY;

} // namespace

QString joinedPath(const QString &parent, const QString &name)
{
    return parent.isEmpty() ? name : parent + QLatin1Char('/') + name;
}

QString shownPath(const QString &path)
{
    return toQt(escapeForDisplay(toPlain(QFile::encodeName(path))));
}

// Everything that is neither a regular file nor a directory is refused without being opened: opening a FIFO
// blocks, a device may stream forever or read a raw disk, and a symlink would resolve in our context.
std::optional<Refusal> refusalForType(mode_t mode)
{
    if (S_ISREG(mode) || S_ISDIR(mode))
        return std::nullopt;
    if (S_ISLNK(mode))
        return Refusal{QStringLiteral("files.symlink"), QStringLiteral("symbolic link, never followed")};
    if (S_ISFIFO(mode))
        return Refusal{QStringLiteral("files.fifo"), QStringLiteral("FIFO, not opened")};
    if (S_ISSOCK(mode))
        return Refusal{QStringLiteral("files.socket"), QStringLiteral("socket, not opened")};
    if (S_ISCHR(mode) || S_ISBLK(mode))
        return Refusal{QStringLiteral("files.device"), QStringLiteral("device node, not opened")};
    return Refusal{QStringLiteral("files.not_regular"), QStringLiteral("not a regular file")};
}

// Maps a failed open of an entry to the refusal it stands for.
Refusal refusalForOpenError(int error)
{
    switch (error) {
    case ELOOP:
        return {QStringLiteral("files.symlink"), QStringLiteral("symbolic link, never followed")};
    case ENOTDIR:
        return {QStringLiteral("files.not_regular"), QStringLiteral("changed while being read")};
    case ENXIO:
        return {QStringLiteral("files.socket"), QStringLiteral("socket, not read")};
    case EXDEV:
        return {QStringLiteral("files.not_regular"),
                QStringLiteral("mount point; other file systems are not copied")};
    default:
        return {QStringLiteral("files.unreadable"), QString::fromLocal8Bit(strerror(error))};
    }
}

TreeCopier::TreeCopier(const CopyLimits &limits, const struct stat &root)
    : m_limits(limits), m_rootDev(root.st_dev)
{
    m_limits.maxDepth = std::clamp(m_limits.maxDepth, 0, MaxSupportedDepth);
}

void TreeCopier::setDestination(const struct stat &destination, const QString &shown)
{
    m_destination = destination;
    m_shownDestination = shown;
}

void TreeCopier::refuse(const QString &shown, const QString &code, const QString &reason)
{
    m_report.refused.append(RefusedEntry{shown, code, reason});
}

void TreeCopier::stopTruncated(const QString &shown, const QString &code, const QString &reason)
{
    refuse(shown, code, reason);
    m_report.truncated = true;
    m_stopped = true;
}

void TreeCopier::walkDirectory(const UniqueFd &sourceDir, int destinationDir, const QString &relDir,
                               const QString &shownDir, int depth)
{
    std::vector<std::string> names;
    // One name more than the entry budget allows is enough to notice that the budget is exceeded.
    if (!readDirectoryNames(sourceDir.get(), std::size_t(m_limits.maxEntries - m_entries + 1), &names)) {
        refuse(shownDir.isEmpty() ? QStringLiteral(".") : shownDir, refusalForOpenError(errno));
        return;
    }
    // Sorted bytewise, so that reports (and which entries a truncated copy reaches) are reproducible.
    std::sort(names.begin(), names.end());
    for (const std::string &plainName : std::as_const(names)) {
        const QByteArray name = QByteArray::fromStdString(plainName);
        if (stopped())
            return;
        if (++m_entries > m_limits.maxEntries) {
            stopTruncated(
                shownDir.isEmpty() ? QStringLiteral(".") : shownDir, QStringLiteral("files.too_many"),
                QStringLiteral("more than %1 entries; the copy stopped here").arg(m_limits.maxEntries));
            return;
        }
        copyEntry(sourceDir.get(), destinationDir, relDir, shownDir, name, name, depth + 1);
    }
}

void TreeCopier::copyEntry(int sourceDir, int destinationDir, const QString &relDir, const QString &shownDir,
                           QByteArrayView name, QByteArrayView destinationName, int depth)
{
    const QString shown = joinedPath(shownDir, toQt(escapeForDisplay(toPlain(name))));
    if (const auto valid = Files::validateName(toPlain(name)); !valid) {
        refuse(shown, toQt(valid.error().code()), toQt(valid.error().message()));
        return;
    }
    const QString rel = joinedPath(relDir, QString::fromUtf8(name));
    // lstat first only to classify without opening; the descriptor's fstat below is what decides.
    struct stat before;
    if (::fstatat(sourceDir, name.toByteArray().constData(), &before, AT_SYMLINK_NOFOLLOW) != 0) {
        if (errno != ENOENT) // gone meanwhile: nothing to copy, nothing to report
            refuse(shown, refusalForOpenError(errno));
        return;
    }
    if (const auto refusal = refusalForType(before.st_mode)) {
        refuse(shown, *refusal);
        return;
    }
    if (!isOnRootDevice(before)) {
        refuse(shown, refusalForOpenError(EXDEV));
        return;
    }
    if (S_ISDIR(before.st_mode) && m_filesOnly)
        refuse(shown, QStringLiteral("files.not_regular"), QStringLiteral("is a directory"));
    else if (S_ISDIR(before.st_mode))
        copyDirectory(sourceDir, destinationDir, rel, shown, name, depth);
    else
        copyFile(sourceDir, destinationDir, rel, shown, name, destinationName, before);
}

void TreeCopier::copyDirectory(int sourceDir, int destinationDir, const QString &rel, const QString &shown,
                               QByteArrayView name, int depth)
{
    if (depth >= m_limits.maxDepth) {
        refuse(shown, QStringLiteral("files.too_deep"),
               QStringLiteral("directory contents would be more than %1 levels deep; not entered")
                   .arg(m_limits.maxDepth));
        return;
    }
    UniqueFd sub = openBeneath(sourceDir, toPlain(name), O_RDONLY | O_DIRECTORY);
    if (!sub.isValid()) {
        if (errno != ENOENT)
            refuse(shown, refusalForOpenError(errno));
        return;
    }
    struct stat st;
    if (::fstat(sub.get(), &st) != 0 || !S_ISDIR(st.st_mode) || !isOnRootDevice(st)) {
        refuse(shown, QStringLiteral("files.not_regular"), QStringLiteral("changed while being read"));
        return;
    }
    // Exporting into a directory below the source would otherwise copy its own output again.
    if (m_destination && st.st_dev == m_destination->st_dev && st.st_ino == m_destination->st_ino) {
        refuse(shown, QStringLiteral("files.not_regular"), QStringLiteral("is the destination directory"));
        return;
    }
    UniqueFd destinationSub;
    if (m_destination) {
        if (::mkdirat(destinationDir, name.toByteArray().constData(), 0755) != 0 && errno != EEXIST) {
            m_fatal = errnoError(
                QStringLiteral("files.destination"),
                QStringLiteral("create directory `%1` in `%2`").arg(shown, m_shownDestination), errno);
            return;
        }
        // An existing entry of that name is used only if it is a real directory, never through a symlink.
        destinationSub = openBeneath(destinationDir, toPlain(name), O_RDONLY | O_DIRECTORY);
        if (!destinationSub.isValid()) {
            refuse(shown, QStringLiteral("files.exists"),
                   QStringLiteral("the destination has a non-directory of this name"));
            return;
        }
    }
    walkDirectory(sub, destinationSub.get(), rel, shown, depth);
}

void TreeCopier::copyFile(int sourceDir, int destinationDir, const QString &rel, const QString &shown,
                          QByteArrayView name, QByteArrayView destinationName, const struct stat &before)
{
    const auto tooLarge = [this](qint64 size) {
        return QStringLiteral("%1 bytes; the limit is %2").arg(size).arg(m_limits.maxFileBytes);
    };
    // Checked before opening: a 1 TiB sparse file is refused without reading it.
    if (before.st_nlink != 1) {
        refuse(shown, QStringLiteral("files.hardlink"),
               QStringLiteral("%1 hard links; it may be a host file's other name").arg(before.st_nlink));
        return;
    }
    if (before.st_size > m_limits.maxFileBytes) {
        refuse(shown, QStringLiteral("files.too_large"), tooLarge(before.st_size));
        return;
    }
    UniqueFd source = openBeneath(sourceDir, toPlain(name), SourceFileFlags);
    if (!source.isValid()) {
        if (errno != ENOENT)
            refuse(shown, refusalForOpenError(errno));
        return;
    }
    // The descriptor is what gets read, so its fstat is the check that counts (TOCTOU: the name may have been
    // replaced since the fstatat above).
    struct stat st;
    if (::fstat(source.get(), &st) != 0) {
        refuse(shown, refusalForOpenError(errno));
        return;
    }
    if (const auto refusal = refusalForType(st.st_mode)) {
        refuse(shown, *refusal);
        return;
    }
    if (!S_ISREG(st.st_mode) || !isOnRootDevice(st)) {
        refuse(shown, QStringLiteral("files.not_regular"), QStringLiteral("changed while being read"));
        return;
    }
    if (st.st_nlink != 1) {
        refuse(shown, QStringLiteral("files.hardlink"),
               QStringLiteral("%1 hard links; it may be a host file's other name").arg(st.st_nlink));
        return;
    }
    if (st.st_size > m_limits.maxFileBytes) {
        refuse(shown, QStringLiteral("files.too_large"), tooLarge(st.st_size));
        return;
    }
    const qint64 remaining = m_limits.maxTotalBytes - m_report.totalBytes;
    const QString totalReason =
        QStringLiteral("the total limit of %1 bytes is reached; the copy stopped here")
            .arg(m_limits.maxTotalBytes);
    if (st.st_size > remaining) {
        stopTruncated(shown, QStringLiteral("files.too_large"), totalReason);
        return;
    }
    const qint64 cap = std::min(m_limits.maxFileBytes, remaining);

    std::optional<PendingFile> pending;
    if (m_destination) {
        auto created = PendingFile::create(destinationDir, m_shownDestination);
        if (!created) {
            m_fatal = created.error();
            return;
        }
        pending.emplace(std::move(*created));
    }
    const auto copied = copyCapped(source.get(), pending ? pending->fd() : -1, cap);
    if (!copied) {
        if (copied.error().code() == "files.destination")
            m_fatal = copied.error().wrap(
                toPlain(QStringLiteral("copy `%1` to `%2`").arg(shown, m_shownDestination)));
        else
            refuse(shown, QStringLiteral("files.unreadable"), toQt(copied.error().message()));
        return;
    }
    if (copied->exceededCap) {
        // The uncommitted PendingFile disappears: no partial file under any name.
        if (cap < m_limits.maxFileBytes)
            stopTruncated(shown, QStringLiteral("files.too_large"), totalReason);
        else
            refuse(shown, QStringLiteral("files.too_large"),
                   QStringLiteral("grew past the limit of %1 bytes while being copied")
                       .arg(m_limits.maxFileBytes));
        return;
    }
    QString savedAs;
    if (pending) {
        const auto committed = pending->commit(
            destinationName, toQt(escapeForDisplay(toPlain(destinationName))), m_limits.existingNames);
        if (!committed) {
            if (committed.error().code() == "files.exists")
                refuse(shown, QStringLiteral("files.exists"),
                       QStringLiteral("the destination already has this name"));
            else
                m_fatal = committed.error();
            return;
        }
        // A single file lands at the top of the destination whatever folder it came from.
        const QString usedName = QString::fromUtf8(*committed);
        savedAs = m_filesOnly ? usedName : joinedPath(rel.section(QLatin1Char('/'), 0, -2), usedName);
    }
    m_report.copied.append(CopiedFile{rel, copied->bytes, copied->sha256Hex, savedAs});
    m_report.totalBytes += copied->bytes;
}

// SECURITY.md section 3 step 2: the root itself must not be, or pass through, a symlink.
Result<UniqueFd> openSourceRoot(const QString &root, struct stat *st)
{
    UniqueFd fd = openNoSymlinks(toPlain(QFile::encodeName(root)), O_PATH | O_DIRECTORY);
    const int error = errno;
    if (!fd.isValid()) {
        const QString what = QStringLiteral("open source `%1`").arg(shownPath(root));
        switch (error) {
        case ELOOP:
            return fail(QStringLiteral("files.symlink"),
                        what + QStringLiteral(": it is, or passes through, a symbolic link"), error);
        case ENOENT:
            return failErrno(QStringLiteral("files.not_found"), what, error);
        case ENOTDIR:
            return failErrno(QStringLiteral("files.not_directory"), what, error);
        default:
            return failErrno(QStringLiteral("files.unreadable"), what, error);
        }
    }
    if (::fstat(fd.get(), st) != 0)
        return failErrno(QStringLiteral("files.unreadable"), QStringLiteral("stat `%1`").arg(shownPath(root)),
                         errno);
    return fd;
}

Result<UniqueFd> reopenReadable(const UniqueFd &pathFd, const QString &shown)
{
    UniqueFd fd(::openat(pathFd.get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!fd.isValid())
        return failErrno(QStringLiteral("files.unreadable"), QStringLiteral("read directory `%1`").arg(shown),
                         errno);
    return fd;
}

// The user's own destination: symlinks in the path are the user's choice and are followed.
Result<UniqueFd> openDestinationDir(const QString &path, struct stat *st)
{
    UniqueFd fd(::open(QFile::encodeName(path).constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!fd.isValid() || ::fstat(fd.get(), st) != 0)
        return failErrno(QStringLiteral("files.destination"),
                         QStringLiteral("open destination directory `%1`").arg(shownPath(path)), errno);
    return fd;
}

} // namespace Cordon::Files
