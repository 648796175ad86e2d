// SPDX-License-Identifier: MIT
#include "sandbox/cgroup/cgroupfs.h"

#include "sandbox/cgroup/cgroupbackend.h"
#include "sandbox/readall.h"
#include "sandbox/uniquefd.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <csignal>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <thread>
#include <unistd.h>

namespace Cordon::Cgroup::Fs {

namespace {

// The bound of one cgroup file read: far above any the kernel writes (cgroup.procs of 100,000 processes is
// under 1 MiB).
constexpr std::size_t MaxFileBytes = 16 * 1024 * 1024;

using namespace std::chrono_literals;

int closeKeepingErrno(int fd)
{
    const int saved = errno;
    const int rc = ::close(fd);
    errno = saved;
    return rc;
}

int pidfdOpen(pid_t pid)
{
#ifdef SYS_pidfd_open
    return int(::syscall(SYS_pidfd_open, pid, 0));
#else
    errno = ENOSYS;
    return -1;
#endif
}

int pidfdKill(int pidfd)
{
#ifdef SYS_pidfd_send_signal
    return int(::syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, nullptr, 0));
#else
    errno = ENOSYS;
    return -1;
#endif
}

std::string_view trimmedLine(std::string_view line)
{
    constexpr std::string_view Space = " \t\n\v\f\r";
    const size_t first = line.find_first_not_of(Space);
    if (first == std::string_view::npos)
        return {};
    return line.substr(first, line.find_last_not_of(Space) - first + 1);
}

std::string firstOrEmpty(const std::vector<std::string> &files)
{
    return files.empty() ? std::string() : files.front();
}

// One round: signals every process that is listed, returns how many were listed.
Result<int> killListed(const std::vector<std::string> &procsFiles)
{
    auto first = readPids(procsFiles);
    if (!first)
        return fail(std::move(first).error());
    if (first->empty())
        return 0;

    struct Pinned
    {
        pid_t pid;
        int fd;
    };
    std::vector<Pinned> pinned;
    pinned.reserve(first->size());
    bool havePidfd = true;
    for (pid_t pid : *first) {
        const int fd = pidfdOpen(pid);
        if (fd < 0 && errno == ENOSYS) {
            havePidfd = false;
            break;
        }
        if (fd >= 0)
            pinned.push_back({pid, fd});
    }
    auto closeAll = [&pinned] {
        for (const Pinned &p : pinned)
            ::close(p.fd);
    };

    // Re-read after pinning: a pid still listed now names the pinned process (pids are unique among the
    // living), and that process is in the group.
    auto second = readPids(procsFiles);
    if (!second) {
        closeAll();
        return fail(std::move(second).error());
    }
    Result<int> result = int(first->size());
    if (havePidfd) {
        for (const Pinned &p : pinned) {
            if (!std::binary_search(second->cbegin(), second->cend(), p.pid))
                continue;
            if (pidfdKill(p.fd) != 0 && errno != ESRCH && result)
                result = failErrno("cgroup.io", "kill pid " + std::to_string(p.pid), errno);
        }
    } else {
        // Kernels before 5.3: plain kill(2) on pids listed in both reads; the window is the time between
        // them.
        for (pid_t pid : *second) {
            if (!std::binary_search(first->cbegin(), first->cend(), pid))
                continue;
            if (::kill(pid, SIGKILL) != 0 && errno != ESRCH && result)
                result = failErrno("cgroup.io", "kill pid " + std::to_string(pid), errno);
        }
    }
    closeAll();
    return result;
}

} // namespace

Result<std::string> readFile(const std::string &path)
{
    const UniqueFd file(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!file.isValid())
        return failErrno("cgroup.io", "read " + ticked(path), errno);
    return readToEnd(file.get(), MaxFileBytes, ticked(path), "cgroup.io", "cgroup.io");
}

Result<> writeFile(const std::string &path, std::string_view data)
{
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return failErrno("cgroup.io", "write " + ticked(path), errno);
    // cgroupfs parses each write(2) as one complete value, so the value must go in a single call.
    ssize_t n;
    do {
        n = ::write(fd, data.data(), data.size());
    } while (n < 0 && errno == EINTR);
    if (n != ssize_t(data.size())) {
        const int err = n < 0 ? errno : EIO;
        closeKeepingErrno(fd);
        return failErrno("cgroup.io", "write " + ticked(path), err);
    }
    if (::close(fd) != 0)
        return failErrno("cgroup.io", "write " + ticked(path), errno);
    return {};
}

Result<std::int64_t> readValue(const std::string &path)
{
    auto data = readFile(path);
    if (!data)
        return fail(std::move(data).error());
    auto value = parseLimitValue(*data);
    if (!value)
        return fail(value.error().wrap("parse " + ticked(path)));
    return value;
}

Result<FlatKeyed> readFlatKeyed(const std::string &path)
{
    auto data = readFile(path);
    if (!data)
        return fail(std::move(data).error());
    return parseFlatKeyed(*data);
}

Result<std::vector<std::string>> readControllers(const std::string &path)
{
    auto data = readFile(path);
    if (!data)
        return fail(std::move(data).error());
    return parseControllerList(*data);
}

std::int64_t pidsLimitHits(const std::string &pidsGroupDir)
{
    auto events = readFlatKeyed(pidsGroupDir + "/pids.events");
    if (!events)
        return 0;
    const auto hits = events->find("max");
    return hits == events->end() ? 0 : hits->second;
}

bool exists(const std::string &path)
{
    struct stat st;
    return ::stat(path.c_str(), &st) == 0;
}

Result<bool> makeDir(const std::string &path)
{
    if (::mkdir(path.c_str(), 0755) == 0)
        return true;
    if (errno == EEXIST)
        return false;
    return failErrno("cgroup.io", "mkdir " + ticked(path), errno);
}

Result<> removeDir(const std::string &path)
{
    // A group is busy for a moment after its last process was killed: the task leaves the group late in
    // exit. Two seconds is far longer than that takes on an idle machine.
    auto delay = 5ms;
    const auto deadline = std::chrono::steady_clock::now() + 2s;
    for (;;) {
        if (::rmdir(path.c_str()) == 0 || errno == ENOENT)
            return {};
        if (errno != EBUSY || std::chrono::steady_clock::now() >= deadline)
            return failErrno("cgroup.io", "rmdir " + ticked(path), errno);
        std::this_thread::sleep_for(delay);
        delay = std::min(delay * 2, std::chrono::milliseconds(100));
    }
}

std::int64_t ownerOf(const std::string &path)
{
    struct stat st;
    if (::stat(path.c_str(), &st) != 0)
        return -1;
    return std::int64_t(st.st_uid);
}

bool writable(const std::string &path)
{
    return ::access(path.c_str(), W_OK) == 0;
}

Result<std::vector<pid_t>> readPids(const std::vector<std::string> &procsFiles)
{
    std::vector<pid_t> pids;
    for (const std::string &file : procsFiles) {
        auto data = readFile(file);
        if (!data)
            return fail(std::move(data).error());
        const std::string_view text = *data;
        size_t start = 0;
        while (start <= text.size()) {
            const size_t end = std::min(text.find('\n', start), text.size());
            const std::string_view line = text.substr(start, end - start);
            start = end + 1;
            const std::string_view number = trimmedLine(line);
            if (number.empty())
                continue;
            const auto pid = parseInteger(number);
            if (!pid || *pid <= 0 || *pid > INT_MAX)
                return fail("cgroup.io",
                            "parse " + ticked(file) + ": `" + std::string(line) + "` is not a pid");
            pids.push_back(pid_t(*pid));
        }
    }
    // v1 documents cgroup.procs as neither sorted nor free of duplicates.
    std::sort(pids.begin(), pids.end());
    pids.erase(std::unique(pids.begin(), pids.end()), pids.end());
    return pids;
}

Result<> killUntilEmpty(const std::vector<std::string> &procsFiles, std::chrono::milliseconds timeout)
{
    // Without a freezer, a process may fork between our read and our kill; each round kills what is listed,
    // and the children forked meanwhile are listed in the next one. pids.max bounds how many there can be.
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    auto delay = 2ms;
    int lastCount = 0;
    for (;;) {
        auto listed = killListed(procsFiles);
        if (!listed)
            return fail(std::move(listed).error());
        if (*listed == 0)
            return {};
        lastCount = *listed;
        if (std::chrono::steady_clock::now() >= deadline)
            break;
        std::this_thread::sleep_for(delay);
        delay = std::min(delay * 2, std::chrono::milliseconds(50));
    }
    return fail("cgroup.io",
                "kill: " + std::to_string(lastCount) + " process(es) still listed in " +
                    ticked(firstOrEmpty(procsFiles)) + " after " + std::to_string(timeout.count()) +
                    " ms of SIGKILL",
                EBUSY);
}

Result<> waitUntilEmpty(const std::vector<std::string> &procsFiles, std::chrono::milliseconds timeout)
{
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    auto delay = 1ms;
    for (;;) {
        auto pids = readPids(procsFiles);
        if (!pids)
            return fail(std::move(pids).error());
        if (pids->empty())
            return {};
        if (std::chrono::steady_clock::now() >= deadline)
            return fail("cgroup.io",
                        "kill: " + std::to_string(pids->size()) + " process(es) still listed in " +
                            ticked(firstOrEmpty(procsFiles)) + " after " + std::to_string(timeout.count()) +
                            " ms",
                        EBUSY);
        std::this_thread::sleep_for(delay);
        delay = std::min(delay * 2, std::chrono::milliseconds(50));
    }
}

std::string fsPathOf(const MountEntry &mount, std::string_view procPath)
{
    std::string_view relative;
    if (mount.root == "/")
        relative = procPath;
    else if (procPath.starts_with(mount.root) &&
             (procPath.size() == mount.root.size() || procPath[mount.root.size()] == '/'))
        relative = procPath.substr(mount.root.size());
    else
        return {};
    if (relative.empty() || relative == "/")
        return mount.mountPoint;
    return mount.mountPoint + std::string(relative);
}

std::string joinPath(std::string_view dir, std::string_view name)
{
    std::string path(dir);
    if (!dir.ends_with('/'))
        path += '/';
    path += name;
    return path;
}

std::string parentOf(std::string_view path)
{
    const size_t slash = path.rfind('/');
    return slash == std::string_view::npos || slash == 0 ? std::string("/")
                                                         : std::string(path.substr(0, slash));
}

std::string commonAncestor(std::string_view a, std::string_view b)
{
    // Compares whole components: "/x/ab" and "/x/abc" share "/x", not "/x/ab".
    std::string common;
    size_t i = 0, j = 0;
    for (;;) {
        while (i < a.size() && a[i] == '/')
            ++i;
        while (j < b.size() && b[j] == '/')
            ++j;
        const size_t endA = std::min(a.find('/', i), a.size());
        const size_t endB = std::min(b.find('/', j), b.size());
        if (i == endA || j == endB || a.substr(i, endA - i) != b.substr(j, endB - j))
            break;
        common += '/';
        common += a.substr(i, endA - i);
        i = endA;
        j = endB;
    }
    return common.empty() ? std::string("/") : common;
}

Result<> enableControllers(const std::string &dir, const std::vector<std::string> &controllers)
{
    auto enabled = readControllers(dir + "/cgroup.subtree_control");
    if (!enabled)
        return fail(std::move(enabled).error());
    std::string request;
    for (const std::string &controller : controllers) {
        if (!contains(*enabled, controller))
            request += (request.empty() ? "+" : " +") + controller;
    }
    if (request.empty())
        return {};
    auto available = readControllers(dir + "/cgroup.controllers");
    if (!available)
        return fail(std::move(available).error());
    for (const std::string &controller : controllers) {
        if (!contains(*available, controller))
            return fail("cgroup.unavailable", "the " + controller + " controller is not available in " +
                                                  ticked(dir) + ": its parent does not pass it down");
    }
    return writeFile(dir + "/cgroup.subtree_control", request);
}

Result<> checkProcessFor(std::string_view name, pid_t pid)
{
    CORDON_TRY(validateGroupName(name));
    if (pid <= 0)
        return fail("cgroup.io",
                    "add pid " + std::to_string(pid) + " to `" + std::string(name) + "`: not a process",
                    EINVAL);
    return {};
}

} // namespace Cordon::Cgroup::Fs
