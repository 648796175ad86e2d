// SPDX-License-Identifier: MIT
// How a run ended, in the words every client shows: an error class, the exit code or signal, times, peak
// memory, the captured output and whether it was cut.
#pragma once

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QString>

#include <string_view>

namespace Cordon::Containers {

enum class ErrorClass
{
    Ok,
    NonzeroExit,
    Oom,
    Timeout,
    Killed,
    SetupFailed
};

QString errorClassName(ErrorClass errorClass);
// The class of a name in Cordon::ErrorClassNames (daemon/lite/runreport.h); SetupFailed for any other name.
ErrorClass errorClassFromName(std::string_view name);
// A sentence for people: "killed by the OOM killer: the run exceeded its memory limit of 1 GiB".
QString describeErrorClass(ErrorClass errorClass);

struct ArtifactRecord
{
    QString path;
    qint64 size = 0;
    QString sha256;
};

struct RefusedArtifact
{
    QString path;
    QString code;
    QString reason;
};

struct RunOutcome
{
    ErrorClass errorClass = ErrorClass::SetupFailed;
    int exitCode = -1; // when the process exited
    int signal = 0;    // when it was killed by a signal
    qint64 wallMs = 0;
    qint64 cpuMs = 0; // user + system of the run's process and the children it waited for
    qint64 peakMemoryBytes = 0;
    qint64 memoryLimitBytes = 0;
    qint64 oomKills = 0;
    qint64 pidsLimitHits = 0; // forks refused at the container's process limit while this run ran
    qint64 pidsLimit = 0;     // that limit (limits.pids), when known
    QByteArray stdoutData;
    QByteArray stderrData;
    qint64 stdoutBytes = 0; // produced, including what was cut
    qint64 stderrBytes = 0;
    bool stdoutTruncated = false;
    bool stderrTruncated = false;
    QString setupStage; // for setup_failed: the step that failed
    int setupErrno = 0;
    QString message; // for setup_failed and other engine-side problems
    QString policyVersion;
    bool degraded = false; // no cgroup limits were applied (explicitly accepted by the user)
    QList<ArtifactRecord> artifacts;
    QList<RefusedArtifact> refusedArtifacts;

    // The process exit status a CLI mirrors: the run's exit code, 128+signal, or 125 for a setup failure.
    int shellStatus() const;
    QJsonObject toJson() const;
};

} // namespace Cordon::Containers
