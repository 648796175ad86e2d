// SPDX-License-Identifier: MIT
// One run inside a running container: its stdio, its wall-time limit, its output caps, and the outcome it
// ends with. The container routes cordon-init's reports for this run here.
#pragma once

#include "containers/runoutcome.h"
#include "core/plainbridge.h"
#include "core/result.h"
#include "sandbox/cgroup/cgroupbackend.h"
#include "sandbox/initprotocol.h"
#include "sandbox/secrets/secretmasker.h"

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>

#include <functional>
#include <memory>
#include <optional>

namespace Cordon::Isolation {
class Sandbox;
struct AdoptedRun;
} // namespace Cordon::Isolation

namespace Cordon::Containers {

class OutputCapture;
class StdinFeeder;

enum class OutputStream
{
    Stdout = 1,
    Stderr = 2
};
QString outputStreamName(OutputStream stream);

class ContainerRun final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ContainerRun)

public:
    using StatsProvider = std::function<std::optional<Cgroup::MemoryStats>()>;
    // Bytes the files of the container's workspace (a tmpfs charged to its memory) hold now.
    using WorkspaceUsage = std::function<std::optional<qint64>()>;

    ContainerRun(QString id, quint64 wireId, qint64 outputCap, int timeoutMs, StatsProvider stats,
                 QObject *parent = nullptr);
    ~ContainerRun() override;

    const QString &id() const { return m_id; }
    // The argv the run executes (for code runs: the interpreter and the code file).
    const QStringList &command() const { return m_command; }
    void setCommand(QStringList command) { m_command = std::move(command); }
    quint64 wireId() const { return m_wireId; }
    // The values the run received, masked in its output and its outcome's message. Before start().
    void setSecretMasker(Secrets::SecretMasker masker) { m_masker = std::move(masker); }
    // Where what is kept of its output is also written as it arrives (outputcapture.h: spoolTo()), so that
    // it outlives this daemon; before start() or adopt(). removeSpools() once the outcome is recorded.
    void setSpoolDirectory(QString directory) { m_spoolDirectory = std::move(directory); }
    // An OOM kill while the workspace's files hold half the memory limit or more is "workspace full": what
    // fills the memory is files, and every later run would meet the same wall until some are deleted.
    void setWorkspaceUsage(WorkspaceUsage usage) { m_workspaceUsage = std::move(usage); }
    void removeSpools() const;
    // `directory`/<runId>.stdout or .stderr.
    static QString spoolPath(const QString &directory, const QString &runId, OutputStream stream);

    // Creates the pipes and sends the spawn request. With `keepStdinOpen`, stdin stays a pipe that
    // writeStdin() feeds; otherwise the run reads `stdinData` (or nothing) and then end-of-file.
    Result<> start(Isolation::Sandbox &sandbox, const Isolation::SpawnRequest &request,
                   const std::optional<QByteArray> &stdinData, bool keepStdinOpen);
    // Takes over a run that cordon-init held while no daemon was connected (Container::adopt()): what it
    // kept of the output comes first, then the pipes; a run that ended meanwhile finishes with its real
    // status. `elapsedMs`: how long ago it started.
    void adopt(Isolation::Sandbox &sandbox, Isolation::AdoptedRun &held, qint64 elapsedMs);
    Result<> writeStdin(const QByteArray &data, bool eof);
    void cancel();
    // The container went away under the run (stopped, expired, PID 1 died): finish with what is known.
    void abandon(ErrorClass errorClass, const QString &message);

    void onSpawnFailed(const Error &error);
    void onExited(const Isolation::ExitReport &report);

    bool isFinished() const { return m_finished; }
    const RunOutcome &outcome() const { return m_outcome; }

Q_SIGNALS:
    void outputReceived(Cordon::Containers::OutputStream stream, const QByteArray &chunk);
    void finished();

private:
    void onTimeout();
    void captureOutput(int stdoutFd, int stderrFd);
    void awaitOutputThenFinish(int graceMs);
    void finish();

    QString m_id;
    QStringList m_command;
    quint64 m_wireId;
    qint64 m_outputCap;
    int m_timeoutMs;
    StatsProvider m_stats;
    Secrets::SecretMasker m_masker;
    QString m_spoolDirectory;
    WorkspaceUsage m_workspaceUsage;
    qint64 m_oomKillsBefore = 0;
    qint64 m_pidsLimitHitsBefore =
        0; // the container's counter is shared by its runs: a run reports its share
    Isolation::Sandbox *m_sandbox = nullptr;
    std::unique_ptr<OutputCapture> m_stdout;
    std::unique_ptr<OutputCapture> m_stderr;
    std::unique_ptr<StdinFeeder> m_stdin;
    QElapsedTimer m_clock;
    qint64 m_elapsedBefore = 0; // an adopted run's time before this daemon took it over
    QTimer m_timeout;
    QTimer m_grace;
    bool m_timedOut = false;
    bool m_cancelled = false;
    bool m_abandoned = false;
    bool m_exited = false;
    bool m_finished = false;
    RunOutcome m_outcome;
};

} // namespace Cordon::Containers
