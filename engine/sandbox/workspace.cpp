// SPDX-License-Identifier: MIT
#include "sandbox/workspace.h"

#include "sandbox/files/removetree.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <iterator>
#include <memory>
#include <optional>
#include <vector>

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

namespace Cordon::Containers {

namespace {

// The octal value of the "Umask:" line of /proc/self/status, once the line has been read whole.
std::optional<mode_t> umaskIn(std::string_view status)
{
    const std::size_t line = status.find("\nUmask:");
    const std::size_t end = line == std::string_view::npos ? line : status.find('\n', line + 1);
    if (end == std::string_view::npos)
        return std::nullopt;
    std::size_t begin = line + 7;
    while (begin < end && (status[begin] == ' ' || status[begin] == '\t'))
        ++begin;
    unsigned value = 0;
    const auto parsed = std::from_chars(status.data() + begin, status.data() + end, value, 8);
    if (parsed.ec != std::errc() || parsed.ptr != status.data() + end || value > 0777)
        return mode_t(0777);
    return mode_t(value);
}

// The process's umask, from /proc/self/status (umask(2) can only read it by changing it, which would race
// with other threads creating files); 0777 when it cannot be read, so that every mode is set explicitly.
mode_t processUmask()
{
    static const mode_t mask = [] {
        const int fd = ::open("/proc/self/status", O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            return mode_t(0777);
        std::string status;
        char buffer[4096];
        std::optional<mode_t> found;
        // The kernel fills the whole file in one read; stop as soon as the line is in.
        while (!found) {
            const ssize_t got = ::read(fd, buffer, sizeof buffer);
            if (got < 0 && errno == EINTR)
                continue;
            if (got <= 0)
                break;
            status.append(buffer, std::size_t(got));
            found = umaskIn(status);
        }
        ::close(fd);
        return found.value_or(mode_t(0777));
    }();
    return mask;
}

Result<> makeDir(const std::string &path, mode_t mode)
{
    const bool created = ::mkdir(path.c_str(), mode) == 0;
    if (!created && errno != EEXIST)
        return failErrno("workspace.io", "mkdir " + ticked(path), errno);
    // A directory we just made has its mode unless the umask took bits away; one that was there is set again
    // (a chmod costs a journal write on ext4, so it is not repeated when it would change nothing).
    if ((!created || (mode & processUmask()) != 0) && ::chmod(path.c_str(), mode) != 0)
        return failErrno("workspace.io", "chmod " + ticked(path), errno);
    return {};
}

Result<> handTo(const std::string &path, uid_t uid, gid_t gid)
{
    if (::lchown(path.c_str(), uid, gid) != 0)
        return failErrno("workspace.io", "chown " + ticked(path), errno);
    return {};
}

bool isDirectory(const std::string &path)
{
    struct stat st;
    return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// mkdir -p with mode 0777 (the umask applies), the way QDir::mkpath does it: the whole path first, its
// parents only when that fails with ENOENT. False with errno set.
bool makePath(std::string path)
{
    while (path.size() > 1 && path.back() == '/')
        path.pop_back();
    if (::mkdir(path.c_str(), 0777) == 0 || errno == EISDIR)
        return true;
    if (errno == EEXIST)
        return isDirectory(path);
    if (errno != ENOENT)
        return false;
    const std::size_t slash = path.rfind('/');
    if (slash == std::string::npos || slash == 0 || !makePath(path.substr(0, slash)))
        return false;
    if (::mkdir(path.c_str(), 0777) == 0)
        return true;
    return errno == EEXIST && isDirectory(path);
}

// realpath(3), as QDir::canonicalPath has it; empty when the path cannot be resolved.
std::string canonicalPath(const std::string &path)
{
    const std::unique_ptr<char, decltype(&std::free)> resolved(::realpath(path.c_str(), nullptr), &std::free);
    return resolved ? std::string(resolved.get()) : std::string();
}

// QDir::cleanPath for a Unix path: no empty or "." components, ".." taking away the component before it
// when there is one (a leading ".." stays, also after "/"), no trailing '/'.
std::string cleanPath(std::string_view path)
{
    if (path.empty())
        return {};
    const bool absolute = path.front() == '/';
    std::vector<std::string_view> parts;
    for (std::size_t start = 0; start <= path.size();) {
        const std::size_t slash = std::min(path.find('/', start), path.size());
        const std::string_view part = path.substr(start, slash - start);
        start = slash + 1;
        if (part.empty() || part == ".")
            continue;
        if (part == ".." && !parts.empty() && parts.back() != "..")
            parts.pop_back();
        else
            parts.push_back(part);
    }
    std::string cleaned = absolute ? "/" : "";
    for (std::size_t i = 0; i < parts.size(); ++i) {
        if (i > 0)
            cleaned += '/';
        cleaned += parts[i];
    }
    return cleaned.empty() ? std::string(".") : cleaned;
}

std::string containersDirectory()
{
    return dataDirectory() + "/containers";
}

} // namespace

std::string dataDirectory()
{
    if (const char *overridden = std::getenv("CORDON_DATA_DIR"); overridden && *overridden)
        return overridden;
    if (const char *xdg = std::getenv("XDG_DATA_HOME"); xdg && *xdg)
        return std::string(xdg) + "/cordon";
    // QDir::homePath(): $HOME cleaned, the root directory without it. QStandardPaths appends to that as it
    // is, so the root gives "//.local/share".
    const char *home = std::getenv("HOME");
    return cleanPath(home && *home ? home : "/") + "/.local/share/cordon";
}

std::string newContainerId()
{
    std::uint64_t value = 0;
    auto *bytes = reinterpret_cast<unsigned char *>(&value);
    std::size_t have = 0;
    while (have < sizeof value) {
        const ssize_t got = ::getrandom(bytes + have, sizeof value - have, 0);
        if (got > 0)
            have += std::size_t(got);
        else if (got < 0 && errno != EINTR)
            break;
    }
    if (have < sizeof value) {
        // No getrandom (a seccomp filter that predates it): ids must be distinct, not secret, so the clock,
        // the pid and a counter will do.
        static std::atomic<std::uint64_t> counter{0};
        timespec now{};
        ::clock_gettime(CLOCK_REALTIME, &now);
        value = (std::uint64_t(now.tv_sec) << 30) ^ std::uint64_t(now.tv_nsec) ^
                (std::uint64_t(::getpid()) << 40) ^ (++counter * 0x9e3779b97f4a7c15u);
    }
    char digits[16];
    const auto converted = std::to_chars(std::begin(digits), std::end(digits), value, 16);
    const auto count = std::size_t(converted.ptr - digits);
    return std::string(sizeof digits - count, '0') + std::string(digits, count);
}

Result<Workspace> Workspace::create(std::string_view containerId, uid_t ownerUid, gid_t ownerGid,
                                    Layout layout)
{
    const std::string containers = containersDirectory();
    if (!makePath(containers))
        return fail("workspace.io", "cannot create " + ticked(containers), errno);
    // The safe file code refuses any symlink on the way to a root (even a trusted one such as a symlinked
    // /home), so the workspace is addressed by its canonical path.
    const std::string canonical = canonicalPath(containers);
    if (canonical.empty())
        return fail("workspace.io", "cannot resolve " + ticked(containers), errno);
    Workspace workspace;
    workspace.m_root = canonical + '/' + std::string(containerId);
    const WorkspacePaths paths = workspace.paths(layout);
    CORDON_TRY(makeDir(workspace.m_root, 0700));
    CORDON_TRY(makeDir(paths.inputs, 0755));
    if (layout == Layout::OneShot)
        return workspace;
    CORDON_TRY(Files::restoreInterruptedSave(paths.work));
    CORDON_TRY(Files::restoreInterruptedSave(paths.outputs));
    CORDON_TRY(makeDir(paths.work, 0755));
    CORDON_TRY(makeDir(paths.outputs, 0755));
    CORDON_TRY(makeDir(paths.code, 0755));
    // The mount points inputs/ and outputs/ are made in the workspace tmpfs; a save never keeps them (they
    // are other mounts), but a workspace saved by an older Cordon may hold a symlink or file by those names,
    // which the restore would put in their way.
    for (const std::string &mountPoint : {paths.work + "/inputs", paths.work + "/outputs"}) {
        struct stat info
        {
        };
        if (::lstat(mountPoint.c_str(), &info) == 0 && !S_ISDIR(info.st_mode))
            CORDON_TRY(Files::removeTree(mountPoint));
    }
    // When the caller is root, code inside runs as an unprivileged host uid and must own what it restores.
    if (ownerUid != ::geteuid()) {
        CORDON_TRY(handTo(paths.work, ownerUid, ownerGid));
        CORDON_TRY(handTo(paths.outputs, ownerUid, ownerGid));
    }
    return workspace;
}

Workspace Workspace::at(std::string_view containerId)
{
    Workspace workspace;
    const std::string containers = containersDirectory();
    const std::string canonical = canonicalPath(containers);
    workspace.m_root = (canonical.empty() ? containers : canonical) + '/' + std::string(containerId);
    return workspace;
}

WorkspacePaths Workspace::paths(Layout layout) const
{
    return {m_root + "/work", m_root + "/inputs", m_root + "/outputs",
            layout == Layout::Container ? m_root + "/code" : std::string()};
}

Result<Files::MirrorReport> Workspace::save(int workspaceDir, int outputsDir,
                                            const Files::MirrorLimits &limits,
                                            WorkspaceManifest *manifest) const
{
    const WorkspacePaths where = paths(Layout::Container);
    Files::MirrorLimits workLimits = limits;
    workLimits.skipAtTop = {"inputs", "outputs"};
    auto work = Files::saveTree(workspaceDir, where.work, workLimits, manifest ? &manifest->work : nullptr);
    if (!work)
        return fail(work.error().wrap("save /mnt/data"));
    // One budget for both: they are one file system inside.
    Files::MirrorLimits outputsLimits = limits;
    outputsLimits.maxBytes = std::max<std::int64_t>(limits.maxBytes - work->bytes, 0);
    outputsLimits.maxEntries =
        std::max<std::int64_t>(limits.maxEntries - work->files - work->directories - work->symlinks, 0);
    auto outputs =
        Files::saveTree(outputsDir, where.outputs, outputsLimits, manifest ? &manifest->outputs : nullptr);
    if (!outputs)
        return fail(outputs.error().wrap("save /mnt/data/outputs"));
    Files::MirrorReport total = std::move(*work);
    total.files += outputs->files;
    total.directories += outputs->directories;
    total.symlinks += outputs->symlinks;
    total.bytes += outputs->bytes;
    total.linkedFiles += outputs->linkedFiles;
    total.copiedBytes += outputs->copiedBytes;
    total.leftOut += outputs->leftOut;
    for (std::string &example : outputs->examples)
        total.examples.push_back("outputs/" + std::move(example));
    return total;
}

Result<> Workspace::remove() const
{
    if (m_root.empty())
        return {};
    return Files::removeTree(m_root);
}

} // namespace Cordon::Containers
