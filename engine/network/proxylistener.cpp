// SPDX-License-Identifier: MIT
#include "network/proxylistener.h"

#include <cerrno>
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

namespace Cordon::Network {

namespace {

// After an accept error (EMFILE, ENFILE, ENOBUFS) QTcpServer pauses; it resumes after this long, so that a
// descriptor shortage does not end the container's network for good.
constexpr int AcceptRetryMs = 1000;

Result<int> intOption(int fd, int option, const char *name)
{
    int value = 0;
    socklen_t length = sizeof value;
    if (::getsockopt(fd, SOL_SOCKET, option, &value, &length) != 0)
        return failErrno(
            QStringLiteral("network.invalid_listener"),
            QStringLiteral("getsockopt(%1) on the proxy listener").arg(QString::fromLatin1(name)), errno);
    return value;
}

} // namespace

Result<void> checkListeningSocket(int fd)
{
    const auto invalid = [](const QString &why) {
        return fail(QStringLiteral("network.invalid_listener"), QStringLiteral("proxy listener: ") + why);
    };
    if (fd < 0)
        return invalid(QStringLiteral("no descriptor"));
    const Result<int> accepting = intOption(fd, SO_ACCEPTCONN, "SO_ACCEPTCONN");
    if (!accepting)
        return fail(accepting.error());
    const Result<int> type = intOption(fd, SO_TYPE, "SO_TYPE");
    if (!type)
        return fail(type.error());
    const Result<int> domain = intOption(fd, SO_DOMAIN, "SO_DOMAIN");
    if (!domain)
        return fail(domain.error());
    if (*type != SOCK_STREAM || (*domain != AF_INET && *domain != AF_INET6))
        return invalid(QStringLiteral("not a TCP socket"));
    if (*accepting != 1)
        return invalid(QStringLiteral("the socket is not listening"));
    return {};
}

ProxyListener::ProxyListener(std::function<void(qintptr)> onAccepted, QObject *parent)
    : QTcpServer(parent), m_onAccepted(std::move(onAccepted))
{
    m_retry.setSingleShot(true);
    connect(&m_retry, &QTimer::timeout, this, &QTcpServer::resumeAccepting);
    connect(this, &QTcpServer::acceptError, this, [this] { m_retry.start(AcceptRetryMs); });
}

Result<void> ProxyListener::adopt(int fd)
{
    if (const Result<void> checked = checkListeningSocket(fd); !checked) {
        if (fd >= 0)
            ::close(fd);
        return checked;
    }
    // The daemon starts processes; they must not inherit a container's listener.
    ::fcntl(fd, F_SETFD, FD_CLOEXEC);
    if (!setSocketDescriptor(fd)) {
        ::close(fd);
        return fail(QStringLiteral("network.invalid_listener"),
                    QStringLiteral("proxy listener: ") + errorString());
    }
    return {};
}

void ProxyListener::incomingConnection(qintptr descriptor)
{
    m_onAccepted(descriptor);
}

} // namespace Cordon::Network
