// SPDX-License-Identifier: MIT
#include "daemon/daemonpaths.h"

#include "daemon/lite/socketpath.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <cerrno>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <utility>

namespace Cordon::Daemon {

// The rules live in the Qt-free client (daemon/lite/socketpath.h), which the `cordon` launcher uses alone:
// both must find the same socket.
QString socketDirectory()
{
    return QFile::decodeName(QByteArray::fromStdString(Lite::socketDirectory()));
}

QString socketPath()
{
    return QFile::decodeName(QByteArray::fromStdString(Lite::socketPath()));
}

QString lockPath()
{
    return socketPath() + QStringLiteral(".lock");
}

Result<> ensureSocketDirectory()
{
    const QString directory = socketDirectory();
    const QByteArray encoded = QFile::encodeName(directory);
    const QString parent = QFileInfo(directory).absolutePath();
    if (!QDir().mkpath(parent)) {
        return fail(QStringLiteral("daemon.socket_dir"),
                    QStringLiteral("create `%1`: cannot create the directory").arg(parent));
    }
    if (::mkdir(encoded.constData(), 0700) != 0 && errno != EEXIST)
        return failErrno(QStringLiteral("daemon.socket_dir"), QStringLiteral("create `%1`").arg(directory),
                         errno);

    // Checked through an fd opened without following symlinks, so the directory we check is the one we chmod:
    // a symlink planted here could point the socket (and the lock) at someone else's directory.
    const int fd = ::open(encoded.constData(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ELOOP || errno == ENOTDIR) {
            return fail(
                QStringLiteral("daemon.socket_dir"),
                QStringLiteral("`%1` is a symlink or not a directory; refusing to put the socket there")
                    .arg(directory));
        }
        return failErrno(QStringLiteral("daemon.socket_dir"), QStringLiteral("open `%1`").arg(directory),
                         errno);
    }
    struct stat st = {};
    if (::fstat(fd, &st) != 0) {
        const int saved = errno;
        ::close(fd);
        return failErrno(QStringLiteral("daemon.socket_dir"), QStringLiteral("stat `%1`").arg(directory),
                         saved);
    }
    if (st.st_uid != ::getuid()) {
        ::close(fd);
        return fail(QStringLiteral("daemon.socket_dir"),
                    QStringLiteral("`%1` is owned by uid %2, not by this user (uid %3); refusing to use it")
                        .arg(directory)
                        .arg(st.st_uid)
                        .arg(::getuid()));
    }
    // A shared directory (the sticky bit: /tmp, /var/tmp) is not ours to narrow, even where we own it (root
    // owns /tmp): CORDON_SOCKET=/tmp/x.sock must not make /tmp private to root. Refused, with where to go.
    if (st.st_mode & S_ISVTX) {
        ::close(fd);
        return fail(QStringLiteral("daemon.socket_dir"),
                    QStringLiteral("`%1` is a shared directory (sticky bit); put the socket in a directory of its "
                                   "own, e.g. CORDON_SOCKET=%1/cordon-%2/cordond.sock")
                        .arg(directory)
                        .arg(::getuid()));
    }
    // Our own directory with a wider mode (an old version, a umask accident) is narrowed rather than refused:
    // only its owner could have loosened it, and 0700 is what keeps other users away from the socket.
    if ((st.st_mode & 07777) != 0700 && ::fchmod(fd, 0700) != 0) {
        const int saved = errno;
        ::close(fd);
        return failErrno(QStringLiteral("daemon.socket_dir"),
                         QStringLiteral("chmod 0700 `%1`").arg(directory), saved);
    }
    ::close(fd);
    return {};
}

Result<InstanceLock> InstanceLock::acquire()
{
    CORDON_TRY(ensureSocketDirectory());
    const QString path = lockPath();
    const int fd =
        ::open(QFile::encodeName(path).constData(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return failErrno(QStringLiteral("daemon.lock"), QStringLiteral("open lock file `%1`").arg(path),
                         errno);

    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
        const int saved = errno;
        if (saved != EWOULDBLOCK) {
            ::close(fd);
            return failErrno(QStringLiteral("daemon.lock"), QStringLiteral("lock `%1`").arg(path), saved);
        }
        char buffer[32] = {};
        const ssize_t n = ::pread(fd, buffer, sizeof buffer - 1, 0);
        ::close(fd);
        bool ok = false;
        const qint64 pid = n > 0 ? QByteArray(buffer, n).trimmed().toLongLong(&ok) : 0;
        return fail(QStringLiteral("daemon.already_running"),
                    ok && pid > 0
                        ? QStringLiteral("cordond is already running (pid %1, lock `%2`)").arg(pid).arg(path)
                        : QStringLiteral("another cordond holds the lock `%1`").arg(path));
    }

    const QByteArray pid = QByteArray::number(::getpid()) + '\n';
    if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, pid.constData(), pid.size(), 0) != pid.size()) {
        const int saved = errno;
        ::close(fd);
        return failErrno(QStringLiteral("daemon.lock"), QStringLiteral("write pid to `%1`").arg(path), saved);
    }
    return InstanceLock(fd, path);
}

InstanceLock::InstanceLock(int fd, QString path) : m_fd(fd), m_path(std::move(path)) {}

InstanceLock::InstanceLock(InstanceLock &&other) noexcept
    : m_fd(std::exchange(other.m_fd, -1)), m_path(std::move(other.m_path))
{}

InstanceLock &InstanceLock::operator=(InstanceLock &&other) noexcept
{
    if (this != &other) {
        release();
        m_fd = std::exchange(other.m_fd, -1);
        m_path = std::move(other.m_path);
    }
    return *this;
}

InstanceLock::~InstanceLock()
{
    release();
}

// The file stays: unlinking a lock file races with a newcomer that has opened it but not yet locked it.
void InstanceLock::release()
{
    if (m_fd >= 0) {
        ::close(m_fd);
        m_fd = -1;
    }
}

} // namespace Cordon::Daemon
