// SPDX-License-Identifier: MIT
#include "sandbox/files/treemirror.h"

#include "sandbox/files/filenames.h"
#include "sandbox/files/removetree.h"
#include "sandbox/files/safeopen.h"
#include "sandbox/files/treecopier.h"
#include "sandbox/uniquefd.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <map>
#include <utility>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace Cordon::Files {

namespace {

constexpr std::size_t MaxExamples = 20;
constexpr std::size_t CopyChunk = 256 * 1024;

class Mirror final
{
public:
    Mirror(const MirrorLimits &limits, int destinationRoot)
        : m_limits(limits), m_buffer(CopyChunk), m_destinationRoot(destinationRoot)
    {}

    // Copies the entries of `source` (readable) into `destination`; false once a write failed (fatal()).
    bool copyDirectory(int source, int destination, const std::string &rel, int depth);
    // Mode (never set-id), times and owner of a copied entry, from the source's stat.
    bool finish(int fd, const struct stat &st, const std::string &rel);

    MirrorReport report;
    std::optional<Error> fatal;

private:
    void leaveOut(const std::string &rel);
    bool writeFailed(const std::string &rel, int error);
    // A source entry that could not be read: what the sandbox can cause (gone, a link or mount swapped in,
    // no permission) leaves it out; anything else (EMFILE, ENOMEM, EIO) is the engine's trouble and ends the
    // copy, so that a partial tree never replaces a good saved copy.
    bool readFailed(const std::string &rel, int error);
    // A name the destination refuses as a name (an existing one on a case-insensitive file system, bytes it
    // will not store, too long) leaves that entry out; other refusals end the copy.
    bool nameRefused(const std::string &rel, int error);
    bool copyEntry(int source, int destination, const std::string &rel, const std::string &name, int depth);
    bool copyFile(int source, int destination, const std::string &rel, const std::string &name,
                  const struct stat &st);
    bool copySymlink(int source, int destination, const std::string &rel, const std::string &name);
    // The data of `from` into `to`, holes kept. 1: copied, 0: left out (unreadable, over the byte limit),
    // -1: a write failed.
    int copyData(int from, int to, const struct stat &st, const std::string &rel);

    MirrorLimits m_limits;
    std::vector<char> m_buffer;
    int m_destinationRoot;
    std::int64_t m_entries = 0;
    // Files with more than one link, by source inode: the relative path of their first copy, so that later
    // names become links again (a venv hard-linked from a package cache is not copied twice).
    std::map<std::pair<dev_t, ino_t>, std::string> m_linked;
};

void Mirror::leaveOut(const std::string &rel)
{
    ++report.leftOut;
    if (report.examples.size() < MaxExamples)
        report.examples.push_back(escapeForDisplay(rel));
}

bool Mirror::readFailed(const std::string &rel, int error)
{
    switch (error) {
    case ENOENT:
        return true; // gone since the directory was read: nothing to keep
    case ELOOP:
    case EXDEV:
    case ENOTDIR:
    case EACCES:
    case EPERM:
    case ENXIO:
        leaveOut(rel);
        return true;
    default:
        fatal = failErrno("files.mirror", "read " + ticked(escapeForDisplay(rel)), error).value();
        return false;
    }
}

bool Mirror::nameRefused(const std::string &rel, int error)
{
    if (error == EEXIST || error == EILSEQ || error == ENAMETOOLONG || error == EINVAL) {
        leaveOut(rel);
        return true;
    }
    return writeFailed(rel, error);
}

bool Mirror::writeFailed(const std::string &rel, int error)
{
    fatal = failErrno("files.mirror", "copy " + ticked(escapeForDisplay(rel)), error).value();
    return false;
}

bool Mirror::finish(int fd, const struct stat &st, const std::string &rel)
{
    if (::fchmod(fd, st.st_mode & (S_IRWXU | S_IRWXG | S_IRWXO | S_ISVTX)) != 0)
        return writeFailed(rel, errno);
    const timespec times[2] = {st.st_atim, st.st_mtim};
    (void)::futimens(fd, times); // times help build tools; a filesystem without them is no reason to fail
    if (m_limits.owner && ::fchown(fd, m_limits.owner->first, m_limits.owner->second) != 0)
        return writeFailed(rel, errno);
    return true;
}

bool Mirror::copyDirectory(int source, int destination, const std::string &rel, int depth)
{
    std::vector<std::string> names;
    const std::int64_t room = std::max<std::int64_t>(m_limits.maxEntries - m_entries, 0);
    if (!readDirectoryNames(source, static_cast<std::size_t>(room) + 1, &names))
        return readFailed(rel.empty() ? std::string(".") : rel, errno);
    std::sort(names.begin(), names.end());
    for (const std::string &name : names) {
        const auto &skipped = m_limits.skipAtTop;
        if (rel.empty() && std::find(skipped.begin(), skipped.end(), name) != skipped.end())
            continue;
        if (!copyEntry(source, destination, joinedPath(rel, name), name, depth))
            return false;
    }
    return true;
}

bool Mirror::copyEntry(int source, int destination, const std::string &rel, const std::string &name,
                       int depth)
{
    struct stat st;
    if (::fstatat(source, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
        return readFailed(rel, errno);
    if (m_entries >= m_limits.maxEntries) {
        leaveOut(rel);
        return true;
    }
    if (S_ISREG(st.st_mode))
        return copyFile(source, destination, rel, name, st);
    if (S_ISLNK(st.st_mode))
        return copySymlink(source, destination, rel, name);
    if (!S_ISDIR(st.st_mode) || depth + 1 > m_limits.maxDepth) {
        leaveOut(rel);
        return true;
    }
    // A mount below the tree (EXDEV) or a directory swapped for a symlink (ELOOP, ENOTDIR) is left out.
    UniqueFd from = openBeneath(source, name, O_RDONLY | O_DIRECTORY);
    if (!from.isValid())
        return readFailed(rel, errno);
    if (::fstat(from.get(), &st) != 0 || !S_ISDIR(st.st_mode)) {
        leaveOut(rel);
        return true;
    }
    if (::mkdirat(destination, name.c_str(), 0700) != 0 && errno != EEXIST)
        return nameRefused(rel, errno);
    UniqueFd to(::openat(destination, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!to.isValid()) // a file that took the name (a case-insensitive destination) is a refused name
        return nameRefused(rel, errno == ENOTDIR || errno == ELOOP ? EEXIST : errno);
    ++m_entries;
    ++report.directories;
    // The mode comes last: a directory the sandbox made read-only is filled first.
    return copyDirectory(from.get(), to.get(), rel, depth + 1) && finish(to.get(), st, rel);
}

bool Mirror::copyFile(int source, int destination, const std::string &rel, const std::string &name,
                      const struct stat &listed)
{
    UniqueFd from = openBeneath(source, name, O_RDONLY | O_NONBLOCK | O_NOCTTY);
    if (!from.isValid())
        return readFailed(rel, errno);
    struct stat st;
    if (::fstat(from.get(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_ino != listed.st_ino) {
        leaveOut(rel);
        return true;
    }
    const auto inode = std::make_pair(st.st_dev, st.st_ino);
    if (st.st_nlink > 1) {
        if (const auto first = m_linked.find(inode); first != m_linked.end()) {
            if (::linkat(m_destinationRoot, first->second.c_str(), destination, name.c_str(), 0) == 0) {
                ++m_entries;
                ++report.files;
                return true;
            }
            // A file system without hard links (or at its link limit) gets a copy instead.
            if (errno != EPERM && errno != EMLINK && errno != EOPNOTSUPP)
                return nameRefused(rel, errno);
        }
    }
    // Data blocks are what the copy costs; an apparent size is free where the file has holes.
    const std::int64_t data = std::min<std::int64_t>(st.st_size, std::int64_t(st.st_blocks) * 512);
    if (report.bytes + data > m_limits.maxBytes) {
        leaveOut(rel);
        return true;
    }
    UniqueFd to(
        ::openat(destination, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (!to.isValid())
        return nameRefused(rel, errno);
    const int copied = copyData(from.get(), to.get(), st, rel);
    if (copied < 0)
        return false;
    if (copied == 0) {
        to.reset();
        ::unlinkat(destination, name.c_str(), 0);
        leaveOut(rel);
        return true;
    }
    ++m_entries;
    ++report.files;
    if (st.st_nlink > 1)
        m_linked.emplace(inode, rel);
    return finish(to.get(), st, rel);
}

int Mirror::copyData(int from, int to, const struct stat &st, const std::string &rel)
{
    off_t offset = 0;
    while (offset < st.st_size) {
        off_t data = ::lseek(from, offset, SEEK_DATA);
        if (data < 0 && errno == ENXIO)
            break; // a hole to the end
        if (data < 0)
            data = offset; // no SEEK_DATA here: everything is data
        off_t hole = ::lseek(from, data, SEEK_HOLE);
        if (hole < 0 || hole > st.st_size)
            hole = st.st_size;
        for (off_t at = data; at < hole;) {
            const std::size_t want =
                static_cast<std::size_t>(std::min<off_t>(hole - at, off_t(m_buffer.size())));
            const ssize_t got = ::pread(from, m_buffer.data(), want, at);
            if (got < 0 && errno == EINTR)
                continue;
            if (got == 0)
                return 1; // shorter than it was (the file shrank)
            if (got < 0)
                return readFailed(rel, errno) ? 0 : -1;
            at += got;
            // Zeros are left as a hole (the final ftruncate gives the length): a file system without
            // SEEK_HOLE reports holes as data, and a restore must not turn them into pages.
            if (std::all_of(m_buffer.data(), m_buffer.data() + got, [](char c) { return c == 0; }))
                continue;
            if (report.bytes + got > m_limits.maxBytes)
                return 0; // it grew past what is left
            const off_t chunkStart = at - got;
            for (ssize_t done = 0; done < got;) {
                const ssize_t put =
                    ::pwrite(to, m_buffer.data() + done, std::size_t(got - done), chunkStart + done);
                if (put < 0 && errno == EINTR)
                    continue;
                if (put <= 0) {
                    writeFailed(rel, put < 0 ? errno : EIO);
                    return -1;
                }
                done += put;
            }
            report.bytes += got;
        }
        offset = hole;
    }
    if (::ftruncate(to, st.st_size) != 0) {
        writeFailed(rel, errno);
        return -1;
    }
    return 1;
}

bool Mirror::copySymlink(int source, int destination, const std::string &rel, const std::string &name)
{
    char target[PATH_MAX];
    const ssize_t length = ::readlinkat(source, name.c_str(), target, sizeof target);
    if (length < 0)
        return readFailed(rel, errno == EINVAL ? ENOENT : errno); // EINVAL: no longer a symlink
    if (length == 0 || std::size_t(length) >= sizeof target) {
        leaveOut(rel);
        return true;
    }
    target[length] = '\0';
    if (::symlinkat(target, destination, name.c_str()) != 0)
        return nameRefused(rel, errno);
    if (m_limits.owner && ::fchownat(destination, name.c_str(), m_limits.owner->first, m_limits.owner->second,
                                     AT_SYMLINK_NOFOLLOW) != 0)
        return writeFailed(rel, errno);
    ++m_entries;
    ++report.symlinks;
    return true;
}

} // namespace

Result<MirrorReport> mirrorTree(int sourceDir, int destinationDir, const MirrorLimits &limits)
{
    UniqueFd source(::openat(sourceDir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!source.isValid())
        return failErrno("files.unreadable", "read the directory to copy", errno);
    Mirror mirror(limits, destinationDir);
    if (!mirror.copyDirectory(source.get(), destinationDir, std::string(), 0))
        return fail(*mirror.fatal);
    return mirror.report;
}

Result<MirrorReport> saveTree(int sourceDir, const std::string &hostDir, const MirrorLimits &limits)
{
    const std::size_t slash = hostDir.rfind('/');
    if (slash == std::string::npos || slash == 0 || slash + 1 == hostDir.size())
        return fail("files.io", "save to " + ticked(escapeForDisplay(hostDir)) + ": not a directory path");
    const std::string parentPath = hostDir.substr(0, slash);
    const std::string name = hostDir.substr(slash + 1);
    const std::string staging = name + ".saving";
    const std::string shown = ticked(escapeForDisplay(hostDir));
    UniqueFd parent = openNoSymlinks(parentPath, O_PATH | O_DIRECTORY);
    if (!parent.isValid())
        return failErrno("files.io", "save to " + shown, errno);
    // A sibling left by a save that was cut off is stale: this one starts afresh.
    CORDON_TRY(removeTree(parentPath + '/' + staging));
    if (::mkdirat(parent.get(), staging.c_str(), 0700) != 0)
        return failErrno("files.io", "save to " + shown + ": make " + ticked(staging), errno);
    UniqueFd target = openBeneath(parent.get(), staging, O_RDONLY | O_DIRECTORY);
    if (!target.isValid())
        return failErrno("files.io", "save to " + shown + ": open " + ticked(staging), errno);

    Mirror rootOnly(limits, target.get());
    struct stat rootStat;
    auto report = mirrorTree(sourceDir, target.get(), limits);
    Result<> finished = {};
    if (report && ::fstat(sourceDir, &rootStat) == 0 && !rootOnly.finish(target.get(), rootStat, "."))
        finished = fail(*rootOnly.fatal);
    if (!report || !finished) {
        (void)removeTree(parentPath + '/' + staging);
        return fail(report ? finished.error() : report.error());
    }
    if (::renameat2(parent.get(), staging.c_str(), parent.get(), name.c_str(), RENAME_EXCHANGE) != 0) {
        const int error = errno;
        // No exchange on this file system (NFS, CIFS, some FUSE): two renames, the old copy kept as
        // <name>.old in between, which restoreInterruptedSave() puts back if we are cut off there.
        const std::string old = name + ".old";
        const bool noExchange = error == EINVAL || error == ENOSYS || error == EOPNOTSUPP;
        const bool hadCopy = error != ENOENT;
        if (noExchange)
            CORDON_TRY(removeTree(parentPath + '/' + old));
        const bool moved =
            (error == ENOENT || noExchange) &&
            (!hadCopy || ::renameat(parent.get(), name.c_str(), parent.get(), old.c_str()) == 0) &&
            ::renameat(parent.get(), staging.c_str(), parent.get(), name.c_str()) == 0;
        if (!moved) {
            const int failed = errno;
            if (hadCopy && noExchange)
                (void)::renameat(parent.get(), old.c_str(), parent.get(), name.c_str());
            (void)removeTree(parentPath + '/' + staging);
            return failErrno("files.io", "save to " + shown + ": swap the saved copy in",
                             noExchange || error == ENOENT ? failed : error);
        }
        if (hadCopy)
            (void)removeTree(parentPath + '/' + old);
        return report;
    }
    // What was there before the save now has the staging name.
    (void)removeTree(parentPath + '/' + staging);
    return report;
}

Result<> restoreInterruptedSave(const std::string &hostDir)
{
    const std::string old = hostDir + ".old";
    struct stat st;
    if (::lstat(hostDir.c_str(), &st) == 0 || errno != ENOENT || ::lstat(old.c_str(), &st) != 0 ||
        !S_ISDIR(st.st_mode))
        return {};
    if (::rename(old.c_str(), hostDir.c_str()) != 0)
        return failErrno("files.io", "put back " + ticked(escapeForDisplay(old)), errno);
    return {};
}

} // namespace Cordon::Files
