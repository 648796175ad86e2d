// SPDX-License-Identifier: MIT
#include "containers/csvupload.h"

#include "sandbox/writeall.h"

#include <cerrno>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace Cordon::Containers {

Result<UniqueFd> openCsvSource(const std::string &hostPath, const std::optional<std::string> &content)
{
    if (content) {
        UniqueFd memory(::memfd_create("cordon-csv-upload", MFD_CLOEXEC));
        if (memory.get() < 0)
            return failErrno("files.io", "stage the upload", errno);
        if (const int failed = writeFully(memory.get(), *content); failed != 0)
            return failErrno("files.io", "stage the upload", failed);
        if (::lseek(memory.get(), 0, SEEK_SET) != 0)
            return failErrno("files.io", "stage the upload", errno);
        return memory;
    }
    if (hostPath.empty())
        return fail("files.no_source", "give a path or content");
    // O_NONBLOCK: opening a FIFO must not wait for a writer; the check below refuses it.
    UniqueFd fd(::open(hostPath.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
    if (fd.get() < 0)
        return failErrno("files.io", "open " + hostPath, errno);
    struct stat status
    {
    };
    if (::fstat(fd.get(), &status) != 0)
        return failErrno("files.io", "stat " + hostPath, errno);
    if (!S_ISREG(status.st_mode))
        return fail("files.not_regular", hostPath + " is not a regular file");
    const int flags = ::fcntl(fd.get(), F_GETFL);
    if (flags < 0 || ::fcntl(fd.get(), F_SETFL, flags & ~O_NONBLOCK) != 0)
        return failErrno("files.io", "read " + hostPath, errno);
    return fd;
}

Result<Csv::PseudonymizeReport> stagePseudonymizedCsv(int sourceFd, const std::string &stagedPath,
                                                      const Secrets::Pseudonymizer &pseudonyms,
                                                      const Csv::PseudonymizeOptions &options)
{
    UniqueFd staged(::open(stagedPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600));
    if (staged.get() < 0)
        return failErrno("files.io", "create the staging file", errno);
    return Csv::pseudonymizeCsv(sourceFd, staged.get(), pseudonyms, options);
}

} // namespace Cordon::Containers
