// SPDX-License-Identifier: MIT
#include "daemon/lite/daemonlog.h"

#include "daemon/lite/socketpath.h"
#include "sandbox/readall.h"
#include "sandbox/uniquefd.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace Cordon::Lite {

namespace {

constexpr off_t MaxTailBytes = 4096;

} // namespace

std::string daemonLogPath(std::string_view socketPath)
{
    return std::string(socketPath) + ".log";
}

DaemonLog openDaemonLog(std::string_view socketPath)
{
    const std::string path = daemonLogPath(socketPath);
    // Only the socket's own directory: its parent (the runtime or state directory) is not ours to make.
    ::mkdir(parentPath(absoluteCleanPath(socketPath)).c_str(), 0700);
    DaemonLog log;
    log.fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, 0600);
    struct stat info
    {
    };
    if (log.fd >= 0 && ::fstat(log.fd, &info) == 0 && S_ISREG(info.st_mode)) {
        log.startOffset = info.st_size;
    } else if (log.fd >= 0) {
        ::close(log.fd);
        log.fd = -1;
    }
    return log;
}

std::string daemonLogTail(std::string_view socketPath, off_t offset, int maxLines)
{
    const UniqueFd file(
        ::open(daemonLogPath(socketPath).c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
    struct stat info
    {
    };
    if (!file.isValid() || ::fstat(file.get(), &info) != 0 || !S_ISREG(info.st_mode) ||
        info.st_size <= offset)
        return {};
    const off_t from = std::max(offset, info.st_size - MaxTailBytes);
    if (::lseek(file.get(), from, SEEK_SET) != from)
        return {};
    Result<std::string> text =
        readToEnd(file.get(), MaxTailBytes, "the daemon's log", "daemon.log", "daemon.log");
    if (!text)
        return {};
    std::string tail = std::move(*text);
    while (!tail.empty() && (tail.back() == '\n' || tail.back() == ' '))
        tail.pop_back();
    // The last maxLines lines start after the maxLines-th newline from the end, if there are that many.
    std::size_t end = tail.size();
    for (int lines = 0; lines < maxLines; ++lines) {
        const std::size_t newline = end == 0 ? std::string::npos : tail.rfind('\n', end - 1);
        if (newline == std::string::npos)
            return tail;
        end = newline;
    }
    return tail.substr(end + 1);
}

bool daemonLockHeld(std::string_view socketPath)
{
    const UniqueFd lock(
        ::open((std::string(socketPath) + ".lock").c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
    if (!lock.isValid())
        return false;
    // A shared lock fails where the daemon's exclusive one is held; when it is taken, it goes with the fd.
    return ::flock(lock.get(), LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
}

bool processHasExited(pid_t pid)
{
    if (::kill(pid, 0) != 0)
        return errno == ESRCH;
    // "PID (COMM) S ...": the state follows the last ')' (COMM may hold anything).
    const UniqueFd stat(::open(("/proc/" + std::to_string(pid) + "/stat").c_str(), O_RDONLY | O_CLOEXEC));
    if (!stat.isValid())
        return false;
    Result<std::string> text = readToEnd(stat.get(), 4096, "stat", "daemon.log", "daemon.log");
    if (!text)
        return false;
    const std::size_t paren = text->rfind(')');
    return paren != std::string::npos && paren + 2 < text->size() && (*text)[paren + 2] == 'Z';
}

} // namespace Cordon::Lite
