// SPDX-License-Identifier: MIT
#include "containers/oneshotrun.h"

#include "files/safecopy.h"

#include <QDir>
#include <QEventLoop>
#include <QFileInfo>

#include <future>

#include <unistd.h>

namespace Cordon::Containers {

namespace {
constexpr qint64 MiB = 1024 * 1024;
} // namespace

OneShotRun::OneShotRun(OneShotRequest request, QObject *parent)
    : QObject(parent), m_request(std::move(request))
{}

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

    const QString id = newContainerId();
    m_container = std::make_unique<Container>(id, m_request.policy, m_cgroup.get());
    m_container->disableCodeRuns();
    // Inputs go into the workspace before the container starts (which then reuses it): the run is queued
    // behind the setup request and starts as soon as the container is set up.
    if (!m_request.inputs.isEmpty()) {
        const auto layout = Workspace::Layout::CommandsOnly;
        auto workspace = Workspace::create(id, Isolation::idMappingFor(::geteuid(), ::getegid()), layout);
        if (!workspace)
            return fail(workspace.error());
        for (const QString &input : m_request.inputs) {
            auto imported =
                Files::importFile(input, workspace->paths(layout).inputs, QFileInfo(input).fileName());
            if (!imported)
                return fail(imported.error().wrap(QStringLiteral("copy input `%1`").arg(input)));
        }
    }

    ExecRequest exec;
    exec.command = m_request.command;
    exec.stdinData = m_request.stdinData;
    auto run = m_container->startAndExec(QStringLiteral("run"), exec);
    if (!run)
        return fail(run.error());
    connect(m_container.get(), &Container::runOutput, this,
            [this](const QString &, OutputStream stream, const QByteArray &chunk) {
                Q_EMIT outputReceived(stream, chunk);
            });
    // The container is torn down in finish(), so that must not happen inside its own signal: take the outcome
    // now, and finish from the event loop.
    connect(m_container.get(), &Container::runFinished, this, [this](ContainerRun *finishedRun) {
        const RunOutcome outcome = finishedRun->outcome();
        QMetaObject::invokeMethod(
            this, [this, outcome] { finish(outcome); }, Qt::QueuedConnection);
    });
    return {};
}

void OneShotRun::finish(const RunOutcome &runOutcome)
{
    if (m_finished)
        return;
    const QString policyVersion = m_outcome.policyVersion;
    const bool degraded = m_outcome.degraded;
    m_outcome = runOutcome;
    m_outcome.policyVersion = policyVersion;
    m_outcome.degraded = degraded;
    m_outcome.memoryLimitBytes = m_request.policy.memoryLimitBytes;
    if (auto stats = m_container->memoryStats())
        m_outcome.peakMemoryBytes = qMax(m_outcome.peakMemoryBytes, stats->peak);
    // With nothing to copy out, the workspace is removed on a thread while the kernel tears the container
    // down and stop() reaps it and removes its cgroup: SIGKILL to its PID 1 ends every process in it, and a
    // directory that is a mount point only in another mount namespace may be removed. (On ext4 most of a
    // removal is the inode eviction at the last close, about 1 ms for a workspace.) Whatever a dying process
    // still wrote in between is removed after stop(), by cleanUp().
    std::future<Result<>> removal;
    if (m_request.outputDirectory.isEmpty()) {
        m_container->beginStop();
        removal = std::async(std::launch::async,
                             [workspace = m_container->workspace()] { return workspace.remove(); });
    }
    // Stopping ends every process left in the container before its files are copied out.
    m_container->stop(QStringLiteral("the run finished"));
    if (removal.valid())
        removal.wait();
    m_outcome.wallMs = m_clock.elapsed();

    if (!m_request.outputDirectory.isEmpty()) {
        QDir().mkpath(m_request.outputDirectory);
        Files::CopyLimits limits;
        limits.maxFileBytes = static_cast<qint64>(m_request.policy.limits.workspaceMb) * MiB;
        limits.maxTotalBytes = limits.maxFileBytes;
        auto report =
            Files::exportTree(m_container->workspace().paths().outputs, m_request.outputDirectory, limits);
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
    if (!m_container)
        return;
    m_container->disconnect(this);
    m_container->stop(QStringLiteral("the run finished"));
    m_container->wipe();
    m_container.reset();
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
