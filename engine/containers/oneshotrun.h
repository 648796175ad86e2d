// SPDX-License-Identifier: MIT
// `cordon run`: a throw-away container for one command. Creates the workspace, copies inputs in, sets up the
// cgroup and the sandbox, runs, enforces the wall-time limit, captures output up to its cap, measures, copies
// outputs/ out safely and removes every trace (processes, mounts, cgroup, files).
#pragma once

#include "cgroup/cgroupbackend.h"
#include "containers/runoutcome.h"
#include "containers/workspace.h"
#include "core/result.h"
#include "isolation/sandbox.h"
#include "policy/containerpolicy.h"

#include <QElapsedTimer>
#include <QObject>
#include <QStringList>
#include <QTimer>

#include <functional>
#include <memory>
#include <optional>

namespace Cordon::Containers {

class OutputCapture;

struct OneShotRequest
{
    Policy::ContainerPolicy policy;
    QStringList command;
    QStringList inputs;                  // host files copied into /mnt/data/inputs under their file names
    QString outputDirectory;             // where outputs/ is copied after the run; empty: not copied
    std::optional<QByteArray> stdinData; // without it the run's stdin is /dev/null
    bool allowDegraded = false;          // run without memory/pids limits when the host offers no cgroups
};

enum class OutputStream
{
    Stdout = 1,
    Stderr = 2
};

class OneShotRun final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(OneShotRun)

public:
    explicit OneShotRun(OneShotRequest request, QObject *parent = nullptr);
    ~OneShotRun() override;

    // Sets everything up and spawns the command; `finished` follows. An error here means nothing ran and
    // nothing is left behind.
    Result<> start();
    const RunOutcome &outcome() const { return m_outcome; }
    bool isFinished() const { return m_finished; }

Q_SIGNALS:
    void outputReceived(Cordon::Containers::OutputStream stream, const QByteArray &chunk);
    void finished();

private:
    Result<> prepare();
    void onSpawned(quint64 runId, int pid);
    void onSpawnFailed(quint64 runId, const Cordon::Error &error);
    void onExited(const Cordon::Isolation::ExitReport &report);
    void onTimeout();
    void awaitOutputThenFinish();
    void finish();
    void cleanUp();

    OneShotRequest m_request;
    RunOutcome m_outcome;
    QString m_id;
    std::optional<Workspace> m_workspace;
    std::unique_ptr<Cgroup::CgroupBackend> m_cgroup;
    bool m_cgroupCreated = false;
    std::unique_ptr<Isolation::Sandbox> m_sandbox;
    std::unique_ptr<OutputCapture> m_stdout;
    std::unique_ptr<OutputCapture> m_stderr;
    int m_stdinWrite = -1;
    QElapsedTimer m_clock;
    QTimer m_timeout;
    QTimer m_grace;
    bool m_timedOut = false;
    bool m_exited = false;
    bool m_finished = false;
};

// Runs a request to the end on a local event loop; setup errors come back as a setup_failed outcome.
RunOutcome runToCompletion(OneShotRequest request,
                           const std::function<void(OutputStream, const QByteArray &)> &onOutput = {});

} // namespace Cordon::Containers
