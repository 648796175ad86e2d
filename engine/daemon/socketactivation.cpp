// SPDX-License-Identifier: MIT
// The protocol is read here rather than through libsystemd's sd_listen_fds(): it is three environment
// variables and a fixed first descriptor, documented as a stable interface, and cordond also runs on hosts
// without systemd, where a libsystemd dependency would buy nothing.
#include "daemon/socketactivation.h"

#include <QByteArray>

#include <cerrno>
#include <cstdlib>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

namespace Cordon::Daemon {

namespace {

// SD_LISTEN_FDS_START: the first passed descriptor.
constexpr int FirstPassedFd = 3;

Error activationError(const QString &message, int sysErrno = 0)
{
    return makeError(QStringLiteral("daemon.activation"),
                     QStringLiteral("socket activation: %1").arg(message), sysErrno);
}

// A strict decimal: LISTEN_PID and LISTEN_FDS are written by the service manager, and anything else in them
// means they are not what the protocol says.
bool parseNumber(const QByteArray &text, qint64 *value)
{
    if (text.isEmpty() || text.size() > 18)
        return false;
    for (const char c : text) {
        if (c < '0' || c > '9')
            return false;
    }
    *value = text.toLongLong();
    return true;
}

Result<> checkListeningUnixStream(int fd)
{
    struct stat st = {};
    if (::fstat(fd, &st) != 0)
        return fail(activationError(QStringLiteral("fd %1 is not open").arg(fd), errno));
    if (!S_ISSOCK(st.st_mode))
        return fail(activationError(QStringLiteral("fd %1 is not a socket").arg(fd)));
    int domain = 0, type = 0, listening = 0;
    socklen_t length = sizeof domain;
    if (::getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &length) != 0)
        return fail(activationError(QStringLiteral("read the domain of fd %1").arg(fd), errno));
    length = sizeof type;
    if (::getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &length) != 0)
        return fail(activationError(QStringLiteral("read the type of fd %1").arg(fd), errno));
    length = sizeof listening;
    if (::getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &length) != 0)
        return fail(activationError(QStringLiteral("read the state of fd %1").arg(fd), errno));
    if (domain != AF_UNIX || type != SOCK_STREAM || !listening) {
        return fail(activationError(
            QStringLiteral("fd %1 is not a listening unix stream socket (ListenStream= with a path is)")
                .arg(fd)));
    }
    return {};
}

} // namespace

Result<Activation> takeActivation()
{
    const bool pidSet = qEnvironmentVariableIsSet("LISTEN_PID");
    const bool fdsSet = qEnvironmentVariableIsSet("LISTEN_FDS");
    const QByteArray pidText = qgetenv("LISTEN_PID");
    const QByteArray fdsText = qgetenv("LISTEN_FDS");
    // Removed whatever happens next: the containers' processes get a clean environment anyway, but a variable
    // left here would be taken up by anything else the daemon might start.
    qunsetenv("LISTEN_PID");
    qunsetenv("LISTEN_FDS");
    qunsetenv("LISTEN_FDNAMES");

    Activation activation;
    if (!pidSet && !fdsSet)
        return activation;
    qint64 pid = 0;
    if (!pidSet || !parseNumber(pidText, &pid)) {
        activation.ignored =
            QStringLiteral("LISTEN_FDS=%1 comes without a valid LISTEN_PID (`%2`); ignoring it")
                .arg(QString::fromLocal8Bit(fdsText), QString::fromLocal8Bit(pidText));
        return activation;
    }
    if (pid != ::getpid()) {
        activation.ignored =
            QStringLiteral("LISTEN_PID=%1 names another process (this is %2); ignoring LISTEN_FDS=%3")
                .arg(pid)
                .arg(::getpid())
                .arg(QString::fromLocal8Bit(fdsText));
        return activation;
    }

    qint64 count = 0;
    if (!parseNumber(fdsText, &count))
        return fail(activationError(QStringLiteral("LISTEN_FDS=`%1` is not a number of descriptors")
                                        .arg(QString::fromLocal8Bit(fdsText))));
    // One socket unit with one ListenStream= passes exactly one; more would be sockets cordond cannot serve.
    if (count != 1) {
        return fail(activationError(
            QStringLiteral("LISTEN_FDS=%1, but cordond serves exactly one socket (one ListenStream= line)")
                .arg(count)));
    }
    CORDON_TRY(checkListeningUnixStream(FirstPassedFd));

    // Close-on-exec, as sd_listen_fds() leaves it: cordon-init and the runs must never hold the control
    // socket. Non-blocking, because the server accepts until EAGAIN.
    const int fdFlags = ::fcntl(FirstPassedFd, F_GETFD);
    const int statusFlags = ::fcntl(FirstPassedFd, F_GETFL);
    if (fdFlags < 0 || statusFlags < 0 || ::fcntl(FirstPassedFd, F_SETFD, fdFlags | FD_CLOEXEC) != 0 ||
        ::fcntl(FirstPassedFd, F_SETFL, statusFlags | O_NONBLOCK) != 0)
        return fail(activationError(QStringLiteral("set the flags of fd %1").arg(FirstPassedFd), errno));
    activation.fd = FirstPassedFd;
    return activation;
}

} // namespace Cordon::Daemon
