// SPDX-License-Identifier: MIT
// `cordon run`: a throw-away container for one command, i.e. create + exec + delete in this process. Copies
// inputs in, runs, copies outputs/ out safely and removes every trace (processes, mounts, cgroup, files).
#pragma once

#include "cgroup/cgroupbackend.h"
#include "containers/container.h"
#include "containers/runoutcome.h"
#include "core/result.h"
#include "policy/containerpolicy.h"

#include <QElapsedTimer>
#include <QObject>
#include <QStringList>

#include <functional>
#include <memory>
#include <optional>

namespace Cordon::Containers {

struct OneShotRequest
{
    Policy::ContainerPolicy policy;
    QStringList command;
    QStringList inputs;                  // host files copied into /mnt/data/inputs under their file names
    QString outputDirectory;             // where outputs/ is copied after the run; empty: not copied
    std::optional<QByteArray> stdinData; // without it the run's stdin is /dev/null
    bool allowDegraded = false;          // run without memory/pids limits when the host offers no cgroups
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
    void finish(const RunOutcome &runOutcome);
    void cleanUp();

    OneShotRequest m_request;
    RunOutcome m_outcome;
    std::unique_ptr<Cgroup::CgroupBackend> m_cgroup;
    std::unique_ptr<Container> m_container;
    QElapsedTimer m_clock;
    bool m_finished = false;
};

// Runs a request to the end on a local event loop; setup errors come back as a setup_failed outcome.
RunOutcome runToCompletion(OneShotRequest request,
                           const std::function<void(OutputStream, const QByteArray &)> &onOutput = {});

} // namespace Cordon::Containers
