// SPDX-License-Identifier: MIT
#include "containers/csvupload.h"

#include "sandbox/readall.h"
#include "sandbox/writeall.h"

#include <cerrno>
#include <fcntl.h>
#include <sys/mman.h>
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
    return openRegularFile(hostPath, hostPath, "files.io", "files.not_regular");
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
