// SPDX-License-Identifier: MIT
#include "containers/oneshotrun.h"

#include "core/plainbridge.h"
#include "sandbox/cgroup/cgroupbackend.h"
#include "sandbox/files/safecopy.h"
#include "sandbox/oneshotrun.h"
#include "sandbox/policy/orgpolicyfile.h"
#include "sandbox/secrets/secretmasker.h"
#include "scan/artifactinspection.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

namespace Cordon::Containers {

namespace {

constexpr qint64 MiB = 1024 * 1024;

std::string encoded(const QString &path)
{
    return QFile::encodeName(path).toStdString();
}

QByteArray bytes(const std::string &data)
{
    return QByteArray(data.data(), static_cast<qsizetype>(data.size()));
}

} // namespace

RunOutcome runToCompletion(OneShotRequest request,
                           const std::function<void(OutputStream, const QByteArray &)> &onOutput)
{
    OneShot::PlainRunRequest plain;
    for (const QString &argument : std::as_const(request.command))
        plain.command.push_back(argument.toStdString());
    plain.policy = request.policy;
    plain.allowDegraded = request.allowDegraded;
    if (request.stdinData)
        plain.stdinData = request.stdinData->toStdString();
    plain.interruptFd = request.interruptFd;
    plain.userName = userNameFromNss;

    // Inputs go into the workspace before the container is set up.
    if (!request.inputs.isEmpty()) {
        plain.prepareWorkspace = [&request](const WorkspacePaths &paths) -> Result<> {
            for (const QString &input : std::as_const(request.inputs)) {
                auto imported =
                    Files::importFile(encoded(input), paths.inputs, toPlain(QFileInfo(input).fileName()));
                if (!imported)
                    return Cordon::fail(
                        imported.error().wrap(toPlain(QStringLiteral("copy input `%1`").arg(input))));
            }
            return {};
        };
    }
    // Outputs are copied once every process of the container is gone, through the artifact scan as every way
    // out is (docs/artifact-scan.md); these runs (demo, doctor) hold no secrets.
    QList<ArtifactRecord> artifacts;
    QList<RefusedArtifact> refused;
    QString exportProblem;
    if (!request.outputDirectory.isEmpty()) {
        plain.collectOutputs = [&](const Files::SourceRoot &outputs) {
            QDir().mkpath(request.outputDirectory);
            Files::CopyLimits limits;
            limits.maxFileBytes = static_cast<std::int64_t>(request.policy.limits.workspaceMb) * MiB;
            limits.maxTotalBytes = limits.maxFileBytes;
            auto suffixes = request.policy.artifactScan == Policy::ArtifactScan::Off
                                ? Result<std::vector<std::string>>(std::vector<std::string>{})
                                : Policy::loadOrgInternalSuffixes();
            if (!suffixes) {
                exportProblem =
                    toQt(suffixes.error().wrap("copy outputs: the artifact scan cannot run").message());
                return;
            }
            auto inspection = std::make_shared<Scan::ArtifactInspection>(
                request.policy.artifactScan, Secrets::SecretMasker(), std::string(), std::move(*suffixes));
            Scan::ArtifactInspection::attach(inspection, limits);
            auto report = Files::exportTree(outputs, encoded(request.outputDirectory), limits);
            if (!report) {
                exportProblem = toQt(report.error().wrap("copy outputs").message());
                return;
            }
            for (const Files::CopiedFile &file : report->copied)
                artifacts.append({toQt(file.relativePath), file.size, toQt(file.sha256Hex)});
            for (const Files::RefusedEntry &entry : report->refused)
                refused.append({toQt(entry.relativePath), toQt(entry.code), toQt(entry.reason)});
        };
    }

    const OneShot::PlainRunOutcome ended =
        OneShot::runPlain(plain, [&onOutput](int stream, std::string_view chunk) {
            if (onOutput)
                onOutput(stream == 1 ? OutputStream::Stdout : OutputStream::Stderr,
                         QByteArray(chunk.data(), static_cast<qsizetype>(chunk.size())));
        });

    RunOutcome outcome;
    outcome.errorClass = errorClassFromName(ended.className);
    outcome.exitCode = ended.exitCode;
    outcome.signal = ended.signal;
    outcome.wallMs = ended.wallMs;
    outcome.cpuMs = ended.cpuMs;
    outcome.peakMemoryBytes = ended.peakMemoryBytes;
    outcome.memoryLimitBytes = ended.memoryLimitBytes;
    outcome.oomKills = ended.oomKills;
    outcome.pidsLimitHits = ended.pidsLimitHits;
    outcome.pidsLimit = ended.pidsLimit;
    outcome.stdoutData = bytes(ended.stdoutData);
    outcome.stderrData = bytes(ended.stderrData);
    outcome.stdoutBytes = ended.stdoutBytes;
    outcome.stderrBytes = ended.stderrBytes;
    outcome.stdoutTruncated = ended.stdoutTruncated;
    outcome.stderrTruncated = ended.stderrTruncated;
    outcome.setupStage = QString::fromStdString(ended.setupStage);
    outcome.setupErrno = ended.setupErrno;
    outcome.message = exportProblem.isEmpty() ? QString::fromStdString(ended.message) : exportProblem;
    outcome.policyVersion = toQt(request.policy.version());
    outcome.degraded = ended.degraded;
    outcome.artifacts = std::move(artifacts);
    outcome.refusedArtifacts = std::move(refused);
    return outcome;
}

} // namespace Cordon::Containers
