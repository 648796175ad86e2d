// SPDX-License-Identifier: MIT
#include "files/safecopy.h"

#include "core/plainbridge.h"
#include "files/pendingfile.h"
#include "files/treecopier.h"
#include "sandbox/files/filenames.h"

#include <QFile>

#include <algorithm>
#include <cerrno>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace Cordon::Files {

namespace {

Result<CopyReport> copyTree(const QString &sourceRoot, const QString *destinationDir,
                            const CopyLimits &limits)
{
    struct stat rootStat;
    auto root = openSourceRoot(sourceRoot, &rootStat);
    if (!root)
        return fail(root.error());
    TreeCopier copier(limits, rootStat);
    UniqueFd destination;
    if (destinationDir) {
        struct stat destinationStat;
        auto opened = openDestinationDir(*destinationDir, &destinationStat);
        if (!opened)
            return fail(opened.error());
        if (destinationStat.st_dev == rootStat.st_dev && destinationStat.st_ino == rootStat.st_ino)
            return fail(QStringLiteral("files.destination"),
                        QStringLiteral("export `%1`: the destination is the source itself")
                            .arg(shownPath(sourceRoot)));
        destination = std::move(*opened);
        copier.setDestination(destinationStat, shownPath(*destinationDir));
    }
    auto readable = reopenReadable(*root, shownPath(sourceRoot));
    if (!readable)
        return fail(readable.error());
    copier.walkDirectory(*readable, destination.get(), QString(), QString(), 0);
    if (copier.fatal())
        return fail(*copier.fatal());
    return copier.takeReport();
}

} // namespace

Result<CopyReport> exportTree(const QString &sourceRoot, const QString &destinationDir,
                              const CopyLimits &limits)
{
    return copyTree(sourceRoot, &destinationDir, limits);
}

Result<CopyReport> listTree(const QString &root, const CopyLimits &limits)
{
    return copyTree(root, nullptr, limits);
}

Result<CopiedFile> exportFile(const QString &sourceRoot, const QString &relativePath,
                              const QString &destinationPath, const CopyLimits &limits)
{
    const QString what = QStringLiteral("export `%1`").arg(shownPath(relativePath));
    const QList<QByteArray> components = relativePath.toUtf8().split('/');
    if (!relativePath.isValidUtf16())
        return fail(QStringLiteral("files.bad_name"), what + QStringLiteral(": not valid Unicode"));
    for (const QByteArray &component : components) {
        if (const auto valid = Files::validateName(toPlain(component)); !valid)
            return fail(valid.error().wrap(toPlain(what)));
    }
    if (components.size() > std::clamp(limits.maxDepth, 0, MaxSupportedDepth))
        return fail(QStringLiteral("files.too_deep"),
                    what + QStringLiteral(": more than %1 levels deep").arg(limits.maxDepth));

    const QByteArray destinationBytes = QFile::encodeName(destinationPath);
    const qsizetype slash = destinationBytes.lastIndexOf('/');
    const QByteArray destinationName = destinationBytes.mid(slash + 1);
    const QByteArray destinationParent =
        slash < 0 ? QByteArray(".") : (slash == 0 ? QByteArray("/") : destinationBytes.left(slash));
    if (destinationName.isEmpty() || destinationName == "." || destinationName == "..")
        return fail(QStringLiteral("files.destination"),
                    what + QStringLiteral(": `%1` does not name a file").arg(shownPath(destinationPath)));

    struct stat rootStat;
    auto root = openSourceRoot(sourceRoot, &rootStat);
    if (!root)
        return fail(root.error().wrap(toPlain(what)));
    // Intermediate directories by descriptor, one component at a time, so a directory symlink in the middle
    // (linkdir/passwd) is refused like a file symlink.
    UniqueFd current = std::move(*root);
    QString relDir;
    for (qsizetype i = 0; i + 1 < components.size(); ++i) {
        UniqueFd next = openBeneath(current.get(), toPlain(components.at(i)), O_PATH | O_DIRECTORY);
        const int error = errno;
        relDir = joinedPath(relDir, QString::fromUtf8(components.at(i)));
        if (!next.isValid()) {
            const QString where =
                QStringLiteral("export `%1`").arg(toQt(escapeForDisplay(toPlain(relDir.toUtf8()))));
            const Refusal refusal = refusalForOpenError(error);
            if (error == ENOENT)
                return failErrno(QStringLiteral("files.not_found"), where, error);
            if (error == ENOTDIR)
                return failErrno(QStringLiteral("files.not_directory"), where, error);
            return fail(refusal.code, where + QStringLiteral(": ") + refusal.reason, error);
        }
        current = std::move(next);
    }

    struct stat destinationStat;
    auto destination = openDestinationDir(QFile::decodeName(destinationParent), &destinationStat);
    if (!destination)
        return fail(destination.error().wrap(toPlain(what)));
    TreeCopier copier(limits, rootStat);
    copier.setDestination(destinationStat, shownPath(QFile::decodeName(destinationParent)));
    copier.setFilesOnly();
    const QString shownDir = toQt(escapeForDisplay(toPlain(relDir.toUtf8())));
    copier.copyEntry(current.get(), destination->get(), relDir, shownDir, components.constLast(),
                     destinationName, int(components.size()));
    if (copier.fatal())
        return fail(copier.fatal()->wrap(toPlain(what)));
    if (!copier.report().refused.isEmpty()) {
        const RefusedEntry &refused = copier.report().refused.constFirst();
        return fail(refused.code, what + QStringLiteral(": ") + refused.reason);
    }
    if (copier.report().copied.isEmpty()) {
        return fail(QStringLiteral("files.not_found"), what + QStringLiteral(": no such file"), ENOENT);
    }
    return copier.report().copied.constFirst();
}

Result<CopiedFile> importFile(const QString &hostPath, const QString &inputsDir, const QString &name,
                              const CopyLimits &limits)
{
    const QString what = QStringLiteral("import `%1`").arg(shownPath(hostPath));
    if (!name.isValidUtf16())
        return fail(QStringLiteral("files.bad_name"),
                    what + QStringLiteral(": the name is not valid Unicode"));
    const QByteArray nameBytes = name.toUtf8();
    if (const auto valid = Files::validateName(toPlain(nameBytes)); !valid)
        return fail(valid.error().wrap(toPlain(what)));

    // stat() first so that a device or FIFO the user picked by mistake is refused without being opened; the
    // descriptor's fstat() below is the check that counts.
    const QByteArray source = QFile::encodeName(hostPath);
    struct stat st;
    if (::stat(source.constData(), &st) != 0)
        return failErrno(errno == ENOENT ? QStringLiteral("files.not_found")
                                         : QStringLiteral("files.unreadable"),
                         what, errno);
    if (const auto refusal = refusalForType(st.st_mode))
        return fail(refusal->code, what + QStringLiteral(": ") + refusal->reason);
    if (S_ISDIR(st.st_mode))
        return fail(QStringLiteral("files.not_regular"), what + QStringLiteral(": is a directory"));
    UniqueFd sourceFd(::open(source.constData(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
    if (!sourceFd.isValid()) {
        const Refusal refusal = refusalForOpenError(errno);
        return fail(refusal.code, what + QStringLiteral(": ") + refusal.reason, errno);
    }
    if (::fstat(sourceFd.get(), &st) != 0)
        return failErrno(QStringLiteral("files.unreadable"), what, errno);
    if (!S_ISREG(st.st_mode))
        return fail(QStringLiteral("files.not_regular"), what + QStringLiteral(": changed while being read"));
    const qint64 cap = std::min(limits.maxFileBytes, limits.maxTotalBytes);
    if (st.st_size > cap)
        return fail(QStringLiteral("files.too_large"),
                    what + QStringLiteral(": %1 bytes; the limit is %2").arg(st.st_size).arg(cap));

    // inputs/ is created by the engine and read-only inside the sandbox; still, no symlink is followed into
    // it.
    UniqueFd inputs = openNoSymlinks(toPlain(QFile::encodeName(inputsDir)), O_RDONLY | O_DIRECTORY);
    if (!inputs.isValid())
        return failErrno(errno == ELOOP ? QStringLiteral("files.symlink")
                                        : QStringLiteral("files.destination"),
                         what + QStringLiteral(": open `%1`").arg(shownPath(inputsDir)), errno);
    struct stat existing;
    if (::fstatat(inputs.get(), nameBytes.constData(), &existing, AT_SYMLINK_NOFOLLOW) == 0)
        return fail(QStringLiteral("files.exists"),
                    what + QStringLiteral(": `%1` already exists in the inputs")
                               .arg(toQt(escapeForDisplay(toPlain(nameBytes)))),
                    EEXIST);

    auto pending = PendingFile::create(inputs.get(), shownPath(inputsDir));
    if (!pending)
        return fail(pending.error().wrap(toPlain(what)));
    const auto copied = copyCapped(sourceFd.get(), pending->fd(), cap);
    if (!copied)
        return fail(copied.error().wrap(toPlain(what)));
    if (copied->exceededCap)
        return fail(QStringLiteral("files.too_large"),
                    what + QStringLiteral(": grew past the limit of %1 bytes while being copied").arg(cap));
    // The commit refuses to replace a name created since the check above.
    if (const auto committed = pending->commit(nameBytes, toQt(escapeForDisplay(toPlain(nameBytes))));
        !committed)
        return fail(committed.error().wrap(toPlain(what)));
    return CopiedFile{name, copied->bytes, copied->sha256Hex};
}

} // namespace Cordon::Files
