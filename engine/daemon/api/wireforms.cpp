// SPDX-License-Identifier: MIT
#include "daemon/api/wireforms.h"

#include "core/plainbridge.h"
#include "core/runsummary.h"

namespace Cordon::Api {

QJsonObject containerToJson(const Containers::ContainerSnapshot &container)
{
    const Store::ContainerRecord &record = container.record;
    const Policy::ContainerPolicy &policy = container.policy;
    QJsonObject json{{QStringLiteral("id"), record.id},
                     {QStringLiteral("name"), toQt(policy.name)},
                     {QStringLiteral("state"), Containers::containerStateName(container.state)},
                     {QStringLiteral("policy"), toQt(policy.toJson())},
                     {QStringLiteral("policy_version"), record.policyVersion},
                     {QStringLiteral("created_at"), record.createdAt},
                     {QStringLiteral("last_active_at"), record.lastActiveAt},
                     // An ended container has no deadline left: 0, as for ended_at of one that lives.
                     {QStringLiteral("expires_at"), record.endedAt == 0 ? record.expiresAt : 0},
                     {QStringLiteral("ended_at"), record.endedAt},
                     {QStringLiteral("time_scale"), record.timeScale},
                     {QStringLiteral("demo"), record.demo},
                     {QStringLiteral("memory_limit"), static_cast<qint64>(policy.memoryLimitBytes)},
                     {QStringLiteral("limits_enforced"), container.limitsEnforced},
                     {QStringLiteral("active_runs"), container.activeRuns}};
    // Files are memory: shown beside the limit, so that "out of memory" with files filling it reads so.
    if (container.workspaceBytes)
        json.insert(QStringLiteral("workspace_bytes"), *container.workspaceBytes);
    // Its idle deadline passed while no daemon ran; it is kept until expires_at unless used or kept alive.
    if (container.graceSince)
        json.insert(QStringLiteral("grace_since"), *container.graceSince);
    // Made by a Go/No-Go audit ("audit:<id>"): clients keep it out of the user's own lists.
    if (!record.origin.isEmpty())
        json.insert(QStringLiteral("origin"), record.origin);
    return json;
}

QJsonArray containersToJson(const QList<Containers::ContainerSnapshot> &containers)
{
    QJsonArray array;
    for (const Containers::ContainerSnapshot &container : containers)
        array.append(containerToJson(container));
    return array;
}

QJsonObject saveToJson(const Containers::WorkspaceSave *save)
{
    if (!save)
        return {{QStringLiteral("state"), QStringLiteral("kept")}};
    if (!save->saved)
        return {{QStringLiteral("state"), QStringLiteral("failed")}, {QStringLiteral("error"), save->error}};
    return {{QStringLiteral("state"), QStringLiteral("saved")},
            {QStringLiteral("files"), save->files},
            {QStringLiteral("bytes"), save->bytes},
            {QStringLiteral("milliseconds"), save->milliseconds}};
}

QJsonObject memorySampleToJson(const Containers::MemorySample &sample)
{
    return {{QStringLiteral("container"), sample.container},
            {QStringLiteral("at"), sample.at},
            {QStringLiteral("current"), sample.current},
            {QStringLiteral("peak"), sample.peak},
            {QStringLiteral("limit"), sample.limit},
            {QStringLiteral("oom_kills"), sample.oomKills},
            {QStringLiteral("pids"), sample.pids},
            {QStringLiteral("pids_limit"), sample.pidsLimit},
            {QStringLiteral("pids_limit_hits"), sample.pidsLimitHits}};
}

QJsonArray memorySamplesToJson(const QList<Containers::MemorySample> &samples)
{
    QJsonArray array;
    for (const Containers::MemorySample &sample : samples)
        array.append(memorySampleToJson(sample));
    return array;
}

namespace {

// At most `inlineBytes` of a stream as text, cut where a UTF-8 sequence starts. QString::fromUtf8 replaces
// each invalid sequence with U+FFFD; JSON escapes NUL as \u0000.
void insertOutput(QJsonObject &json, const QString &stream, const QByteArray &data, qsizetype inlineBytes)
{
    qsizetype cut = std::min(data.size(), inlineBytes);
    while (cut < data.size() && cut > 0 && (static_cast<unsigned char>(data[cut]) & 0xc0) == 0x80)
        --cut;
    json.insert(stream, QString::fromUtf8(data.left(cut)));
    json.insert(stream + QStringLiteral("_bytes"), data.size());
    if (cut < data.size())
        json.insert(stream + QStringLiteral("_paged"), true);
}

} // namespace

QJsonObject runRecordToJson(const Store::RunRecord &run, bool withOutput, qsizetype inlineBytes)
{
    QJsonObject json{{QStringLiteral("id"), run.id},
                     {QStringLiteral("container"), run.containerId},
                     {QStringLiteral("state"), run.state},
                     {QStringLiteral("command"), QJsonArray::fromStringList(run.command)},
                     {QStringLiteral("language"), run.language},
                     {QStringLiteral("code_sha256"), run.codeSha256},
                     {QStringLiteral("policy_version"), run.policyVersion},
                     {QStringLiteral("inputs"), run.inputs},
                     {QStringLiteral("secrets"), run.secrets},
                     {QStringLiteral("idempotency_key"), run.idempotencyKey},
                     {QStringLiteral("started_at"), run.startedAt},
                     {QStringLiteral("ended_at"), run.endedAt}};
    // What a list says ran, the container's name (a deleted container's too) and who made it: read from the
    // history with the run; a run just started or ended is announced with what the manager holds.
    const QString summary =
        run.language.isEmpty()
            ? RunSummary::ofCommand(run.command)
            : RunSummary::firstMeaningfulLine(run.code.isEmpty() ? run.codeHead : run.code);
    if (!summary.isEmpty())
        json.insert(QStringLiteral("summary"), summary);
    if (!run.containerName.isEmpty())
        json.insert(QStringLiteral("container_name"), run.containerName);
    if (!run.containerOrigin.isEmpty())
        json.insert(QStringLiteral("container_origin"), run.containerOrigin);
    if (run.state != QLatin1String("running")) {
        json.insert(QStringLiteral("error_class"), run.errorClass);
        json.insert(QStringLiteral("exit_code"), run.exitCode);
        json.insert(QStringLiteral("signal"), run.signal);
        json.insert(QStringLiteral("wall_ms"), run.wallMs);
        json.insert(QStringLiteral("cpu_ms"), run.cpuMs);
        json.insert(QStringLiteral("peak_memory_bytes"), run.peakMemoryBytes);
        json.insert(QStringLiteral("pids_limit_hits"), run.pidsLimitHits);
        json.insert(QStringLiteral("stdout_truncated"), run.stdoutTruncated);
        json.insert(QStringLiteral("stderr_truncated"), run.stderrTruncated);
        json.insert(QStringLiteral("artifacts"), run.artifacts);
        if (!run.message.isEmpty())
            json.insert(QStringLiteral("message"), run.message);
    }
    if (withOutput) {
        insertOutput(json, QStringLiteral("stdout"), run.stdoutData, inlineBytes);
        insertOutput(json, QStringLiteral("stderr"), run.stderrData, inlineBytes);
        json.insert(QStringLiteral("code"), run.code);
    }
    return json;
}

QJsonObject runToJson(const Containers::RunSnapshot &run)
{
    QJsonObject json = runRecordToJson(run.record, run.withOutput);
    if (run.network)
        json.insert(QStringLiteral("network"), networkCountsToJson(*run.network));
    return json;
}

QJsonObject networkCountsToJson(const Containers::NetworkCounts &counts)
{
    return {{QStringLiteral("allowed"), counts.allowed},
            {QStringLiteral("denied"), counts.denied},
            {QStringLiteral("errors"), counts.errors}};
}

QJsonObject fileToJson(const Files::CopiedFile &file, const QString &scope)
{
    return {{QStringLiteral("path"), toQt(file.relativePath)},
            {QStringLiteral("scope"), scope},
            {QStringLiteral("size"), qint64(file.size)},
            {QStringLiteral("sha256"), toQt(file.sha256Hex)}};
}

QJsonObject csvPreviewToJson(const Containers::CsvPreviewReport &report)
{
    const auto table = [](const std::vector<Csv::Row> &rows) {
        QJsonArray array;
        for (const Csv::Row &row : rows) {
            QJsonArray cells;
            for (const std::string &cell : row)
                cells.append(toQt(cell));
            array.append(cells);
        }
        return array;
    };
    QJsonArray names;
    for (const std::string &name : report.preview.names)
        names.append(toQt(name));
    const Csv::CsvPreview &preview = report.preview;
    // Per column: its distinct values in the rows read, when few enough to guess (0 otherwise).
    QJsonArray fewDistinct;
    for (const Csv::DistinctCounter &counter : preview.distinct)
        fewDistinct.append(counter.few() ? qint64(counter.count()) : qint64(0));
    return {{QStringLiteral("delimiter"), toQt(Csv::delimiterText(preview.delimiter))},
            {QStringLiteral("line_ending"), preview.lineEnding == "\r\n" ? QStringLiteral("crlf")
                                            : preview.lineEnding == "\r" ? QStringLiteral("cr")
                                                                         : QStringLiteral("lf")},
            {QStringLiteral("byte_order_mark"), preview.byteOrderMark},
            {QStringLiteral("header"), preview.header},
            {QStringLiteral("header_sure"), preview.headerSure},
            {QStringLiteral("columns"), names},
            {QStringLiteral("rows"), table(preview.rows)},
            {QStringLiteral("pseudonyms"), table(preview.pseudonyms)},
            {QStringLiteral("truncated"), preview.truncated},
            {QStringLiteral("few_distinct"), fewDistinct},
            {QStringLiteral("key"), report.key},
            {QStringLiteral("key_id"), report.keyId}};
}

namespace {

QJsonArray refusedToJson(const std::vector<Files::RefusedEntry> &refused)
{
    QJsonArray array;
    for (const Files::RefusedEntry &entry : refused)
        array.append(QJsonObject{{QStringLiteral("path"), toQt(entry.relativePath)},
                                 {QStringLiteral("code"), toQt(entry.code)},
                                 {QStringLiteral("reason"), toQt(entry.reason)}});
    return array;
}

} // namespace

QJsonObject fileListingToJson(const Containers::FileReport &listing)
{
    QJsonArray files;
    for (const Files::CopiedFile &file : listing.report.copied)
        files.append(fileToJson(file, listing.scope));
    return {{QStringLiteral("files"), files},
            {QStringLiteral("refused"), refusedToJson(listing.report.refused)},
            {QStringLiteral("truncated"), listing.report.truncated}};
}

QJsonObject fileDownloadToJson(const Containers::FileReport &download)
{
    // Each copy says where it went (saved_as, relative to the destination); the scope is the request's.
    QJsonArray copied;
    for (const Files::CopiedFile &file : download.report.copied)
        copied.append(QJsonObject{{QStringLiteral("path"), toQt(file.relativePath)},
                                  {QStringLiteral("saved_as"), toQt(file.savedAs)},
                                  {QStringLiteral("size"), qint64(file.size)},
                                  {QStringLiteral("sha256"), toQt(file.sha256Hex)}});
    return {{QStringLiteral("copied"), copied},
            {QStringLiteral("refused"), refusedToJson(download.report.refused)},
            {QStringLiteral("truncated"), download.report.truncated},
            // The artifact scan's findings, per file, with what became of the file.
            {QStringLiteral("scanned"), toQt(Scan::toJson(download.inspected))}};
}

QJsonArray processesToJson(const QList<Containers::ProcessInfo> &processes)
{
    QJsonArray array;
    for (const Containers::ProcessInfo &process : processes)
        array.append(QJsonObject{{QStringLiteral("pid"), process.pid},
                                 {QStringLiteral("command"), process.command},
                                 {QStringLiteral("rss_bytes"), process.rssBytes}});
    return array;
}

QJsonObject orgPolicyToJson(const Network::OrgPolicy &org)
{
    QJsonArray rules;
    for (const Policy::DomainRule &rule : org.rules())
        rules.append(toQt(Policy::domainRuleToJson(rule)));
    QJsonArray suffixes;
    for (const std::string &suffix : org.internalSuffixes())
        suffixes.append(toQt(suffix));
    return {{QStringLiteral("allowed_domains"), rules},
            {QStringLiteral("internal_suffixes"), suffixes},
            {QStringLiteral("path"), org.path()},
            {QStringLiteral("administered"), org.isAdministered()},
            {QStringLiteral("source"), org.sourceName()}};
}

QJsonObject networkSummaryToJson(const Containers::NetworkSummary &summary)
{
    QJsonArray hosts;
    for (const Containers::HostDecisions &row : summary.hosts) {
        QJsonObject json{{QStringLiteral("host"), row.host},
                         {QStringLiteral("decision"), row.decision},
                         {QStringLiteral("count"), row.count},
                         {QStringLiteral("last_reason"), row.lastReason},
                         {QStringLiteral("last_at"), row.lastAt}};
        if (row.host.isEmpty())
            json.insert(QStringLiteral("target"), row.target);
        if (row.suppressed)
            json.insert(QStringLiteral("suppressed"), true);
        hosts.append(json);
    }
    QJsonArray secrets;
    for (const Store::SecretDelivery &row : summary.secrets)
        secrets.append(QJsonObject{
            {QStringLiteral("secret"), row.secret},
            {QStringLiteral("host"), row.host},
            {QStringLiteral("decision"), row.refused ? QStringLiteral("refused") : QStringLiteral("sent")},
            {QStringLiteral("count"), row.count},
            {QStringLiteral("last_at"), row.lastAt}});
    return {{QStringLiteral("hosts"), hosts},
            {QStringLiteral("secrets"), secrets},
            {QStringLiteral("events"), summary.events}};
}

QJsonObject eventToJson(const Store::EventRecord &event)
{
    QJsonObject json{{QStringLiteral("id"), event.id},
                     {QStringLiteral("at"), event.at},
                     {QStringLiteral("kind"), event.kind},
                     {QStringLiteral("detail"), event.detail}};
    if (!event.containerId.isEmpty())
        json.insert(QStringLiteral("container"), event.containerId);
    if (!event.runId.isEmpty())
        json.insert(QStringLiteral("run_id"), event.runId);
    if (!event.containerName.isEmpty())
        json.insert(QStringLiteral("container_name"), event.containerName);
    return json;
}

QJsonObject secretToJson(const Containers::SecretListing &secret)
{
    QJsonArray usedBy;
    for (const Containers::SecretListing::User &user : secret.usedBy)
        usedBy.append(QJsonObject{{QStringLiteral("id"), user.id}, {QStringLiteral("name"), user.name}});
    return {{QStringLiteral("name"), toQt(secret.stored.name)},
            {QStringLiteral("set_at"), qint64(secret.stored.setAtMs)},
            {QStringLiteral("fingerprint"), toQt(secret.stored.fingerprint)},
            {QStringLiteral("used_by"), usedBy}};
}

} // namespace Cordon::Api
