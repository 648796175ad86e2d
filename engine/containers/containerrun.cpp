// SPDX-License-Identifier: MIT
#include "containers/containerrun.h"

#include "sandbox/uniquefd.h"

#include "sandbox/init/execfailure.h"

#include "containers/outputcapture.h"
#include "containers/stdinfeeder.h"
#include "core/formatting.h"
#include "daemon/lite/runreport.h"
#include "isolation/sandbox.h"
#include "sandbox/initadoption.h"
#include "sandbox/oneshotrun.h"
#include "sandbox/runstdin.h"

#include <QFile>

#include <cerrno>
#include <csignal>
#include <fcntl.h>
#include <limits>
#include <sys/wait.h>
#include <unistd.h>

namespace Cordon::Containers {

namespace {

using OneShot::KillBackstopMs; // the timing rules every run follows
using OneShot::OutputGraceMs;

// Both ends of a new close-on-exec pipe, each owned; false with errno set when there is none.
bool makePipe(UniqueFd (&ends)[2])
{
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0)
        return false;
    ends[0].reset(fds[0]);
    ends[1].reset(fds[1]);
    return true;
}

} // namespace

QString outputStreamName(OutputStream stream)
{
    return stream == OutputStream::Stdout ? QStringLiteral("stdout") : QStringLiteral("stderr");
}

ContainerRun::ContainerRun(QString id, quint64 wireId, qint64 outputCap, int timeoutMs, StatsProvider stats,
                           QObject *parent)
    : QObject(parent), m_id(std::move(id)), m_wireId(wireId), m_outputCap(outputCap), m_timeoutMs(timeoutMs),
      m_stats(std::move(stats))
{
    m_timeout.setSingleShot(true);
    m_grace.setSingleShot(true);
    connect(&m_timeout, &QTimer::timeout, this, &ContainerRun::onTimeout);
    connect(&m_grace, &QTimer::timeout, this, &ContainerRun::finish);
}

ContainerRun::~ContainerRun() = default;

Result<> ContainerRun::start(Isolation::Sandbox &sandbox, const Isolation::SpawnRequest &request,
                             const std::optional<QByteArray> &stdinData, bool keepStdinOpen)
{
    m_clock.start();
    m_sandbox = &sandbox;
    if (m_stats) {
        if (auto stats = m_stats()) {
            m_oomKillsBefore = stats->oomKills;
            m_pidsLimitHitsBefore = stats->pidsLimitHits;
        }
    }

    // The run's stdin: a pipe kept open for run.stdin, else a memfd with the data given, else /dev/null.
    UniqueFd stdinPipe[2];
    UniqueFd stdinFile;
    if (keepStdinOpen) {
        if (!makePipe(stdinPipe))
            return failErrno(QStringLiteral("run.pipe"), QStringLiteral("pipe2"), errno);
    } else {
        auto opened = stdinData
                          ? stdinMemfd({stdinData->constData(), static_cast<std::size_t>(stdinData->size())})
                          : openDevNull();
        if (!opened)
            return Cordon::fail(opened.error());
        stdinFile.reset(*opened);
    }
    UniqueFd out[2], err[2];
    if (!makePipe(out) || !makePipe(err))
        return failErrno(QStringLiteral("run.pipe"), QStringLiteral("pipe2"), errno);
    // cordon-init holds the read ends too, so that the run outlives this daemon: it drains them only
    // while no daemon is connected.
    auto sent = sandbox.spawn(request, keepStdinOpen ? stdinPipe[0].get() : stdinFile.get(), out[1].get(),
                              err[1].get(), out[0].get(), err[0].get());
    if (!sent)
        return sent;

    if (keepStdinOpen) {
        m_stdin = std::make_unique<StdinFeeder>(stdinPipe[1].release());
        if (stdinData)
            m_stdin->write(*stdinData);
    }
    captureOutput(out[0].release(), err[0].release());
    m_timeout.start(m_timeoutMs);
    return {};
}

void ContainerRun::adopt(Isolation::Sandbox &sandbox, Isolation::AdoptedRun &held, qint64 elapsedMs)
{
    m_clock.start();
    m_elapsedBefore = elapsedMs;
    m_sandbox = &sandbox;
    // The container's counters from here on: an OOM kill while no daemon ran is told by the signal alone.
    if (m_stats) {
        if (auto stats = m_stats()) {
            m_oomKillsBefore = stats->oomKills;
            m_pidsLimitHitsBefore = stats->pidsLimitHits;
        }
    }
    captureOutput(held.stdoutRead.release(), held.stderrRead.release());
    // In order: what the daemon before read (its spools), what cordon-init read while none was there, then
    // the pipes.
    if (!m_spoolDirectory.isEmpty()) {
        for (const auto &[capture, stream] : {std::pair{m_stdout.get(), OutputStream::Stdout},
                                              std::pair{m_stderr.get(), OutputStream::Stderr}}) {
            QFile spooled(spoolPath(m_spoolDirectory, m_id, stream));
            if (spooled.open(QIODevice::ReadOnly))
                capture->takeSpooled(spooled.read(m_outputCap));
        }
    }
    m_stdout->takeHeld(held.stdoutHeld, held.state.stdoutDropped);
    m_stderr->takeHeld(held.stderrHeld, held.state.stderrDropped);
    m_timedOut = held.state.timedOut;
    if (held.state.exited) {
        Isolation::ExitReport report;
        report.runId = held.state.runId;
        report.waitStatus = held.state.waitStatus;
        report.userMicros = held.state.userMicros;
        report.systemMicros = held.state.systemMicros;
        report.maxRssKiB = held.state.maxRssKiB;
        onExited(report);
        return;
    }
    const qint64 left = qMax<qint64>(0, m_timeoutMs - elapsedMs);
    m_timeout.start(static_cast<int>(qMin<qint64>(left, std::numeric_limits<int>::max())));
}

QString ContainerRun::spoolPath(const QString &directory, const QString &runId, OutputStream stream)
{
    return directory + QLatin1Char('/') + runId + QLatin1Char('.') + outputStreamName(stream);
}

void ContainerRun::removeSpools() const
{
    if (m_spoolDirectory.isEmpty())
        return;
    QFile::remove(spoolPath(m_spoolDirectory, m_id, OutputStream::Stdout));
    QFile::remove(spoolPath(m_spoolDirectory, m_id, OutputStream::Stderr));
}

void ContainerRun::captureOutput(int stdoutFd, int stderrFd)
{
    m_stdout = std::make_unique<OutputCapture>(stdoutFd, m_outputCap, m_masker);
    m_stderr = std::make_unique<OutputCapture>(stderrFd, m_outputCap, m_masker);
    if (!m_spoolDirectory.isEmpty()) {
        m_stdout->spoolTo(spoolPath(m_spoolDirectory, m_id, OutputStream::Stdout));
        m_stderr->spoolTo(spoolPath(m_spoolDirectory, m_id, OutputStream::Stderr));
    }
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
}

Result<> ContainerRun::writeStdin(const QByteArray &data, bool eof)
{
    if (!m_stdin || !m_stdin->isOpen())
        return fail(QStringLiteral("run.stdin_closed"),
                    QStringLiteral("the run's stdin is closed (start it with an open stdin to write to it)"));
    if (!data.isEmpty() && !m_stdin->write(data))
        return fail(QStringLiteral("run.stdin_closed"), QStringLiteral("the run no longer reads its stdin"));
    if (eof)
        m_stdin->closeWhenDrained();
    return {};
}

void ContainerRun::cancel()
{
    if (m_exited || m_finished)
        return;
    m_cancelled = true;
    if (m_sandbox)
        m_sandbox->kill(m_wireId, SIGKILL);
    m_grace.start(KillBackstopMs);
}

void ContainerRun::onTimeout()
{
    m_timedOut = true;
    if (m_sandbox)
        m_sandbox->kill(m_wireId, SIGKILL);
    m_grace.start(KillBackstopMs);
}

void ContainerRun::abandon(ErrorClass errorClass, const QString &message)
{
    if (m_finished)
        return;
    m_sandbox = nullptr;
    if (!m_exited) {
        m_abandoned = true;
        m_outcome.errorClass = errorClass;
        m_outcome.signal = SIGKILL;
        m_outcome.message = message;
        m_exited = true;
    }
    finish();
}

void ContainerRun::onSpawnFailed(const Error &error)
{
    if (error.code() == "run.exec_failed") {
        const auto failure = Isolation::execFailure(Isolation::Stage::SpawnExec, error.sysErrno(),
                                                    m_command.value(0).toStdString());
        m_outcome.exitCode = failure->exitCode; // classified as nonzero_exit when the run finishes
        m_outcome.message = QString::fromStdString(failure->message);
        awaitOutputThenFinish(0);
        return;
    }
    m_outcome.errorClass = ErrorClass::SetupFailed;
    m_outcome.message = toQt(error.message());
    m_outcome.setupStage = toQt(error.code());
    m_outcome.setupErrno = error.sysErrno();
    awaitOutputThenFinish(0);
}

void ContainerRun::onExited(const Isolation::ExitReport &report)
{
    if (m_exited)
        return;
    m_timeout.stop();
    if (WIFEXITED(report.waitStatus))
        m_outcome.exitCode = WEXITSTATUS(report.waitStatus);
    else if (WIFSIGNALED(report.waitStatus))
        m_outcome.signal = WTERMSIG(report.waitStatus);
    m_outcome.cpuMs = static_cast<qint64>((report.userMicros + report.systemMicros) / 1000);
    m_outcome.peakMemoryBytes = static_cast<qint64>(report.maxRssKiB) * 1024;
    if (m_stdout->atEnd() && m_stderr->atEnd()) {
        m_exited = true;
        finish();
    } else {
        awaitOutputThenFinish(OutputGraceMs);
    }
}

void ContainerRun::awaitOutputThenFinish(int graceMs)
{
    m_exited = true;
    m_timeout.stop();
    m_grace.start(graceMs);
}

void ContainerRun::finish()
{
    if (m_finished)
        return;
    m_finished = true;
    m_grace.stop();
    m_timeout.stop();
    m_outcome.wallMs = m_elapsedBefore + m_clock.elapsed();
    if (m_stats) {
        if (auto stats = m_stats()) {
            m_outcome.oomKills = stats->oomKills - m_oomKillsBefore;
            m_outcome.pidsLimitHits = stats->pidsLimitHits - m_pidsLimitHitsBefore;
            m_outcome.memoryLimitBytes = stats->limit;
        }
    }
    for (OutputCapture *capture : {m_stdout.get(), m_stderr.get()}) {
        if (capture)
            capture->drainAndClose();
    }
    if (m_stdout) {
        const std::uint64_t dropped = m_stdout->droppedWhileDetached() + m_stderr->droppedWhileDetached();
        if (dropped > 0 && m_outcome.message.isEmpty())
            m_outcome.message = QStringLiteral("%1 bytes of output were dropped while no daemon was running "
                                               "(cordon-init keeps at most %2 MiB per stream)")
                                    .arg(dropped)
                                    .arg(Isolation::MaxHeldOutputPerStream / (1024 * 1024));
        m_outcome.stdoutData = m_stdout->data();
        m_outcome.stdoutBytes = m_stdout->totalBytes();
        m_outcome.stdoutTruncated = m_stdout->truncated();
        m_outcome.stderrData = m_stderr->data();
        m_outcome.stderrBytes = m_stderr->totalBytes();
        m_outcome.stderrTruncated = m_stderr->truncated();
    }
    m_stdin.reset();

    const bool setupFailed =
        m_outcome.errorClass == ErrorClass::SetupFailed && !m_outcome.setupStage.isEmpty();
    if (!setupFailed) {
        // A run abandoned by its container keeps the class it was given then, unless it timed out or an OOM
        // kill explains it.
        if (!m_abandoned || m_timedOut || m_outcome.oomKills > 0)
            m_outcome.errorClass = errorClassFromName(Cordon::classifyEndedRun(
                m_timedOut, m_outcome.oomKills, m_outcome.signal, m_outcome.exitCode));
        if (m_cancelled && m_outcome.message.isEmpty())
            m_outcome.message = QStringLiteral("cancelled");
    }
    if (m_outcome.errorClass == ErrorClass::Oom && m_outcome.message.isEmpty() && m_workspaceUsage &&
        m_outcome.memoryLimitBytes > 0) {
        const std::optional<qint64> files = m_workspaceUsage();
        if (files && *files * 2 >= m_outcome.memoryLimitBytes)
            m_outcome.message =
                QStringLiteral("workspace full: its files hold %1 of the container's %2 memory limit, which "
                               "left the program too little; delete files (`cordon files rm`) or use a "
                               "larger memory tier")
                    .arg(Format::bytes(*files), Format::bytes(m_outcome.memoryLimitBytes));
    }
    if (!m_masker.empty())
        m_outcome.message = toQt(m_masker.maskAll(toPlain(m_outcome.message)));
    Q_EMIT finished();
}

} // namespace Cordon::Containers
