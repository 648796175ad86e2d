// SPDX-License-Identifier: MIT
#include "sandbox/oneshotrun.h"

#include "sandbox/cappedoutput.h"
#include "sandbox/cgroup/cgroupbackend.h"
#include "sandbox/containerlaunch.h"
#include "sandbox/init/execfailure.h"
#include "sandbox/initlaunch.h"
#include "sandbox/mountplan.h"
#include "sandbox/runstdin.h"
#include "sandbox/seccompfilters.h"
#include "sandbox/workspace.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fcntl.h>
#include <future>
#include <memory>
#include <optional>
#include <poll.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace Cordon::Containers::OneShot {

namespace {

// An allowlist network policy: the proxy variables are set and cordon-init makes the proxy's listener.
bool hasProxy(const Policy::ContainerPolicy &policy)
{
    return policy.network.type == Policy::NetworkPolicy::Type::Allowlist;
}

using Clock = std::chrono::steady_clock;
using Layout = Workspace::Layout;

constexpr std::int64_t MiB = 1024 * 1024;
constexpr std::uint64_t RunWireId = 1;

std::int64_t millisSince(Clock::time_point start)
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
}

// One output pipe of the run, read without blocking and kept under the cap.
class Stream
{
public:
    Stream(int number, std::int64_t cap) : m_number(number), m_output(cap) {}
    ~Stream() { close(); }
    Stream(const Stream &) = delete;
    Stream &operator=(const Stream &) = delete;

    void adopt(int fd)
    {
        m_fd = fd;
        ::fcntl(m_fd, F_SETFL, ::fcntl(m_fd, F_GETFL) | O_NONBLOCK);
    }
    int fd() const { return m_fd; }
    bool atEnd() const { return m_fd < 0; }
    const CappedOutput &output() const { return m_output; }

    // Reads what is there now; closes the pipe at end of file.
    void readAvailable(const OutputSink &onOutput)
    {
        if (m_fd >= 0 && !Containers::readAvailable(m_fd, m_output, [&](std::string_view kept) {
                if (onOutput)
                    onOutput(m_number, kept);
            }))
            close();
    }
    void close()
    {
        if (m_fd >= 0)
            ::close(std::exchange(m_fd, -1));
    }

private:
    int m_number;
    int m_fd = -1;
    CappedOutput m_output;
};

class PlainRun
{
public:
    PlainRun(const PlainRunRequest &request, const OutputSink &onOutput)
        : m_request(request), m_onOutput(onOutput), m_stdout(1, request.policy.limits.outputMb * MiB),
          m_stderr(2, request.policy.limits.outputMb * MiB)
    {}
    ~PlainRun() { tearDown(false); }
    PlainRun(const PlainRun &) = delete;
    PlainRun &operator=(const PlainRun &) = delete;

    PlainRunOutcome run();

private:
    Result<> start();
    Result<> sendSpawn();
    void superviseUntilFinished();
    void readControlMessages();
    void killRun();
    void finishOutcome();
    // Ends the container and removes it; `collect` gives the request's collectOutputs its turn in between.
    void tearDown(bool collect);
    std::optional<Cgroup::MemoryStats> memoryStats() const;

    const PlainRunRequest &m_request;
    const OutputSink &m_onOutput;
    PlainRunOutcome m_outcome;
    Clock::time_point m_started = Clock::now();
    std::unique_ptr<Cgroup::CgroupBackend> m_cgroup;
    std::string m_id;
    LaunchedContainer m_launched;                 // cordon-init, the workspace, whether the cgroup exists
    std::shared_ptr<const UniqueFd> m_outputsDir; // /mnt/data/outputs, handed back by cordon-init
    Stream m_stdout;
    Stream m_stderr;
    // The run's life, as ContainerRun tracks it.
    bool m_exited = false;
    bool m_timedOut = false;
    bool m_cancelled = false;
    bool m_initDied = false;
    bool m_abandoned = false; // cordon-init died before the run's exit was reported
    bool m_spawnFailed = false;
    std::optional<Clock::time_point> m_finishBy; // the grace (after the exit) or backstop (after a kill)
    Clock::time_point m_timeoutAt;
};

PlainRunOutcome PlainRun::run()
{
    m_outcome.memoryLimitBytes = m_request.policy.memoryLimitBytes;
    if (auto started = start(); !started) {
        tearDown(false);
        m_outcome.className = "setup_failed";
        m_outcome.message = started.error().message();
        m_outcome.setupStage = started.error().code();
        m_outcome.setupErrno = started.error().sysErrno();
        m_outcome.wallMs = millisSince(m_started);
        return m_outcome;
    }
    superviseUntilFinished();
    finishOutcome();
    tearDown(true);
    return m_outcome;
}

Result<> PlainRun::start()
{
    if (m_request.command.empty())
        return fail("run.no_command", "no command to run");
    auto backend = Cgroup::detectBackend(m_request.userName);
    if (backend) {
        m_cgroup = std::move(*backend);
        CORDON_TRY(m_cgroup->prepareSelf());
    } else if (m_request.allowDegraded) {
        m_outcome.degraded = true;
    } else {
        return fail(backend.error().wrap("memory and pids limits cannot be enforced on this host"));
    }
    m_id = newContainerId();
    LaunchRequest launch;
    launch.id = m_id;
    launch.ids = Isolation::idMappingFor(::geteuid(), ::getegid());
    launch.cgroup = m_cgroup.get();
    launch.limits = {m_request.policy.memoryLimitBytes, m_request.policy.limits.pids};
    launch.plan = mountPlanInput(m_request.policy);
    launch.seccompBpf = Isolation::prebuiltSeccompFilter(m_request.policy.allowPtrace);
    launch.prepareWorkspace = m_request.prepareWorkspace;
    CORDON_TRY(launchContainer(launch, m_launched));
    // The spawn request is queued right behind the setup request: cordon-init starts the run as soon as the
    // container is set up. A run with a network waits until the daemon serves its proxy: it never starts
    // without the network its policy gives it.
    const bool networkFirst = hasProxy(m_request.policy) && m_request.attachNetwork;
    Result<> spawnSent = networkFirst ? Result<>() : sendSpawn();
    // The setup reply comes first even when the spawn request could not be sent: a cordon-init that failed
    // its setup and exited refuses the request, and its reply says why.
    Isolation::SetupHandles handles;
    auto reply = Isolation::awaitSetupReply(m_launched.init, Isolation::SetupReplyTimeoutMs,
                                            Isolation::WorkspaceHandleCount, handles);
    if (!reply)
        return fail(reply.error());
    if (reply->stage != Isolation::Stage::None)
        return fail(Isolation::setupFailure(*reply));
    // The outputs are read through it after the run: the tmpfs is mounted only inside the container.
    m_outputsDir = std::make_shared<const UniqueFd>(std::move(handles.handedBack[Isolation::OutputsHandle]));
    if (handles.proxyListener.isValid() && m_request.attachNetwork)
        CORDON_TRY(m_request.attachNetwork(m_id, std::move(handles.proxyListener)));
    if (networkFirst)
        spawnSent = sendSpawn();
    CORDON_TRY(spawnSent);
    ::fcntl(m_launched.init.control, F_SETFL, ::fcntl(m_launched.init.control, F_GETFL) | O_NONBLOCK);
    return {};
}

// As Container::exec() and ContainerRun::start() for a command whose stdin is given up front.
Result<> PlainRun::sendSpawn()
{
    Isolation::SpawnRequest spawn = spawnRequestFor(m_request.policy, RunWireId, m_request.command);
    spawn.endsContainer = true; // a one-shot container has this run only
    Secrets::injectSecrets(spawn.env, m_request.secrets);

    auto stdinOpened = m_request.stdinData ? stdinMemfd(*m_request.stdinData) : openDevNull();
    if (!stdinOpened)
        return fail(stdinOpened.error());
    const int stdinFd = *stdinOpened;
    int out[2] = {-1, -1};
    int err[2] = {-1, -1};
    if (::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0) {
        const int error = errno;
        for (int fd : {stdinFd, out[0], out[1]})
            if (fd >= 0)
                ::close(fd);
        return failErrno("run.pipe", "pipe2", error);
    }
    m_stdout.adopt(out[0]);
    m_stderr.adopt(err[0]);
    const int fds[3] = {stdinFd, out[1], err[1]};
    const int error = Isolation::sendSpawnRequest(m_launched.init.control, spawn, fds);
    for (int fd : fds)
        ::close(fd);
    if (error != 0)
        return failErrno("sandbox.protocol", "send spawn request", error);
    m_timeoutAt = Clock::now() + std::chrono::seconds(m_request.policy.limits.runTimeoutS);
    return {};
}

void PlainRun::superviseUntilFinished()
{
    for (;;) {
        if (m_exited && m_stdout.atEnd() && m_stderr.atEnd())
            return;
        const Clock::time_point now = Clock::now();
        if (m_finishBy && now >= *m_finishBy)
            return;
        const bool watchTimeout = !m_exited && !m_timedOut && !m_cancelled;
        Clock::time_point wakeAt = m_finishBy.value_or(Clock::time_point::max());
        if (watchTimeout)
            wakeAt = std::min(wakeAt, m_timeoutAt);
        const auto waitMs = std::chrono::ceil<std::chrono::milliseconds>(wakeAt - now).count();
        const int timeoutMs = wakeAt == Clock::time_point::max()
                                  ? -1
                                  : static_cast<int>(std::clamp<std::int64_t>(waitMs, 0, 60000));

        // Once the run has ended or is being killed, a Ctrl-C has nothing left to cancel.
        const bool watchInterrupt = !m_exited && !m_cancelled;
        pollfd entries[4] = {{m_initDied ? -1 : m_launched.init.control, POLLIN, 0},
                             {m_stdout.fd(), POLLIN, 0},
                             {m_stderr.fd(), POLLIN, 0},
                             {watchInterrupt ? m_request.interruptFd : -1, POLLIN, 0}};
        if (::poll(entries, 4, timeoutMs) < 0 && errno != EINTR) {
            // Nothing can be watched any more: end the run as killed, and say why.
            m_outcome.message = Error::fromErrno("run.poll", "watch the run", errno).message();
            if (!m_exited)
                killRun();
            return;
        }
        // What has arrived counts before the timeout, as on the engine's event loop: an exit report waiting
        // behind output the terminal was slow to take is not a timeout.
        if (entries[1].revents != 0)
            m_stdout.readAvailable(m_onOutput);
        if (entries[2].revents != 0)
            m_stderr.readAvailable(m_onOutput);
        if (entries[0].revents != 0)
            readControlMessages();
        if (entries[3].revents != 0 && !m_exited) {
            m_cancelled = true;
            killRun();
        }
        if (!m_exited && !m_timedOut && !m_cancelled && Clock::now() >= m_timeoutAt) {
            m_timedOut = true;
            killRun();
        }
    }
}

// As ContainerRun::cancel() and its timeout: SIGKILL to the run's whole session, and a backstop in case the
// exit report does not come.
void PlainRun::killRun()
{
    Isolation::KillRequest kill;
    kill.runId = RunWireId;
    kill.signal = SIGKILL;
    (void)Isolation::sendMessage(m_launched.init.control, Isolation::encode(kill));
    m_finishBy = Clock::now() + std::chrono::milliseconds(KillBackstopMs);
}

void PlainRun::readControlMessages()
{
    using Isolation::InitMessage;
    for (;;) {
        const InitMessage message = Isolation::readInitMessage(m_launched.init.control);
        if (message.kind == InitMessage::Kind::None)
            return;
        if (message.kind == InitMessage::Kind::Gone) {
            // cordon-init is gone. After the exit report it ended the container itself, the run being its
            // last (SpawnRequest::endsContainer) and no process left: whatever the run wrote is in the pipes.
            // Before it, it died under the run (e.g. by the OOM killer): finish with what is known, as
            // ContainerRun::abandon() does.
            m_initDied = true;
            if (!m_exited) {
                m_abandoned = true;
                const auto stats = memoryStats();
                m_outcome.className = stats && stats->oomKills > 0 ? "oom" : "killed";
                m_outcome.signal = SIGKILL;
                m_outcome.message = "the container's PID 1 died";
                m_exited = true;
            }
            m_finishBy = Clock::now();
            return;
        }
        if (message.kind == InitMessage::Kind::Spawned) {
            const Isolation::SpawnReply &reply = message.spawn;
            if (reply.runId != RunWireId || reply.stage == Isolation::Stage::None)
                continue;
            if (const auto notRun =
                    Isolation::execFailure(reply.stage, reply.error, m_request.command.front())) {
                // The sandbox was up and the program is not there (127) or cannot run (126): the run ends
                // with that status, as a shell's does.
                m_outcome.exitCode = notRun->exitCode;
                m_outcome.message = notRun->message;
                m_exited = true;
                m_finishBy = Clock::now();
                continue;
            }
            const auto failure =
                failErrno("run.setup_failed",
                          std::string("run setup failed at ") + Isolation::stageName(reply.stage),
                          reply.error)
                    .value();
            m_spawnFailed = true;
            m_outcome.className = "setup_failed";
            m_outcome.message = failure.message();
            m_outcome.setupStage = failure.code();
            m_outcome.setupErrno = failure.sysErrno();
            m_exited = true;
            m_finishBy = Clock::now();
        } else if (message.kind == InitMessage::Kind::Exited) {
            const Isolation::ExitReport &report = message.exit;
            if (report.runId != RunWireId || m_exited)
                continue;
            if (WIFEXITED(report.waitStatus))
                m_outcome.exitCode = WEXITSTATUS(report.waitStatus);
            else if (WIFSIGNALED(report.waitStatus))
                m_outcome.signal = WTERMSIG(report.waitStatus);
            m_outcome.cpuMs = static_cast<std::int64_t>((report.userMicros + report.systemMicros) / 1000);
            m_outcome.peakMemoryBytes = static_cast<std::int64_t>(report.maxRssKiB) * 1024;
            m_exited = true;
            m_finishBy = Clock::now() + std::chrono::milliseconds(OutputGraceMs);
        }
    }
}

// As ContainerRun::finish() and OneShotRun::finish(): what is left in the pipes, the cgroup's counters, and
// the class by the rules every run follows.
void PlainRun::finishOutcome()
{
    m_stdout.readAvailable(m_onOutput);
    m_stderr.readAvailable(m_onOutput);
    m_stdout.close();
    m_stderr.close();
    const auto stats = memoryStats();
    if (stats) {
        // The group is new (its name random), so every OOM kill it counts happened in this run; the engine's
        // long-lived containers subtract the count at a run's start instead.
        m_outcome.oomKills = stats->oomKills;
        m_outcome.pidsLimitHits = stats->pidsLimitHits;
        m_outcome.pidsLimit = m_request.policy.limits.pids;
        m_outcome.peakMemoryBytes = std::max(m_outcome.peakMemoryBytes, stats->peak);
    }
    m_outcome.stdoutData = m_stdout.output().data();
    m_outcome.stderrData = m_stderr.output().data();
    m_outcome.stdoutKept = std::ssize(m_stdout.output().data());
    m_outcome.stderrKept = std::ssize(m_stderr.output().data());
    m_outcome.stdoutBytes = m_stdout.output().totalBytes();
    m_outcome.stderrBytes = m_stderr.output().totalBytes();
    m_outcome.stdoutTruncated = m_stdout.output().truncated();
    m_outcome.stderrTruncated = m_stderr.output().truncated();
    // A run abandoned by its container keeps the class it was given then, unless it timed out or an OOM kill
    // explains it.
    if (!m_spawnFailed && (!m_abandoned || m_timedOut || m_outcome.oomKills > 0))
        m_outcome.className =
            Cordon::classifyEndedRun(m_timedOut, m_outcome.oomKills, m_outcome.signal, m_outcome.exitCode);
    if (m_cancelled && !m_spawnFailed && m_outcome.message.empty())
        m_outcome.message = "cancelled";
}

// Without outputs to collect, cordon-init is killed first (if it has not ended the container itself, its run
// being the last), so that the kernel tears the container down on one core while the workspace is removed on
// the other; then cordon-init is reaped and the cgroup removed, and
// whatever a dying process still wrote in between is removed last. With outputs, every process is gone
// before they are collected from the workspace tmpfs (its memory goes with the last descriptor), and the
// host workspace is removed after.
void PlainRun::tearDown(bool collect)
{
    collect = collect && m_request.collectOutputs && m_outputsDir;
    std::future<Result<>> removal;
    if (m_launched.init.pid > 0)
        ::kill(m_launched.init.pid, SIGKILL);
    if (m_launched.workspace && !collect)
        removal = std::async(std::launch::async,
                             [workspace = *m_launched.workspace] { return workspace.remove(); });
    Isolation::killAndReap(m_launched.init);
    if (m_cgroup && m_launched.cgroupCreated) {
        (void)m_cgroup->destroy(m_id);
        m_launched.cgroupCreated = false;
    }
    if (removal.valid())
        removal.wait();
    m_outcome.wallMs = millisSince(m_started);
    // The workspace tmpfs outlives the container's mount namespace for as long as the descriptor is open.
    if (collect)
        m_request.collectOutputs(Files::SourceRoot(m_outputsDir, {}, "/mnt/data/outputs"));
    m_outputsDir.reset();
    if (m_launched.workspace) {
        (void)m_launched.workspace->remove();
        m_launched.workspace.reset();
    } else if (!m_id.empty()) {
        // Its creation failed part-way: what it made is still removed.
        (void)Workspace::at(m_id).remove();
    }
    // Torn down: the destructor's call finds nothing left to do (it used to resolve the data directory and
    // look for the removed workspace again, on the way to the summary).
    m_id.clear();
}

std::optional<Cgroup::MemoryStats> PlainRun::memoryStats() const
{
    if (!m_cgroup || !m_launched.cgroupCreated)
        return std::nullopt;
    auto stats = m_cgroup->memoryStats(m_id);
    return stats ? std::optional(*stats) : std::nullopt;
}

} // namespace

Isolation::SpawnRequest spawnRequestFor(const Policy::ContainerPolicy &policy, std::uint64_t runId,
                                        std::vector<std::string> argv)
{
    Isolation::SpawnRequest spawn;
    spawn.runId = runId;
    spawn.argv = std::move(argv);
    spawn.env = Isolation::runEnvironment(hasProxy(policy), policy.env);
    spawn.cwd = Isolation::InsideWorkDir;
    const auto fileSize = static_cast<std::uint64_t>(policy.limits.workspaceMb) * MiB;
    spawn.rlimits = {{RLIMIT_CORE, 0, 0}, {RLIMIT_NOFILE, 4096, 4096}, {RLIMIT_FSIZE, fileSize, fileSize}};
    return spawn;
}

Isolation::MountPlanInput mountPlanInput(const Policy::ContainerPolicy &policy)
{
    Isolation::MountPlanInput input;
    input.tmpMb = policy.limits.tmpMb;
    input.workspaceMb = policy.limits.workspaceMb;
    input.proxyListener = hasProxy(policy);
    for (const Policy::Mount &mount : policy.mounts)
        input.mounts.push_back({mount.host, mount.target, mount.readOnly});
    return input;
}

PlainRunOutcome runPlain(const PlainRunRequest &request, const OutputSink &onOutput)
{
    if (request.secrets.empty()) {
        PlainRun run(request, onOutput);
        return run.run();
    }
    // Nothing of the output leaves unmasked: the sink gets each stream through a masker of its own (a value
    // split over two chunks is still found), the kept output and the message are masked whole.
    Secrets::SecretMasker streams[2] = {Secrets::maskerFor(request.secrets),
                                        Secrets::maskerFor(request.secrets)};
    OutputSink masked;
    if (onOutput) {
        masked = [&](int stream, std::string_view chunk) {
            const std::string passed = streams[stream == 1 ? 0 : 1].feed(chunk);
            if (!passed.empty())
                onOutput(stream, passed);
        };
    }
    PlainRun run(request, masked);
    PlainRunOutcome outcome = run.run();
    if (onOutput) {
        for (int stream : {1, 2}) {
            const std::string rest = streams[stream - 1].finish();
            if (!rest.empty())
                onOutput(stream, rest);
        }
    }
    const Secrets::SecretMasker &whole = streams[0];
    // A mask may be longer than the value it replaces: the kept output stays within the cap all the same.
    const auto cap = static_cast<std::size_t>(request.policy.limits.outputMb) * MiB;
    for (auto [data, truncated] : {std::pair{&outcome.stdoutData, &outcome.stdoutTruncated},
                                   std::pair{&outcome.stderrData, &outcome.stderrTruncated}}) {
        *data = whole.maskOutput(*data);
        if (data->size() > cap) {
            data->resize(cap);
            *truncated = true;
        }
    }
    outcome.message = whole.maskAll(outcome.message);
    return outcome;
}

} // namespace Cordon::Containers::OneShot
