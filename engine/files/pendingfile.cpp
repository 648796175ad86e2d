// SPDX-License-Identifier: MIT
#include "files/pendingfile.h"

#include <QCryptographicHash>
#include <QRandomGenerator>

#include <algorithm>
#include <array>
#include <cerrno>
#include <climits>
#include <cstdio>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace Cordon::Files {

namespace {

constexpr mode_t DestinationMode = 0644;

int linkTmpfile(int fd, int dirFd, const char *name)
{
    // AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH and fails with ENOENT without it; the /proc/self/fd path is the
    // documented unprivileged way (open(2), O_TMPFILE).
    if (::linkat(fd, "", dirFd, name, AT_EMPTY_PATH) == 0)
        return 0;
    if (errno != ENOENT && errno != EPERM)
        return -1;
    const QByteArray procPath = "/proc/self/fd/" + QByteArray::number(fd);
    return ::linkat(AT_FDCWD, procPath.constData(), dirFd, name, AT_SYMLINK_FOLLOW);
}

} // namespace

Result<PendingFile> PendingFile::create(int dirFd, const QString &shownDir)
{
    PendingFile file;
    file.m_dirFd = dirFd;
    file.m_shownDir = shownDir;
    file.m_fd = UniqueFd(::openat(dirFd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, DestinationMode));
    if (file.m_fd.isValid())
        return file;
    // EOPNOTSUPP/EISDIR/EINVAL: this file system (or kernel) has no O_TMPFILE. Anything else is a real
    // failure.
    if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
        return failErrno(QStringLiteral("files.destination"),
                         QStringLiteral("create a file in `%1`").arg(shownDir), errno);
    for (int attempt = 0; attempt < 16; ++attempt) {
        const QByteArray name =
            ".cordon-partial-" + QByteArray::number(QRandomGenerator::system()->generate64(), 16);
        file.m_fd = UniqueFd(::openat(dirFd, name.constData(),
                                      O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, DestinationMode));
        if (file.m_fd.isValid()) {
            file.m_tempName = name;
            return file;
        }
        if (errno != EEXIST)
            break;
    }
    return failErrno(QStringLiteral("files.destination"),
                     QStringLiteral("create a file in `%1`").arg(shownDir), errno);
}

PendingFile::PendingFile(PendingFile &&other) noexcept
    : m_fd(std::move(other.m_fd)), m_dirFd(other.m_dirFd), m_tempName(std::move(other.m_tempName)),
      m_shownDir(std::move(other.m_shownDir)), m_committed(other.m_committed)
{
    other.m_tempName.clear();
    other.m_committed = true;
}

PendingFile::~PendingFile()
{
    discard();
}

void PendingFile::discard()
{
    if (!m_committed && !m_tempName.isEmpty())
        ::unlinkat(m_dirFd, m_tempName.constData(), 0);
    m_fd.reset();
}

Result<QByteArray> PendingFile::replaceRegular(const QByteArray &target, const QString &shownName)
{
    // A name of our own first (O_TMPFILE has none), then one rename over the old file: a reader sees the old
    // file or the new one, and a symlink planted meanwhile is replaced, not followed.
    if (m_tempName.isEmpty()) {
        const QByteArray staged =
            ".cordon-partial-" + QByteArray::number(QRandomGenerator::system()->generate64(), 16);
        if (linkTmpfile(m_fd.get(), m_dirFd, staged.constData()) != 0)
            return failErrno(QStringLiteral("files.destination"),
                             QStringLiteral("create `%1` in `%2`").arg(shownName, m_shownDir), errno);
        m_tempName = staged;
    }
    if (::renameat(m_dirFd, m_tempName.constData(), m_dirFd, target.constData()) != 0)
        return failErrno(QStringLiteral("files.destination"),
                         QStringLiteral("replace `%1` in `%2`").arg(shownName, m_shownDir), errno);
    m_tempName.clear();
    m_committed = true;
    m_fd.reset();
    return target;
}

int PendingFile::linkNoReplace(const QByteArray &target)
{
    if (m_tempName.isEmpty())
        return linkTmpfile(m_fd.get(), m_dirFd, target.constData());
    // RENAME_NOREPLACE keeps O_EXCL semantics for the final name; file systems without it get link + unlink,
    // which also refuses to replace.
    int rc = ::renameat2(m_dirFd, m_tempName.constData(), m_dirFd, target.constData(), RENAME_NOREPLACE);
    if (rc != 0 && errno == EINVAL) {
        rc = ::linkat(m_dirFd, m_tempName.constData(), m_dirFd, target.constData(), 0);
        if (rc == 0)
            ::unlinkat(m_dirFd, m_tempName.constData(), 0);
    }
    if (rc == 0)
        m_tempName.clear();
    return rc;
}

Result<QByteArray> PendingFile::commit(QByteArrayView name, const QString &shownName, ExistingName existing)
{
    const QByteArray target = name.toByteArray();
    struct stat present = {};
    if (existing == ExistingName::Replace &&
        ::fstatat(m_dirFd, target.constData(), &present, AT_SYMLINK_NOFOLLOW) == 0 &&
        S_ISREG(present.st_mode))
        return replaceRegular(target, shownName);
    // Keep Both moves on only while names are taken; each try is itself no-replace, so a name created by
    // someone else between two tries is never overwritten. The bound keeps a hostile folder from spinning us.
    constexpr int MaxKeepBothAttempts = 1000;
    QByteArray candidate = target;
    for (int attempt = 1;; ++attempt) {
        if (linkNoReplace(candidate) == 0)
            break;
        const int error = errno;
        if (error != EEXIST || existing != ExistingName::KeepBoth || attempt >= MaxKeepBothAttempts) {
            const QString what = QStringLiteral("create `%1` in `%2`").arg(shownName, m_shownDir);
            return failErrno(error == EEXIST ? QStringLiteral("files.exists")
                                             : QStringLiteral("files.destination"),
                             what, error);
        }
        candidate = keepBothName(target, attempt + 1);
    }
    m_committed = true;
    m_fd.reset();
    return candidate;
}

Result<CappedCopy> copyCapped(int sourceFd, int destinationFd, qint64 cap)
{
    CappedCopy result;
    QCryptographicHash hash(QCryptographicHash::Sha256);
    std::array<char, 64 * 1024> buffer;
    for (;;) {
        // Ask for at most one byte past the cap: enough to know the file is too large, never more.
        const qint64 wanted = std::min<qint64>(qint64(buffer.size()), cap - result.bytes + 1);
        const ssize_t got = ::read(sourceFd, buffer.data(), size_t(wanted));
        if (got < 0) {
            if (errno == EINTR)
                continue;
            return failErrno(QStringLiteral("files.unreadable"), QStringLiteral("read"), errno);
        }
        if (got == 0)
            break;
        qint64 keep = got;
        if (result.bytes + got > cap) {
            result.exceededCap = true;
            keep = cap - result.bytes;
        }
        hash.addData(QByteArrayView(buffer.data(), keep));
        for (qint64 written = 0; destinationFd >= 0 && written < keep;) {
            const ssize_t put = ::write(destinationFd, buffer.data() + written, size_t(keep - written));
            if (put < 0) {
                if (errno == EINTR)
                    continue;
                return failErrno(QStringLiteral("files.destination"), QStringLiteral("write"), errno);
            }
            written += put;
        }
        result.bytes += keep;
        if (result.exceededCap)
            break;
    }
    result.sha256Hex = hash.result().toHex();
    return result;
}

} // namespace Cordon::Files

namespace Cordon::Files {

QByteArray keepBothName(QByteArrayView name, int attempt)
{
    // The suffix starts at the last dot that is not the first character, or at ".tar." for the compressed
    // tarballs people download most; a name without one gets the number at its end.
    qsizetype dot = name.lastIndexOf('.');
    if (dot <= 0)
        dot = name.size();
    else if (const qsizetype tar = name.first(dot).lastIndexOf(".tar"); tar > 0 && tar + 4 == dot)
        dot = tar;
    QByteArray stem = name.first(dot).toByteArray();
    const QByteArray suffix = name.sliced(dot).toByteArray();
    const QByteArray number = " (" + QByteArray::number(attempt) + ")";
    const qsizetype room = NAME_MAX - number.size() - suffix.size();
    if (room < 1)
        return QByteArray("copy") + number; // a suffix that long leaves nothing to keep
    if (stem.size() > room) {
        stem.truncate(room);
        // Never end in the middle of a UTF-8 sequence: drop continuation bytes and the lead byte they follow.
        while (!stem.isEmpty() && (static_cast<unsigned char>(stem.back()) & 0xC0) == 0x80)
            stem.chop(1);
        if (!stem.isEmpty() && static_cast<unsigned char>(stem.back()) >= 0xC0)
            stem.chop(1);
    }
    return stem + number + suffix;
}

} // namespace Cordon::Files
