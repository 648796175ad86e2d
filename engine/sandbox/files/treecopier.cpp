// SPDX-License-Identifier: MIT
#include "sandbox/files/treecopier.h"

#include "sandbox/files/filenames.h"
#include "sandbox/files/pendingfile.h"
#include "sandbox/files/safeopen.h"
#include "sandbox/weakening.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

namespace Cordon::Files {

namespace {

// O_NONBLOCK: a FIFO swapped in after our fstatat() opens at once instead of waiting for a writer forever.
// O_NOCTTY: a terminal device must not become our controlling terminal.
constexpr int SourceFileFlags = O_RDONLY | O_NONBLOCK | O_NOCTTY;

const char *const ChangedWhileRead = "changed while being read";

Refusal hardLinks(nlink_t links)
{
    return {"files.hardlink", std::to_string(links) + " hard links; it may be a host file's other name"};
}

} // namespace

std::string joinedPath(std::string_view parent, std::string_view name)
{
    std::string joined(parent);
    if (!joined.empty())
        joined += '/';
    joined += name;
    return joined;
}

std::string shownPath(std::string_view path)
{
    return escapeForDisplay(path);
}

// Everything that is neither a regular file nor a directory is refused without being opened: opening a FIFO
// blocks, a device may stream forever or read a raw disk, and a symlink would resolve in our context.
std::optional<Refusal> refusalForType(mode_t mode)
{
    if (S_ISREG(mode) || S_ISDIR(mode))
        return std::nullopt;
    if (S_ISLNK(mode))
        return Refusal{"files.symlink", "symbolic link, never followed"};
    if (S_ISFIFO(mode))
        return Refusal{"files.fifo", "FIFO, not opened"};
    if (S_ISSOCK(mode))
        return Refusal{"files.socket", "socket, not opened"};
    if (S_ISCHR(mode) || S_ISBLK(mode))
        return Refusal{"files.device", "device node, not opened"};
    return Refusal{"files.not_regular", "not a regular file"};
}

// What a test build that removes the refusal of symlinks does instead (sandbox/weakening.h): the link as it
// is, pointing wherever the sandbox said.
void copyLinkAsIs(int sourceDir, int destinationDir, const std::string &name,
                  const std::string &destinationName)
{
    char target[PATH_MAX];
    const ssize_t length = ::readlinkat(sourceDir, name.c_str(), target, sizeof target - 1);
    if (destinationDir < 0 || length <= 0)
        return;
    target[length] = '\0';
    [[maybe_unused]] const int linked = ::symlinkat(target, destinationDir, destinationName.c_str());
}

// Maps a failed open of an entry to the refusal it stands for.
Refusal refusalForOpenError(int error)
{
    switch (error) {
    case ELOOP:
        return {"files.symlink", "symbolic link, never followed"};
    case ENOTDIR:
        return {"files.not_regular", ChangedWhileRead};
    case ENXIO:
        return {"files.socket", "socket, not read"};
    case EXDEV:
        return {"files.not_regular", "mount point; other file systems are not copied"};
    default:
        return {"files.unreadable", std::strerror(error)};
    }
}

TreeCopier::TreeCopier(const CopyLimits &limits, const struct stat &root)
    : m_limits(limits), m_rootDev(root.st_dev)
{
    m_limits.maxDepth = std::clamp(m_limits.maxDepth, 0, MaxSupportedDepth);
}

void TreeCopier::setDestination(const struct stat &destination, std::string shown)
{
    m_destination = destination;
    m_shownDestination = std::move(shown);
}

void TreeCopier::refuse(const std::string &shown, Refusal refusal)
{
    m_report.refused.push_back(RefusedEntry{shown, std::move(refusal.code), std::move(refusal.reason)});
}

void TreeCopier::stopTruncated(const std::string &shown, Refusal refusal)
{
    refuse(shown, std::move(refusal));
    m_report.truncated = true;
    m_stopped = true;
}

void TreeCopier::reachTotal(const std::string &shown, Refusal refusal)
{
    refuse(shown, std::move(refusal));
    m_report.truncated = true;
    m_totalReached = true;
}

void TreeCopier::walkDirectory(const UniqueFd &sourceDir, int destinationDir, const std::string &relDir,
                               const std::string &shownDir, int depth)
{
    const std::string shownHere = shownDir.empty() ? std::string(".") : shownDir;
    std::vector<std::string> names;
    // One name more than the entry budget allows is enough to notice that the budget is exceeded.
    if (!readDirectoryNames(sourceDir.get(), std::size_t(m_limits.maxEntries - m_entries + 1), &names)) {
        refuse(shownHere, refusalForOpenError(errno));
        return;
    }
    // Sorted bytewise, so that reports (and which entries a truncated copy reaches) are reproducible.
    std::sort(names.begin(), names.end());
    for (const std::string &name : names) {
        if (stopped())
            return;
        if (++m_entries > m_limits.maxEntries) {
            stopTruncated(shownHere, {"files.too_many", "more than " + std::to_string(m_limits.maxEntries) +
                                                            " entries; the copy stopped here"});
            return;
        }
        copyEntry(sourceDir.get(), destinationDir, relDir, shownDir, name, name, depth + 1);
    }
}

void TreeCopier::copyEntry(int sourceDir, int destinationDir, const std::string &relDir,
                           const std::string &shownDir, const std::string &name,
                           const std::string &destinationName, int depth)
{
    const std::string shown = joinedPath(shownDir, escapeForDisplay(name));
    if (const auto valid = validateName(name); !valid) {
        refuse(shown, {valid.error().code(), valid.error().message()});
        return;
    }
    const std::string rel = joinedPath(relDir, name);
    // lstat first only to classify without opening; the descriptor's fstat below is what decides.
    struct stat before;
    if (::fstatat(sourceDir, name.c_str(), &before, AT_SYMLINK_NOFOLLOW) != 0) {
        if (errno != ENOENT) // gone meanwhile: nothing to copy, nothing to report
            refuse(shown, refusalForOpenError(errno));
        return;
    }
    if (S_ISLNK(before.st_mode) && weakened(Guarantee::SpecialFileRefusal)) {
        copyLinkAsIs(sourceDir, destinationDir, name, destinationName);
        return;
    }
    if (auto refusal = refusalForType(before.st_mode)) {
        refuse(shown, std::move(*refusal));
        return;
    }
    if (!isOnRootDevice(before)) {
        if (!m_limits.skipMountPoints)
            refuse(shown, refusalForOpenError(EXDEV));
        return;
    }
    if (S_ISDIR(before.st_mode) && m_filesOnly)
        refuse(shown, {"files.not_regular", "is a directory"});
    else if (S_ISDIR(before.st_mode))
        copyDirectory(sourceDir, destinationDir, rel, shown, name, depth);
    else
        copyFile(sourceDir, destinationDir, rel, shown, name, destinationName, before);
}

void TreeCopier::copyDirectory(int sourceDir, int destinationDir, const std::string &rel,
                               const std::string &shown, const std::string &name, int depth)
{
    if (depth >= m_limits.maxDepth) {
        refuse(shown,
               {"files.too_deep", "directory contents would be more than " +
                                      std::to_string(m_limits.maxDepth) + " levels deep; not entered"});
        return;
    }
    UniqueFd sub = openBeneath(sourceDir, name, O_RDONLY | O_DIRECTORY);
    if (!sub.isValid()) {
        // A bind mount of the same file system is on the root's device; RESOLVE_NO_XDEV still finds it.
        if (errno != ENOENT && !(errno == EXDEV && m_limits.skipMountPoints))
            refuse(shown, refusalForOpenError(errno));
        return;
    }
    struct stat st;
    if (::fstat(sub.get(), &st) != 0 || !S_ISDIR(st.st_mode) || !isOnRootDevice(st)) {
        refuse(shown, {"files.not_regular", ChangedWhileRead});
        return;
    }
    // Exporting into a directory below the source would otherwise copy its own output again.
    if (m_destination && st.st_dev == m_destination->st_dev && st.st_ino == m_destination->st_ino) {
        refuse(shown, {"files.not_regular", "is the destination directory"});
        return;
    }
    UniqueFd destinationSub;
    std::string savedName = m_limits.directoryName ? m_limits.directoryName(rel) : std::string();
    if (savedName.empty())
        savedName = name;
    if (m_destination) {
        if (::mkdirat(destinationDir, savedName.c_str(), 0755) != 0 && errno != EEXIST) {
            m_fatal = Error::fromErrno(
                "files.destination",
                "create directory " + ticked(shown) + " in " + ticked(m_shownDestination), errno);
            return;
        }
        // An existing entry of that name is used only if it is a real directory, never through a symlink.
        destinationSub = openBeneath(destinationDir, savedName, O_RDONLY | O_DIRECTORY);
        if (!destinationSub.isValid()) {
            refuse(shown, {"files.exists", "the destination has a non-directory of this name"});
            return;
        }
    }
    const std::string parent = m_savedDir;
    m_savedDir = joinedPath(parent, savedName);
    walkDirectory(sub, destinationSub.get(), rel, shown, depth);
    m_savedDir = parent;
}

void TreeCopier::copyFile(int sourceDir, int destinationDir, const std::string &rel, const std::string &shown,
                          const std::string &name, const std::string &destinationName,
                          const struct stat &before)
{
    const auto tooLarge = [this](std::int64_t size) {
        return Refusal{"files.too_large", std::to_string(size) + " bytes; the limit is " +
                                              std::to_string(m_limits.maxFileBytes)};
    };
    // Past the total limit the walk goes on only to name what was not copied: a summary that says "everything
    // else was" must be true.
    if (m_totalReached) {
        refuse(shown, {"files.too_large", "not copied: the copy had reached its total limit of " +
                                              std::to_string(m_limits.maxTotalBytes) + " bytes"});
        return;
    }
    // Checked before opening: a 1 TiB sparse file is refused without reading it (its apparent size counts).
    if (before.st_nlink != 1) {
        refuse(shown, hardLinks(before.st_nlink));
        return;
    }
    if (before.st_size > m_limits.maxFileBytes) {
        refuse(shown, tooLarge(before.st_size));
        return;
    }
    UniqueFd source = openBeneath(sourceDir, name, SourceFileFlags);
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
    if (auto refusal = refusalForType(st.st_mode)) {
        refuse(shown, std::move(*refusal));
        return;
    }
    if (!S_ISREG(st.st_mode) || !isOnRootDevice(st)) {
        refuse(shown, {"files.not_regular", ChangedWhileRead});
        return;
    }
    if (st.st_nlink != 1) {
        refuse(shown, hardLinks(st.st_nlink));
        return;
    }
    if (st.st_size > m_limits.maxFileBytes) {
        refuse(shown, tooLarge(st.st_size));
        return;
    }
    const std::int64_t remaining = m_limits.maxTotalBytes - m_report.totalBytes;
    const Refusal totalReached{"files.too_large", "the total limit of " +
                                                      std::to_string(m_limits.maxTotalBytes) +
                                                      " bytes is reached; the copy stopped here"};
    if (st.st_size > remaining) {
        reachTotal(shown, totalReached);
        return;
    }
    const std::int64_t cap = std::min(m_limits.maxFileBytes, remaining);

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
            m_fatal = copied.error().wrap("copy " + ticked(shown) + " to " + ticked(m_shownDestination));
        else
            refuse(shown, {"files.unreadable", copied.error().message()});
        return;
    }
    if (copied->exceededCap) {
        // The uncommitted PendingFile disappears: no partial file under any name.
        if (cap < m_limits.maxFileBytes)
            reachTotal(shown, totalReached);
        else
            refuse(shown,
                   {"files.too_large", "grew past the limit of " + std::to_string(m_limits.maxFileBytes) +
                                           " bytes while being copied"});
        return;
    }
    std::int64_t savedBytes = copied->bytes;
    std::string savedSha256 = copied->sha256Hex;
    if (!pending && m_limits.examine)
        m_limits.examine(source.get(), rel);
    std::string finalName = destinationName;
    if (pending && m_limits.inspect) {
        Inspection inspection = m_limits.inspect(pending->fd(), rel);
        if (!inspection.refusalCode.empty()) {
            refuse(shown, {inspection.refusalCode, inspection.refusalReason});
            return;
        }
        if (inspection.rewritten) {
            savedBytes = inspection.size;
            savedSha256 = inspection.sha256Hex;
        }
        if (!inspection.savedName.empty())
            finalName = std::move(inspection.savedName);
    }
    std::string savedAs;
    if (pending) {
        const auto committed =
            pending->commit(finalName, escapeForDisplay(finalName), m_limits.existingNames);
        if (!committed) {
            if (committed.error().code() == "files.exists")
                refuse(shown, {"files.exists", "the destination already has this name"});
            else
                m_fatal = committed.error();
            return;
        }
        // A single file lands at the top of the destination whatever folder it came from.
        savedAs = m_filesOnly ? *committed : joinedPath(m_savedDir, *committed);
    }
    m_report.copied.push_back(CopiedFile{rel, savedBytes, savedSha256, savedAs});
    m_report.totalBytes += copied->bytes;
}

// SECURITY.md section 3 step 2: the root itself must not be, or pass through, a symlink.
namespace {

// The directory below a held one, one component at a time; errno set when it fails.
UniqueFd openBelow(const UniqueFd &directory, const std::string &below)
{
    UniqueFd current(::openat(directory.get(), ".", O_PATH | O_DIRECTORY | O_CLOEXEC));
    std::size_t start = 0;
    while (current.isValid() && start < below.size()) {
        const std::size_t slash = std::min(below.find('/', start), below.size());
        const std::string part = below.substr(start, slash - start);
        start = slash + 1;
        if (!part.empty())
            current = openBeneath(current.get(), part, O_PATH | O_DIRECTORY);
    }
    return current;
}

} // namespace

Result<UniqueFd> openSourceRoot(const SourceRoot &root, struct stat *st)
{
    UniqueFd fd = root.directory() ? openBelow(*root.directory(), root.path())
                                   : openNoSymlinks(root.path(), O_PATH | O_DIRECTORY);
    const int error = errno;
    if (!fd.isValid()) {
        const std::string what = "open source " + ticked(root.shown());
        switch (error) {
        case ELOOP:
            return fail("files.symlink", what + ": it is, or passes through, a symbolic link", error);
        case ENOENT:
            return failErrno("files.not_found", what, error);
        case ENOTDIR:
            return failErrno("files.not_directory", what, error);
        default:
            return failErrno("files.unreadable", what, error);
        }
    }
    if (::fstat(fd.get(), st) != 0)
        return failErrno("files.unreadable", "stat " + ticked(root.shown()), errno);
    return fd;
}

Result<UniqueFd> reopenReadable(const UniqueFd &pathFd, std::string_view shown)
{
    UniqueFd fd(::openat(pathFd.get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!fd.isValid())
        return failErrno("files.unreadable", "read directory " + ticked(shown), errno);
    return fd;
}

// The user's own destination: symlinks in the path are the user's choice and are followed.
Result<UniqueFd> openDestinationDir(const std::string &path, struct stat *st)
{
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!fd.isValid() || ::fstat(fd.get(), st) != 0)
        return failErrno("files.destination", "open destination directory " + ticked(shownPath(path)), errno);
    return fd;
}

} // namespace Cordon::Files
