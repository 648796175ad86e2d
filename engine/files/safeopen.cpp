// SPDX-License-Identifier: MIT
#include "files/safeopen.h"

#include <cerrno>
#include <string>
#include <vector>

namespace Cordon::Files {

bool readDirectoryNames(int dirFd, qsizetype max, QList<QByteArray> *names)
{
    std::vector<std::string> read;
    const bool ok = Core::readDirectoryNames(dirFd, max < 0 ? 0 : std::size_t(max), &read);
    const int error = errno;
    names->clear();
    names->reserve(qsizetype(read.size()));
    for (const std::string &name : read)
        names->append(QByteArray(name.data(), qsizetype(name.size())));
    errno = error;
    return ok;
}

} // namespace Cordon::Files
