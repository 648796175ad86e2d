// SPDX-License-Identifier: MIT
#include "isolation/sandbox.h"

#include "core/notifiers.h"

#include <QFile>
#include <QSocketNotifier>

#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <functional>
#include <poll.h>
#include <unistd.h>

namespace Cordon::Isolation {

namespace {

constexpr auto SendWait = std::chrono::milliseconds(2000);
constexpr int SendPollMs = 50;

// Sends with `send` (an errno back), waiting for room when cordon-init's end of the control socket is full:
// the socket is non-blocking, and requests sent faster than cordon-init forks fill it (at about 26 queued
// spawn requests), when a run would be refused and a kill lost. The daemon's event loop waits with it, at
// most SendWait; cordon-init drains the socket meanwhile (its replies, which the loop is not reading, queue
// on the other side, whose room holds hundreds).
int sendWaitingForRoom(int control, const std::function<int()> &send)
{
    int error = send();
    const auto deadline = std::chrono::steady_clock::now() + SendWait;
    while (error == EAGAIN && std::chrono::steady_clock::now() < deadline) {
        pollfd room{control, POLLOUT, 0};
        (void)::poll(&room, 1, SendPollMs);
        error = send();
    }
    return error;
}

} // namespace

Error setupError(const SetupReply &reply)
{
    return Error(setupFailure(reply));
}

Sandbox::Sandbox(QObject *parent) : QObject(parent) {}

Sandbox::~Sandbox()
{
    destroy();
}

QString Sandbox::locateInit()
{
    return QFile::decodeName(QByteArray::fromStdString(Isolation::locateInit()));
}

void Sandbox::adopt(InitProcess init)
{
    destroy();
    m_init = init;
}

Result<> Sandbox::awaitSetUp(int timeoutMs)
{
    if (m_init.pid <= 0 || m_init.control < 0)
        return fail(QStringLiteral("sandbox.not_running"), QStringLiteral("launch() the sandbox first"));
    auto abort = [this](Error error) -> Result<> {
        destroy();
        return fail(std::move(error));
    };
    SetupHandles handles;
    auto reply = awaitSetupReply(m_init, timeoutMs, WorkspaceHandleCount, handles);
    if (!reply)
        return abort(reply.error());
    if (reply->stage != Stage::None)
        return abort(setupError(*reply));
    m_proxyListener = handles.proxyListener.release();
    m_workspaceDirs = std::move(handles.handedBack);
    watchControl();
    return {};
}

void Sandbox::adoptRunning(AdoptedInit &adopted)
{
    destroy();
    m_init = std::exchange(adopted.init, InitProcess{});
    m_proxyListener = adopted.proxyListener.release();
    m_workspaceDirs = std::move(adopted.handedBack);
    watchControl();
}

void Sandbox::watchControl()
{
    ::fcntl(m_init.control, F_SETFL, ::fcntl(m_init.control, F_GETFL) | O_NONBLOCK);
    m_notifier = std::make_unique<QSocketNotifier>(m_init.control, QSocketNotifier::Read);
    connect(m_notifier.get(), &QSocketNotifier::activated, this, &Sandbox::readMessages);
}

Result<> Sandbox::spawn(const SpawnRequest &request, int stdinFd, int stdoutFd, int stderrFd, int stdoutRead,
                        int stderrRead)
{
    if (m_init.control < 0)
        return fail(QStringLiteral("sandbox.not_running"), QStringLiteral("the container is not running"));
    const int fds[3] = {stdinFd, stdoutFd, stderrFd};
    const int held[2] = {stdoutRead, stderrRead};
    const int error = sendWaitingForRoom(
        m_init.control, [&] { return sendSpawnRequest(m_init.control, request, fds, held); });
    if (error != 0)
        return failErrno(QStringLiteral("sandbox.protocol"), QStringLiteral("send spawn request"), error);
    return {};
}

Result<> Sandbox::kill(quint64 runId, int signal)
{
    if (m_init.control < 0)
        return fail(QStringLiteral("sandbox.not_running"), QStringLiteral("the container is not running"));
    KillRequest request;
    request.runId = runId;
    request.signal = signal;
    const std::vector<std::uint8_t> encoded = encode(request);
    if (const int error =
            sendWaitingForRoom(m_init.control, [&] { return sendMessage(m_init.control, encoded); });
        error != 0)
        return failErrno(QStringLiteral("sandbox.protocol"), QStringLiteral("send kill request"), error);
    return {};
}

void Sandbox::collected(quint64 runId)
{
    // Lost only with cordon-init itself, or with this engine (the next one hears of the run again).
    if (m_init.control >= 0)
        (void)sendWaitingForRoom(m_init.control, [&] { return sendRunCollected(m_init.control, runId); });
}

Result<> Sandbox::endProcesses(int timeoutMs)
{
    if (m_init.control < 0)
        return fail(QStringLiteral("sandbox.not_running"), QStringLiteral("the container is not running"));
    const std::vector<std::uint8_t> request = encode(EndProcesses{});
    if (const int error =
            sendWaitingForRoom(m_init.control, [&] { return sendMessage(m_init.control, request); });
        error != 0)
        return failErrno(QStringLiteral("sandbox.protocol"), QStringLiteral("send the end of processes"),
                         error);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs);
    while (std::chrono::steady_clock::now() < deadline) {
        const InitMessage message = readInitMessage(m_init.control);
        switch (message.kind) {
        case InitMessage::Kind::ProcessesEnded:
            return {};
        case InitMessage::Kind::Gone:
            retireNotifier(m_notifier);
            return fail(QStringLiteral("sandbox.not_running"), QStringLiteral("cordon-init ended"));
        case InitMessage::Kind::None: {
            pollfd entry{m_init.control, POLLIN, 0};
            (void)::poll(&entry, 1, SendPollMs);
            break;
        }
        default:
            break; // the runs' exits: they were abandoned before
        }
    }
    return fail(QStringLiteral("sandbox.timeout"),
                QStringLiteral("the container's processes did not end in %1 ms").arg(timeoutMs));
}

void Sandbox::readMessages()
{
    for (;;) {
        const InitMessage message = readInitMessage(m_init.control);
        switch (message.kind) {
        case InitMessage::Kind::None:
            return;
        case InitMessage::Kind::Gone:
            retireNotifier(m_notifier);
            Q_EMIT died();
            return;
        case InitMessage::Kind::Spawned: {
            const SpawnReply &reply = message.spawn;
            if (reply.stage == Stage::None) {
                Q_EMIT spawned(reply.runId, reply.pid);
                break;
            }
            QString what =
                QStringLiteral("run setup failed at %1").arg(QString::fromLatin1(stageName(reply.stage)));
            // execve itself failing is the program's problem (not there, not executable), not the sandbox's.
            const QString code = reply.stage == Stage::SpawnExec ? QStringLiteral("run.exec_failed")
                                                                 : QStringLiteral("run.setup_failed");
            Q_EMIT spawnFailed(reply.runId, errnoError(code, what, reply.error));
            break;
        }
        case InitMessage::Kind::Exited:
            Q_EMIT exited(message.exit);
            break;
        case InitMessage::Kind::Malformed:
        case InitMessage::Kind::ProcessesEnded:
            break;
        }
    }
}

void Sandbox::destroy()
{
    retireNotifier(m_notifier);
    killAndReap(m_init);
    if (m_proxyListener >= 0) {
        ::close(m_proxyListener);
        m_proxyListener = -1;
    }
}

int Sandbox::takeProxyListener()
{
    return std::exchange(m_proxyListener, -1);
}

std::vector<UniqueFd> Sandbox::takeWorkspaceDirs()
{
    return std::exchange(m_workspaceDirs, {});
}

} // namespace Cordon::Isolation
