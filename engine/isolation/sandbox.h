// SPDX-License-Identifier: MIT
// One running container as the engine sees it: cordon-init started in new user, mount, pid, net, ipc and uts
// namespaces, its id maps written, placed in its cgroup, its mount plan executed. Runs are spawned through
// the control socket; their exits arrive as signals on the Qt event loop.
#pragma once

#include "core/result.h"
#include "sandbox/initadoption.h"
#include "sandbox/initlaunch.h"
#include "sandbox/initprotocol.h"
#include "sandbox/mountplan.h"
#include "sandbox/uniquefd.h"
#include "sandbox/workspace.h"

#include <QObject>

#include <memory>
#include <vector>

class QSocketNotifier;

namespace Cordon::Isolation {

class Sandbox final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(Sandbox)

public:
    explicit Sandbox(QObject *parent = nullptr);
    ~Sandbox() override;

    // Where cordon-init lives: $CORDON_INIT, else beside the running program, else ../libexec/cordon/.
    static QString locateInit();

    // Takes over a cordon-init that Containers::OneShot::launchContainer() started and sent the setup
    // request (a caller may have queued a spawn request behind it). awaitSetUp() then waits until cordon-init
    // has carried the plan out; a spawn sent before it succeeded is dropped with cordon-init when the setup
    // fails, and a failure kills cordon-init.
    void adopt(InitProcess init);
    Result<> awaitSetUp(int timeoutMs = SetupReplyTimeoutMs);
    // Takes over a set-up cordon-init that an earlier engine started (initadoption.h): its connection, the
    // workspace directories and the proxy listener; the runs it held are the caller's.
    void adoptRunning(AdoptedInit &adopted);
    // Sends a spawn request with the run's stdin, stdout and stderr, and the read ends of stdout and stderr
    // for cordon-init to hold (and drain while no engine is connected); the answer arrives as
    // spawned/spawnFailed.
    Result<> spawn(const SpawnRequest &request, int stdinFd, int stdoutFd, int stderrFd, int stdoutRead,
                   int stderrRead);
    Result<> kill(quint64 runId, int signal = 9);
    // The run's end is recorded: cordon-init lets go of what it held for it.
    void collected(quint64 runId);
    // Kills every process of the container but cordon-init and waits until they are reaped: a stop saves
    // the workspace after this, while cordon-init still holds the container (a daemon that ends during the
    // save leaves it to the next one, which finishes the save).
    Result<> endProcesses(int timeoutMs);
    // Kills every process of the container (SIGKILL to its PID 1 ends the pid namespace) and reaps
    // cordon-init.
    void destroy();

    // The listening socket cordon-init opened on 127.0.0.1:3128 inside the container (when the setup asked
    // for it); the caller takes ownership. -1 when there is none.
    int takeProxyListener();
    // The container's /mnt/data and /mnt/data/outputs (indexed by WorkspaceHandle), as cordon-init handed
    // them back after the setup; the caller takes them. Empty before awaitSetUp() succeeded.
    std::vector<UniqueFd> takeWorkspaceDirs();

    pid_t initPid() const { return m_init.pid; }
    bool isRunning() const { return m_init.pid > 0; }

Q_SIGNALS:
    void spawned(quint64 runId, int pid);
    void spawnFailed(quint64 runId, const Cordon::Error &error);
    void exited(const Cordon::Isolation::ExitReport &report);
    // cordon-init closed its socket: the container is gone (killed from outside, or its PID 1 died).
    void died();

private:
    void watchControl();
    void readMessages();

    InitProcess m_init;
    int m_proxyListener = -1;
    std::vector<UniqueFd> m_workspaceDirs;
    std::unique_ptr<QSocketNotifier> m_notifier;
};

Error setupError(const SetupReply &reply);

} // namespace Cordon::Isolation
