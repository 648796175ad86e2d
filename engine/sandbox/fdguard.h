// SPDX-License-Identifier: MIT
// Closes one file descriptor at the end of a scope; for the plain C++ code that cordon-init runs.
#pragma once

#include <unistd.h>

namespace Cordon::Isolation {

class FdGuard
{
public:
    explicit FdGuard(int fd = -1) : m_fd(fd) {}
    ~FdGuard()
    {
        if (m_fd >= 0)
            ::close(m_fd);
    }
    FdGuard(const FdGuard &) = delete;
    FdGuard &operator=(const FdGuard &) = delete;
    int get() const { return m_fd; }
    void reset(int fd)
    {
        if (m_fd >= 0)
            ::close(m_fd);
        m_fd = fd;
    }

private:
    int m_fd;
};

} // namespace Cordon::Isolation
