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
#include <time.h>
#include <unistd.h>

namespace Cordon::Files {

namespace {

constexpr std::size_t MaxExamples = 20;
constexpr std::size_t CopyChunk = 256 * 1024;
// The mode bits a copy keeps: never set-id.
constexpr mode_t KeptModeBits = S_IRWXU | S_IRWXG | S_IRWXO | S_ISVTX;

bool sameTime(const timespec &a, const timespec &b)
{
    return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

bool before(const timespec &a, const timespec &b)
{
    return a.tv_sec < b.tv_sec || (a.tv_sec == b.tv_sec && a.tv_nsec < b.tv_nsec);
}

// Data blocks are what a copy costs; an apparent size is free where the file has holes.
std::int64_t dataBytes(const struct stat &st)
{
    return std::min<std::int64_t>(st.st_size, std::int64_t(st.st_blocks) * 512);
}

// What the previous save left to link from, and where this one records what it writes (saveTree()).
struct Generations
{
    const MirrorManifest *previous = nullptr; // with previousRoot, the copy it describes
    int previousRoot = -1;
    MirrorManifest *next = nullptr;
};

class Mirror final
{
public:
    Mirror(const MirrorLimits &limits, int destinationRoot, Generations generations = {})
        : m_limits(limits), m_buffer(CopyChunk), m_destinationRoot(destinationRoot),
          m_generations(generations)
    {
        // A file's change time is recorded only when it is older than the save: a write landing in the same
        // clock tick as our fstat() could otherwise leave the change time as we saw it, with data we never
        // read ("racy clean" in git's words). The kernel stamps with the coarse clock, or finer; any change
        // after this reading gets a time at or past it. (Setting the clock back defeats this; only root can.)
        ::clock_gettime(CLOCK_REALTIME_COARSE, &m_started);
    }

    // Copies the entries of `source` (readable) into `destination`; false once a write failed (fatal()).
    // `previous` (O_PATH, or -1) is the same directory in the previous save's copy.
    bool copyDirectory(int source, int destination, int previous, const std::string &rel, int depth);
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
    bool copyEntry(int source, int destination, int previous, const std::string &rel, const std::string &name,
                   int depth);
    bool copyFile(int source, int destination, int previous, const std::string &rel, const std::string &name,
                  const struct stat &listed);
    // Links the previous save's copy of an unchanged file. 1: linked, 0: it must be copied, -1: fatal.
    int linkUnchanged(int previous, int destination, const std::string &rel, const std::string &name,
                      const struct stat &st);
    bool copySymlink(int source, int destination, const std::string &rel, const std::string &name);
    // The data of `from` into `to`, holes kept. 1: copied, 0: left out (unreadable, over the byte limit),
    // -1: a write failed.
    int copyData(int from, int to, const struct stat &st, const std::string &rel);

    MirrorLimits m_limits;
    std::vector<char> m_buffer;
    int m_destinationRoot;
    Generations m_generations;
    timespec m_started{};
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
    if (::fchmod(fd, st.st_mode & KeptModeBits) != 0)
        return writeFailed(rel, errno);
    const timespec times[2] = {st.st_atim, st.st_mtim};
    (void)::futimens(fd, times); // times help build tools; a filesystem without them is no reason to fail
    if (m_limits.owner && ::fchown(fd, m_limits.owner->first, m_limits.owner->second) != 0)
        return writeFailed(rel, errno);
    return true;
}

bool Mirror::copyDirectory(int source, int destination, int previous, const std::string &rel, int depth)
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
        if (!copyEntry(source, destination, previous, joinedPath(rel, name), name, depth))
            return false;
    }
    return true;
}

bool Mirror::copyEntry(int source, int destination, int previous, const std::string &rel,
                       const std::string &name, int depth)
{
    struct stat st;
    if (::fstatat(source, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
        return readFailed(rel, errno);
    if (m_entries >= m_limits.maxEntries) {
        leaveOut(rel);
        return true;
    }
    if (S_ISREG(st.st_mode))
        return copyFile(source, destination, previous, rel, name, st);
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
    // Only ever walked, never followed: the saved copy holds the sandbox's symlinks too. A directory there
    // that cannot be entered (mode 000 for an unprivileged engine) just means its files are copied.
    UniqueFd previousDir;
    if (previous >= 0)
        previousDir =
            UniqueFd(::openat(previous, name.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    // The mode comes last: a directory the sandbox made read-only is filled first.
    return copyDirectory(from.get(), to.get(), previousDir.isValid() ? previousDir.get() : -1, rel,
                         depth + 1) &&
           finish(to.get(), st, rel);
}

int Mirror::linkUnchanged(int previous, int destination, const std::string &rel, const std::string &name,
                          const struct stat &st)
{
    const MirrorManifest &manifest = *m_generations.previous;
    const auto found = manifest.files.find(rel);
    if (found == manifest.files.end())
        return 0;
    const MirrorManifest::File &was = found->second;
    if (was.sourceDevice != st.st_dev || was.sourceInode != st.st_ino || was.size != st.st_size ||
        !sameTime(was.sourceChanged, st.st_ctim) || !sameTime(was.sourceModified, st.st_mtim))
        return 0;
    if (report.bytes + was.bytes > m_limits.maxBytes)
        return 0; // the copy leaves it out, as the last save would have
    // Any refusal (a name the copy holds already, a link limit) is the copy's to meet and report.
    if (::linkat(previous, name.c_str(), destination, name.c_str(), 0) != 0)
        return 0;
    // The file linked must be the one we wrote, as we wrote it: anything else on the host that took its
    // name (or changed it, though nothing here writes a saved copy in place) is replaced by a copy.
    struct stat host;
    const bool same =
        ::fstatat(destination, name.c_str(), &host, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(host.st_mode) &&
        host.st_dev == manifest.hostDevice && host.st_ino == was.hostInode && host.st_size == st.st_size &&
        (host.st_mode & 07777) == (st.st_mode & KeptModeBits) && sameTime(host.st_mtim, st.st_mtim) &&
        (!m_limits.owner || (host.st_uid == m_limits.owner->first && host.st_gid == m_limits.owner->second));
    if (!same)
        return ::unlinkat(destination, name.c_str(), 0) == 0 ? 0 : (writeFailed(rel, errno), -1);
    ++m_entries;
    ++report.files;
    ++report.linkedFiles;
    report.bytes += was.bytes;
    if (st.st_nlink > 1)
        m_linked.emplace(std::make_pair(st.st_dev, st.st_ino), rel);
    if (m_generations.next)
        m_generations.next->files.emplace(rel, was);
    return 1;
}

bool Mirror::copyFile(int source, int destination, int previous, const std::string &rel,
                      const std::string &name, const struct stat &listed)
{
    const auto inode = std::make_pair(listed.st_dev, listed.st_ino);
    if (listed.st_nlink > 1) {
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
    // Unchanged since the previous save: its copy is linked, and the source is not even opened.
    if (previous >= 0) {
        if (const int linked = linkUnchanged(previous, destination, rel, name, listed); linked != 0)
            return linked > 0;
    }
    UniqueFd from = openBeneath(source, name, O_RDONLY | O_NONBLOCK | O_NOCTTY);
    if (!from.isValid())
        return readFailed(rel, errno);
    // This stat, taken before the data is read, is what the manifest records: a write during the copy
    // moves the change time past it, and the next save copies the file again.
    struct stat st;
    if (::fstat(from.get(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_ino != listed.st_ino) {
        leaveOut(rel);
        return true;
    }
    const std::int64_t data = dataBytes(st);
    if (report.bytes + data > m_limits.maxBytes) {
        leaveOut(rel);
        return true;
    }
    UniqueFd to(
        ::openat(destination, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (!to.isValid())
        return nameRefused(rel, errno);
    const std::int64_t bytesBefore = report.bytes;
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
    if (!finish(to.get(), st, rel))
        return false;
    struct stat host;
    if (m_generations.next && before(st.st_ctim, m_started) && ::fstat(to.get(), &host) == 0) {
        m_generations.next->files.emplace(rel, MirrorManifest::File{st.st_dev, st.st_ino, st.st_ctim,
                                                                    st.st_mtim, st.st_size,
                                                                    report.bytes - bytesBefore, host.st_ino});
    }
    return true;
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
            report.copiedBytes += got;
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

Result<MirrorReport> mirrorInto(int sourceDir, int destinationDir, const MirrorLimits &limits,
                                Generations generations)
{
    UniqueFd source(::openat(sourceDir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!source.isValid())
        return failErrno("files.unreadable", "read the directory to copy", errno);
    Mirror mirror(limits, destinationDir, generations);
    if (!mirror.copyDirectory(source.get(), destinationDir, generations.previousRoot, std::string(), 0))
        return fail(*mirror.fatal);
    return mirror.report;
}

// The swap itself reaches the disk with the parent directory. When this fails the new copy is in place
// already, but a power loss could still bring back the old one: the save is reported as failed so that
// the caller tries again. (The manifest stays as it was: what the next save links by it still passes the
// checks of linkUnchanged(), since a linked file is the very inode it names.)
Result<> syncParent(int parentPath, const MirrorLimits &limits, const std::string &shown)
{
    if (!limits.durable)
        return {};
    UniqueFd parent(::openat(parentPath, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!parent.isValid() || ::fsync(parent.get()) != 0)
        return failErrno("files.io", "save to " + shown + ": write the swap to the disk", errno);
    return {};
}

} // namespace

Result<MirrorReport> mirrorTree(int sourceDir, int destinationDir, const MirrorLimits &limits)
{
    return mirrorInto(sourceDir, destinationDir, limits, {});
}

Result<MirrorReport> saveTree(int sourceDir, const std::string &hostDir, const MirrorLimits &limits,
                              MirrorManifest *manifest)
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

    MirrorManifest next;
    Generations generations;
    struct stat targetStat;
    if (manifest) {
        if (::fstat(target.get(), &targetStat) != 0)
            return failErrno("files.io", "save to " + shown + ": read " + ticked(staging), errno);
        next.hostDevice = targetStat.st_dev;
        next.durable = limits.durable;
        generations.next = &next;
    }
    // The copy in place now, to link unchanged files from; a durable save links only from a copy that was
    // durable too (else its files may still be in the page cache alone).
    UniqueFd previous;
    if (manifest && !manifest->files.empty() && (manifest->durable || !limits.durable) &&
        manifest->hostDevice == targetStat.st_dev)
        previous = openBeneath(parent.get(), name, O_PATH | O_DIRECTORY);
    if (previous.isValid()) {
        generations.previous = manifest;
        generations.previousRoot = previous.get();
    }

    Mirror rootOnly(limits, target.get());
    struct stat rootStat;
    auto report = mirrorInto(sourceDir, target.get(), limits, generations);
    Result<> finished = {};
    if (report && ::fstat(sourceDir, &rootStat) == 0 && !rootOnly.finish(target.get(), rootStat, "."))
        finished = fail(*rootOnly.fatal);
    // Durable: the whole new copy reaches the disk before its name does, so that a power loss never finds
    // the name on a tree with empty or missing files (ext4's rename heuristics cover a file renamed over
    // another, not a directory exchanged). One syncfs() rather than an fsync() per file and directory: on
    // ext4 each fsync of a new file commits the journal, which made a durable full save of 50,000 small
    // files take 83 s instead of 3.5 (docs/benchmarks.md). It also flushes what else is dirty on that file
    // system, which a checkpoint a minute can afford; since Linux 5.8 it reports write-back errors.
    if (report && finished && limits.durable && ::syncfs(target.get()) != 0)
        finished = failErrno("files.io", "save to " + shown + ": write the copy to the disk", errno);
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
        CORDON_TRY(syncParent(parent.get(), limits, shown));
        if (hadCopy)
            (void)removeTree(parentPath + '/' + old);
        if (manifest)
            *manifest = std::move(next);
        return report;
    }
    CORDON_TRY(syncParent(parent.get(), limits, shown));
    // What was there before the save now has the staging name.
    (void)removeTree(parentPath + '/' + staging);
    if (manifest)
        *manifest = std::move(next);
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
