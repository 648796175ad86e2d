// SPDX-License-Identifier: MIT
#include "daemonconnection.h"

#include "daemon/lite/daemonlog.h"
#include "daemon/lite/output.h"
#include "daemon/lite/runreport.h"
#include "daemon/lite/socketpath.h"
#include "sandbox/initlaunch.h"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char **environ;

namespace Cordon::Launcher {

std::optional<Answer> readAnswer(const Json &message)
{
    const Json &result = message["result"];
    const Json &error = message["error"];
    if (result.isObject() && error.isUndefined())
        return Answer{true, result, {}, {}, {}};
    if (!error.isObject() || !result.isUndefined())
        return std::nullopt;
    const Json &code = error["code"];
    const Json &text = error["message"];
    if (!code.isString() || code.toString().empty() || !text.isString())
        return std::nullopt;
    return Answer{false, {}, code.toString(), text.toString(), error["hint"].toString()};
}

int reportError(const std::string &message, const std::string &code, const std::string &wireHint)
{
    Lite::writeAll(STDERR_FILENO, Lite::errorReport(message, wireHint.empty() ? Lite::cliHint(code)
                                                                              : std::string_view(wireHint)));
    return Cordon::SetupFailureStatus;
}

int reportError(const Answer &answer)
{
    return reportError(answer.message, answer.code, answer.hint);
}

DaemonConnection::~DaemonConnection()
{
    if (m_fd >= 0)
        ::close(m_fd);
}

bool DaemonConnection::open(const std::string &path)
{
    sockaddr_un address = {};
    address.sun_family = AF_UNIX;
    if (path.empty() || path.size() >= sizeof address.sun_path)
        return false;
    std::memcpy(address.sun_path, path.data(), path.size());
    if (m_fd >= 0)
        ::close(m_fd);
    m_fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (m_fd < 0)
        return false;
    int rc;
    do {
        rc = ::connect(m_fd, reinterpret_cast<const sockaddr *>(&address), sizeof address);
    } while (rc != 0 && errno == EINTR);
    return rc == 0;
}

std::int64_t DaemonConnection::send(const char *method, Json params)
{
    const std::int64_t id = m_nextId++;
    const Json request = Json::object({{"id", id}, {"method", method}, {"params", std::move(params)}});
    const std::string json = request.serialize();
    if (json.size() <= Lite::MaxFrameBytes)
        writeFrame(Lite::encodeFrame(json));
    return id;
}

std::optional<Json> DaemonConnection::next(int timeoutMs)
{
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs);
    for (;;) {
        if (auto message = buffered())
            return message;
        if (m_closed)
            return std::nullopt;
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        if (timeoutMs >= 0 && left.count() <= 0)
            return std::nullopt;
        pollfd fds = {m_fd, POLLIN, 0};
        const int ready = ::poll(&fds, 1, timeoutMs < 0 ? -1 : static_cast<int>(left.count()));
        if (ready < 0 && errno != EINTR)
            return std::nullopt;
        if (ready > 0)
            receive();
    }
}

std::optional<Json> DaemonConnection::buffered()
{
    for (;;) {
        std::string_view body;
        std::uint32_t length = 0;
        switch (m_splitter.next(body, length)) {
        case Lite::FrameSplitter::Status::NeedMore:
            return std::nullopt;
        case Lite::FrameSplitter::Status::TooLarge:
            m_closed = true;
            return std::nullopt;
        case Lite::FrameSplitter::Status::Frame:
            if (auto message = Json::read(body); message && message->isObject())
                return std::move(*message);
            continue;
        }
    }
}

void DaemonConnection::receive()
{
    char chunk[65536];
    const ssize_t n = ::read(m_fd, chunk, sizeof chunk);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    if (n <= 0) {
        m_closed = true;
        return;
    }
    m_splitter.feed(std::string_view(chunk, static_cast<std::size_t>(n)));
}

std::optional<Answer> DaemonConnection::call(const char *method, Json params, int timeoutMs)
{
    return awaitAnswer(send(method, std::move(params)), timeoutMs);
}

std::optional<Answer> DaemonConnection::awaitAnswer(std::int64_t id, int timeoutMs)
{
    for (;;) {
        std::optional<Json> message = next(timeoutMs);
        if (!message)
            return std::nullopt;
        if ((*message)["id"].toInteger(-1) == id && (*message)["id"].toInteger(-2) == id)
            return readAnswer(*message);
    }
}

void DaemonConnection::writeFrame(std::string_view frame)
{
    while (!frame.empty() && !m_closed) {
        const ssize_t n = ::send(m_fd, frame.data(), frame.size(), MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            m_closed = true;
            return;
        }
        frame.remove_prefix(static_cast<std::size_t>(n));
    }
}

namespace {

// As DaemonClient::daemonProgram(): CORDON_DAEMON, beside this program, then PATH.
std::string daemonProgram()
{
    if (const char *named = std::getenv("CORDON_DAEMON"); named != nullptr && *named != '\0')
        return named;
    const std::string beside = Isolation::programCandidates("cordond").front();
    if (::access(beside.c_str(), X_OK) == 0)
        return beside;
    const char *path = std::getenv("PATH");
    std::string_view directories = path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin";
    while (!directories.empty()) {
        const std::size_t colon = directories.find(':');
        const std::string_view directory = directories.substr(0, colon);
        directories = colon == std::string_view::npos ? std::string_view() : directories.substr(colon + 1);
        if (directory.empty())
            continue;
        std::string candidate = std::string(directory) + "/cordond";
        if (::access(candidate.c_str(), X_OK) == 0)
            return candidate;
    }
    return {};
}

// Detached as the Qt client starts it: a session of its own, nothing of our standard streams (a daemon
// holding our stdout would keep `$(cordon run ...)` open for as long as it lives), its output appended to
// the daemon log (`logFd`, -1 for none), "/" as its directory.
Result<pid_t> spawnDaemon(const std::string &program, int logFd)
{
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    ::posix_spawn_file_actions_init(&actions);
    ::posix_spawnattr_init(&attributes);
    for (int fd = 0; fd <= 2; ++fd) {
        if (fd > 0 && logFd >= 0)
            ::posix_spawn_file_actions_adddup2(&actions, logFd, fd);
        else
            ::posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0);
    }
    ::posix_spawn_file_actions_addchdir_np(&actions, "/");
    ::posix_spawnattr_setflags(&attributes,
                               POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    sigset_t none;
    sigemptyset(&none);
    ::posix_spawnattr_setsigmask(&attributes, &none);
    sigset_t defaults;
    sigemptyset(&defaults);
    for (int signal : {SIGPIPE, SIGINT, SIGTERM, SIGHUP})
        sigaddset(&defaults, signal);
    ::posix_spawnattr_setsigdefault(&attributes, &defaults);
    char *argv[] = {const_cast<char *>(program.c_str()), nullptr};
    pid_t pid = 0;
    const int error = ::posix_spawn(&pid, program.c_str(), &actions, &attributes, argv, environ);
    ::posix_spawn_file_actions_destroy(&actions);
    ::posix_spawnattr_destroy(&attributes);
    if (error != 0)
        return failErrno("daemon.start_failed", "start `" + program + "`", error);
    return pid;
}

Result<GreetedDaemon> greet(DaemonConnection &connection, const char *clientName, const std::string &socket)
{
    const std::optional<Answer> hello = connection.call(
        "hello", Json::object({{"protocol", Lite::ProtocolVersion}, {"client", clientName}}), HelloTimeoutMs);
    if (!hello)
        return fail("daemon.protocol",
                    "cordond did not answer `hello` within " + std::to_string(HelloTimeoutMs / 1000) + " s");
    if (!hello->ok)
        return fail(hello->code, hello->message);
    return GreetedDaemon{static_cast<pid_t>(hello->result["pid"].toInteger(0)), socket};
}

} // namespace

Result<GreetedDaemon> connectStartingDaemon(DaemonConnection &connection, const char *clientName)
{
    // Without HOME (and the XDG variables) the path needs the password database, which a static program
    // cannot read reliably.
    const std::optional<std::string> socket = Lite::socketPathFromEnvironment();
    if (!socket)
        return fail("daemon.unreachable", "cannot tell where cordond listens: set HOME (or XDG_RUNTIME_DIR)");
    if (connection.open(*socket))
        return greet(connection, clientName, *socket);

    const std::string program = daemonProgram();
    if (program.empty())
        return fail("daemon.start_failed", "no daemon is listening on `" + *socket +
                                               "` and cordond was not found (beside this program or on PATH; "
                                               "CORDON_DAEMON names it explicitly)");
    const Lite::DaemonLog log = Lite::openDaemonLog(*socket);
    const Result<pid_t> spawned = spawnDaemon(program, log.fd);
    if (log.fd >= 0)
        ::close(log.fd);
    if (!spawned)
        return fail(spawned.error());
    const pid_t pid = *spawned;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(DaemonStartWaitMs);
    auto delay = std::chrono::milliseconds(5);
    bool exited = false;
    int status = 0;
    for (;;) {
        if (connection.open(*socket))
            return greet(connection, clientName, *socket);
        // A daemon that exits at once (a damaged history, a bad option) says why in its log; one that lost
        // the race to another daemon still starting leaves that one to wait for (it holds the lock).
        if (!exited && ::waitpid(pid, &status, WNOHANG) == pid) {
            exited = true;
            if (connection.open(*socket))
                return greet(connection, clientName, *socket);
        }
        if (exited && !Lite::daemonLockHeld(*socket)) {
            const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
            const std::string said = Lite::daemonLogTail(*socket, log.startOffset);
            return fail("daemon.start_failed", "started `" + program + "`, but it exited with status " +
                                                   std::to_string(code) +
                                                   (said.empty() ? "" : "; it said:\n" + said));
        }
        if (std::chrono::steady_clock::now() >= deadline)
            return fail("daemon.start_failed", "started `" + program + "`, but it did not answer on `" +
                                                   *socket + "` within " +
                                                   std::to_string(DaemonStartWaitMs / 1000) + " s");
        std::this_thread::sleep_for(delay);
        delay = std::min(delay * 2, std::chrono::milliseconds(200));
    }
}

} // namespace Cordon::Launcher
