// SPDX-License-Identifier: MIT
// cordon-init, PID 1 of every container, started as the engine starts it (containerlaunch.h): it begins with
// the signal state it sets itself, whatever the engine's was; its runs, not it, are what the OOM killer
// picks; and it ends a container whose last run is over by itself, once no process is left in it, without
// waiting to be killed; a container with more runs to come, or with a process still running, it keeps.
#include "sandboxtest.h"
#include "testutil.h"

#include "sandbox/containerlaunch.h"
#include "sandbox/initadoption.h"
#include "sandbox/initlaunch.h"
#include "sandbox/initprotocol.h"
#include "sandbox/oneshotrun.h"
#include "sandbox/seccompfilters.h"

#include <QElapsedTimer>

#include <functional>

#include <csignal>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <optional>
#include <poll.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace CordonTest;
using namespace Cordon;
using Containers::OneShot::LaunchedContainer;

namespace {

// A cgroup backend that makes no group, for the start sequence's side of it: the move of cordon-init takes
// `pauseMs`, then fails or is noted; `duringMove` runs in it (a test sends its own message from there).
class ScriptedCgroup final : public Cgroup::CgroupBackend
{
public:
    int pauseMs = 0;
    bool failMove = false;
    std::function<void()> duringMove;

    Cgroup::Version version() const override { return Cgroup::Version::V2; }
    std::string describe() const override { return "scripted"; }
    Result<> prepareSelf() override { return {}; }
    Result<> create(std::string_view, const Cgroup::ResourceLimits &) override { return {}; }
    Result<> addProcess(std::string_view, pid_t) override
    {
        ::usleep(static_cast<useconds_t>(pauseMs) * 1000);
        if (duringMove)
            duringMove();
        if (failMove)
            return fail(std::string("cgroup.io"), std::string("scripted: the move failed"));
        return {};
    }
    Result<Cgroup::MemoryStats> memoryStats(std::string_view) const override
    {
        return fail(std::string("cgroup.io"), std::string("scripted: no statistics"));
    }
    Result<int> pidsCurrent(std::string_view) const override { return 0; }
    Result<std::vector<pid_t>> processes(std::string_view) const override { return std::vector<pid_t>{}; }
    Result<> killAll(std::string_view) override { return {}; }
    Result<> destroy(std::string_view) override { return {}; }
    std::vector<std::string> groupPaths(std::string_view) const override { return {}; }
};

// One container, started and set up as the one-shot run starts one (no cgroup: the limits are not under
// test here), with runs spawned on it by hand.
class Container
{
public:
    Container() = default;
    Container(const Container &) = delete;
    Container &operator=(const Container &) = delete;
    ~Container()
    {
        Isolation::killAndReap(m_launched.init);
        if (m_launched.workspace)
            (void)m_launched.workspace->remove();
    }

    // The container's seccomp program is the shipped one unless a test gives another; a cgroup backend
    // makes the start wait for its move (SetupRequest::awaitCgroup).
    QString start(std::optional<std::string> seccompBpf = std::nullopt,
                  Cgroup::CgroupBackend *cgroup = nullptr, bool survivesEngine = false)
    {
        Containers::OneShot::LaunchRequest request;
        request.survivesEngine = survivesEngine;
        request.cgroup = cgroup;
        request.id = "lifecycle" + std::to_string(::getpid()) + "x" + std::to_string(++s_started);
        request.ids = Isolation::idMappingFor(::geteuid(), ::getegid());
        request.plan = Containers::OneShot::mountPlanInput(Policy::ContainerPolicy{});
        request.seccompBpf = seccompBpf.value_or(std::string(Isolation::prebuiltSeccompFilter(false)));
        if (auto launched = Containers::OneShot::launchContainer(request, m_launched); !launched)
            return QString::fromStdString(launched.error().message());
        Isolation::SetupHandles handles;
        auto reply = Isolation::awaitSetupReply(m_launched.init, Isolation::SetupReplyTimeoutMs,
                                                Isolation::WorkspaceHandleCount, handles);
        if (!reply)
            return QString::fromStdString(reply.error().message());
        if (reply->stage != Isolation::Stage::None)
            return QString::fromStdString(Isolation::setupFailure(*reply).message());
        return {};
    }

    int control() const { return m_launched.init.control; }
    std::string root() const { return m_launched.workspace ? m_launched.workspace->root() : std::string(); }
    pid_t initPid() const { return m_launched.init.pid; }
    // The connection of an engine that adopted the container serves as its control socket from now on.
    void takeControl(int control) { m_launched.init.control = control; }

    // Starts `script` as the daemon does: cordon-init holds the read ends of stdout and stderr, and kills
    // the run itself at `deadlineMs` from now (0: none) when no engine is connected. The engine's read ends
    // stay with this object until dropEngineEnds().
    bool spawnHeld(const QString &script, std::uint64_t deadlineMs = 0)
    {
        Isolation::SpawnRequest spawn = Containers::OneShot::spawnRequestFor(
            Policy::ContainerPolicy{}, ++m_runs, {"/bin/sh", "-c", script.toStdString()});
        spawn.tag = "run-" + std::to_string(m_runs);
        spawn.holdOutput = true;
        if (deadlineMs > 0) {
            timespec now{};
            ::clock_gettime(CLOCK_MONOTONIC, &now);
            spawn.deadlineMonotonicMs =
                std::uint64_t(now.tv_sec) * 1000u + std::uint64_t(now.tv_nsec) / 1000000u + deadlineMs;
        }
        int out[2], err[2];
        if (::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0)
            return false;
        const int devNull = ::open("/dev/null", O_RDWR | O_CLOEXEC);
        const int stdio[3] = {devNull, out[1], err[1]};
        const int held[2] = {out[0], err[0]};
        const int sent = Isolation::sendSpawnRequest(m_launched.init.control, spawn, stdio, held);
        ::close(devNull);
        ::close(out[1]);
        ::close(err[1]);
        m_engineEnds.emplace_back(out[0]);
        m_engineEnds.emplace_back(err[0]);
        return sent == 0;
    }
    // What a daemon's end (a crash) takes with it: its read ends of the runs' pipes.
    void dropEngineEnds() { m_engineEnds.clear(); }
    // The engine's end of the control socket closed, as when a start is given up.
    void closeControl()
    {
        ::close(m_launched.init.control);
        m_launched.init.control = -1;
    }

    // Starts `script` under /bin/sh with stdin on /dev/null and stdout on a pipe this object reads.
    bool spawn(const QString &script, bool endsContainer)
    {
        Isolation::SpawnRequest spawn = Containers::OneShot::spawnRequestFor(
            Policy::ContainerPolicy{}, ++m_runs, {"/bin/sh", "-c", script.toStdString()});
        spawn.endsContainer = endsContainer;
        int out[2];
        if (::pipe2(out, O_CLOEXEC) != 0)
            return false;
        m_stdout.reset(out[0]);
        const int devNull = ::open("/dev/null", O_RDWR | O_CLOEXEC);
        const int stdio[3] = {devNull, out[1], devNull};
        const int sent = Isolation::sendSpawnRequest(m_launched.init.control, spawn, stdio);
        ::close(devNull);
        ::close(out[1]);
        return sent == 0;
    }

    // The run's exit report, or nothing within `timeoutMs`.
    std::optional<Isolation::ExitReport> awaitExit(int timeoutMs)
    {
        QElapsedTimer clock;
        clock.start();
        while (clock.elapsed() < timeoutMs) {
            pollfd entry{m_launched.init.control, POLLIN, 0};
            if (::poll(&entry, 1, 100) <= 0)
                continue;
            const Isolation::InitMessage message = Isolation::readInitMessage(m_launched.init.control);
            if (message.kind == Isolation::InitMessage::Kind::Exited && message.exit.runId == m_runs)
                return message.exit;
            if (message.kind == Isolation::InitMessage::Kind::Gone)
                return std::nullopt;
        }
        return std::nullopt;
    }

    QByteArray output()
    {
        QByteArray all;
        char buffer[4096];
        ssize_t n;
        while ((n = ::read(m_stdout.get(), buffer, sizeof buffer)) > 0)
            all.append(buffer, n);
        return all;
    }

    // cordon-init's wait status once it has exited by itself, or nothing if it still runs after `timeoutMs`.
    std::optional<int> awaitInitEnd(int timeoutMs)
    {
        UniqueFd pidfd(static_cast<int>(::syscall(SYS_pidfd_open, m_launched.init.pid, 0)));
        if (pidfd.get() < 0)
            return std::nullopt;
        pollfd entry{pidfd.get(), POLLIN, 0};
        if (::poll(&entry, 1, timeoutMs) != 1)
            return std::nullopt;
        int status = 0;
        if (::waitpid(m_launched.init.pid, &status, 0) != m_launched.init.pid)
            return std::nullopt;
        m_launched.init.pid = -1;
        return status;
    }

private:
    static inline int s_started = 0;
    LaunchedContainer m_launched;
    std::uint64_t m_runs = 0;
    UniqueFd m_stdout;
    std::vector<UniqueFd> m_engineEnds;
};

} // namespace

class TestInitLifecycle final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void pidOneStartsWithItsOwnSignalState()
    {
        // The engine is cloned with every signal blocked (so that none of its handlers runs in the child
        // before the exec): PID 1 must not keep that mask, nor the one its engine had, nor the signals the
        // engine ignores (they survive an exec). A blocked SIGUSR1 and an ignored SIGUSR2 here must reach
        // neither PID 1 nor the run.
        sigset_t usr1;
        sigemptyset(&usr1);
        sigaddset(&usr1, SIGUSR1);
        sigset_t previousMask;
        QCOMPARE(::pthread_sigmask(SIG_BLOCK, &usr1, &previousMask), 0);
        struct sigaction ignore
        {
        };
        ignore.sa_handler = SIG_IGN;
        struct sigaction previousAction
        {
        };
        QCOMPARE(::sigaction(SIGUSR2, &ignore, &previousAction), 0);
        const auto outcome = run(sh(QStringLiteral("grep -E '^Sig(Blk|Ign)' /proc/1/status; "
                                                   "grep -E '^Sig(Blk|Ign)' /proc/self/status")));
        ::sigaction(SIGUSR2, &previousAction, nullptr);
        ::pthread_sigmask(SIG_SETMASK, &previousMask, nullptr);
        QVERIFY2(outcome.errorClass == Containers::ErrorClass::Ok, describe(outcome));
        const QList<QByteArray> lines = outcome.stdoutData.trimmed().split('\n');
        QCOMPARE(lines.size(), 4);
        // PID 1 blocks SIGCHLD (17, bit 16) for its signalfd, and nothing else; it ignores nothing.
        QCOMPARE(lines[0].simplified(), QByteArray("SigBlk: 0000000000010000"));
        QCOMPARE(lines[1].simplified(), QByteArray("SigIgn: 0000000000000000"));
        // The run (grep) blocks and ignores nothing.
        QCOMPARE(lines[2].simplified(), QByteArray("SigBlk: 0000000000000000"));
        QCOMPARE(lines[3].simplified(), QByteArray("SigIgn: 0000000000000000"));
    }

    void theOomKillerPicksARunBeforePidOne()
    {
        // A run starts with oom_score_adj 1000 and PID 1 keeps the engine's, lower: the OOM killer picks
        // the run (and whatever it started), not the container's PID 1. (Until 2026-12-04 the run tried to
        // raise its own score, which failed: before its exec its /proc files belong to root.)
        const auto outcome = run(sh(QStringLiteral("cat /proc/self/oom_score_adj; cat /proc/1/oom_score_adj; "
                                                   "sh -c 'cat /proc/self/oom_score_adj'")));
        QVERIFY2(outcome.errorClass == Containers::ErrorClass::Ok, describe(outcome));
        const QList<QByteArray> lines = outcome.stdoutData.trimmed().split('\n');
        QCOMPARE(lines.size(), 3);
        QCOMPARE(lines[0], QByteArray("1000"));
        bool isNumber = false;
        const int pidOne = lines[1].toInt(&isNumber);
        QVERIFY2(isNumber && pidOne < 1000, lines[1]);
        QCOMPARE(lines[2], QByteArray("1000")); // what the run starts inherits it
    }

    void pidOneRunsUnderTheFilterItsRunsInherit()
    {
        // cordon-init installs the container's filter on itself at the end of its setup, and every run gets
        // it from the clone: one filter each (the kernel counts stacked ones), the same program.
        const auto outcome = run(sh(QStringLiteral("grep -E '^Seccomp' /proc/1/status /proc/self/status; "
                                                   "unshare -U true || echo refused")));
        QVERIFY2(outcome.errorClass == Containers::ErrorClass::Ok, describe(outcome));
        const QByteArray out = outcome.stdoutData;
        QVERIFY2(out.contains("/proc/1/status:Seccomp:\t2\n"), out);
        QVERIFY2(out.contains("/proc/1/status:Seccomp_filters:\t1\n"), out);
        QVERIFY2(out.contains("/proc/self/status:Seccomp:\t2\n"), out);
        QVERIFY2(out.contains("/proc/self/status:Seccomp_filters:\t1\n"), out);
        QVERIFY2(out.endsWith("refused\n"), out); // and it is the profile: unshare is denied
    }

    void aSetupWithoutAFilterIsRefused()
    {
        // No filter is no container: cordon-init refuses to serve runs unfiltered, whatever asked it to.
        for (const std::string &bad : {std::string(), std::string(5, '\x06')}) {
            Container container;
            const QString started = container.start(bad);
            QVERIFY2(started.contains(QStringLiteral("install seccomp filter")), qPrintable(started));
        }
    }

    void theSetupWaitsForTheMoveIntoItsCgroup()
    {
        // The engine moves cordon-init into the cgroup while the mount plan is applied; cordon-init must not
        // root its cgroup namespace, nor answer, nor so serve a run, before the engine says it is in. The
        // move here takes 300 ms, a setup alone a few: a reply that does not wait is on the socket by its
        // end.
        ScriptedCgroup cgroup;
        cgroup.pauseMs = 300;
        Container container;
        int answeredDuringMove = -1;
        cgroup.duringMove = [&] {
            pollfd entry{container.control(), POLLIN, 0};
            answeredDuringMove = ::poll(&entry, 1, 0);
        };
        const QString started = container.start(std::nullopt, &cgroup);
        QVERIFY2(started.isEmpty(), qPrintable(started));
        QCOMPARE(answeredDuringMove, 0);
        QVERIFY(container.spawn(QStringLiteral("echo in"), true));
        QVERIFY(container.awaitExit(10000).has_value());
        QCOMPARE(container.output(), QByteArray("in\n"));
    }

    void aSetupToldAnythingElseFails()
    {
        // Between the setup request and the reply the engine sends CgroupJoined and nothing else: any other
        // message ends the setup at its own stage, and a start given up (the socket closed) ends cordon-init.
        ScriptedCgroup cgroup;
        Container wrong;
        cgroup.duringMove = [&] {
            Isolation::sendMessage(wrong.control(), Isolation::encode(Isolation::KillRequest{1, 9, true}));
        };
        const QString refused = wrong.start(std::nullopt, &cgroup);
        QVERIFY2(refused.contains(QStringLiteral("wait to be in the container's cgroup")),
                 qPrintable(refused));

        ScriptedCgroup failing;
        failing.failMove = true;
        Container abandoned;
        const QString failed = abandoned.start(std::nullopt, &failing);
        QVERIFY2(failed.contains(QStringLiteral("scripted: the move failed")), qPrintable(failed));
        abandoned.closeControl();
        const auto ended = abandoned.awaitInitEnd(10000);
        QVERIFY2(ended.has_value(), "cordon-init still runs after its start was given up");
        QVERIFY2(WIFEXITED(*ended) && WEXITSTATUS(*ended) == 2, qPrintable(QString::number(*ended)));
    }

    void theLastRunEndsTheContainer()
    {
        Container container;
        const QString started = container.start();
        QVERIFY2(started.isEmpty(), qPrintable(started));
        QVERIFY(container.spawn(QStringLiteral("echo done"), true));
        const auto exit = container.awaitExit(10000);
        QVERIFY(exit.has_value());
        QVERIFY(WIFEXITED(exit->waitStatus) && WEXITSTATUS(exit->waitStatus) == 0);
        // Nobody kills it: it exits, with status 0, on its own.
        const auto ended = container.awaitInitEnd(10000);
        QVERIFY2(ended.has_value(), "cordon-init still runs after the container's last run");
        QVERIFY2(WIFEXITED(*ended) && WEXITSTATUS(*ended) == 0, qPrintable(QString::number(*ended)));
        QCOMPARE(container.output(), QByteArray("done\n"));
    }

    void aContainerWithRunsToComeIsKept()
    {
        Container container;
        const QString started = container.start();
        QVERIFY2(started.isEmpty(), qPrintable(started));
        QVERIFY(container.spawn(QStringLiteral("true"), false));
        QVERIFY(container.awaitExit(10000).has_value());
        QVERIFY2(!container.awaitInitEnd(500).has_value(), "cordon-init ended a container the engine keeps");
        // It still serves runs.
        QVERIFY(container.spawn(QStringLiteral("echo again"), false));
        QVERIFY(container.awaitExit(10000).has_value());
        QCOMPARE(container.output(), QByteArray("again\n"));
    }

    // A one-shot container (the default) ends with its engine: a closed control socket is its end.
    void aOneShotContainerEndsWithItsEngine()
    {
        Container container;
        const QString started = container.start();
        QVERIFY2(started.isEmpty(), qPrintable(started));
        QVERIFY(container.spawn(QStringLiteral("sleep 30"), false));
        container.closeControl();
        QVERIFY(container.awaitInitEnd(5000).has_value());
    }

    // The daemon's containers outlive it: with the engine gone (its control socket and its read ends of
    // the pipes closed, as a kill -9 leaves them), cordon-init keeps the runs going, drains what they write
    // (more than a pipe holds, so a run would block without it), reaps them, kills one at its deadline,
    // and hands all of it to the next engine, whose connection then serves as the control socket.
    void aContainerOutlivesItsEngineAndIsAdoptedWithItsRuns()
    {
        Container container;
        const QString started = container.start(std::nullopt, nullptr, true);
        QVERIFY2(started.isEmpty(), qPrintable(started));
        QVERIFY(container.spawnHeld(
            QStringLiteral("printf first; sleep 0.3; head -c 300000 /dev/zero | tr '\\0' x; "
                           "echo tail >&2; exit 7")));
        QVERIFY(container.spawnHeld(QStringLiteral("echo waiting; exec sleep 60"), 700));
        QVERIFY(container.spawnHeld(QStringLiteral("echo still; exec sleep 60")));
        // Both replies are read before the engine goes, as a daemon would have.
        for (int i = 0; i < 3; ++i) {
            pollfd entry{container.control(), POLLIN, 0};
            QVERIFY(::poll(&entry, 1, 5000) == 1);
            QCOMPARE(Isolation::readInitMessage(container.control()).kind,
                     Isolation::InitMessage::Kind::Spawned);
        }
        container.closeControl();
        container.dropEngineEnds();
        QVERIFY2(!container.awaitInitEnd(2000).has_value(), "cordon-init ended with its engine");

        auto adopted = Isolation::adoptInit(container.root(), 5000);
        QVERIFY_RESULT(adopted);
        QVERIFY(adopted->compatible);
        QCOMPARE(adopted->protocolVersion, Isolation::InitProtocolVersion);
        QCOMPARE(adopted->init.pid, container.initPid());
        QCOMPARE(adopted->handedBack.size(), std::size_t(Isolation::WorkspaceHandleCount));
        QCOMPARE(adopted->runs.size(), std::size_t(3));

        const Isolation::AdoptedRun &ended = adopted->runs[0];
        QCOMPARE(ended.state.tag, std::string("run-1"));
        QVERIFY(ended.state.exited);
        QVERIFY(WIFEXITED(ended.state.waitStatus));
        QCOMPARE(WEXITSTATUS(ended.state.waitStatus), 7);
        QCOMPARE(ended.stdoutHeld.size(), std::size_t(5 + 300000));
        QVERIFY(ended.stdoutHeld.starts_with("firstxxx"));
        QCOMPARE(ended.stderrHeld, std::string("tail\n"));
        QVERIFY(!ended.stdoutRead.isValid()); // read to its end by cordon-init
        QCOMPARE(ended.state.stdoutDropped, 0u);

        const Isolation::AdoptedRun &killed = adopted->runs[1];
        QVERIFY(killed.state.exited);
        QVERIFY(killed.state.timedOut);
        QVERIFY(WIFSIGNALED(killed.state.waitStatus));
        QCOMPARE(WTERMSIG(killed.state.waitStatus), SIGKILL);
        QCOMPARE(killed.stdoutHeld, std::string("waiting\n"));

        const Isolation::AdoptedRun &running = adopted->runs[2];
        QVERIFY(!running.state.exited);
        QCOMPARE(running.stdoutHeld, std::string("still\n"));
        QVERIFY(running.stdoutRead.isValid()); // the pipe is this engine's to read from now on

        // The adopting connection is the control socket now: collect the ended runs, kill the last one.
        container.takeControl(adopted->init.control);
        adopted->init.control = -1;
        QCOMPARE(Isolation::sendRunCollected(container.control(), 1), 0);
        QCOMPARE(Isolation::sendRunCollected(container.control(), 2), 0);
        Isolation::KillRequest kill;
        kill.runId = 3;
        QCOMPARE(Isolation::sendMessage(container.control(), Isolation::encode(kill)), 0);
        pollfd entry{container.control(), POLLIN, 0};
        QVERIFY(::poll(&entry, 1, 5000) == 1);
        const Isolation::InitMessage exited = Isolation::readInitMessage(container.control());
        QCOMPARE(exited.kind, Isolation::InitMessage::Kind::Exited);
        QCOMPARE(exited.exit.runId, 3u);
        ::close(adopted->init.pidfd);
        adopted->init.pidfd = -1;

        // Gone again, adopted again: only the run not collected is still held.
        container.closeControl();
        auto again = Isolation::adoptInit(container.root(), 5000);
        QVERIFY_RESULT(again);
        QCOMPARE(again->runs.size(), std::size_t(1));
        QCOMPARE(again->runs[0].state.runId, 3u);
        QVERIFY(again->runs[0].state.exited);
        container.takeControl(again->init.control);
        again->init.control = -1;
        ::close(again->init.pidfd);
        again->init.pidfd = -1;
    }

    // Only an Adopt opens the hand-over: a connection that says anything else is closed, and the next
    // engine is served as if it had never been.
    void aStrangerOnTheAdoptionSocketGetsNothing()
    {
        Container container;
        const QString started = container.start(std::nullopt, nullptr, true);
        QVERIFY2(started.isEmpty(), qPrintable(started));
        container.closeControl();
        UniqueFd directory(::open(container.root().c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
        QVERIFY(directory.isValid());
        const std::string path =
            "/proc/self/fd/" + std::to_string(directory.get()) + '/' + Isolation::AdoptionSocketName;
        UniqueFd stranger(::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0));
        sockaddr_un address{};
        address.sun_family = AF_UNIX;
        std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
        QCOMPARE(::connect(stranger.get(), reinterpret_cast<const sockaddr *>(&address), sizeof address), 0);
        Isolation::KillRequest notAdopt;
        QCOMPARE(Isolation::sendMessage(stranger.get(), Isolation::encode(notAdopt)), 0);
        char byte = 0;
        pollfd entry{stranger.get(), POLLIN, 0};
        QVERIFY(::poll(&entry, 1, 5000) == 1);
        QCOMPARE(::recv(stranger.get(), &byte, 1, 0), ssize_t(0)); // closed without a word

        auto adopted = Isolation::adoptInit(container.root(), 5000);
        QVERIFY_RESULT(adopted);
        QVERIFY(adopted->compatible);
        container.takeControl(adopted->init.control);
        adopted->init.control = -1;
        ::close(adopted->init.pidfd);
        adopted->init.pidfd = -1;
    }

    void aProcessLeftBehindKeepsTheContainerUntilItEnds()
    {
        // The run is over, but a process it started in the background still runs and writes: the container
        // stays until that process is gone too, and what it wrote is kept.
        Container container;
        const QString started = container.start();
        QVERIFY2(started.isEmpty(), qPrintable(started));
        QVERIFY(container.spawn(QStringLiteral("(sleep 1; echo late) & echo first"), true));
        QVERIFY(container.awaitExit(10000).has_value());
        QVERIFY2(!container.awaitInitEnd(300).has_value(), "cordon-init ended with a process left in it");
        const auto ended = container.awaitInitEnd(10000);
        QVERIFY2(ended.has_value(), "cordon-init still runs after the last process ended");
        QVERIFY(WIFEXITED(*ended) && WEXITSTATUS(*ended) == 0);
        QCOMPARE(container.output(), QByteArray("first\nlate\n"));
    }
};

CORDON_SANDBOX_TEST_MAIN(TestInitLifecycle)
#include "tst_initlifecycle.moc"
