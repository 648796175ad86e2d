// SPDX-License-Identifier: MIT
#include "core/fdio.h"

#include <cerrno>
#include <unistd.h>

namespace Cordon {

int writeAll(int fd, QByteArrayView data)
{
    qsizetype written = 0;
    while (written < data.size()) {
        const ssize_t n = ::write(fd, data.data() + written, static_cast<size_t>(data.size() - written));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return n < 0 ? errno : EIO;
        written += n;
    }
    return 0;
}

} // namespace Cordon
