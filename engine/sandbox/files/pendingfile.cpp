// SPDX-License-Identifier: MIT
#include "sandbox/files/pendingfile.h"

#include "sandbox/sha256.h"
#include "sandbox/workspace.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <climits>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace Cordon::Files {

namespace {

constexpr mode_t DestinationMode = 0644;

// A name of our own for a file still being written; random like container ids, and created O_EXCL anyway.
std::string partialName()
{
    return ".cordon-partial-" + Containers::newContainerId();
}

int linkTmpfile(int fd, int dirFd, const char *name)
{
    // AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH and fails with ENOENT without it; the /proc/self/fd path is the
    // documented unprivileged way (open(2), O_TMPFILE).
    if (::linkat(fd, "", dirFd, name, AT_EMPTY_PATH) == 0)
        return 0;
    if (errno != ENOENT && errno != EPERM)
        return -1;
    const std::string procPath = "/proc/self/fd/" + std::to_string(fd);
    return ::linkat(AT_FDCWD, procPath.c_str(), dirFd, name, AT_SYMLINK_FOLLOW);
}

} // namespace

Result<PendingFile> PendingFile::create(int dirFd, std::string shownDir)
{
    PendingFile file;
    file.m_dirFd = dirFd;
    file.m_shownDir = std::move(shownDir);
    file.m_fd = UniqueFd(::openat(dirFd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, DestinationMode));
    if (file.m_fd.isValid())
        return file;
    // EOPNOTSUPP/EISDIR/EINVAL: this file system (or kernel) has no O_TMPFILE. Anything else is a real
    // failure.
    if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
        return failErrno("files.destination", "create a file in " + ticked(file.m_shownDir), errno);
    for (int attempt = 0; attempt < 16; ++attempt) {
        std::string name = partialName();
        file.m_fd = UniqueFd(::openat(dirFd, name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                                      DestinationMode));
        if (file.m_fd.isValid()) {
            file.m_tempName = std::move(name);
            return file;
        }
        if (errno != EEXIST)
            break;
    }
    return failErrno("files.destination", "create a file in " + ticked(file.m_shownDir), errno);
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
    if (!m_committed && !m_tempName.empty())
        ::unlinkat(m_dirFd, m_tempName.c_str(), 0);
    m_fd.reset();
}

Result<std::string> PendingFile::replaceRegular(const std::string &target, std::string_view shownName)
{
    // A name of our own first (O_TMPFILE has none), then one rename over the old file: a reader sees the old
    // file or the new one, and a symlink planted meanwhile is replaced, not followed.
    if (m_tempName.empty()) {
        std::string staged = partialName();
        if (linkTmpfile(m_fd.get(), m_dirFd, staged.c_str()) != 0)
            return failErrno("files.destination", "create " + ticked(shownName) + " in " + ticked(m_shownDir),
                             errno);
        m_tempName = std::move(staged);
    }
    if (::renameat(m_dirFd, m_tempName.c_str(), m_dirFd, target.c_str()) != 0)
        return failErrno("files.destination", "replace " + ticked(shownName) + " in " + ticked(m_shownDir),
                         errno);
    m_tempName.clear();
    m_committed = true;
    m_fd.reset();
    return target;
}

int PendingFile::linkNoReplace(const std::string &target)
{
    if (m_tempName.empty())
        return linkTmpfile(m_fd.get(), m_dirFd, target.c_str());
    // RENAME_NOREPLACE keeps O_EXCL semantics for the final name; file systems without it get link + unlink,
    // which also refuses to replace.
    int rc = ::renameat2(m_dirFd, m_tempName.c_str(), m_dirFd, target.c_str(), RENAME_NOREPLACE);
    if (rc != 0 && errno == EINVAL) {
        rc = ::linkat(m_dirFd, m_tempName.c_str(), m_dirFd, target.c_str(), 0);
        if (rc == 0)
            ::unlinkat(m_dirFd, m_tempName.c_str(), 0);
    }
    if (rc == 0)
        m_tempName.clear();
    return rc;
}

Result<std::string> PendingFile::commit(std::string_view name, std::string_view shownName,
                                        ExistingName existing)
{
    const std::string target(name);
    struct stat present = {};
    if (existing == ExistingName::Replace &&
        ::fstatat(m_dirFd, target.c_str(), &present, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(present.st_mode))
        return replaceRegular(target, shownName);
    // Keep Both moves on only while names are taken; each try is itself no-replace, so a name created by
    // someone else between two tries is never overwritten. The bound keeps a hostile folder from spinning us.
    constexpr int MaxKeepBothAttempts = 1000;
    std::string candidate = target;
    for (int attempt = 1;; ++attempt) {
        if (linkNoReplace(candidate) == 0)
            break;
        const int error = errno;
        if (error != EEXIST || existing != ExistingName::KeepBoth || attempt >= MaxKeepBothAttempts)
            return failErrno(error == EEXIST ? "files.exists" : "files.destination",
                             "create " + ticked(shownName) + " in " + ticked(m_shownDir), error);
        candidate = keepBothName(target, attempt + 1);
    }
    m_committed = true;
    m_fd.reset();
    return candidate;
}

namespace {

bool isAllZeros(const char *bytes, std::size_t size)
{
    // memcmp against itself shifted by one: as fast as the C library compares, with no buffer of zeros.
    return size > 0 && bytes[0] == 0 && std::memcmp(bytes, bytes + 1, size - 1) == 0;
}

} // namespace

Result<CappedCopy> copyCapped(int sourceFd, int destinationFd, std::int64_t cap)
{
    CappedCopy result;
    Sha256 hash;
    std::array<char, 64 * 1024> buffer;
    for (;;) {
        // Ask for at most one byte past the cap: enough to know the file is too large, never more.
        const std::int64_t wanted =
            std::min<std::int64_t>(std::int64_t(buffer.size()), cap - result.bytes + 1);
        const ssize_t got = ::read(sourceFd, buffer.data(), std::size_t(wanted));
        if (got < 0) {
            if (errno == EINTR)
                continue;
            return failErrno("files.unreadable", "read", errno);
        }
        if (got == 0)
            break;
        std::int64_t keep = got;
        if (result.bytes + got > cap) {
            result.exceededCap = true;
            keep = cap - result.bytes;
        }
        hash.add(std::string_view(buffer.data(), std::size_t(keep)));
        // A block of zeros is left a hole (the ftruncate below gives the length): a sparse file saved from a
        // container stays sparse, instead of becoming gigabytes of real disk in the user's folder.
        if (destinationFd >= 0 && isAllZeros(buffer.data(), std::size_t(keep))) {
            if (::lseek(destinationFd, off_t(keep), SEEK_CUR) < 0)
                return failErrno("files.destination", "seek", errno);
            result.bytes += keep;
            if (result.exceededCap)
                break;
            continue;
        }
        for (std::int64_t written = 0; destinationFd >= 0 && written < keep;) {
            const ssize_t put = ::write(destinationFd, buffer.data() + written, std::size_t(keep - written));
            if (put < 0) {
                if (errno == EINTR)
                    continue;
                return failErrno("files.destination", "write", errno);
            }
            written += put;
        }
        result.bytes += keep;
        if (result.exceededCap)
            break;
    }
    if (destinationFd >= 0 && !result.exceededCap && ::ftruncate(destinationFd, off_t(result.bytes)) != 0)
        return failErrno("files.destination", "set the length", errno);
    result.sha256Hex = hash.hexDigest();
    return result;
}

std::string keepBothName(std::string_view name, int attempt)
{
    // The suffix starts at the last dot that is not the first character, or at ".tar." for the compressed
    // tarballs people download most; a name without one gets the number at its end.
    std::size_t dot = name.rfind('.');
    if (dot == std::string_view::npos || dot == 0)
        dot = name.size();
    else if (const std::size_t tar = name.substr(0, dot).rfind(".tar");
             tar != std::string_view::npos && tar > 0 && tar + 4 == dot)
        dot = tar;
    std::string stem(name.substr(0, dot));
    const std::string_view suffix = name.substr(dot);
    const std::string number = " (" + std::to_string(attempt) + ")";
    const std::ptrdiff_t room =
        std::ptrdiff_t(NAME_MAX) - std::ptrdiff_t(number.size()) - std::ptrdiff_t(suffix.size());
    if (room < 1)
        return "copy" + number; // a suffix that long leaves nothing to keep
    if (stem.size() > std::size_t(room)) {
        stem.resize(std::size_t(room));
        // Never end in the middle of a UTF-8 sequence: drop continuation bytes and the lead byte they follow.
        while (!stem.empty() && (static_cast<unsigned char>(stem.back()) & 0xC0) == 0x80)
            stem.pop_back();
        if (!stem.empty() && static_cast<unsigned char>(stem.back()) >= 0xC0)
            stem.pop_back();
    }
    return stem + number + std::string(suffix);
}

} // namespace Cordon::Files
