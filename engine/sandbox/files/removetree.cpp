// SPDX-License-Identifier: MIT
#include "sandbox/files/removetree.h"

#include "sandbox/files/filenames.h"
#include "sandbox/files/safeopen.h"

#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdio> // renameat2
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace Cordon::Files {

namespace {

// Directory levels that hold descriptors at once (two per level); deeper subtrees are moved up instead.
constexpr int HeldDepth = 64;
// Names read per pass over a directory; the directory is read again from its start until it is empty or a
// pass removes nothing (what is left then cannot be removed: mount points, permissions).
constexpr std::size_t NamesPerPass = 65536;

// The sandbox may leave directories mode 000 or 0500; entering and unlinking in them needs u+rwx. The chmod
// goes through the pinned descriptor, never through a name it could swap for a symlink to a host directory.
// `mode` is what the caller's fstat() of the same descriptor said.
void makeAccessible(int pathFd, mode_t mode)
{
    if ((mode & S_IRWXU) != S_IRWXU)
        changeModePinned(pathFd, (mode & 07777) | S_IRWXU);
}

class TreeRemover final
{
public:
    // `path` is the tree's path as given; messages name entries below it.
    TreeRemover(int rootFd, dev_t rootDev, std::string path)
        : m_rootFd(rootFd), m_rootDev(rootDev), m_path(std::move(path))
    {}

    // Removes everything inside the directory that `pathFd` (O_PATH, already checked to be a directory on the
    // tree's device, `mode` from its fstat()) pins; m_path names it.
    void emptyDirectory(int pathFd, mode_t mode, int depth);

    std::optional<Error> m_firstError;
    std::optional<Error> m_mountPoint;

private:
    // Returns true when the entry is gone (or moved away to be removed later). m_path names it meanwhile.
    bool removeEntry(int dirFd, const std::string &name, int depth);
    bool relocate(int dirFd, const std::string &name, int subFd, mode_t mode);

    // Messages are made only for the first failure: the escaped path costs nothing on the way that succeeds.
    void noteError(std::string_view verb, int error, std::string_view after = {})
    {
        if (!m_firstError)
            m_firstError =
                failErrno("files.remove",
                          std::string(verb) + ' ' + ticked(escapeForDisplay(m_path)) + std::string(after),
                          error)
                    .value();
    }
    void noteMountPoint()
    {
        if (!m_mountPoint)
            m_mountPoint = Error{"files.mount_point", ticked(escapeForDisplay(m_path)) +
                                                          " is a mount point; it was left in place"};
    }

    int m_rootFd;
    dev_t m_rootDev;
    std::string m_path; // raw bytes of the entry being worked on, from the tree's path down
    std::uint64_t m_relocated = 0;
};

void TreeRemover::emptyDirectory(int pathFd, mode_t mode, int depth)
{
    makeAccessible(pathFd, mode);
    UniqueFd dir(::openat(pathFd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!dir.isValid()) {
        noteError("open", errno);
        return;
    }
    std::vector<std::string> names;
    for (;;) {
        if (!readDirectoryNames(dir.get(), NamesPerPass, &names)) {
            noteError("read", errno);
            return;
        }
        bool progress = false;
        for (const std::string &name : names)
            progress = removeEntry(dir.get(), name, depth) || progress;
        if (names.empty() || !progress)
            return;
    }
}

bool TreeRemover::removeEntry(int dirFd, const std::string &name, int depth)
{
    // m_path names this entry until we return.
    const std::size_t parentLength = m_path.size();
    m_path += '/';
    m_path += name;
    struct Restore
    {
        std::string &path;
        std::size_t length;
        ~Restore() { path.resize(length); }
    } restore{m_path, parentLength};

    const char *entry = name.c_str();
    const auto removed = [&](int flags) {
        if (::unlinkat(dirFd, entry, flags) == 0 || errno == ENOENT)
            return true;
        noteError("remove", errno);
        return false;
    };

    struct stat st;
    if (::fstatat(dirFd, entry, &st, AT_SYMLINK_NOFOLLOW) != 0) {
        if (errno == ENOENT)
            return true;
        noteError("stat", errno);
        return false;
    }
    // Symlinks, FIFOs, sockets, devices and files: the entry goes, whatever it points at stays.
    if (!S_ISDIR(st.st_mode))
        return removed(0);
    if (st.st_dev != m_rootDev) {
        noteMountPoint();
        return false;
    }
    // An empty directory goes with one call: rmdir by name below the pinned parent follows nothing (a
    // symlink swapped in since the fstatat() fails ENOTDIR) and removes no mount point (EBUSY). Anything
    // else is opened and emptied first, below.
    if (::unlinkat(dirFd, entry, AT_REMOVEDIR) == 0 || errno == ENOENT)
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
            noteMountPoint();
            return false;
        default:
            noteError("open", errno);
            return false;
        }
    }
    struct stat subStat;
    if (::fstat(sub.get(), &subStat) != 0 || !S_ISDIR(subStat.st_mode) || subStat.st_dev != m_rootDev) {
        noteError("open", EXDEV);
        return false;
    }
    if (depth + 1 >= HeldDepth)
        return relocate(dirFd, name, sub.get(), subStat.st_mode);
    emptyDirectory(sub.get(), subStat.st_mode, depth + 1);
    return removed(AT_REMOVEDIR);
}

// Moves a deep subtree up to the top of the tree, where it is removed like any other entry. Nothing leaves
// the tree: both descriptors are inside it, and renameat2 works on names relative to them.
bool TreeRemover::relocate(int dirFd, const std::string &name, int subFd, mode_t mode)
{
    // Moving a directory to another parent rewrites its "..", which needs write permission on it.
    makeAccessible(subFd, mode);
    for (int attempt = 0; attempt < 64; ++attempt) {
        char digits[16];
        const auto converted = std::to_chars(std::begin(digits), std::end(digits), ++m_relocated, 16);
        const std::string target = ".cordon-rm-" + std::string(digits, converted.ptr);
        int rc = ::renameat2(dirFd, name.c_str(), m_rootFd, target.c_str(), RENAME_NOREPLACE);
        if (rc != 0 &&
            errno == EINVAL) // no RENAME_NOREPLACE here; replacing an entry of the doomed tree is fine
            rc = ::renameat(dirFd, name.c_str(), m_rootFd, target.c_str());
        if (rc == 0 || errno == ENOENT)
            return true;
        if (errno != EEXIST && errno != ENOTEMPTY)
            break;
    }
    noteError("move", errno, " up for removal");
    return false;
}

} // namespace

Result<> removeTree(std::string_view path)
{
    std::string bytes(path);
    while (bytes.size() > 1 && bytes.back() == '/')
        bytes.pop_back();
    const std::size_t slash = bytes.rfind('/');
    const std::string name = slash == std::string::npos ? bytes : bytes.substr(slash + 1);
    const std::string parent = slash == std::string::npos
                                   ? std::string(".")
                                   : (slash == 0 ? std::string("/") : bytes.substr(0, slash));
    // "remove `<path>`", made only when something is reported.
    const auto removing = [&bytes] { return "remove " + ticked(escapeForDisplay(bytes)); };
    if (name.empty() || name == "." || name == "..")
        return fail("files.remove", removing() + ": not a removable path");

    UniqueFd parentFd = openNoSymlinks(parent, O_PATH | O_DIRECTORY);
    if (!parentFd.isValid()) {
        if (errno == ENOENT)
            return {};
        if (errno == ELOOP)
            return fail("files.symlink",
                        removing() + ": the parent directory is or passes through a symbolic link", ELOOP);
        return failErrno("files.remove", removing(), errno);
    }
    return removeEntry(parentFd.get(), name, bytes);
}

Result<> removeEntry(int parentFd, const std::string &name, const std::string &bytes)
{
    const auto removing = [&bytes] { return "remove " + ticked(escapeForDisplay(bytes)); };
    if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos)
        return fail("files.remove", removing() + ": not a removable name");
    struct stat st;
    if (::fstatat(parentFd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
        if (errno == ENOENT)
            return {};
        return failErrno("files.remove", removing(), errno);
    }
    UniqueFd root;
    if (S_ISDIR(st.st_mode)) {
        root = openBeneath(parentFd, name, O_PATH | O_DIRECTORY);
        if (!root.isValid() && errno == EXDEV)
            return fail("files.mount_point", removing() + ": it is a mount point", EXDEV);
    }
    if (!root.isValid()) {
        // A file, a symlink (the link goes, its target stays), or a directory just replaced by one of those.
        if (::unlinkat(parentFd, name.c_str(), 0) == 0 || errno == ENOENT)
            return {};
        return failErrno("files.remove", removing(), errno);
    }
    if (::fstat(root.get(), &st) != 0)
        return failErrno("files.remove", "stat " + ticked(escapeForDisplay(bytes)), errno);

    TreeRemover remover(root.get(), st.st_dev, bytes);
    remover.emptyDirectory(root.get(), st.st_mode, 0);
    if (remover.m_mountPoint)
        return fail(remover.m_mountPoint->wrap(removing()));
    if (::unlinkat(parentFd, name.c_str(), AT_REMOVEDIR) != 0 && errno != ENOENT) {
        if (remover.m_firstError)
            return fail(remover.m_firstError->wrap(removing()));
        return failErrno("files.remove", removing(), errno);
    }
    return {};
}

} // namespace Cordon::Files
