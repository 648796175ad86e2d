// SPDX-License-Identifier: MIT
#include "daemon/logrotation.h"

#include <QByteArray>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace Cordon::Daemon {

LogRotation::LogRotation(qint64 maxBytes, int intervalMs, QObject *parent)
    : QObject(parent), m_maxBytes(maxBytes)
{
    rotateIfFull();
    connect(&m_timer, &QTimer::timeout, this, &LogRotation::rotateIfFull);
    m_timer.start(intervalMs);
}

bool LogRotation::rotateIfFull()
{
    struct stat info
    {
    };
    if (m_maxBytes <= 0 || ::fstat(STDERR_FILENO, &info) != 0 || !S_ISREG(info.st_mode) ||
        info.st_size <= m_maxBytes)
        return false;
    // The file standard error writes to, by its name now: the one `cordon` opened, or what a user redirected.
    char path[PATH_MAX];
    const ssize_t length = ::readlink("/proc/self/fd/2", path, sizeof path - 1);
    if (length <= 0 || path[0] != '/')
        return false;
    path[length] = '\0';
    const QByteArray current(path);
    const QByteArray previous = current + ".1";
    if (::rename(current.constData(), previous.constData()) != 0)
        return false;
    const int fresh =
        ::open(current.constData(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fresh < 0)
        return false; // it goes on writing to <log>.1, which is still bounded by the next check
    ::dup2(fresh, STDERR_FILENO);
    ::close(fresh);
    std::fprintf(stderr, "cordond: the log passed %lld bytes; what came before is in %s\n",
                 static_cast<long long>(m_maxBytes), previous.constData());
    return true;
}

} // namespace Cordon::Daemon
