// SPDX-License-Identifier: MIT
#include "clioutput.h"

#include "daemon/lite/runreport.h"

#include <cstdio>

namespace Cordon::Cli {

void printOut(const QString &text)
{
    const QByteArray bytes = text.toUtf8();
    std::fwrite(bytes.constData(), 1, static_cast<size_t>(bytes.size()), stdout);
    std::fflush(stdout);
}

void printErr(const QString &text)
{
    const QByteArray bytes = text.toUtf8();
    std::fwrite(bytes.constData(), 1, static_cast<size_t>(bytes.size()), stderr);
    std::fflush(stderr);
}

void printError(const Error &error)
{
    printErr(QString::fromStdString(
        Lite::errorReport(toQt(error.message()).toStdString(), toQt(error.hint()).toStdString())));
}

QString formatBytes(qint64 bytes)
{
    return QString::fromStdString(Lite::formatBytes(bytes));
}

QString summarize(const Containers::RunOutcome &outcome)
{
    const std::string className = Containers::errorClassName(outcome.errorClass).toStdString();
    Cordon::OneShotSummary run;
    run.className = className;
    run.exitCode = outcome.exitCode;
    run.signal = outcome.signal;
    run.wallMs = outcome.wallMs;
    run.cpuMs = outcome.cpuMs;
    run.peakMemoryBytes = outcome.peakMemoryBytes;
    run.memoryLimitBytes = outcome.memoryLimitBytes;
    run.pidsLimit = outcome.pidsLimit;
    run.pidsLimitHits = outcome.pidsLimitHits;
    run.degraded = outcome.degraded;
    run.stdoutTruncated = outcome.stdoutTruncated;
    run.stderrTruncated = outcome.stderrTruncated;
    run.stdoutKept = outcome.stdoutData.size();
    run.stderrKept = outcome.stderrData.size();
    run.stdoutBytes = outcome.stdoutBytes;
    run.stderrBytes = outcome.stderrBytes;
    for (const Containers::ArtifactRecord &artifact : outcome.artifacts)
        run.artifacts.push_back({artifact.path.toStdString(), artifact.size, artifact.sha256.toStdString()});
    for (const Containers::RefusedArtifact &refused : outcome.refusedArtifacts)
        run.refused.push_back(
            {refused.path.toStdString(), refused.reason.toStdString(), refused.code.toStdString()});
    run.message = outcome.message.toStdString();
    return QString::fromStdString(Lite::summarizeOneShot(run));
}

} // namespace Cordon::Cli
