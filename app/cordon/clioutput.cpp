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
    printErr(
        QString::fromStdString(Lite::errorReport(error.message().toStdString(), error.hint().toStdString())));
}

QString formatBytes(qint64 bytes)
{
    return QString::fromStdString(Lite::formatBytes(bytes));
}

QString summarize(const Containers::RunOutcome &outcome)
{
    using Containers::ErrorClass;
    QString status;
    if (outcome.errorClass == ErrorClass::SetupFailed)
        status = outcome.message;
    else if (outcome.signal > 0)
        status = QStringLiteral("signal %1").arg(outcome.signal);
    else
        status = QStringLiteral("exit %1").arg(outcome.exitCode);
    QString text = QStringLiteral("cordon: %1 (%2): %3\n")
                       .arg(Containers::errorClassName(outcome.errorClass), status,
                            Containers::describeErrorClass(outcome.errorClass));
    if (outcome.errorClass != ErrorClass::SetupFailed) {
        text += QStringLiteral("cordon: wall %1 ms, cpu %2 ms, peak memory %3 of %4%5\n")
                    .arg(outcome.wallMs)
                    .arg(outcome.cpuMs)
                    .arg(formatBytes(outcome.peakMemoryBytes), formatBytes(outcome.memoryLimitBytes),
                         outcome.degraded ? QStringLiteral(" (not enforced: degraded mode)") : QString());
    }
    if (outcome.stdoutTruncated)
        text += QStringLiteral("cordon: stdout was cut at %1 (the run wrote %2)\n")
                    .arg(formatBytes(outcome.stdoutData.size()), formatBytes(outcome.stdoutBytes));
    if (outcome.stderrTruncated)
        text += QStringLiteral("cordon: stderr was cut at %1 (the run wrote %2)\n")
                    .arg(formatBytes(outcome.stderrData.size()), formatBytes(outcome.stderrBytes));
    for (const Containers::ArtifactRecord &artifact : outcome.artifacts)
        text += QStringLiteral("cordon: artifact %1 (%2, sha256 %3)\n")
                    .arg(artifact.path, formatBytes(artifact.size), artifact.sha256);
    for (const Containers::RefusedArtifact &refused : outcome.refusedArtifacts)
        text += QStringLiteral("cordon: refused artifact %1: %2\n").arg(refused.path, refused.reason);
    if (outcome.errorClass != ErrorClass::SetupFailed && !outcome.message.isEmpty())
        text += QStringLiteral("cordon: note: %1\n").arg(outcome.message);
    return text;
}

} // namespace Cordon::Cli
