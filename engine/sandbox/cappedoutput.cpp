// SPDX-License-Identifier: MIT
#include "sandbox/cappedoutput.h"

#include <algorithm>
#include <cerrno>
#include <unistd.h>

namespace Cordon::Containers {

std::string_view CappedOutput::append(std::string_view bytes)
{
    const std::int64_t room = m_cap - std::min(m_total, m_cap);
    m_total += static_cast<std::int64_t>(bytes.size());
    if (room <= 0)
        return {};
    const std::size_t kept = static_cast<std::size_t>(std::min<std::int64_t>(room, std::ssize(bytes)));
    const std::size_t start = m_data.size();
    m_data.append(bytes.substr(0, kept));
    return std::string_view(m_data).substr(start, kept);
}

bool readAvailable(int fd, CappedOutput &output, const std::function<void(std::string_view)> &onKept)
{
    char buffer[65536];
    for (;;) {
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            return true;
        if (n <= 0)
            return false;
        const std::string_view kept = output.append({buffer, static_cast<std::size_t>(n)});
        if (!kept.empty() && onKept)
            onKept(kept);
    }
}

} // namespace Cordon::Containers
