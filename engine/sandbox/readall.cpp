// SPDX-License-Identifier: MIT
#include "sandbox/readall.h"

#include "sandbox/uniquefd.h"

#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace Cordon {

namespace {

std::string sizeText(std::size_t bytes)
{
    constexpr std::size_t MiB = 1024 * 1024;
    if (bytes >= MiB && bytes % MiB == 0)
        return std::to_string(bytes / MiB) + " MiB";
    return std::to_string(bytes) + " bytes";
}

} // namespace

Result<std::string> readToEnd(int fd, std::size_t cap, std::string_view what, const char *readCode,
                              const char *tooLargeCode)
{
    std::string data;
    char buffer[65536];
    for (;;) {
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return failErrno(readCode, "read " + std::string(what), errno);
        if (n == 0)
            return data;
        data.append(buffer, static_cast<std::size_t>(n));
        if (data.size() > cap)
            return fail(tooLargeCode, std::string(what) + " is larger than " + sizeText(cap));
    }
}

Result<UniqueFd> openRegularFile(const std::string &path, std::string_view what, const char *openCode,
                                 const char *notRegularCode)
{
    // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer. O_NOCTTY: a terminal must not
    // become the controlling terminal.
    UniqueFd file(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
    if (!file.isValid())
        return fail(openCode, "cannot read " + std::string(what) + ": " + errnoText(errno));
    struct stat info
    {
    };
    if (::fstat(file.get(), &info) != 0)
        return failErrno(openCode, "stat " + std::string(what), errno);
    if (!S_ISREG(info.st_mode))
        return fail(notRegularCode, "cannot read " + std::string(what) + ": not a regular file");
    return file;
}

Result<std::string> readRegularFile(const std::string &path, std::size_t cap, std::string_view what,
                                    const char *openCode, const char *readCode, const char *tooLargeCode)
{
    auto file = openRegularFile(path, what, openCode, openCode);
    if (!file)
        return fail(file.error());
    return readToEnd(file->get(), cap, what, readCode, tooLargeCode);
}

} // namespace Cordon
