// SPDX-License-Identifier: MIT
// The launcher's connection to cordond, without Qt: framed JSON requests and answers on the control socket
// (docs/protocol.md), read with the one strict JSON reader. `cordon exec` (fastexec.h) and a one-shot run's
// network (oneshotnetwork.h) talk to the daemon through it.
#pragma once

#include "daemon/lite/frames.h"
#include "sandbox/error.h"
#include "sandbox/json.h"

#include <cstdint>
#include <optional>
#include <string>
#include <sys/types.h>

namespace Cordon::Launcher {

// As the Qt client's DaemonClient::HelloTimeoutMs and DaemonSession::CallTimeoutMs.
inline constexpr int HelloTimeoutMs = 10000;
inline constexpr int CallTimeoutMs = 300000;
// As DaemonClient::StartWaitMs: how long a daemon we started may take to answer.
inline constexpr int DaemonStartWaitMs = 5000;

// A response: exactly one of `result` or `error` as an object (as parseResponse() in daemon/framecodec).
struct Answer
{
    bool ok = false;
    Json result;
    std::string code;
    std::string message;
    std::string hint;
};

std::optional<Answer> readAnswer(const Json &message);

// Prints the daemon's error as the Qt CLI does and returns 125 (nothing ran). The engine's hint travels with
// the error (the daemon fills it from the same table the Qt CLI reads), so only the command line's own advice
// is looked up here.
int reportError(const std::string &message, const std::string &code, const std::string &wireHint);
int reportError(const Answer &answer);

class DaemonConnection
{
public:
    DaemonConnection() = default;
    DaemonConnection(const DaemonConnection &) = delete;
    DaemonConnection &operator=(const DaemonConnection &) = delete;
    ~DaemonConnection();

    // False when no daemon answers there (or the path cannot be a socket address).
    bool open(const std::string &path);

    int fd() const { return m_fd; }

    std::int64_t send(const char *method, Json params);

    // The next message: std::nullopt once the daemon closed the connection (or broke the framing, after
    // which the Qt client drops it too) or when `timeoutMs` passed. Frames that are not JSON objects are
    // skipped, as the Qt client skips them.
    std::optional<Json> next(int timeoutMs);
    // A message already read, without blocking.
    std::optional<Json> buffered();
    // Reads what the socket holds; marks the connection closed at end of file or on an error.
    void receive();
    bool closed() const { return m_closed; }

    // Waits for the answer to request `id`; events and other answers are dropped. std::nullopt: no usable
    // answer in time.
    std::optional<Answer> call(const char *method, Json params, int timeoutMs = CallTimeoutMs);
    std::optional<Answer> awaitAnswer(std::int64_t id, int timeoutMs);

private:
    void writeFrame(std::string_view frame);

    int m_fd = -1;
    Lite::FrameSplitter m_splitter;
    std::int64_t m_nextId = 1;
    bool m_closed = false;
};

// The daemon a client started, once it answers `hello`.
struct GreetedDaemon
{
    pid_t pid = 0;          // from hello: who may hand things to us
    std::string socketPath; // where it listens
};

// Connects to the user's daemon and says hello, starting cordond first when nobody listens (as the Qt CLI
// does: CORDON_DAEMON, beside this program, then PATH; detached, with /dev/null for its output and "/" as its
// working directory) and waiting up to DaemonStartWaitMs for it. Errors: daemon.unreachable,
// daemon.start_failed, daemon.protocol.
Result<GreetedDaemon> connectStartingDaemon(DaemonConnection &connection, const char *clientName);

} // namespace Cordon::Launcher
