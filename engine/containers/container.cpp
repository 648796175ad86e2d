// SPDX-License-Identifier: MIT
#include "containers/container.h"

#include "core/plainbridge.h"

#include "containers/oneshotrun.h"
#include "sandbox/containerlaunch.h"
#include "sandbox/seccompfilters.h"
#include "sandbox/weakening.h"

#include "core/fdio.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <ctime>
#include <fcntl.h>
#include <future>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

namespace Cordon::Containers {

namespace {

constexpr qint64 MiB = 1024 * 1024;
// SIGKILL ends a process at once; what may take longer is a process in an uninterruptible wait.
constexpr int EndProcessesWaitMs = 5000;

std::uint64_t monotonicMs()
{
    timespec now{};
    ::clock_gettime(CLOCK_MONOTONIC, &now);
    return std::uint64_t(now.tv_sec) * 1000u + std::uint64_t(now.tv_nsec) / 1000000u;
}

struct Language
{
    const char *name;
    const char *extension;
    const char *interpreter;
};

constexpr Language Languages[] = {
    {"python", "py", "/usr/bin/python3"},
    {"bash", "sh", "/bin/bash"},
    {"node", "js", "/usr/bin/node"},
};

Result<> writeNewFile(const QString &path, const QByteArray &contents)
{
    const QByteArray encoded = QFile::encodeName(path);
    const int fd = ::open(encoded.constData(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0)
        return failErrno(QStringLiteral("run.code"), QStringLiteral("create `%1`").arg(path), errno);
    if (const int error = writeAll(fd, contents); error != 0) {
        ::close(fd);
        return failErrno(QStringLiteral("run.code"), QStringLiteral("write `%1`").arg(path), error);
    }
    ::close(fd);
    return {};
}

// Saves the workspace tmpfs (through the descriptors cordon-init handed back) to the host's copy. With a
// manifest (the container's, kept from one save of the same tmpfs to the next), files unchanged since the
// last save are linked from it instead of copied, and the copy is made durable (synced before it replaces
// the previous one): what a checkpoint or a stop says is kept survives a power loss.
WorkspaceSave saveWorkspace(const Workspace &workspace, int workspaceDir, int outputsDir, int workspaceMb,
                            WorkspaceManifest *manifest = nullptr)
{
    Files::MirrorLimits limits;
    limits.maxBytes = std::int64_t(workspaceMb) * MiB;
    limits.maxEntries = Isolation::workspaceInodes(workspaceMb);
    limits.durable = manifest != nullptr;
    // A root daemon runs the container as an unprivileged uid, which must own what it restores next time.
    const Isolation::IdMapping ids = Isolation::idMappingFor(::geteuid(), ::getegid());
    if (ids.hostUid != ::geteuid())
        limits.owner = std::make_pair(uid_t(ids.hostUid), gid_t(ids.hostGid));
    QElapsedTimer timer;
    timer.start();
    WorkspaceSave save;
    const auto report = workspace.save(workspaceDir, outputsDir, limits, manifest);
    save.milliseconds = timer.elapsed();
    if (!report) {
        save.error = toQt(report.error().message());
        return save;
    }
    save.saved = true;
    save.files = report->files;
    save.directories = report->directories;
    save.symlinks = report->symlinks;
    save.bytes = report->bytes;
    save.leftOut = report->leftOut;
    for (const std::string &example : report->examples)
        save.examples.append(toQt(example));
    return save;
}

// What a test build that removes the seccomp filter installs instead (sandbox/weakening.h): one instruction,
// allow. The kernel still reports a filter (Seccomp: 2), so only a call the profile denies tells them apart.
std::string allowEverythingFilter()
{
    const sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    return std::string(reinterpret_cast<const char *>(&allow), sizeof allow);
}

} // namespace

QString containerStateName(ContainerState state)
{
    switch (state) {
    case ContainerState::Running:
        return QStringLiteral("running");
    case ContainerState::Stopped:
        return QStringLiteral("stopped");
    case ContainerState::Expired:
        return QStringLiteral("expired");
    case ContainerState::Deleted:
        return QStringLiteral("deleted");
    }
    return {};
}

std::optional<ContainerState> containerStateFromName(const QString &name)
{
    for (ContainerState state : {ContainerState::Running, ContainerState::Stopped, ContainerState::Expired,
                                 ContainerState::Deleted}) {
        if (containerStateName(state) == name)
            return state;
    }
    return std::nullopt;
}

Container::Container(QString id, Policy::ContainerPolicy policy, Cgroup::CgroupBackend *cgroup,
                     QObject *parent)
    : QObject(parent), m_id(std::move(id)), m_policy(std::move(policy)), m_cgroup(cgroup)
{}

Container::~Container()
{
    disconnect(); // whoever listened may be going away with us; the save itself still happens
    stop(QStringLiteral("the daemon is shutting down"));
    finishPendingSave();
    finishPendingCheckpoint();
    endSavingInit();
}

Result<> Container::start()
{
    if (m_state == ContainerState::Running)
        return {};
    CORDON_TRY(beginStart());
    if (auto ready = m_sandbox->awaitSetUp(Isolation::setupReplyTimeoutMs(m_policy.limits.workspaceMb));
        !ready) {
        releaseSandbox(WorkspaceOnStop::Discard);
        return ready;
    }
    std::vector<UniqueFd> dirs = m_sandbox->takeWorkspaceDirs();
    m_workspaceDir = std::make_shared<const UniqueFd>(std::move(dirs.at(Isolation::WorkspaceRootHandle)));
    m_outputsDir = std::make_shared<const UniqueFd>(std::move(dirs.at(Isolation::OutputsHandle)));
    m_state = ContainerState::Running;
    makeSpoolDirectory();
    return {};
}

Result<> Container::beginStart()
{
    // A death whose release is still queued: its workspace is saved first, or this start would restore the
    // copy from before it.
    if (m_sandbox)
        releaseSandbox(WorkspaceOnStop::Save);
    CORDON_TRY(saveAgainIfFailed()); // the start restores what the last stop saved
    if (m_state == ContainerState::Expired || m_state == ContainerState::Deleted)
        return fail(QStringLiteral("container.gone"),
                    QStringLiteral("container %1 is %2: its files are gone, create a new one")
                        .arg(m_id, containerStateName(m_state)));

    m_sandbox = std::make_unique<Isolation::Sandbox>();
    connectSandbox();
    if (auto sent = launchAndSendSetup(Isolation::idMappingFor(::geteuid(), ::getegid())); !sent) {
        releaseSandbox(WorkspaceOnStop::Discard);
        return sent;
    }
    return {};
}

void Container::connectSandbox()
{
    connect(m_sandbox.get(), &Isolation::Sandbox::spawnFailed, this,
            [this](quint64 wireId, const Error &error) {
                if (ContainerRun *run = findByWireId(wireId))
                    run->onSpawnFailed(error);
            });
    connect(m_sandbox.get(), &Isolation::Sandbox::exited, this, [this](const Isolation::ExitReport &report) {
        if (ContainerRun *run = findByWireId(report.runId))
            run->onExited(report);
    });
    connect(m_sandbox.get(), &Isolation::Sandbox::died, this, [this] {
        const bool oom = memoryStats().value_or(Cgroup::MemoryStats{}).oomKills > 0;
        for (ContainerRun *run : m_runs.values())
            run->abandon(oom ? ErrorClass::Oom : ErrorClass::Killed,
                         QStringLiteral("the container's PID 1 died"));
        m_state = ContainerState::Stopped;
        // We are inside the sandbox's own signal: release it from the event loop (unless a start did first).
        QMetaObject::invokeMethod(
            this,
            [this, dying = m_sandbox.get()] {
                if (m_sandbox.get() == dying)
                    releaseSandbox(WorkspaceOnStop::Save);
            },
            Qt::QueuedConnection);
        Q_EMIT died();
    });
}

Result<Adoption> Container::adopt(const ClaimRun &claim, const QString &refusal)
{
    if (m_state == ContainerState::Running)
        return Adoption{};
    auto adopted = Isolation::adoptInit(workspace().root(), Isolation::SetupReplyTimeoutMs);
    if (!adopted)
        return fail(adopted.error());
    // The process that answered must be the container's PID 1, in its cgroup where every process of the
    // container is, before its directories are trusted for anything, a save included.
    if (auto member = answeredFromItsCgroup(adopted->init.pid); !member)
        return fail(member.error());
    if (!refusal.isEmpty()) {
        saveAndEnd(*adopted);
        return fail(
            QStringLiteral("container.adoption_refused"),
            QStringLiteral("container %1 cannot be adopted: %2; its files were saved and it was started "
                           "again")
                .arg(m_id, refusal));
    }
    if (!adopted->compatible) {
        saveAndEnd(*adopted);
        return fail(
            QStringLiteral("container.adoption_refused"),
            QStringLiteral("container %1 runs a cordon-init that speaks protocol version %2, and this "
                           "daemon speaks %3 to %4: its files were saved and it was started again")
                .arg(m_id)
                .arg(adopted->protocolVersion)
                .arg(Isolation::MinAdoptableProtocol)
                .arg(Isolation::InitProtocolVersion));
    }
    m_cgroupCreated = m_cgroup != nullptr;
    m_sandbox = std::make_unique<Isolation::Sandbox>();
    connectSandbox();
    m_sandbox->adoptRunning(*adopted);
    std::vector<UniqueFd> dirs = m_sandbox->takeWorkspaceDirs();
    if (dirs.size() > Isolation::OutputsHandle) {
        m_workspaceDir = std::make_shared<const UniqueFd>(std::move(dirs.at(Isolation::WorkspaceRootHandle)));
        m_outputsDir = std::make_shared<const UniqueFd>(std::move(dirs.at(Isolation::OutputsHandle)));
    }
    m_state = ContainerState::Running;
    makeSpoolDirectory();

    Adoption adoption;
    adoption.protocolVersion = int(adopted->protocolVersion);
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    for (Isolation::AdoptedRun &held : adopted->runs) {
        m_nextWireId = qMax(m_nextWireId, held.state.runId + 1);
        const QString runId = toQt(held.state.tag);
        const std::optional<KnownRun> known = runId.isEmpty() ? std::nullopt : claim(runId);
        if (!known) {
            // Spawned but never recorded (the daemon before ended between the two): nobody could see or
            // stop it, so it ends before cordon-init lets go of it.
            if (!held.state.exited)
                (void)m_sandbox->kill(held.state.runId, SIGKILL);
            m_sandbox->collected(held.state.runId);
            ++adoption.runsForgotten;
            continue;
        }
        const qint64 outputCap =
            weakened(Guarantee::OutputCap) ? 1024 * MiB : static_cast<qint64>(m_policy.limits.outputMb) * MiB;
        const int timeoutMs =
            weakened(Guarantee::RunTimeout) ? 24 * 3600 * 1000 : m_policy.limits.runTimeoutS * 1000;
        auto *run = new ContainerRun(
            runId, held.state.runId, outputCap, timeoutMs, [this] { return memoryStats(); }, this);
        run->setCommand(known->command);
        run->setSpoolDirectory(m_spoolDirectory);
        run->setWorkspaceUsage([this] { return workspaceBytes(); });
        if (!weakened(Guarantee::OutputMasking))
            run->setSecretMasker(known->masker);
        m_runs.insert(runId, run);
        watchRun(run);
        ++adoption.runsAdopted;
        run->adopt(*m_sandbox, held, qMax<qint64>(0, now - known->startedAtMs));
    }
    return adoption;
}

void Container::saveAndEnd(Isolation::AdoptedInit &adopted)
{
    if (adopted.handedBack.size() > Isolation::OutputsHandle) {
        // Every process first, so that the tree saved is the one they left.
        Isolation::InitProcess init = std::exchange(adopted.init, Isolation::InitProcess{});
        Isolation::killAndReap(init);
        Q_EMIT workspaceSaved(
            saveWorkspace(workspace(), adopted.handedBack[Isolation::WorkspaceRootHandle].get(),
                          adopted.handedBack[Isolation::OutputsHandle].get(), m_policy.limits.workspaceMb));
    }
    Isolation::killAndReap(adopted.init);
    if (m_cgroup)
        (void)m_cgroup->destroy(m_id.toStdString());
}

// The start sequence of every container (Containers::OneShot::launchContainer()); the sandbox takes over the
// cordon-init it started.
Result<> Container::launchAndSendSetup(const Isolation::IdMapping &ids)
{
    OneShot::LaunchRequest launch;
    launch.id = m_id.toStdString();
    launch.ids = ids;
    launch.layout = Workspace::Layout::Container;
    launch.cgroup = m_cgroup;
    launch.limits = {weakened(Guarantee::MemoryLimit) ? 0 : m_policy.memoryLimitBytes,
                     weakened(Guarantee::PidsLimit) ? 0 : m_policy.limits.pids};
    launch.replaceStaleGroup = true; // a group left by a daemon that was killed
    launch.survivesEngine = true;
    launch.plan = OneShot::mountPlanInput(m_policy);
    launch.trustBundlePem = m_trustBundlePem;
    launch.seccompBpf = weakened(Guarantee::SeccompFilter)
                            ? allowEverythingFilter()
                            : std::string(Isolation::prebuiltSeccompFilter(m_policy.allowPtrace));
    OneShot::LaunchedContainer launched;
    const Result<> sent = OneShot::launchContainer(launch, launched);
    m_sandbox->adopt(launched.init);
    m_cgroupCreated = launched.cgroupCreated;
    if (!sent)
        return fail(sent.error());
    return {};
}

void Container::stop(const QString &reason, WorkspaceOnStop then)
{
    for (ContainerRun *run : m_runs.values())
        run->abandon(ErrorClass::Killed, reason);
    releaseSandbox(then);
    if (m_state == ContainerState::Running)
        m_state = ContainerState::Stopped;
}

// A stop that keeps the files ends every process but cordon-init first, and saves while cordon-init still
// holds the container: a daemon that ends during the save leaves a container the next one can adopt and
// finish saving (recoverInterruptedSave()), instead of a tmpfs gone with the save half done. Every other
// end (an expiry, a deletion, a PID 1 that died) kills cordon-init at once; its pid namespace ends with it,
// so the tree saved is the one the processes left, and the tmpfs lives on in our descriptors until they are
// closed.
void Container::releaseSandbox(WorkspaceOnStop then)
{
    const bool save = m_workspaceDir && m_outputsDir && then == WorkspaceOnStop::Save;
    if (m_sandbox) {
        m_sandbox->disconnect(this);
        if (save && m_sandbox->isRunning() && m_sandbox->endProcesses(EndProcessesWaitMs))
            m_savingSandbox = std::move(m_sandbox);
        else
            m_sandbox->destroy();
        m_sandbox.reset();
    }
    if (save)
        startSave();
    m_workspaceDir.reset();
    m_outputsDir.reset();
    if (!m_savingSandbox)
        releaseCgroup();
}

void Container::releaseCgroup()
{
    if (m_cgroup && m_cgroupCreated) {
        m_cgroup->destroy(m_id.toStdString());
        m_cgroupCreated = false;
    }
}

void Container::endSavingInit()
{
    if (!m_savingSandbox)
        return;
    m_savingSandbox->destroy();
    m_savingSandbox.reset();
    if (!m_sandbox)
        releaseCgroup();
}

Result<bool> Container::recoverInterruptedSave()
{
    auto adopted = Isolation::adoptInit(workspace().root(), Isolation::SetupReplyTimeoutMs);
    if (!adopted)
        return adopted.error().code() == "sandbox.not_adoptable" ? Result<bool>(false)
                                                                 : fail(adopted.error());
    CORDON_TRY(answeredFromItsCgroup(adopted->init.pid));
    saveAndEnd(*adopted);
    return true;
}

Result<> Container::answeredFromItsCgroup(pid_t pid) const
{
    if (!m_cgroup)
        return {};
    const auto members = m_cgroup->processes(m_id.toStdString());
    if (members && std::find(members->begin(), members->end(), pid) != members->end())
        return {};
    return fail(
        QStringLiteral("container.adoption_refused"),
        QStringLiteral("the process that answered on container %1's adoption socket (pid %2) is not in its "
                       "cgroup: it is not the container's PID 1")
            .arg(m_id)
            .arg(pid));
}

Result<Files::SourceRoot> Container::filesRoot(const QString &scope) const
{
    const WorkspacePaths paths = workspace().paths();
    if (scope == QLatin1String("inputs"))
        return Files::SourceRoot(paths.inputs);
    // Running, or stopped with its save still under way: the tmpfs is where the files are.
    const auto outputs = m_outputsDir ? m_outputsDir : m_savingOutputsDir;
    const auto work = m_workspaceDir ? m_workspaceDir : m_savingWorkspaceDir;
    if (scope.isEmpty() || scope == QLatin1String("outputs"))
        return outputs ? Files::SourceRoot(outputs, {}, Isolation::InsideOutputsDir)
                       : Files::SourceRoot(paths.outputs);
    if (scope == QLatin1String("workspace"))
        return work ? Files::SourceRoot(work, {}, Isolation::InsideWorkDir) : Files::SourceRoot(paths.work);
    return fail(QStringLiteral("files.invalid_scope"),
                QStringLiteral("unknown scope `%1`: use inputs, outputs or workspace").arg(scope));
}

// On a thread of its own: a large workspace takes seconds to copy (about 1.8 s per GB on the development
// machine), and the daemon's loop serves every other client meanwhile. The descriptors travel with the job
// and keep the tmpfs alive until it is done; until then the container's files are read through them.
void Container::startSave()
{
    finishPendingSave();
    finishPendingCheckpoint(); // one writer of the host's copy at a time
    m_savingWorkspaceDir = m_workspaceDir;
    m_savingOutputsDir = m_outputsDir;
    const quint64 generation = ++m_saveGeneration;
    // The last save of this tmpfs, durable as the checkpoints are: what they saved is linked, not copied
    // again.
    m_pendingSave =
        std::async(std::launch::async, [this, generation, workspace = workspace(), dir = m_workspaceDir,
                                        outputs = m_outputsDir, workspaceMb = m_policy.limits.workspaceMb,
                                        manifest = m_manifest ? std::exchange(m_manifest, {})
                                                              : std::make_shared<WorkspaceManifest>()] {
            WorkspaceSave save =
                saveWorkspace(workspace, dir->get(), outputs->get(), workspaceMb, manifest.get());
            // Posted before the result is ready, and finishPendingSave() waits for the result: `this` is
            // alive. A later save's job is not waited for by this one's notice.
            QMetaObject::invokeMethod(
                this,
                [this, generation] {
                    if (generation == m_saveGeneration)
                        finishPendingSave();
                },
                Qt::QueuedConnection);
            return save;
        });
}

bool Container::checkpoint()
{
    if (m_state != ContainerState::Running || !m_workspaceDir || !m_outputsDir ||
        m_pendingCheckpoint.valid() || m_pendingSave.valid())
        return false;
    if (!m_manifest)
        m_manifest = std::make_shared<WorkspaceManifest>();
    m_pendingCheckpoint = std::async(
        std::launch::async, [this, workspace = workspace(), dir = m_workspaceDir, outputs = m_outputsDir,
                             workspaceMb = m_policy.limits.workspaceMb, manifest = m_manifest] {
            WorkspaceSave save =
                saveWorkspace(workspace, dir->get(), outputs->get(), workspaceMb, manifest.get());
            // Posted before the result is ready, and finishPendingCheckpoint() waits for it: `this` is alive.
            QMetaObject::invokeMethod(
                this, [this] { finishPendingCheckpoint(); }, Qt::QueuedConnection);
            return save;
        });
    return true;
}

std::optional<WorkspaceSave> Container::checkpointNow()
{
    finishPendingCheckpoint();
    if (m_state != ContainerState::Running || !m_workspaceDir || !m_outputsDir || m_pendingSave.valid())
        return std::nullopt;
    if (!m_manifest)
        m_manifest = std::make_shared<WorkspaceManifest>();
    return saveWorkspace(workspace(), m_workspaceDir->get(), m_outputsDir->get(), m_policy.limits.workspaceMb,
                         m_manifest.get());
}

void Container::finishPendingCheckpoint()
{
    if (!m_pendingCheckpoint.valid())
        return;
    const WorkspaceSave save = m_pendingCheckpoint.get();
    if (!save.saved)
        Q_EMIT checkpointFailed(save.error);
}

void Container::finishPendingSave()
{
    if (!m_pendingSave.valid())
        return;
    const WorkspaceSave save = m_pendingSave.get(); // waits while the copy is still under way
    // A save that failed keeps the cordon-init too, which holds the tmpfs beside our descriptors: a daemon
    // that ends before the next try leaves it to the next daemon (recoverInterruptedSave()).
    if (save.saved)
        endSavingInit();
    // A failed save keeps the tmpfs (in memory, through our descriptors) so that nothing is lost: the next
    // start saves again before it restores, and refuses to start on the old copy if that fails too.
    if (save.saved) {
        m_savingWorkspaceDir.reset();
        m_savingOutputsDir.reset();
    }
    Q_EMIT workspaceSaved(save);
}

Result<> Container::saveAgainIfFailed()
{
    finishPendingSave();
    if (!m_savingWorkspaceDir || !m_savingOutputsDir)
        return {};
    const WorkspaceSave save = saveWorkspace(workspace(), m_savingWorkspaceDir->get(),
                                             m_savingOutputsDir->get(), m_policy.limits.workspaceMb);
    Q_EMIT workspaceSaved(save);
    if (save.saved)
        endSavingInit();
    if (!save.saved)
        return fail(
            QStringLiteral("container.save_failed"),
            QStringLiteral("the files of container %1 could not be saved when it stopped, nor now (%2); "
                           "they are kept in memory: free space where Cordon keeps its data and start it "
                           "again, or delete the container")
                .arg(m_id, save.error));
    m_savingWorkspaceDir.reset();
    m_savingOutputsDir.reset();
    return {};
}

Result<> Container::wipe()
{
    if (m_state == ContainerState::Running)
        return fail(QStringLiteral("container.running"),
                    QStringLiteral("stop the container before wiping it"));
    finishPendingSave();
    finishPendingCheckpoint(); // nothing may write the host's copy while it is removed
    endSavingInit();
    m_savingWorkspaceDir.reset(); // what a failed save kept goes with the files
    m_savingOutputsDir.reset();
    return workspace().remove();
}

Result<QStringList> Container::commandFor(const QString &runId, const ExecRequest &request) const
{
    if (request.language.isEmpty()) {
        if (request.command.isEmpty())
            return fail(QStringLiteral("run.no_command"),
                        QStringLiteral("give a command or a language and code"));
        return request.command;
    }
    for (const Language &language : Languages) {
        if (request.language != QLatin1String(language.name))
            continue;
        if (!QFileInfo(QLatin1String(language.interpreter)).isExecutable())
            return fail(QStringLiteral("run.language_unavailable"),
                        QStringLiteral("%1 is not installed on this host (%2)")
                            .arg(request.language, QLatin1String(language.interpreter)));
        const QString file = runId + QLatin1Char('.') + QLatin1String(language.extension);
        CORDON_TRY(
            writeNewFile(toQt(workspace().paths().code) + QLatin1Char('/') + file, request.code.toUtf8()));
        return QStringList{QLatin1String(language.interpreter),
                           QLatin1String(Isolation::InsideCodeDir) + QLatin1Char('/') + file};
    }
    return fail(QStringLiteral("run.unknown_language"),
                QStringLiteral("unknown language `%1`: use python, bash or node").arg(request.language));
}

Result<ContainerRun *> Container::exec(const QString &runId, const ExecRequest &request)
{
    if (m_state != ContainerState::Running || !m_sandbox)
        return fail(
            QStringLiteral("container.not_running"),
            QStringLiteral("container %1 is %2; start it first").arg(m_id, containerStateName(m_state)));
    auto command = commandFor(runId, request);
    if (!command)
        return fail(command.error());

    std::vector<std::string> argv;
    for (const QString &arg : *command)
        argv.push_back(arg.toStdString());
    Isolation::SpawnRequest spawn = OneShot::spawnRequestFor(m_policy, m_nextWireId++, std::move(argv));
    spawn.tag = runId.toStdString();
    Secrets::injectSecrets(spawn.env, request.secrets);
    if (!m_trustBundlePem.empty())
        Isolation::addTrustBundleVariables(spawn.env);

    const int timeoutS = weakened(Guarantee::RunTimeout) ? 24 * 3600
                         : request.timeoutS > 0          ? qMin(request.timeoutS, m_policy.limits.runTimeoutS)
                                                         : m_policy.limits.runTimeoutS;
    const qint64 outputCap =
        weakened(Guarantee::OutputCap) ? 1024 * MiB : static_cast<qint64>(m_policy.limits.outputMb) * MiB;
    // cordon-init kills the run at its deadline itself when no daemon is there to.
    spawn.deadlineMonotonicMs = monotonicMs() + std::uint64_t(timeoutS) * 1000u;
    spawn.holdOutput = true;
    auto *run = new ContainerRun(
        runId, spawn.runId, outputCap, timeoutS * 1000, [this] { return memoryStats(); }, this);
    run->setCommand(*command);
    run->setSpoolDirectory(m_spoolDirectory);
    run->setWorkspaceUsage([this] { return workspaceBytes(); });
    if (!weakened(Guarantee::OutputMasking))
        run->setSecretMasker(request.masker);
    if (auto started = run->start(*m_sandbox, spawn, request.stdinData, request.keepStdinOpen); !started) {
        delete run;
        return fail(started.error());
    }
    m_runs.insert(runId, run);
    watchRun(run);
    return run;
}

void Container::watchRun(ContainerRun *run)
{
    connect(run, &ContainerRun::outputReceived, this,
            [this, runId = run->id()](OutputStream stream, const QByteArray &chunk) {
                Q_EMIT runOutput(runId, stream, chunk);
            });
    connect(run, &ContainerRun::finished, this, [this, run] {
        m_runs.remove(run->id());
        Q_EMIT runFinished(run); // recorded by the time this returns
        run->removeSpools();
        if (m_sandbox)
            m_sandbox->collected(run->wireId());
        run->deleteLater();
    });
}

void Container::makeSpoolDirectory()
{
    m_spoolDirectory = toQt(workspace().root()) + QStringLiteral("/runs");
    // Beside the workspace, out of the sandbox's reach; made once a start, not at every run.
    (void)::mkdir(QFile::encodeName(m_spoolDirectory).constData(), 0700);
}

ContainerRun *Container::findByWireId(quint64 wireId) const
{
    for (ContainerRun *run : m_runs) {
        if (run->wireId() == wireId)
            return run;
    }
    return nullptr;
}

std::optional<Cgroup::MemoryStats> Container::memoryStats() const
{
    if (!m_cgroup || !m_cgroupCreated)
        return std::nullopt;
    auto stats = m_cgroup->memoryStats(m_id.toStdString());
    return stats ? std::optional<Cgroup::MemoryStats>(*stats) : std::nullopt;
}

std::optional<qint64> Container::workspaceBytes() const
{
    struct statfs usage
    {
    };
    if (!m_workspaceDir || ::fstatfs(m_workspaceDir->get(), &usage) != 0)
        return std::nullopt;
    return qint64(usage.f_blocks - usage.f_bfree) * qint64(usage.f_bsize);
}

int Container::pidsCurrent() const
{
    if (!m_cgroup || !m_cgroupCreated)
        return 0;
    return m_cgroup->pidsCurrent(m_id.toStdString()).value_or(0);
}

QList<pid_t> Container::processes() const
{
    if (!m_cgroup || !m_cgroupCreated)
        return {};
    auto pids = m_cgroup->processes(m_id.toStdString());
    return pids ? QList<pid_t>(pids->begin(), pids->end()) : QList<pid_t>{};
}

} // namespace Cordon::Containers
