// SPDX-License-Identifier: MIT
#include "daemon/daemonclient.h"

#include "daemon/daemonpaths.h"
#include "daemon/lite/daemonlog.h"

#include <QCoreApplication>
#include <QDir>
#include <QEventLoop>
#include <QFileInfo>
#include <QLoggingCategory>
#include <QPointer>
#include <QProcess>
#include <QStandardPaths>

Q_LOGGING_CATEGORY(lcClient, "cordon.daemon.client", QtInfoMsg)

namespace Cordon::Daemon {

namespace {

constexpr int FirstRetryDelayMs = 25;
constexpr int MaxRetryDelayMs = 500;

Error disconnectedError(const QString &why)
{
    return makeError(QStringLiteral("daemon.disconnected"), why);
}

} // namespace

DaemonClient::DaemonClient(QObject *parent) : QObject(parent), m_socket(new QLocalSocket(this))
{
    m_retryTimer.setSingleShot(true);
    m_helloTimer.setSingleShot(true);
    connect(&m_retryTimer, &QTimer::timeout, this, &DaemonClient::attemptConnection);
    connect(&m_helloTimer, &QTimer::timeout, this, [this] {
        failConnecting(
            makeError(QStringLiteral("daemon.timeout"),
                      QStringLiteral("cordond at `%1` accepted the connection but did not answer hello "
                                     "within %2 s")
                          .arg(m_path)
                          .arg(HelloTimeoutMs / 1000)));
    });
    connect(m_socket, &QLocalSocket::connected, this, &DaemonClient::onSocketConnected);
    connect(m_socket, &QLocalSocket::disconnected, this, &DaemonClient::onSocketDisconnected);
    connect(m_socket, &QLocalSocket::errorOccurred, this, &DaemonClient::onSocketError);
    connect(m_socket, &QLocalSocket::readyRead, this, &DaemonClient::readFrames);
}

DaemonClient::~DaemonClient()
{
    // No callbacks and no signals from a half-destroyed client.
    QObject::disconnect(m_socket, nullptr, this, nullptr);
    m_socket->abort();
}

void DaemonClient::setSocketPath(const QString &path)
{
    m_socketPathOverride = path;
}

void DaemonClient::setClientName(const QString &name)
{
    m_clientName = name;
}

QString DaemonClient::daemonProgram()
{
    const QString fromEnvironment = qEnvironmentVariable("CORDON_DAEMON");
    if (!fromEnvironment.isEmpty())
        return QFileInfo(fromEnvironment).absoluteFilePath();
    if (QCoreApplication::instance()) {
        // Beside this program (the build tree, the workbench), and from the full CLI, which is installed to
        // libexec/cordon/ while cordond is in bin/.
        const QString dir = QCoreApplication::applicationDirPath();
        const QStringList candidates = {dir + QStringLiteral("/cordond"),
                                        dir + QStringLiteral("/../../bin/cordond")};
        for (const QString &candidate : candidates) {
            const QFileInfo file(candidate);
            if (file.isFile() && file.isExecutable())
                return file.absoluteFilePath();
        }
    }
    return QStandardPaths::findExecutable(QStringLiteral("cordond"));
}

void DaemonClient::connectToDaemon(bool autoStart)
{
    if (m_state == State::Connected) {
        QMetaObject::invokeMethod(this, &DaemonClient::connected, Qt::QueuedConnection);
        return;
    }
    if (m_state != State::Disconnected)
        return;
    m_state = State::Connecting;
    m_autoStart = autoStart;
    m_daemonStarted = false;
    m_startedProgram.clear();
    m_serverError.reset();
    m_hello = QJsonObject();
    m_path = m_socketPathOverride.isEmpty() ? socketPath() : m_socketPathOverride;
    attemptConnection();
}

void DaemonClient::attemptConnection()
{
    if (m_state != State::Connecting)
        return;
    m_decoder = FrameDecoder();
    m_socket->abort();
    m_socket->connectToServer(m_path, QIODevice::ReadWrite);
}

void DaemonClient::onSocketConnected()
{
    if (m_state != State::Connecting)
        return;
    m_state = State::Greeting;
    m_helloTimer.start(HelloTimeoutMs);
    QJsonObject params{{QStringLiteral("protocol"), ProtocolVersion}};
    const QString name = m_clientName.isEmpty() && QCoreApplication::instance()
                             ? QCoreApplication::applicationName()
                             : m_clientName;
    if (!name.isEmpty())
        params.insert(QStringLiteral("client"), name);
    const qint64 id = m_nextId++;
    sendFrame(id, encodeFrame(makeRequest(id, QStringLiteral("hello"), params)),
              [this](Result<QJsonObject> result) {
                  if (m_state != State::Greeting)
                      return;
                  m_helloTimer.stop();
                  if (!result) {
                      failConnecting(result.error());
                      return;
                  }
                  m_hello = *result;
                  m_state = State::Connected;
                  qCDebug(lcClient, "connected to cordond %s (pid %lld) at %s",
                          qUtf8Printable(m_hello.value(QStringLiteral("daemon_version")).toString()),
                          static_cast<long long>(m_hello.value(QStringLiteral("pid")).toInteger()),
                          qUtf8Printable(m_path));
                  Q_EMIT connected();
              });
}

void DaemonClient::onSocketError(QLocalSocket::LocalSocketError socketError)
{
    if (m_state != State::Connecting)
        return; // once connected, the end of the connection is handled by onSocketDisconnected
    const bool nobodyListening = socketError == QLocalSocket::ServerNotFoundError ||
                                 socketError == QLocalSocket::ConnectionRefusedError;
    if (!nobodyListening) {
        failConnecting(makeError(
            QStringLiteral("daemon.unreachable"),
            QStringLiteral("cannot connect to cordond at `%1`: %2").arg(m_path, m_socket->errorString())));
        return;
    }
    if (m_daemonStarted) {
        scheduleRetry();
        return;
    }
    if (m_autoStart) {
        startDaemonAndRetry();
        return;
    }
    failConnecting(
        makeError(QStringLiteral("daemon.unreachable"),
                  QStringLiteral("cannot connect to cordond at `%1`: no daemon is listening").arg(m_path)));
}

void DaemonClient::startDaemonAndRetry()
{
    const QString program = daemonProgram();
    if (program.isEmpty()) {
        failConnecting(
            makeError(QStringLiteral("daemon.start_failed"),
                      QStringLiteral("no daemon is listening on `%1` and cordond was not found (beside this "
                                     "program or on PATH; CORDON_DAEMON names it explicitly)")
                          .arg(m_path)));
        return;
    }
    QProcess process;
    process.setProgram(program);
    // A daemon holding our stdout would keep `$(cordon ...)` or a pipe open for as long as it lives; and a
    // working directory of "/" keeps it from pinning whatever directory the user started it from. What it
    // says goes to its log, where a start that fails finds why.
    const Lite::DaemonLog log = Lite::openDaemonLog(toPlain(m_path));
    const QString logPath = toQt(Lite::daemonLogPath(toPlain(m_path)));
    if (log.fd >= 0)
        ::close(log.fd);
    m_logOffset = log.startOffset;
    process.setStandardInputFile(QProcess::nullDevice());
    process.setStandardOutputFile(log.fd >= 0 ? logPath : QProcess::nullDevice(), QIODevice::Append);
    process.setStandardErrorFile(log.fd >= 0 ? logPath : QProcess::nullDevice(), QIODevice::Append);
    process.setWorkingDirectory(QDir::rootPath());
    qint64 pid = 0;
    if (!process.startDetached(&pid)) {
        failConnecting(makeError(QStringLiteral("daemon.start_failed"),
                                 QStringLiteral("start `%1`: %2").arg(program, process.errorString())));
        return;
    }
    qCDebug(lcClient, "started %s (pid %lld)", qUtf8Printable(program), static_cast<long long>(pid));
    m_daemonStarted = true;
    m_startedProgram = program;
    m_startedPid = pid;
    m_startClock.start();
    m_retryDelayMs = FirstRetryDelayMs;
    scheduleRetry();
}

void DaemonClient::scheduleRetry()
{
    // Gone, and no other daemon starting in its place (it may have lost the race to one): say why now.
    if (m_startedPid > 0 && Lite::processHasExited(static_cast<pid_t>(m_startedPid)) &&
        !Lite::daemonLockHeld(toPlain(m_path))) {
        const std::string said = Lite::daemonLogTail(toPlain(m_path), static_cast<off_t>(m_logOffset));
        failConnecting(makeError(
            QStringLiteral("daemon.start_failed"),
            QStringLiteral("started `%1`, but it exited%2")
                .arg(m_startedProgram, said.empty() ? QStringLiteral(" without a word")
                                                    : QStringLiteral("; it said:\n") + toQt(said))));
        return;
    }
    if (m_startClock.elapsed() >= StartWaitMs) {
        failConnecting(makeError(QStringLiteral("daemon.start_failed"),
                                 QStringLiteral("started `%1`, but it did not answer on `%2` within %3 s")
                                     .arg(m_startedProgram, m_path)
                                     .arg(StartWaitMs / 1000)));
        return;
    }
    const int delay = static_cast<int>(qMin<qint64>(m_retryDelayMs, StartWaitMs - m_startClock.elapsed()));
    m_retryDelayMs = qMin(m_retryDelayMs * 2, MaxRetryDelayMs);
    m_retryTimer.start(qMax(1, delay));
}

void DaemonClient::failConnecting(const Error &error)
{
    if (m_state == State::Disconnected || m_state == State::Connected)
        return;
    m_retryTimer.stop();
    m_helloTimer.stop();
    // Disconnected first: the abort below then reaches onSocketDisconnected as a no-op.
    m_state = State::Disconnected;
    ++m_generation;
    m_socket->abort();
    // The hello callback (if still pending) belongs to this attempt; nobody else waits for it.
    failPending(error);
    Q_EMIT connectionFailed(error);
}

void DaemonClient::disconnectFromDaemon()
{
    switch (m_state) {
    case State::Disconnected:
        return;
    case State::Connecting:
    case State::Greeting:
        // Abandoned by the caller (e.g. connectSync timed out): no connectionFailed, nobody is listening.
        m_retryTimer.stop();
        m_helloTimer.stop();
        m_state = State::Disconnected;
        ++m_generation;
        m_socket->abort();
        failPending(disconnectedError(QStringLiteral("the connection attempt was abandoned")));
        return;
    case State::Connected:
        m_state = State::Disconnected;
        ++m_generation;
        m_socket->abort();
        failPending(disconnectedError(QStringLiteral("disconnected from cordond by the client")));
        Q_EMIT disconnected();
        return;
    }
}

void DaemonClient::onSocketDisconnected()
{
    if (m_state == State::Connecting || m_state == State::Disconnected)
        return;
    // The daemon's last words (answers, or the error explaining why it closed) may still sit in the buffer.
    const QPointer<DaemonClient> self(this);
    const quint64 generation = m_generation;
    if (m_socket->bytesAvailable() > 0)
        readFrames();
    if (!self || generation != m_generation || m_state == State::Disconnected)
        return;
    if (m_state == State::Greeting) {
        failConnecting(m_serverError.value_or(disconnectedError(
            QStringLiteral("cordond at `%1` closed the connection during hello").arg(m_path))));
        return;
    }
    m_state = State::Disconnected;
    ++m_generation;
    const Error reason = m_serverError ? m_serverError->wrap("cordond closed the connection")
                                       : disconnectedError(QStringLiteral("cordond closed the connection"));
    // Pending requests are told the connection is gone; the daemon's own reason, if it sent one, is in the
    // message, while the code stays daemon.disconnected for callers to match on.
    failPending(Error("daemon.disconnected", reason.message()));
    Q_EMIT disconnected();
}

void DaemonClient::failPending(const Error &error)
{
    const QHash<qint64, Callback> pending = std::exchange(m_pending, {});
    for (const Callback &callback : pending)
        answerLater(callback, tl::unexpected(error));
}

void DaemonClient::answerLater(Callback callback, Result<QJsonObject> outcome)
{
    QMetaObject::invokeMethod(
        this, [callback = std::move(callback), outcome = std::move(outcome)] { callback(outcome); },
        Qt::QueuedConnection);
}

void DaemonClient::readFrames()
{
    const QPointer<DaemonClient> self(this);
    const quint64 generation = m_generation;
    m_decoder.feed(m_socket->readAll());
    // Callbacks run inside this loop; one of them may disconnect, reconnect or even delete this client.
    while (self && generation == m_generation) {
        std::optional<Result<QJsonObject>> frame = m_decoder.next();
        if (!frame)
            return;
        if (!*frame) {
            qCWarning(lcClient, "from cordond: %s", frame->error().message().c_str());
            if (m_decoder.isBroken()) {
                m_serverError = frame->error();
                m_socket->abort();
                return;
            }
            continue;
        }
        handleMessage(**frame);
    }
}

void DaemonClient::handleMessage(const QJsonObject &message)
{
    if (isEvent(message)) {
        const Result<Event> event = parseEvent(message);
        if (!event) {
            qCWarning(lcClient, "%s", event.error().message().c_str());
            return;
        }
        Q_EMIT eventReceived(event->name, event->data);
        return;
    }
    Result<Response> response = parseResponse(message);
    if (!response) {
        qCWarning(lcClient, "%s", response.error().message().c_str());
        return;
    }
    if (!response->id) {
        // An error about the connection as a whole; the daemon closes it next when it is fatal.
        const Error error = response->outcome.error();
        qCWarning(lcClient, "cordond: %s: %s", error.code().c_str(), error.message().c_str());
        if (m_state == State::Greeting) {
            failConnecting(error);
            return;
        }
        m_serverError = error;
        return;
    }
    const Callback callback = m_pending.take(*response->id);
    if (!callback) {
        qCDebug(lcClient, "answer to unknown or abandoned request %lld",
                static_cast<long long>(*response->id));
        return;
    }
    callback(std::move(response->outcome));
}

void DaemonClient::sendFrame(qint64 id, const QByteArray &frame, Callback callback)
{
    if (frame.size() - FrameHeaderBytes > MaxFrameBytes) {
        answerLater(std::move(callback),
                    fail(QStringLiteral("protocol.frame_too_large"),
                         QStringLiteral("the request is %1 bytes, over the limit of %2 bytes")
                             .arg(frame.size() - FrameHeaderBytes)
                             .arg(MaxFrameBytes)));
        return;
    }
    m_pending.insert(id, std::move(callback));
    m_socket->write(frame);
}

qint64 DaemonClient::call(const QString &method, const QJsonObject &params, Callback callback)
{
    const qint64 id = m_nextId++;
    if (m_state != State::Connected) {
        answerLater(std::move(callback),
                    tl::unexpected(disconnectedError(QStringLiteral("not connected to cordond"))));
        return id;
    }
    sendFrame(id, encodeFrame(makeRequest(id, method, params)), std::move(callback));
    return id;
}

Result<QJsonObject> DaemonClient::callSync(const QString &method, const QJsonObject &params, int timeoutMs)
{
    QEventLoop loop;
    auto outcome = std::make_shared<std::optional<Result<QJsonObject>>>();
    const QPointer<QEventLoop> loopGuard(&loop);
    const qint64 id = call(method, params, [outcome, loopGuard](Result<QJsonObject> result) {
        *outcome = std::move(result);
        if (loopGuard)
            loopGuard->quit();
    });
    if (!outcome->has_value()) {
        QTimer timer;
        timer.setSingleShot(true);
        connect(&timer, &QTimer::timeout, &loop, &QEventLoop::quit);
        timer.start(timeoutMs);
        loop.exec();
    }
    if (outcome->has_value())
        return std::move(**outcome);
    // Forget the request: a late answer must not run a callback into this finished frame.
    m_pending.remove(id);
    return fail(QStringLiteral("daemon.timeout"),
                QStringLiteral("no answer to `%1` from cordond within %2 ms").arg(method).arg(timeoutMs));
}

Result<> DaemonClient::connectSync(bool autoStart, int timeoutMs)
{
    if (m_state == State::Connected)
        return {};
    QEventLoop loop;
    std::optional<Error> failure;
    bool done = false;
    const QMetaObject::Connection onConnected = connect(this, &DaemonClient::connected, &loop, [&] {
        done = true;
        loop.quit();
    });
    const QMetaObject::Connection onFailed =
        connect(this, &DaemonClient::connectionFailed, &loop, [&](const Cordon::Error &error) {
            failure = error;
            done = true;
            loop.quit();
        });
    QTimer timer;
    timer.setSingleShot(true);
    connect(&timer, &QTimer::timeout, &loop, &QEventLoop::quit);
    timer.start(timeoutMs);
    connectToDaemon(autoStart);
    if (!done && m_state != State::Connected)
        loop.exec();
    QObject::disconnect(onConnected);
    QObject::disconnect(onFailed);
    if (failure)
        return fail(*failure);
    if (m_state == State::Connected)
        return {};
    disconnectFromDaemon();
    return fail(
        QStringLiteral("daemon.timeout"),
        QStringLiteral("could not connect to cordond at `%1` within %2 ms").arg(m_path).arg(timeoutMs));
}

} // namespace Cordon::Daemon
