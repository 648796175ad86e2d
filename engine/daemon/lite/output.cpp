// SPDX-License-Identifier: MIT
#include "daemon/lite/output.h"

#include <cerrno>
#include <unistd.h>

namespace Cordon::Lite {

void writeAll(int fd, std::string_view bytes)
{
    while (!bytes.empty()) {
        const ssize_t n = ::write(fd, bytes.data(), bytes.size());
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return;
        bytes.remove_prefix(static_cast<std::size_t>(n));
    }
}

} // namespace Cordon::Lite
