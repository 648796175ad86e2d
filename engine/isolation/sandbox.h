// SPDX-License-Identifier: MIT
// One running container as the engine sees it: cordon-init started in new user, mount, pid, net, ipc and uts
// namespaces, its id maps written, placed in its cgroup, its mount plan executed. Runs are spawned through
// the control socket; their exits arrive as signals on the Qt event loop.
#pragma once

#include "core/result.h"
#include "isolation/core/initprotocol.h"
#include "isolation/sandboxspec.h"

#include <QObject>

#include <functional>
#include <memory>

class QSocketNotifier;

namespace Cordon::Isolation {

class Sandbox final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(Sandbox)

public:
    // Called with cordon-init's host pid after the id maps are written and before the setup request is sent:
    // the place to move it into the container's cgroup, so that the cgroup namespace it then creates is
    // rooted there.
    using BeforeSetup = std::function<Result<>(pid_t)>;

    explicit Sandbox(QObject *parent = nullptr);
    ~Sandbox() override;

    // Where cordon-init lives: $CORDON_INIT, else beside the running program, else ../libexec/cordon/.
    static QString locateInit();

    Result<> start(const SandboxSpec &spec, const BeforeSetup &beforeSetup = {});
    // Sends a spawn request with the run's stdin, stdout and stderr; the answer arrives as
    // spawned/spawnFailed.
    Result<> spawn(const SpawnRequest &request, int stdinFd, int stdoutFd, int stderrFd);
    Result<> kill(quint64 runId, int signal = 9);
    // Kills every process of the container (SIGKILL to its PID 1 ends the pid namespace) and reaps
    // cordon-init.
    void destroy();

    // The listening socket cordon-init opened on 127.0.0.1:3128 inside the container (when the setup asked
    // for it); the caller takes ownership. -1 when there is none.
    int takeProxyListener();

    pid_t initPid() const { return m_initPid; }
    bool isRunning() const { return m_initPid > 0; }

Q_SIGNALS:
    void spawned(quint64 runId, int pid);
    void spawnFailed(quint64 runId, const Cordon::Error &error);
    void exited(const Cordon::Isolation::ExitReport &report);
    // cordon-init closed its socket: the container is gone (killed from outside, or its PID 1 died).
    void died();

private:
    void readMessages();
    Result<> writeIdMaps(const IdMapping &ids);
    Result<SetupReply> awaitSetupReply(int timeoutMs);

    pid_t m_initPid = -1;
    int m_control = -1;
    int m_proxyListener = -1;
    std::unique_ptr<QSocketNotifier> m_notifier;
};

Error setupError(const SetupReply &reply);

} // namespace Cordon::Isolation
