// SPDX-License-Identifier: MIT
#include "containers/oneshotrun.h"

#include "containers/outputcapture.h"
#include "files/safecopy.h"
#include "isolation/seccompprofile.h"

#include <QDir>
#include <QEventLoop>
#include <QFileInfo>

#include <cerrno>
#include <csignal>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace Cordon::Containers {

namespace {

constexpr quint64 TheRun = 1;
constexpr int OutputGraceMs = 150;   // background processes may hold the pipes open after the run exits
constexpr int KillBackstopMs = 3000; // a kill that gets no exit report in this time ends the container anyway
constexpr qint64 MiB = 1024 * 1024;

class Pipe
{
public:
    ~Pipe()
    {
        for (int fd : ends)
            if (fd >= 0)
                ::close(fd);
    }
    int ends[2] = {-1, -1};
    int takeRead() { return std::exchange(ends[0], -1); }
};

Result<int> stdinFile(const std::optional<QByteArray> &data)
{
    if (!data) {
        const int fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            return failErrno(QStringLiteral("run.stdin"), QStringLiteral("open /dev/null"), errno);
        return fd;
    }
    // A sealed-size memfd holds all of stdin: the run reads it at its own pace and we never block writing.
    const int fd = ::memfd_create("cordon-stdin", MFD_CLOEXEC);
    if (fd < 0)
        return failErrno(QStringLiteral("run.stdin"), QStringLiteral("memfd_create"), errno);
    qint64 written = 0;
    while (written < data->size()) {
        const ssize_t n =
            ::write(fd, data->constData() + written, static_cast<size_t>(data->size() - written));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            const int error = errno;
            ::close(fd);
            return failErrno(QStringLiteral("run.stdin"), QStringLiteral("write stdin"), error);
        }
        written += n;
    }
    ::lseek(fd, 0, SEEK_SET);
    return fd;
}

} // namespace

OneShotRun::OneShotRun(OneShotRequest request, QObject *parent)
    : QObject(parent), m_request(std::move(request))
{
    m_timeout.setSingleShot(true);
    m_grace.setSingleShot(true);
    connect(&m_timeout, &QTimer::timeout, this, &OneShotRun::onTimeout);
    connect(&m_grace, &QTimer::timeout, this, &OneShotRun::finish);
}

OneShotRun::~OneShotRun()
{
    cleanUp();
}

Result<> OneShotRun::start()
{
    m_clock.start();
    m_outcome.policyVersion = m_request.policy.version();
    m_outcome.memoryLimitBytes = m_request.policy.memoryLimitBytes;
    if (auto prepared = prepare(); !prepared) {
        cleanUp();
        m_outcome.errorClass = ErrorClass::SetupFailed;
        m_outcome.message = prepared.error().message();
        m_outcome.setupStage = prepared.error().code();
        m_outcome.setupErrno = prepared.error().sysErrno();
        m_outcome.wallMs = m_clock.elapsed();
        m_finished = true;
        return prepared;
    }
    return {};
}

Result<> OneShotRun::prepare()
{
    const Policy::ContainerPolicy &policy = m_request.policy;
    if (m_request.command.isEmpty())
        return fail(QStringLiteral("run.no_command"), QStringLiteral("no command to run"));

    auto backend = Cgroup::detectBackend();
    if (backend) {
        m_cgroup = std::move(*backend);
        CORDON_TRY(m_cgroup->prepareSelf());
    } else if (m_request.allowDegraded) {
        m_outcome.degraded = true;
    } else {
        return fail(
            backend.error().wrap(QStringLiteral("memory and pids limits cannot be enforced on this host")));
    }

    const Isolation::IdMapping ids = Isolation::idMappingFor(::geteuid(), ::getegid());
    m_id = newContainerId();
    auto workspace = Workspace::create(m_id, ids);
    if (!workspace)
        return fail(workspace.error());
    m_workspace = std::move(*workspace);
    const Isolation::WorkspacePaths paths = m_workspace->paths();

    for (const QString &input : m_request.inputs) {
        const QString name = QFileInfo(input).fileName();
        auto imported = Files::importFile(input, paths.inputs, name);
        if (!imported)
            return fail(imported.error().wrap(QStringLiteral("copy input `%1`").arg(input)));
    }

    auto spec = Isolation::buildSandboxSpec(policy, paths, ids);
    if (!spec)
        return fail(spec.error());
    auto filter = Isolation::compileSeccompFilter({policy.allowPtrace});
    if (!filter)
        return fail(filter.error());

    if (m_cgroup) {
        CORDON_TRY(m_cgroup->create(m_id, {policy.memoryLimitBytes, policy.limits.pids}));
        m_cgroupCreated = true;
    }
    m_sandbox = std::make_unique<Isolation::Sandbox>();
    connect(m_sandbox.get(), &Isolation::Sandbox::spawned, this, &OneShotRun::onSpawned);
    connect(m_sandbox.get(), &Isolation::Sandbox::spawnFailed, this, &OneShotRun::onSpawnFailed);
    connect(m_sandbox.get(), &Isolation::Sandbox::exited, this, &OneShotRun::onExited);
    connect(m_sandbox.get(), &Isolation::Sandbox::died, this, [this] {
        if (!m_exited)
            awaitOutputThenFinish();
    });
    Isolation::Sandbox::BeforeSetup joinCgroup;
    if (m_cgroup)
        joinCgroup = [this](pid_t pid) { return m_cgroup->addProcess(m_id, pid); };
    CORDON_TRY(m_sandbox->start(*spec, joinCgroup));

    Isolation::SpawnRequest request;
    request.runId = TheRun;
    for (const QString &arg : m_request.command)
        request.argv.push_back(arg.toStdString());
    for (const QString &entry : Isolation::runEnvironment(policy))
        request.env.push_back(entry.toStdString());
    request.cwd = Isolation::InsideWorkDir;
    const std::uint64_t fileSize = static_cast<std::uint64_t>(policy.limits.workspaceMb) * MiB;
    request.rlimits = {{RLIMIT_CORE, 0, 0}, {RLIMIT_NOFILE, 4096, 4096}, {RLIMIT_FSIZE, fileSize, fileSize}};
    request.seccompBpf.assign(filter->constData(), static_cast<std::size_t>(filter->size()));

    auto input = stdinFile(m_request.stdinData);
    if (!input)
        return fail(input.error());
    Pipe out, err;
    if (::pipe2(out.ends, O_CLOEXEC) != 0 || ::pipe2(err.ends, O_CLOEXEC) != 0) {
        ::close(*input);
        return failErrno(QStringLiteral("run.pipe"), QStringLiteral("pipe2"), errno);
    }
    auto sent = m_sandbox->spawn(request, *input, out.ends[1], err.ends[1]);
    ::close(*input);
    if (!sent)
        return sent;
    const qint64 cap = static_cast<qint64>(policy.limits.outputMb) * MiB;
    m_stdout = std::make_unique<OutputCapture>(out.takeRead(), cap);
    m_stderr = std::make_unique<OutputCapture>(err.takeRead(), cap);
    connect(m_stdout.get(), &OutputCapture::received, this,
            [this](const QByteArray &chunk) { Q_EMIT outputReceived(OutputStream::Stdout, chunk); });
    connect(m_stderr.get(), &OutputCapture::received, this,
            [this](const QByteArray &chunk) { Q_EMIT outputReceived(OutputStream::Stderr, chunk); });
    for (OutputCapture *capture : {m_stdout.get(), m_stderr.get()}) {
        connect(capture, &OutputCapture::finished, this, [this] {
            if (m_exited && m_stdout->atEnd() && m_stderr->atEnd())
                finish();
        });
    }
    m_timeout.start(policy.limits.runTimeoutS * 1000);
    return {};
}

void OneShotRun::onSpawned(quint64, int) {}

void OneShotRun::onSpawnFailed(quint64, const Cordon::Error &error)
{
    m_outcome.errorClass = ErrorClass::SetupFailed;
    m_outcome.message = error.message();
    m_outcome.setupStage = error.code();
    m_outcome.setupErrno = error.sysErrno();
    m_exited = true;
    awaitOutputThenFinish();
}

void OneShotRun::onExited(const Isolation::ExitReport &report)
{
    if (report.runId != TheRun || m_exited)
        return;
    m_exited = true;
    m_timeout.stop();
    if (WIFEXITED(report.waitStatus))
        m_outcome.exitCode = WEXITSTATUS(report.waitStatus);
    else if (WIFSIGNALED(report.waitStatus))
        m_outcome.signal = WTERMSIG(report.waitStatus);
    m_outcome.cpuMs = static_cast<qint64>((report.userMicros + report.systemMicros) / 1000);
    m_outcome.peakMemoryBytes = static_cast<qint64>(report.maxRssKiB) * 1024;
    if (m_stdout->atEnd() && m_stderr->atEnd())
        finish();
    else
        awaitOutputThenFinish();
}

void OneShotRun::onTimeout()
{
    m_timedOut = true;
    if (m_sandbox)
        m_sandbox->kill(TheRun, SIGKILL);
    // The exit report normally follows at once; if PID 1 cannot deliver it, end the container regardless.
    m_grace.start(KillBackstopMs);
}

void OneShotRun::awaitOutputThenFinish()
{
    m_exited = true;
    m_timeout.stop();
    m_grace.start(OutputGraceMs);
}

void OneShotRun::finish()
{
    if (m_finished)
        return;
    m_grace.stop();
    m_timeout.stop();
    m_outcome.wallMs = m_clock.elapsed();
    if (m_cgroup && m_cgroupCreated) {
        if (auto stats = m_cgroup->memoryStats(m_id)) {
            m_outcome.peakMemoryBytes = qMax(m_outcome.peakMemoryBytes, stats->peak);
            m_outcome.oomKills = stats->oomKills;
        }
    }
    // Ending PID 1 kills every process left in the container; only then is the output complete.
    if (m_sandbox)
        m_sandbox->destroy();
    for (OutputCapture *capture : {m_stdout.get(), m_stderr.get()}) {
        if (capture)
            capture->drainAndClose();
    }
    if (m_stdout) {
        m_outcome.stdoutData = m_stdout->data();
        m_outcome.stdoutBytes = m_stdout->totalBytes();
        m_outcome.stdoutTruncated = m_stdout->truncated();
        m_outcome.stderrData = m_stderr->data();
        m_outcome.stderrBytes = m_stderr->totalBytes();
        m_outcome.stderrTruncated = m_stderr->truncated();
    }

    if (m_outcome.errorClass != ErrorClass::SetupFailed || m_outcome.setupStage.isEmpty()) {
        if (m_timedOut)
            m_outcome.errorClass = ErrorClass::Timeout;
        else if (m_outcome.oomKills > 0)
            m_outcome.errorClass = ErrorClass::Oom;
        else if (m_outcome.signal > 0 || m_outcome.exitCode < 0)
            m_outcome.errorClass = ErrorClass::Killed;
        else if (m_outcome.exitCode != 0)
            m_outcome.errorClass = ErrorClass::NonzeroExit;
        else
            m_outcome.errorClass = ErrorClass::Ok;
    }

    if (m_workspace && !m_request.outputDirectory.isEmpty()) {
        QDir().mkpath(m_request.outputDirectory);
        Files::CopyLimits limits;
        limits.maxFileBytes = static_cast<qint64>(m_request.policy.limits.workspaceMb) * MiB;
        limits.maxTotalBytes = limits.maxFileBytes;
        auto report = Files::exportTree(m_workspace->paths().outputs, m_request.outputDirectory, limits);
        if (report) {
            for (const Files::CopiedFile &file : report->copied)
                m_outcome.artifacts.append(
                    {file.relativePath, file.size, QString::fromLatin1(file.sha256Hex)});
            for (const Files::RefusedEntry &entry : report->refused)
                m_outcome.refusedArtifacts.append({entry.relativePath, entry.code, entry.reason});
        } else {
            m_outcome.message = report.error().wrap(QStringLiteral("copy outputs")).message();
        }
    }
    cleanUp();
    m_finished = true;
    Q_EMIT finished();
}

void OneShotRun::cleanUp()
{
    if (m_sandbox)
        m_sandbox->destroy();
    if (m_cgroup && m_cgroupCreated) {
        m_cgroup->destroy(m_id);
        m_cgroupCreated = false;
    }
    if (m_workspace) {
        m_workspace->remove();
        m_workspace.reset();
    }
}

RunOutcome runToCompletion(OneShotRequest request,
                           const std::function<void(OutputStream, const QByteArray &)> &onOutput)
{
    OneShotRun run(std::move(request));
    if (onOutput)
        QObject::connect(&run, &OneShotRun::outputReceived, &run, onOutput);
    if (!run.start())
        return run.outcome();
    if (!run.isFinished()) {
        QEventLoop loop;
        QObject::connect(&run, &OneShotRun::finished, &loop, &QEventLoop::quit);
        loop.exec();
    }
    return run.outcome();
}

} // namespace Cordon::Containers
