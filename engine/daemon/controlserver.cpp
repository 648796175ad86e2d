// SPDX-License-Identifier: MIT
#include "daemon/controlserver.h"

#include "daemon/framecodec.h"

#include <QDateTime>
#include <QFile>
#include <QJsonArray>
#include <QLocalSocket>
#include <QLoggingCategory>
#include <QPointer>
#include <QSocketNotifier>
#include <QTimer>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#ifndef CORDON_VERSION
#define CORDON_VERSION "unknown"
#endif

Q_LOGGING_CATEGORY(lcControl, "cordon.daemon.control", QtInfoMsg)

namespace Cordon::Daemon {

namespace {

const QStringList KnownTopics = {QStringLiteral("containers"), QStringLiteral("events"),
                                 QStringLiteral("memory"), QStringLiteral("runs")};
constexpr int ListenBacklog = 128;
// How long a connection we are closing (after a fatal protocol error, or refused) gets to take its last frame
// and close its end.
constexpr int CloseFlushTimeoutMs = 5000;
// Accepting is paused this long when we are out of file descriptors, instead of spinning on the notifier.
constexpr int AcceptRetryMs = 200;
constexpr qsizetype MaxClientNameLength = 128;
constexpr qsizetype MaxMethodNameChars = 64;
// Refused connections kept open for their goodbye frame; beyond this many they are closed outright.
constexpr int MaxLingering = 16;

Error helloTimeoutError(int timeoutMs)
{
    return makeError(QStringLiteral("daemon.hello_timeout"),
                     QStringLiteral("no hello within %1 s; the daemon closed the connection")
                         .arg(double(timeoutMs) / 1000.0));
}

Result<sockaddr_un> socketAddress(const QString &path)
{
    const QByteArray encoded = QFile::encodeName(path);
    sockaddr_un address = {};
    address.sun_family = AF_UNIX;
    if (encoded.isEmpty() || static_cast<size_t>(encoded.size()) >= sizeof address.sun_path) {
        return fail(QStringLiteral("daemon.listen"),
                    QStringLiteral("socket path `%1` is %2 bytes; a unix socket path has at most %3")
                        .arg(path)
                        .arg(encoded.size())
                        .arg(sizeof address.sun_path - 1));
    }
    std::copy(encoded.cbegin(), encoded.cend(), address.sun_path);
    return address;
}

// A socket file is only removed when nothing answers on it: connecting is the one test that cannot mistake a
// live daemon for a stale file. Anything that is not a socket is left alone.
Result<> removeStaleSocket(const QString &path, const sockaddr_un &address)
{
    const QByteArray encoded = QFile::encodeName(path);
    struct stat st = {};
    if (::lstat(encoded.constData(), &st) != 0) {
        if (errno == ENOENT)
            return {};
        return failErrno(QStringLiteral("daemon.listen"), QStringLiteral("stat `%1`").arg(path), errno);
    }
    if (!S_ISSOCK(st.st_mode)) {
        return fail(QStringLiteral("daemon.listen"),
                    QStringLiteral("`%1` exists and is not a socket; refusing to replace it").arg(path));
    }
    const int probe = ::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (probe < 0)
        return failErrno(QStringLiteral("daemon.listen"), QStringLiteral("create a probe socket"), errno);
    const int rc = ::connect(probe, reinterpret_cast<const sockaddr *>(&address), sizeof address);
    const int connectErrno = errno;
    ::close(probe);
    // EAGAIN: a listener whose backlog is full, which is alive all the same.
    if (rc == 0 || connectErrno == EAGAIN || connectErrno == EINPROGRESS) {
        return fail(QStringLiteral("daemon.already_running"),
                    QStringLiteral("another cordond is listening on `%1`").arg(path));
    }
    if (connectErrno != ECONNREFUSED) {
        return failErrno(QStringLiteral("daemon.listen"),
                         QStringLiteral("probe the existing socket `%1`").arg(path), connectErrno);
    }
    if (::unlink(encoded.constData()) != 0 && errno != ENOENT) {
        return failErrno(QStringLiteral("daemon.listen"),
                         QStringLiteral("remove the stale socket `%1`").arg(path), errno);
    }
    qCInfo(lcControl, "removed the stale socket %s", qUtf8Printable(path));
    return {};
}

// Best effort, never blocking: used for connections we refuse before wrapping them in a QLocalSocket.
void sendAndClose(int fd, const QByteArray &frame)
{
    if (!frame.isEmpty())
        (void)::send(fd, frame.constData(), static_cast<size_t>(frame.size()), MSG_DONTWAIT | MSG_NOSIGNAL);
    ::close(fd);
}

// Ends a connection so that its last frame arrives: flush, shut down only our sending side, and keep reading
// (and discarding) until the peer closes or the timeout. Closing outright would make the peer's next write
// fail with EPIPE, and a client that aborts on that (QLocalSocket does) never reads the frame that says why.
void lingerThenClose(QLocalSocket *socket)
{
    const auto shutdownWhenFlushed = [socket] {
        if (socket->bytesToWrite() == 0 && socket->state() == QLocalSocket::ConnectedState)
            ::shutdown(static_cast<int>(socket->socketDescriptor()), SHUT_WR);
    };
    QObject::connect(socket, &QLocalSocket::bytesWritten, socket, shutdownWhenFlushed);
    // Context `socket`: the timer dies with the socket when the peer closes in time.
    QTimer::singleShot(CloseFlushTimeoutMs, socket, [socket] { socket->abort(); });
    shutdownWhenFlushed();
}

bool protocolMatches(const QJsonValue &value)
{
    return value.isDouble() && value.toDouble() == ProtocolVersion;
}

Error invalidParams(const QString &message)
{
    return makeError(QStringLiteral("protocol.invalid_params"), message);
}

// Answers at most once; when the handler loses its last copy of respond without calling it, the client gets
// an error instead of waiting forever.
struct ResponseSlot
{
    std::function<void(const Result<QJsonObject> &)> deliver;
    QString method;
    bool answered = false;

    ~ResponseSlot()
    {
        if (!answered && deliver) {
            deliver(fail(QStringLiteral("daemon.internal"),
                         QStringLiteral("the daemon dropped request `%1` without answering").arg(method)));
        }
    }
};

} // namespace

struct ControlServer::Connection
{
    ClientInfo info;
    QLocalSocket *socket = nullptr; // deleted with deleteLater: it may be inside its own signal when dropped
    FrameDecoder decoder;
    QStringList topics; // empty: not subscribed
    QString containerFilter;
    bool closing = false; // being closed or already dropped: input is ignored, nothing more is sent
    bool greeted = false; // answered a `hello`; until then the connection may be closed to make room
    // subscribe {"runs": "own"}: run events only for the runs this connection started (claimRun()).
    bool ownRunsOnly = false;
    QSet<QString> ownRuns;
    int requestsInFlight = 0; // asked and not yet answered (run.wait waits here)
    qint64 lastFrameAt = 0;   // ms since the epoch
    int malformedFrames = 0;  // logged only for the first few: a client cannot fill the log
};

ControlServer::ControlServer(QObject *parent) : QObject(parent)
{
    connect(&m_idleSweep, &QTimer::timeout, this, &ControlServer::closeIdleConnections);
    setIdleTimeout(DefaultIdleTimeoutMs);
}

void ControlServer::setIdleTimeout(int milliseconds)
{
    m_idleTimeoutMs = milliseconds;
    // A connection goes at most half a timeout late.
    m_idleSweep.start(std::max(50, milliseconds / 2));
}

void ControlServer::closeIdleConnections()
{
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    std::vector<ConnectionPtr> idle;
    for (const auto &[id, connection] : m_connections) {
        if (connection->greeted && !connection->closing && connection->topics.isEmpty() &&
            connection->requestsInFlight == 0 && now - connection->lastFrameAt >= m_idleTimeoutMs)
            idle.push_back(connection);
    }
    for (const ConnectionPtr &connection : idle) {
        qCInfo(lcControl, "client %llu (pid %d): idle for %d ms with nothing to wait for; closing",
               connection->info.connectionId, connection->info.pid, m_idleTimeoutMs);
        send(connection, encodeFrame(makeConnectionError(makeError(
                             QStringLiteral("daemon.idle_timeout"),
                             QStringLiteral("closed after %1 s without a request, an answer to wait for "
                                            "or a subscription; connect again")
                                 .arg(m_idleTimeoutMs / 1000)))));
        closeAfterFlush(connection);
    }
}

ControlServer::~ControlServer()
{
    close();
}

Result<> ControlServer::listen(const QString &path)
{
    if (m_listenFd >= 0)
        return fail(QStringLiteral("daemon.listen"), QStringLiteral("already listening on `%1`").arg(m_path));
    const auto address = socketAddress(path);
    if (!address)
        return tl::unexpected(address.error());
    CORDON_TRY(removeStaleSocket(path, *address));

    const QByteArray encoded = QFile::encodeName(path);
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return failErrno(QStringLiteral("daemon.listen"), QStringLiteral("create the control socket"), errno);
    if (::bind(fd, reinterpret_cast<const sockaddr *>(&*address), sizeof *address) != 0) {
        const int saved = errno;
        ::close(fd);
        return failErrno(saved == EADDRINUSE ? QStringLiteral("daemon.already_running")
                                             : QStringLiteral("daemon.listen"),
                         QStringLiteral("bind `%1`").arg(path), saved);
    }
    // bind created the file with 0777 & ~umask. The 0700 directory already keeps other users out; this keeps
    // the socket itself tight even where the directory was chosen by CORDON_SOCKET.
    struct stat st = {};
    if (::chmod(encoded.constData(), 0600) != 0 || ::lstat(encoded.constData(), &st) != 0 ||
        ::listen(fd, ListenBacklog) != 0) {
        const int saved = errno;
        ::close(fd);
        ::unlink(encoded.constData());
        return failErrno(QStringLiteral("daemon.listen"), QStringLiteral("listen on `%1`").arg(path), saved);
    }

    m_socketDev = st.st_dev;
    m_socketIno = st.st_ino;
    m_ownsSocketFile = true;
    startAccepting(fd, path);
    qCInfo(lcControl, "listening on %s", qUtf8Printable(path));
    return {};
}

Result<> ControlServer::adopt(int fd, const QString &path)
{
    const auto refuse = [fd](Error error) {
        ::close(fd);
        return fail(std::move(error));
    };
    if (m_listenFd >= 0)
        return refuse(makeError(QStringLiteral("daemon.listen"),
                                QStringLiteral("already listening on `%1`").arg(m_path)));

    sockaddr_un bound = {};
    socklen_t length = sizeof bound;
    if (::getsockname(fd, reinterpret_cast<sockaddr *>(&bound), &length) != 0)
        return refuse(makeError(QStringLiteral("daemon.activation"),
                                QStringLiteral("socket activation: read the address of the passed socket"),
                                errno));
    // An unnamed or abstract socket has no file for clients to find (sun_path empty or starting with NUL).
    const size_t pathBytes =
        length > offsetof(sockaddr_un, sun_path) ? length - offsetof(sockaddr_un, sun_path) : 0;
    const QByteArray boundPath =
        pathBytes > 0 && bound.sun_path[0] != '\0'
            ? QByteArray(bound.sun_path, qsizetype(::strnlen(bound.sun_path, pathBytes)))
            : QByteArray();
    // Compared as files, not strings: the same socket may be reached through a symlinked runtime directory.
    struct stat boundStat = {}, expectedStat = {};
    const bool same = !boundPath.isEmpty() && ::stat(boundPath.constData(), &boundStat) == 0 &&
                      ::stat(QFile::encodeName(path).constData(), &expectedStat) == 0 &&
                      S_ISSOCK(boundStat.st_mode) && boundStat.st_dev == expectedStat.st_dev &&
                      boundStat.st_ino == expectedStat.st_ino;
    if (!same) {
        return refuse(makeError(
            QStringLiteral("daemon.activation"),
            QStringLiteral(
                "socket activation: the passed socket is bound to %1, but clients look for `%2`; the socket "
                "unit's ListenStream= must be that path (%t/cordon/cordond.sock), or CORDON_SOCKET must "
                "name the unit's path")
                .arg(boundPath.isEmpty() ? QStringLiteral("no path")
                                         : QLatin1Char('`') + QFile::decodeName(boundPath) + QLatin1Char('`'),
                     path)));
    }
    m_socketDev = 0;
    m_socketIno = 0;
    m_ownsSocketFile = false;
    startAccepting(fd, path);
    qCInfo(lcControl, "serving on %s, passed by the service manager", qUtf8Printable(path));
    return {};
}

void ControlServer::startAccepting(int fd, const QString &path)
{
    m_listenFd = fd;
    m_path = path;
    m_acceptNotifier = std::make_unique<QSocketNotifier>(fd, QSocketNotifier::Read);
    connect(m_acceptNotifier.get(), &QSocketNotifier::activated, this, &ControlServer::acceptPending);
}

void ControlServer::close()
{
    m_acceptNotifier.reset();
    if (m_listenFd >= 0) {
        ::close(m_listenFd);
        m_listenFd = -1;
        struct stat st = {};
        const QByteArray encoded = QFile::encodeName(m_path);
        if (m_ownsSocketFile && ::lstat(encoded.constData(), &st) == 0 && st.st_dev == m_socketDev &&
            st.st_ino == m_socketIno)
            ::unlink(encoded.constData());
    }
    // Torn down without signals: close() also runs from the destructor.
    const QList<QLocalSocket *> lingering = findChildren<QLocalSocket *>(Qt::FindDirectChildrenOnly);
    for (QLocalSocket *socket : lingering) {
        QObject::disconnect(socket, nullptr, this, nullptr);
        socket->abort();
        socket->deleteLater();
    }
    m_lingering = 0;
    auto connections = std::move(m_connections);
    m_connections.clear();
    for (auto &[id, connection] : connections) {
        connection->closing = true;
        QObject::disconnect(connection->socket, nullptr, this, nullptr);
        // Best effort without blocking: an answer just given (daemon.shutdown's) should still reach its
        // client.
        connection->socket->flush();
        connection->socket->abort();
        connection->socket->deleteLater();
    }
}

void ControlServer::setHandler(RequestHandler *handler)
{
    m_handler = handler;
}

void ControlServer::setHelloExtras(QJsonObject extras)
{
    m_helloExtras = std::move(extras);
}

void ControlServer::setSubscribeBacklogProvider(BacklogProvider provider)
{
    m_backlogProvider = std::move(provider);
}

void ControlServer::setMaxClients(int maxClients)
{
    m_maxClients = qMax(1, maxClients);
}

int ControlServer::clientCount() const
{
    return static_cast<int>(m_connections.size());
}

void ControlServer::acceptPending()
{
    for (;;) {
        const int fd = ::accept4(m_listenFd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd >= 0) {
            admit(fd);
            continue;
        }
        if (errno == EINTR || errno == ECONNABORTED)
            continue;
        if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
            // The pending connection stays queued and the notifier would fire again at once: pause instead.
            qCWarning(lcControl, "cannot accept a client: %s; retrying shortly", std::strerror(errno));
            m_acceptNotifier->setEnabled(false);
            QTimer::singleShot(AcceptRetryMs, this, [this] {
                if (m_acceptNotifier)
                    m_acceptNotifier->setEnabled(true);
            });
        } else if (errno != EAGAIN) {
            qCWarning(lcControl, "accept failed: %s", std::strerror(errno));
        }
        return;
    }
}

void ControlServer::admit(int fd)
{
    ucred credentials = {};
    socklen_t length = sizeof credentials;
    if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) {
        qCWarning(lcControl, "refused a client: SO_PEERCRED failed: %s", std::strerror(errno));
        ::close(fd);
        return;
    }
    // The directory's mode should already keep other users out; root (and anyone who got an fd passed to
    // them) is not stopped by it. No answer: another user learns nothing from this socket.
    if (credentials.uid != ::getuid()) {
        qCWarning(lcControl, "refused a client with uid %u (pid %d): only uid %u may use this daemon",
                  credentials.uid, credentials.pid, ::getuid());
        ::close(fd);
        return;
    }
    if (clientCount() >= m_maxClients && !evictOneSilentClient()) {
        qCWarning(lcControl, "refused a client (pid %d): %d clients are connected already", credentials.pid,
                  clientCount());
        refuse(fd,
               makeError(
                   QStringLiteral("daemon.too_many_clients"),
                   QStringLiteral("cordond already serves %1 clients; try again later").arg(m_maxClients)));
        return;
    }

    auto socket = new QLocalSocket;
    if (!socket->setSocketDescriptor(fd, QLocalSocket::ConnectedState, QIODevice::ReadWrite)) {
        qCWarning(lcControl, "cannot wrap client fd: %s", qUtf8Printable(socket->errorString()));
        delete socket;
        ::close(fd);
        return;
    }
    auto connection = std::make_shared<Connection>();
    connection->info = ClientInfo{++m_nextConnectionId, credentials.pid, credentials.uid, QString()};
    connection->socket = socket;
    const quint64 id = connection->info.connectionId;
    m_connections.emplace(id, connection);

    connect(socket, &QLocalSocket::readyRead, this, [this, id] { readFrom(id); });
    connect(socket, &QLocalSocket::disconnected, this, [this, id] { drop(id); });
    connect(socket, &QLocalSocket::errorOccurred, this, [this, id](QLocalSocket::LocalSocketError error) {
        // PeerClosedError arrives with disconnected(); anything else (a write failing) ends the connection
        // too.
        if (error != QLocalSocket::PeerClosedError)
            qCDebug(lcControl, "client %llu: socket error %d", id, int(error));
        drop(id);
    });
    // A connection that never says hello holds a slot for nothing: it is closed after the hello timeout.
    QTimer::singleShot(m_helloTimeoutMs, this, [this, id] {
        const ConnectionPtr silent = find(id);
        if (!silent || silent->greeted || silent->closing)
            return;
        qCWarning(lcControl, "client %llu (pid %d): no hello within %d ms; closing", id, silent->info.pid,
                  m_helloTimeoutMs);
        send(silent, encodeFrame(makeConnectionError(helloTimeoutError(m_helloTimeoutMs))));
        closeAfterFlush(silent);
    });
    qCDebug(lcControl, "client %llu connected (pid %d)", id, credentials.pid);
    Q_EMIT clientConnected(id);
}

bool ControlServer::evictOneSilentClient()
{
    // The oldest connection that has not said hello (ids grow with time): a client that is still starting
    // says it within milliseconds, so one that has not is idle or hostile.
    ConnectionPtr oldest;
    for (const auto &[id, connection] : m_connections) {
        if (!connection->greeted && (!oldest || id < oldest->info.connectionId))
            oldest = connection;
    }
    if (!oldest)
        return evictFromTheLargestHolder();
    qCWarning(lcControl, "client %llu (pid %d) has not said hello; closed to make room for a new client",
              oldest->info.connectionId, oldest->info.pid);
    if (!oldest->closing) {
        oldest->socket->write(encodeFrame(makeConnectionError(helloTimeoutError(m_helloTimeoutMs))));
        oldest->socket->flush();
    }
    drop(oldest->info.connectionId);
    return true;
}

bool ControlServer::LogBudget::allow()
{
    const qint64 second = QDateTime::currentMSecsSinceEpoch() / 1000;
    if (second != m_second) {
        if (m_suppressed > 0)
            qCWarning(lcControl, "%d more lines about malformed frames were not logged", m_suppressed);
        m_second = second;
        m_lines = 0;
        m_suppressed = 0;
    }
    if (m_lines < LinesPerSecond) {
        ++m_lines;
        return true;
    }
    ++m_suppressed;
    return false;
}

bool ControlServer::evictFromTheLargestHolder()
{
    // Every slot is held by a client that said hello. One process (or a few) must not shut out the
    // workbench or the CLI: the process that holds the most connections gives up the one it used longest ago
    // among those with no request in flight (an answer it waits for is never taken away).
    QHash<qint64, int> held;
    for (const auto &[id, connection] : m_connections)
        ++held[connection->info.pid];
    ConnectionPtr chosen;
    for (const auto &[id, connection] : m_connections) {
        if (connection->closing || connection->requestsInFlight > 0)
            continue;
        const int count = held.value(connection->info.pid);
        if (!chosen || count > held.value(chosen->info.pid) ||
            (count == held.value(chosen->info.pid) && connection->lastFrameAt < chosen->lastFrameAt))
            chosen = connection;
    }
    if (!chosen)
        return false;
    qCWarning(lcControl,
              "client %llu (pid %d, which holds %d connections) closed to make room for a new client",
              chosen->info.connectionId, chosen->info.pid, held.value(chosen->info.pid));
    chosen->socket->write(encodeFrame(makeConnectionError(makeError(
        QStringLiteral("daemon.too_many_clients"),
        QStringLiteral("closed to make room for a new client: this process holds %1 of the daemon's "
                       "%2 connections")
            .arg(held.value(chosen->info.pid))
            .arg(m_maxClients)))));
    chosen->socket->flush();
    drop(chosen->info.connectionId);
    return true;
}

void ControlServer::refuse(int fd, const Error &error)
{
    const QByteArray frame = encodeFrame(makeConnectionError(error));
    if (m_lingering >= MaxLingering) {
        sendAndClose(fd, frame);
        return;
    }
    // A child of the server, not a Connection: it is not a client, only a socket saying goodbye.
    auto socket = new QLocalSocket(this);
    if (!socket->setSocketDescriptor(fd, QLocalSocket::ConnectedState, QIODevice::ReadWrite)) {
        delete socket;
        sendAndClose(fd, frame);
        return;
    }
    ++m_lingering;
    connect(socket, &QLocalSocket::readyRead, socket, [socket] { socket->readAll(); });
    connect(socket, &QLocalSocket::disconnected, this, [this, socket] {
        QObject::disconnect(socket, nullptr, this, nullptr);
        --m_lingering;
        socket->deleteLater();
    });
    socket->write(frame);
    lingerThenClose(socket);
}

ControlServer::ConnectionPtr ControlServer::find(quint64 connectionId) const
{
    const auto it = m_connections.find(connectionId);
    return it == m_connections.end() ? nullptr : it->second;
}

void ControlServer::readFrom(quint64 connectionId)
{
    // A local owner: a handler may drop this connection (or publish and drop others) while we dispatch.
    const ConnectionPtr connection = find(connectionId);
    if (!connection)
        return;
    const QByteArray bytes = connection->socket->readAll();
    if (connection->closing)
        return;
    connection->decoder.feed(bytes);
    connection->lastFrameAt = QDateTime::currentMSecsSinceEpoch();
    while (!connection->closing) {
        std::optional<Result<QJsonObject>> frame = connection->decoder.next();
        if (!frame)
            break;
        if (!*frame) {
            // One line each for the first few, and a few a second in all: clients that send nothing else
            // must not fill the log.
            if (++connection->malformedFrames <= LoggedMalformedFrames && m_malformedLog.allow())
                qCWarning(lcControl, "client %llu: %s%s", connectionId, frame->error().message().c_str(),
                          connection->malformedFrames == LoggedMalformedFrames
                              ? " (further malformed frames of this client are not logged)"
                              : "");
            send(connection, encodeFrame(makeConnectionError(frame->error())));
            if (connection->decoder.isBroken())
                closeAfterFlush(connection);
            continue;
        }
        dispatch(connection, **frame);
    }
}

void ControlServer::dispatch(const ConnectionPtr &connection, const QJsonObject &message)
{
    const Result<Request> request = parseRequest(message);
    if (!request) {
        const std::optional<qint64> id = requestId(message);
        send(connection, encodeFrame(id ? makeErrorResponse(*id, request.error())
                                        : makeConnectionError(request.error())));
        return;
    }
    const QString &method = request->method;
    if (method == QLatin1String("hello")) {
        answerHello(connection, request->id, request->params);
    } else if (method == QLatin1String("subscribe")) {
        answerSubscribe(connection, request->id, request->params);
    } else if (method == QLatin1String("unsubscribe")) {
        connection->topics.clear();
        connection->containerFilter.clear();
        connection->ownRunsOnly = false;
        sendResponse(connection->info.connectionId, request->id, method, QJsonObject());
    } else if (!m_handler) {
        sendResponse(connection->info.connectionId, request->id, method,
                     fail(QStringLiteral("protocol.unknown_method"),
                          QStringLiteral("unknown method `%1`").arg(method.left(MaxMethodNameChars))));
    } else {
        m_handler->handleRequest(connection->info, method, request->params,
                                 responder(connection->info.connectionId, request->id, method));
    }
}

void ControlServer::answerHello(const ConnectionPtr &connection, qint64 id, const QJsonObject &params)
{
    const QJsonValue protocol = params.value(QStringLiteral("protocol"));
    if (!protocolMatches(protocol)) {
        const QString asked = protocol.isUndefined() ? QStringLiteral("none")
                              : protocol.isDouble()  ? QString::number(protocol.toDouble())
                                                     : QStringLiteral("a non-number");
        sendResponse(connection->info.connectionId, id, QStringLiteral("hello"),
                     fail(QStringLiteral("protocol.version"),
                          QStringLiteral("this cordond speaks protocol %1; the client asked for %2")
                              .arg(ProtocolVersion)
                              .arg(asked)));
        return;
    }
    const QJsonValue client = params.value(QStringLiteral("client"));
    if (client.isString())
        connection->info.clientName = client.toString().left(MaxClientNameLength);
    connection->greeted = true;

    QJsonObject result = m_helloExtras;
    result.insert(QStringLiteral("protocol"), ProtocolVersion);
    result.insert(QStringLiteral("daemon_version"), QStringLiteral(CORDON_VERSION));
    result.insert(QStringLiteral("pid"), static_cast<qint64>(::getpid()));
    sendResponse(connection->info.connectionId, id, QStringLiteral("hello"), result);
}

void ControlServer::answerSubscribe(const ConnectionPtr &connection, qint64 id, const QJsonObject &params)
{
    const auto answer = [&](Result<QJsonObject> outcome) {
        sendResponse(connection->info.connectionId, id, QStringLiteral("subscribe"), outcome);
    };
    const QJsonValue topicsValue = params.value(QStringLiteral("topics"));
    if (!topicsValue.isArray() || topicsValue.toArray().isEmpty()) {
        answer(
            tl::unexpected(invalidParams(QStringLiteral("subscribe needs `topics`, a non-empty array of: ") +
                                         KnownTopics.join(QStringLiteral(", ")))));
        return;
    }
    QStringList topics;
    for (const QJsonValue &topic : topicsValue.toArray()) {
        if (!topic.isString() || !KnownTopics.contains(topic.toString())) {
            answer(tl::unexpected(invalidParams(
                QStringLiteral("unknown topic %1; topics are: %2")
                    .arg(topic.isString() ? QLatin1Char('`') + topic.toString() + QLatin1Char('`')
                                          : QStringLiteral("(not a string)"),
                         KnownTopics.join(QStringLiteral(", "))))));
            return;
        }
        if (!topics.contains(topic.toString()))
            topics.append(topic.toString());
    }
    const QJsonValue container = params.value(QStringLiteral("container"));
    if (!container.isUndefined() && !container.isNull() && !container.isString()) {
        answer(tl::unexpected(invalidParams(QStringLiteral("subscribe `container` must be a container id"))));
        return;
    }
    const QJsonValue runs = params.value(QStringLiteral("runs"));
    if (!runs.isUndefined() && runs != QJsonValue(QStringLiteral("own")) &&
        runs != QJsonValue(QStringLiteral("all"))) {
        answer(tl::unexpected(invalidParams(QStringLiteral("subscribe `runs` must be \"own\" or \"all\""))));
        return;
    }
    topics.sort();
    // A subscription replaces the previous one, so a client can narrow or widen it without unsubscribing.
    connection->topics = topics;
    connection->ownRunsOnly = runs == QJsonValue(QStringLiteral("own"));
    connection->containerFilter = container.toString();

    QJsonObject result =
        m_backlogProvider ? m_backlogProvider(topics, connection->containerFilter) : QJsonObject();
    result.insert(QStringLiteral("subscribed"), QJsonArray::fromStringList(topics));
    if (!connection->containerFilter.isEmpty())
        result.insert(QStringLiteral("container"), connection->containerFilter);
    answer(result);
}

std::function<void(Result<QJsonObject>)> ControlServer::responder(quint64 connectionId, qint64 requestId,
                                                                  const QString &method)
{
    auto slot = std::make_shared<ResponseSlot>();
    slot->method = method;
    if (const ConnectionPtr connection = find(connectionId))
        ++connection->requestsInFlight;
    slot->deliver = [server = QPointer<ControlServer>(this), connectionId, requestId,
                     method](const Result<QJsonObject> &outcome) {
        if (!server)
            return;
        if (const ConnectionPtr connection = server->find(connectionId)) {
            connection->requestsInFlight = std::max(0, connection->requestsInFlight - 1);
            // Idle from the answer on, not from the request: a long run.wait is no idle connection.
            connection->lastFrameAt = QDateTime::currentMSecsSinceEpoch();
        }
        server->sendResponse(connectionId, requestId, method, outcome);
    };
    return [slot](Result<QJsonObject> outcome) {
        if (slot->answered) {
            qCWarning(lcControl, "request `%s` was answered twice; the second answer is dropped",
                      qUtf8Printable(slot->method));
            return;
        }
        slot->answered = true;
        slot->deliver(outcome);
    };
}

void ControlServer::sendResponse(quint64 connectionId, qint64 requestId, const QString &method,
                                 const Result<QJsonObject> &outcome)
{
    const ConnectionPtr connection = find(connectionId);
    if (!connection || connection->closing)
        return;
    QByteArray frame = encodeFrame(outcome ? makeResult(requestId, *outcome)
                                           : makeErrorResponse(requestId, outcome.error()));
    if (frame.size() - FrameHeaderBytes > MaxFrameBytes) {
        // The client would have to drop the connection over it; an error under the same id is still useful.
        qCWarning(lcControl, "the answer to `%s` is %lld bytes, over the frame limit", qUtf8Printable(method),
                  static_cast<long long>(frame.size()));
        frame = encodeFrame(makeErrorResponse(
            requestId, makeError(QStringLiteral("protocol.frame_too_large"),
                                 QStringLiteral("the answer to `%1` is %2 bytes, over the limit of %3 bytes")
                                     .arg(method)
                                     .arg(frame.size() - FrameHeaderBytes)
                                     .arg(MaxFrameBytes))));
    }
    send(connection, frame);
}

void ControlServer::claimRun(quint64 connectionId, const QString &runId)
{
    if (const ConnectionPtr connection = find(connectionId))
        connection->ownRuns.insert(runId);
}

void ControlServer::publish(const QString &topic, const QString &containerId, const QString &eventName,
                            const QJsonObject &data, const QString &runId, bool lastOfRun)
{
    QByteArray frame;
    // A snapshot: sending may drop a slow client, which edits m_connections.
    std::vector<ConnectionPtr> targets;
    for (const auto &[id, connection] : m_connections) {
        if (connection->closing || !connection->topics.contains(topic))
            continue;
        if (!connection->containerFilter.isEmpty() && connection->containerFilter != containerId)
            continue;
        if (connection->ownRunsOnly && !runId.isEmpty() && !connection->ownRuns.contains(runId))
            continue;
        targets.push_back(connection);
    }
    if (lastOfRun) {
        for (const auto &[id, connection] : m_connections)
            connection->ownRuns.remove(runId);
    }
    if (targets.empty())
        return;
    frame = encodeFrame(makeEvent(eventName, data));
    if (frame.size() - FrameHeaderBytes > MaxFrameBytes) {
        qCWarning(lcControl, "event `%s` is %lld bytes, over the frame limit; not sent",
                  qUtf8Printable(eventName), static_cast<long long>(frame.size()));
        return;
    }
    for (const ConnectionPtr &connection : targets)
        send(connection, frame);
}

void ControlServer::send(const ConnectionPtr &connection, const QByteArray &frame)
{
    QLocalSocket *socket = connection->socket;
    // QLocalSocket buffers without limit and writes when the peer has room; the cap turns a client that
    // stopped reading into a disconnect instead of unbounded memory in the daemon.
    if (socket->bytesToWrite() + frame.size() > MaxQueuedBytes) {
        qCWarning(lcControl, "client %llu (pid %d, %s) is not reading: %lld bytes queued; disconnecting it",
                  connection->info.connectionId, connection->info.pid,
                  qUtf8Printable(connection->info.clientName.isEmpty() ? QStringLiteral("unnamed")
                                                                       : connection->info.clientName),
                  static_cast<long long>(socket->bytesToWrite()));
        connection->closing = true;
        socket->abort();
        drop(connection->info.connectionId);
        return;
    }
    socket->write(frame);
}

void ControlServer::closeAfterFlush(const ConnectionPtr &connection)
{
    // Input is discarded from now on (readFrom checks `closing`); the peer's close ends it via drop().
    connection->closing = true;
    lingerThenClose(connection->socket);
}

void ControlServer::drop(quint64 connectionId)
{
    const auto it = m_connections.find(connectionId);
    if (it == m_connections.end())
        return;
    const ConnectionPtr connection = it->second;
    m_connections.erase(it);
    connection->closing = true;
    QObject::disconnect(connection->socket, nullptr, this, nullptr);
    connection->socket->abort();
    connection->socket->deleteLater();
    qCDebug(lcControl, "client %llu disconnected", connectionId);
    Q_EMIT clientDisconnected(connectionId);
}

} // namespace Cordon::Daemon
