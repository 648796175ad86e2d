// SPDX-License-Identifier: MIT
// ContainerManager: runs. Each run is recorded when it starts and again with its outcome when it ends, with
// the policy version, the code's sha256 and the inputs it could read, so that it can be attributed
// afterwards.
#include "containers/containermanager.h"

#include "core/plainbridge.h"
#include "sandbox/files/safecopy.h"
#include "sandbox/weakening.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QJsonDocument>

namespace Cordon::Containers {

namespace {

QString sha256Hex(const QByteArray &data)
{
    return QString::fromLatin1(QCryptographicHash::hash(data, QCryptographicHash::Sha256).toHex());
}

void applyOutcome(Store::RunRecord &record, const RunOutcome &outcome)
{
    record.state = QStringLiteral("finished");
    record.endedAt = QDateTime::currentMSecsSinceEpoch();
    record.errorClass = errorClassName(outcome.errorClass);
    record.exitCode = outcome.exitCode;
    record.signal = outcome.signal;
    record.wallMs = outcome.wallMs;
    record.cpuMs = outcome.cpuMs;
    record.peakMemoryBytes = outcome.peakMemoryBytes;
    record.pidsLimitHits = outcome.pidsLimitHits;
    record.stdoutData = outcome.stdoutData;
    record.stderrData = outcome.stderrData;
    record.stdoutTruncated = outcome.stdoutTruncated;
    record.stderrTruncated = outcome.stderrTruncated;
    record.message = outcome.message;
}

} // namespace

Result<RunSnapshot> ContainerManager::exec(const QString &containerId, const ExecRequest &request,
                                           const QString &requestedKey)
{
    const QString idempotencyKey = weakened(Guarantee::Idempotency) ? QString() : requestedKey;
    auto found = liveEntry(containerId);
    if (!found)
        return fail(found.error());
    Entry &target = **found;
    if (!idempotencyKey.isEmpty()) {
        for (auto it = m_runRecords.cbegin(); it != m_runRecords.cend(); ++it) {
            if (it->containerId == containerId && it->idempotencyKey == idempotencyKey)
                return RunSnapshot{.record = *it};
        }
        auto earlier = m_store.runByIdempotencyKey(containerId, idempotencyKey);
        if (!earlier)
            return fail(earlier.error());
        if (*earlier)
            return RunSnapshot{.record = **earlier};
    }
    if (target.container->activeRuns() >= m_settings.maxRunsPerContainer &&
        !weakened(Guarantee::ParallelRuns))
        return fail(QStringLiteral("run.limit"),
                    QStringLiteral("%1 runs are active in container %2, the limit: wait or cancel one")
                        .arg(m_settings.maxRunsPerContainer)
                        .arg(containerId));

    // Looked up at each run: a secret set again since the last run gives this one its new value.
    auto secrets = resolveSecrets(target.container->policy());
    if (!secrets)
        return fail(secrets.error());
    rememberSecretValues(target, *secrets);
    auto placeholders = domainSecretsForRun(target);
    if (!placeholders)
        return fail(placeholders.error());
    ExecRequest withSecrets = request;
    withSecrets.secrets = std::move(*secrets);
    withSecrets.secrets.insert(withSecrets.secrets.end(), placeholders->begin(), placeholders->end());
    // Both remembered above: the container's masker now holds these and everything else it was given.
    withSecrets.masker = target.masker;

    const QString runId = toQt(newContainerId());
    Store::RunRecord record;
    record.id = runId;
    record.containerId = containerId;
    record.state = QStringLiteral("running");
    record.policyVersion = target.record.policyVersion;
    record.language = request.language;
    record.command = request.command;
    record.code = request.language.isEmpty() ? request.command.join(QLatin1Char(' ')) : request.code;
    record.codeSha256 = sha256Hex(
        request.language.isEmpty()
            ? QJsonDocument(QJsonArray::fromStringList(request.command)).toJson(QJsonDocument::Compact)
            : request.code.toUtf8());
    for (const QJsonObject &input : std::as_const(target.inputs))
        record.inputs.append(maskedDetail(containerId, input)); // an upload may be named after a value
    record.idempotencyKey = idempotencyKey;
    record.startedAt = QDateTime::currentMSecsSinceEpoch();
    for (const Secrets::ResolvedSecret &secret : withSecrets.secrets) {
        QJsonObject recorded{{QStringLiteral("name"), toQt(secret.name)},
                             {QStringLiteral("env"), toQt(secret.env)},
                             {QStringLiteral("fingerprint"), toQt(secret.fingerprint)}};
        // A domain secret: the run got a placeholder; the proxy sends the value only to these.
        if (!secret.domains.empty()) {
            QJsonArray domains;
            for (const std::string &domain : secret.domains)
                domains.append(toQt(domain));
            recorded.insert(QStringLiteral("domains"), domains);
        }
        record.secrets.append(recorded);
    }

    auto run = target.container->exec(runId, withSecrets);
    if (!run)
        return fail(run.error());
    if (!request.language.isEmpty())
        record.command = (*run)->command();
    // What the client sent is kept as sent, except a secret's value (the container's masker holds every value
    // and placeholder it was given, this run's included). The hash is then of what is kept: a hash of the
    // text with the value would let anyone test guesses of the value against it.
    if (!withSecrets.secrets.empty()) {
        record.code = maskedText(containerId, record.code);
        for (QString &arg : record.command)
            arg = maskedText(containerId, arg);
        record.codeSha256 = sha256Hex(
            request.language.isEmpty()
                ? QJsonDocument(QJsonArray::fromStringList(record.command)).toJson(QJsonDocument::Compact)
                : record.code.toUtf8());
    }
    // The run, the container's activity and the run.started event in one commit. A run that cannot be
    // recorded is not run: it is cancelled, and the client told why.
    auto writes = m_store.beginWrites(QStringLiteral("record the start of run %1").arg(runId));
    auto inserted = writes ? m_store.insertRun(record) : fail(writes.error());
    if (!inserted) {
        (*run)->cancel();
        return fail(inserted.error().wrap("record run"));
    }
    touch(target);
    QJsonArray secretNames;
    for (const Secrets::ResolvedSecret &secret : withSecrets.secrets)
        secretNames.append(toQt(secret.name));
    const Store::EventRecord startedEvent = storeEvent(containerId, runId, QStringLiteral("run.started"),
                                                       {{QStringLiteral("language"), request.language},
                                                        {QStringLiteral("code_sha256"), record.codeSha256},
                                                        {QStringLiteral("secrets"), secretNames}});
    if (auto committed = writes->commit(); !committed) {
        (*run)->cancel();
        return fail(committed.error().wrap("record run"));
    }
    m_activeRuns.insert(runId, containerId);
    // As the history reads it back: announced runs name their container and its origin like listed ones.
    record.containerName = target.record.name;
    record.containerOrigin = target.record.origin;
    m_runRecords.insert(runId, record);
    const RunSnapshot started{.record = record};
    Q_EMIT eventRecorded(startedEvent);
    Q_EMIT runStarted(started);
    return started;
}

void ContainerManager::onRunFinished(Entry &target, ContainerRun *run)
{
    const QString runId = run->id();
    m_activeRuns.remove(runId);
    Store::RunRecord record = m_runRecords.take(runId);
    if (record.id.isEmpty())
        return;
    applyOutcome(record, run->outcome());

    // What the run produced: files in outputs/ that are new or changed since the last run ended.
    Files::CopyLimits limits;
    limits.maxFileBytes =
        static_cast<std::int64_t>(target.container->policy().limits.workspaceMb) * 1024 * 1024;
    limits.maxTotalBytes = limits.maxFileBytes;
    const auto outputs = target.container->filesRoot(QStringLiteral("outputs"));
    QList<Store::FileRecord> artifacts;
    if (auto listing = outputs ? Files::listTree(*outputs, limits) : fail(outputs.error())) {
        QHash<QString, QString> current;
        for (const Files::CopiedFile &file : listing->copied) {
            const QString path = toQt(file.relativePath);
            const QString sha = toQt(file.sha256Hex);
            current.insert(path, sha);
            if (target.outputs.value(path) == sha)
                continue;
            record.artifacts.append(QJsonObject{{QStringLiteral("path"), maskedText(target.record.id, path)},
                                                {QStringLiteral("size"), qint64(file.size)},
                                                {QStringLiteral("sha256"), sha}});
            Store::FileRecord artifact;
            artifact.containerId = target.record.id;
            artifact.runId = runId;
            artifact.direction = QStringLiteral("artifact");
            artifact.scope = QStringLiteral("outputs");
            artifact.path = path;
            artifact.sha256 = sha;
            artifact.size = file.size;
            artifact.at = record.endedAt;
            artifacts.append(std::move(artifact));
        }
        target.outputs = current;
    }

    // The outcome, its artifacts, the container's activity and the run.finished event in one commit. Should
    // the batch not begin, each is written on its own; should it not commit, the run stays `running` in the
    // history and becomes `interrupted` at the daemon's next start, and the failure is logged.
    auto writes = m_store.beginWrites(QStringLiteral("record the end of run %1").arg(runId));
    logStoreFailure(writes, "a run's end as one commit");
    for (const Store::FileRecord &artifact : std::as_const(artifacts))
        recordFile(artifact, "an artifact");
    logStoreFailure(m_store.finishRun(record), "a run's outcome");
    // Clients learn the new count of active runs at once; the row itself is saved by touch() when due.
    if (!touch(target))
        Q_EMIT containerChanged(snapshot(target));
    const Store::EventRecord finishedEvent =
        storeEvent(target.record.id, runId, QStringLiteral("run.finished"),
                   {{QStringLiteral("error_class"), record.errorClass},
                    {QStringLiteral("exit_code"), record.exitCode},
                    {QStringLiteral("signal"), record.signal},
                    {QStringLiteral("wall_ms"), record.wallMs}});
    bool stored = true;
    if (writes) {
        const auto committed = writes->commit();
        logStoreFailure(committed, "a run's end");
        stored = bool(committed);
    }
    if (stored)
        Q_EMIT eventRecorded(finishedEvent);
    Q_EMIT runFinished(RunSnapshot{record, true, runNetworkCounts(runId)});
}

namespace {

// Counted from the recorded decisions, so the run, its summary and its history always agree.
NetworkCounts countDecisions(const Store::HistoryStore &store, const QString &containerId,
                             const QString &runId)
{
    const QHash<QString, qint64> counts =
        store.eventCounts(containerId, QStringLiteral("network."), runId).value_or(QHash<QString, qint64>());
    return {counts.value(QStringLiteral("network.allowed")), counts.value(QStringLiteral("network.denied")),
            counts.value(QStringLiteral("network.error"))};
}

} // namespace

NetworkCounts ContainerManager::runNetworkCounts(const QString &runId) const
{
    m_ledger->flushRun(runId);
    return countDecisions(m_store, {}, runId);
}

NetworkCounts ContainerManager::containerNetworkCounts(const QString &containerId) const
{
    m_ledger->flushContainer(containerId);
    return countDecisions(m_store, containerId, {});
}

Result<> ContainerManager::writeStdin(const QString &runId, const QByteArray &data, bool eof)
{
    const QString containerId = m_activeRuns.value(runId);
    if (containerId.isEmpty()) {
        if (!m_store.run(runId))
            return fail(QStringLiteral("run.not_found"), QStringLiteral("no run with id `%1`").arg(runId));
        return fail(QStringLiteral("run.not_active"), QStringLiteral("run `%1` is not running").arg(runId));
    }
    auto found = entry(containerId);
    if (!found)
        return fail(found.error());
    ContainerRun *run = (*found)->container->run(runId);
    if (!run)
        return fail(QStringLiteral("run.not_active"), QStringLiteral("run `%1` is not running").arg(runId));
    touch(**found);
    return run->writeStdin(data, eof);
}

Result<RunSnapshot> ContainerManager::cancel(const QString &runId)
{
    const QString containerId = m_activeRuns.value(runId);
    if (containerId.isEmpty())
        return run(runId); // already finished: cancelling is a no-op
    auto found = entry(containerId);
    if (!found)
        return fail(found.error());
    if (ContainerRun *run = (*found)->container->run(runId))
        run->cancel();
    recordEvent(containerId, runId, QStringLiteral("run.cancelled"), {});
    return RunSnapshot{.record = m_runRecords.value(runId)};
}

Result<RunSnapshot> ContainerManager::run(const QString &runId) const
{
    if (m_runRecords.contains(runId))
        return RunSnapshot{.record = m_runRecords.value(runId)};
    auto record = m_store.run(runId);
    if (!record)
        return fail(QStringLiteral("run.not_found"), QStringLiteral("no run with id `%1`").arg(runId));
    RunSnapshot stored{.record = *record, .withOutput = true};
    if (record->state != QLatin1String("running"))
        stored.network = runNetworkCounts(runId);
    return stored;
}

} // namespace Cordon::Containers
