// SPDX-License-Identifier: MIT
#include "sandbox/runstdin.h"

#include "sandbox/writeall.h"

#include <cerrno>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

namespace Cordon::Containers {

Result<int> stdinMemfd(std::string_view data)
{
    const int fd = ::memfd_create("cordon-stdin", MFD_CLOEXEC);
    if (fd < 0)
        return failErrno("run.stdin", "memfd_create", errno);
    if (const int error = writeFully(fd, data); error != 0) {
        ::close(fd);
        return failErrno("run.stdin", "write stdin", error);
    }
    ::lseek(fd, 0, SEEK_SET);
    return fd;
}

Result<int> openDevNull()
{
    const int fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return failErrno("run.stdin", "open /dev/null", errno);
    return fd;
}

} // namespace Cordon::Containers
