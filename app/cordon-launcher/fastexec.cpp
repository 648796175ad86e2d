// SPDX-License-Identifier: MIT
// The requests of app/cordon/execcommand.cpp: hello, the container looked up (container.get for a full id,
// else container.list, and container.get when nothing matched), subscribe to the container's runs, run.exec,
// then run.output events until run.wait answers (run.get for a repeated idempotency key). For a full id the
// first three go in one write. The wording comes from daemon/lite, which the Qt CLI prints too.
#include "fastexec.h"
#include "daemonconnection.h"

#include "daemon/lite/base64.h"
#include "daemon/lite/containerref.h"
#include "daemon/lite/frames.h"
#include "daemon/lite/output.h"
#include "daemon/lite/runreport.h"
#include "daemon/lite/signalpipe.h"
#include "daemon/lite/socketpath.h"
#include "sandbox/json.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

namespace Cordon::Launcher {

namespace {

bool isOption(const std::string &argument)
{
    return argument.size() > 1 && argument.front() == '-';
}

// Drives one run from run.exec to its end, as ExecSession does in app/cordon/execcommand.cpp.
class Session
{
public:
    Session(DaemonConnection &connection, Json container)
        : m_connection(connection), m_container(std::move(container))
    {}

    int run(Json params)
    {
        // Without the pipe Ctrl-C keeps its default: the CLI ends, the run goes on.
        const int signalPipe = Lite::interruptSignalPipe();
        m_execId = m_connection.send("run.exec", std::move(params));
        while (!m_done) {
            if (std::optional<Json> message = m_connection.buffered()) {
                handle(*message);
                continue;
            }
            if (m_connection.closed()) {
                finishWithError("daemon.disconnected", Lite::execDisconnected(m_runId), {});
                break;
            }
            pollfd fds[2] = {{m_connection.fd(), POLLIN, 0}, {signalPipe, POLLIN, 0}};
            const int ready = ::poll(fds, signalPipe >= 0 ? 2 : 1, -1);
            if (ready < 0) {
                if (errno == EINTR)
                    continue;
                finishWithError("daemon.disconnected", Lite::execDisconnected(m_runId), {});
                break;
            }
            if (signalPipe >= 0 && (fds[1].revents & POLLIN) != 0) {
                Lite::drainSignalPipe(signalPipe);
                onInterrupt();
            }
            if (!m_done && (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) != 0)
                m_connection.receive();
        }
        if (m_abandoned) {
            Lite::writeAll(STDERR_FILENO, Lite::execStoppedWaiting(m_runId));
            return Cordon::InterruptedStatus;
        }
        if (!m_answer.ok)
            return reportError(m_answer);
        const Json &finished = m_answer.result["run"];
        Lite::writeAll(STDERR_FILENO, Lite::summarizeRun(finished, m_container) + Lite::execFooter(m_runId));
        return Lite::runExitStatus(finished);
    }

private:
    void handle(const Json &message)
    {
        if (!message.contains("id")) {
            // Events (docs/protocol.md): a name and an object of data.
            const Json &name = message["event"];
            const Json &data = message["data"];
            if (name.toString() != "run.output" || !(data.isUndefined() || data.isObject()))
                return;
            if (m_runId.empty())
                m_early.push_back(data); // before run.exec answered; kept until we know which run is ours
            else
                echo(data);
            return;
        }
        const Json &idValue = message["id"];
        const std::int64_t id = idValue.toInteger(-1);
        if (idValue.isNull() || id != idValue.toInteger(-2))
            return; // an error about the connection as a whole; the daemon closes it next
        const std::optional<Answer> answer = readAnswer(message);
        if (id != m_execId && id != m_finalId)
            return;
        // Whether a run started is unknown after a malformed answer to run.exec, so it is not retried.
        if (!answer)
            return finishWithError("protocol.invalid_response",
                                   "malformed message from cordond: " + message.serialize(), {});
        if (id == m_execId) {
            if (!answer->ok)
                return finish(*answer);
            onStarted(answer->result["run"]);
        } else {
            if (m_finalIsGet && answer->ok) {
                const Json &finished = answer->result["run"];
                Lite::writeAll(STDOUT_FILENO, finished["stdout"].toString());
                Lite::writeAll(STDERR_FILENO, finished["stderr"].toString());
                if (finished["stdout_paged"].toBool() || finished["stderr_paged"].toBool())
                    Lite::writeAll(STDERR_FILENO,
                                   "cordon: the output above is cut at 512 KiB per stream; `cordon "
                                   "logs " +
                                       finished["id"].toString() + "` prints all of it\n");
            }
            finish(*answer);
        }
    }

    void onStarted(const Json &run)
    {
        m_runId = run["id"].toString();
        for (const Json &data : m_early)
            echo(data);
        m_early.clear();
        if (m_cancelRequested)
            cancel();
        // A repeated idempotency key answers with the earlier run, which has ended: nothing will be
        // streamed, so its captured output comes from the history instead. Otherwise the daemon publishes
        // every run.output event of the run before it answers run.wait, on this same connection.
        m_finalIsGet = run["state"].toString() != "running";
        m_finalId =
            m_connection.send(m_finalIsGet ? "run.get" : "run.wait", Json::object({{"run_id", m_runId}}));
    }

    void echo(const Json &data)
    {
        if (data["run_id"].toString() != m_runId)
            return;
        Lite::writeAll(data["stream"].toString() == "stderr" ? STDERR_FILENO : STDOUT_FILENO,
                       Lite::base64Decode(data["data"].toString()));
    }

    void onInterrupt()
    {
        if (m_cancelRequested) {
            // The second Ctrl-C: stop waiting. The run was already told to stop.
            m_abandoned = true;
            m_done = true;
            return;
        }
        m_cancelRequested = true;
        Lite::writeAll(STDERR_FILENO, Lite::execCancelling());
        if (!m_runId.empty())
            cancel();
    }

    void cancel() { m_connection.send("run.cancel", Json::object({{"run_id", m_runId}})); }

    void finish(Answer answer)
    {
        m_answer = std::move(answer);
        m_done = true;
    }

    void finishWithError(std::string code, std::string message, std::string hint)
    {
        finish(Answer{false, {}, std::move(code), std::move(message), std::move(hint)});
    }

    DaemonConnection &m_connection;
    Json m_container;
    std::int64_t m_execId = -1;
    std::int64_t m_finalId = -1;
    bool m_finalIsGet = false;
    std::string m_runId;
    std::vector<Json> m_early;
    Answer m_answer;
    bool m_done = false;
    bool m_cancelRequested = false;
    bool m_abandoned = false;
};

// The container `reference` names, by the requests and rules of DaemonSession::resolveContainer() in
// app/cordon/daemoncli.cpp. std::nullopt: the Qt CLI takes over (an ambiguous reference, whose candidates it
// lists, or no usable answer); an undefined value: the daemon's error, already reported.
std::optional<Json> resolve(DaemonConnection &connection, const std::string &reference)
{
    if (Lite::isFullContainerId(reference)) {
        const std::optional<Answer> exact =
            connection.call("container.get", Json::object({{"id", reference}}));
        if (exact && exact->ok && exact->result["container"].isObject())
            return exact->result["container"];
    }
    const std::optional<Answer> listed =
        connection.call("container.list", Json::object({{"include_deleted", true}}));
    if (!listed)
        return std::nullopt;
    if (!listed->ok) {
        reportError(*listed);
        return Json();
    }
    const Json::Array &containers = listed->result["containers"].items();
    const std::vector<std::size_t> matches = Lite::matchContainers(containers, reference);
    if (matches.size() > 1)
        return std::nullopt;
    if (matches.size() == 1)
        return containers[matches.front()];
    // Nothing matched: the daemon words the refusal, so every client reports it the same way.
    const std::optional<Answer> got = connection.call("container.get", Json::object({{"id", reference}}));
    if (!got)
        return std::nullopt;
    if (!got->ok) {
        reportError(*got);
        return Json();
    }
    if (!got->result["container"].isObject())
        return std::nullopt;
    return got->result["container"];
}

} // namespace

std::optional<ExecRequest> parseExecArguments(const std::vector<std::string> &arguments)
{
    // QCommandLineParser's rules for the two options handled here: `--name value` or `--name=value`, the
    // value taken whatever it looks like; options end at `--` or at the first positional argument.
    ExecRequest request;
    bool hasLanguage = false;
    bool hasCode = false;
    std::size_t i = 0;
    for (; i < arguments.size(); ++i) {
        const std::string &argument = arguments[i];
        if (argument == "--") {
            ++i;
            break;
        }
        if (!isOption(argument)) {
            if (argument == "-")
                return std::nullopt;
            break;
        }
        const std::size_t equals = argument.find('=');
        const std::string name = argument.substr(0, equals);
        if (name != "--language" && name != "--code")
            return std::nullopt; // --json, --stdin, --help, --timeout, --key, --code-file, unknown ones
        bool &seen = name == "--code" ? hasCode : hasLanguage;
        if (seen)
            return std::nullopt; // repeated: the Qt CLI decides which one counts
        seen = true;
        std::string value;
        if (equals != std::string::npos) {
            value = argument.substr(equals + 1);
        } else {
            if (i + 1 >= arguments.size())
                return std::nullopt; // a missing value is the Qt CLI's usage error
            value = arguments[++i];
        }
        (name == "--code" ? request.code : request.language) = std::move(value);
    }
    std::vector<std::string> positional(arguments.begin() + static_cast<std::ptrdiff_t>(i), arguments.end());
    if (positional.empty() || positional.front().empty())
        return std::nullopt;
    request.reference = positional.front();
    positional.erase(positional.begin());
    // After the first positional argument everything is kept, including the `--` separator.
    if (!positional.empty() && positional.front() == "--")
        positional.erase(positional.begin());
    request.command = std::move(positional);

    // Only invocations the Qt CLI accepts; its usage errors are its own to print.
    if (hasCode != hasLanguage || (hasLanguage && !request.command.empty()) ||
        (!hasLanguage && request.command.empty()))
        return std::nullopt;
    if (hasLanguage && request.language != "python" && request.language != "bash" &&
        request.language != "node")
        return std::nullopt;
    // The Qt CLI decodes arguments as UTF-8 with replacement characters; such arguments are left to it.
    for (const std::string &argument : arguments) {
        if (!isValidUtf8(argument))
            return std::nullopt;
    }
    return request;
}

std::optional<int> runExec(const ExecRequest &request)
{
    // Without HOME (and the XDG variables) the path needs the password database, which this statically
    // linked program leaves to cordon-cli.
    const std::optional<std::string> socket = Lite::socketPathFromEnvironment();
    DaemonConnection connection;
    if (!socket || !connection.open(*socket))
        return std::nullopt;
    const Json helloParams = Json::object({{"protocol", Lite::ProtocolVersion}, {"client", "cordon"}});
    const auto subscribeParams = [](const std::string &id) {
        // Only the runs this connection starts: another client's run in the same container is not ours to
        // receive (two large outputs would each cost both clients).
        return Json::object({{"topics", Json::Array{Json("runs")}}, {"container", id}, {"runs", "own"}});
    };

    // A full id: hello, container.get and the subscription go in one write, since none of them changes
    // anything and each round trip through the daemon costs about as much as the run's own exec
    // (docs/benchmarks.md). The daemon answers a connection's requests in order.
    std::optional<Json> container;
    bool subscribedEarly = false;
    if (Lite::isFullContainerId(request.reference)) {
        const std::int64_t helloId = connection.send("hello", helloParams);
        const std::int64_t getId =
            connection.send("container.get", Json::object({{"id", request.reference}}));
        const std::int64_t subscribeId = connection.send("subscribe", subscribeParams(request.reference));
        const std::optional<Answer> hello = connection.awaitAnswer(helloId, HelloTimeoutMs);
        if (!hello || !hello->ok)
            return std::nullopt;
        const std::optional<Answer> got = connection.awaitAnswer(getId, CallTimeoutMs);
        const std::optional<Answer> subscribed = connection.awaitAnswer(subscribeId, CallTimeoutMs);
        if (!got || !subscribed)
            return std::nullopt;
        if (got->ok && got->result["container"].isObject() && subscribed->ok) {
            container = got->result["container"];
            subscribedEarly = true;
        }
    } else {
        const std::optional<Answer> hello = connection.call("hello", helloParams, HelloTimeoutMs);
        if (!hello || !hello->ok)
            return std::nullopt;
    }

    // Every failure before the run exists means the program did not run: 125, as for `cordon run`.
    if (!container)
        container = resolve(connection, request.reference);
    if (!container)
        return std::nullopt;
    if (!container->isObject())
        return Cordon::SetupFailureStatus; // resolve() reported the daemon's error
    const std::string containerId = (*container)["id"].toString();

    // Subscribed before the exec, so that not even the first chunk of output can be missed.
    if (!subscribedEarly) {
        const std::optional<Answer> subscribed = connection.call("subscribe", subscribeParams(containerId));
        if (!subscribed)
            return std::nullopt;
        if (!subscribed->ok)
            return reportError(*subscribed);
    }

    Json params = Json::object({{"container", containerId}});
    if (request.language.empty()) {
        Json::Array command;
        for (const std::string &argument : request.command)
            command.emplace_back(argument);
        params.insert("command", Json(std::move(command)));
    } else {
        params.insert("language", request.language);
        params.insert("code", request.code);
    }
    // Output piped into `head` must end with a write error we can handle, not kill us before the summary
    // (and Ctrl-C handling relies on us staying alive to cancel the run).
    ::signal(SIGPIPE, SIG_IGN);
    Session session(connection, std::move(*container));
    return session.run(std::move(params));
}

} // namespace Cordon::Launcher
