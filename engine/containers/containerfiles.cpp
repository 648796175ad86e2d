// SPDX-License-Identifier: MIT
// ContainerManager: files. Uploads go to inputs/ (read-only inside); downloads come from outputs/ or, on
// explicit request, the whole workspace, always through the fd-based safe copier: code in the container may
// have planted symlinks, hardlinks, fifos or odd names there.
#include "containers/containermanager.h"
#include "containers/csvupload.h"
#include "core/refusalcodes.h"

#include "core/plainbridge.h"
#include "sandbox/files/filenames.h"
#include "sandbox/files/removetree.h"
#include "sandbox/files/treecopier.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QTemporaryDir>

#include <algorithm>
#include <cerrno>
#include <sys/stat.h>

namespace Cordon::Containers {

namespace {

// A host path as the kernel takes it, and a path escaped for messages.
std::string encoded(const QString &path)
{
    return QFile::encodeName(path).toStdString();
}

QString shown(const QString &path)
{
    return toQt(Files::escapeForDisplay(encoded(path)));
}

// A relative path from a client: every component must be a valid name (no "..", no control characters).
Result<> validateRelativePath(const QString &path)
{
    if (path.isEmpty() || path.startsWith(QLatin1Char('/')))
        return fail(QStringLiteral("files.bad_name"),
                    QStringLiteral("`%1` is not a relative path").arg(path));
    for (const QString &component : path.split(QLatin1Char('/'))) {
        CORDON_TRY(Files::validateName(toPlain(component)));
    }
    return {};
}

// The whole workspace has inputs/ and outputs/ mounted on it, and scopes of their own.
Files::CopyLimits limitsFor(const Policy::ContainerPolicy &policy, const QString &scope = {})
{
    Files::CopyLimits limits;
    limits.maxFileBytes = static_cast<std::int64_t>(policy.limits.workspaceMb) * 1024 * 1024;
    limits.maxTotalBytes = limits.maxFileBytes;
    limits.skipMountPoints = scope == QLatin1String("workspace");
    return limits;
}

} // namespace

namespace {

// What an upload's worker did: the file copied in, and what pseudonymising it found.
struct UploadCopy
{
    Files::CopiedFile file;
    std::optional<Csv::PseudonymizeReport> pseudonymized;
};

QJsonObject pseudonymizedToJson(const Csv::PseudonymizeReport &report, const Secrets::PseudonymKey &key)
{
    QJsonArray columns;
    QJsonArray fewDistinct; // columns open to guessing (Csv::FewDistinctValues)
    for (std::size_t i = 0; i < report.columns.size(); ++i) {
        columns.append(toQt(report.columns[i]));
        if (i < report.distinct.size() && report.distinct[i].few())
            fewDistinct.append(QJsonObject{{QStringLiteral("column"), toQt(report.columns[i])},
                                           {QStringLiteral("distinct"), qint64(report.distinct[i].count())}});
    }
    return {{QStringLiteral("columns"), columns},
            {QStringLiteral("header"), report.header},
            {QStringLiteral("delimiter"), toQt(Csv::delimiterText(report.delimiter))},
            {QStringLiteral("key"), toQt(key.name)},
            {QStringLiteral("key_id"), toQt(key.id)},
            {QStringLiteral("source_sha256"), toQt(report.sourceSha256)},
            {QStringLiteral("source_size"), qint64(report.sourceBytes)},
            {QStringLiteral("rows"), qint64(report.rows)},
            {QStringLiteral("values"), qint64(report.values)},
            {QStringLiteral("short_rows"), qint64(report.shortRows)},
            {QStringLiteral("few_distinct"), fewDistinct}};
}

} // namespace

void ContainerManager::upload(const QString &containerId, const QString &name, const QString &hostPath,
                              const std::optional<QByteArray> &content, Done<UploadReport> done,
                              const std::optional<PseudonymizeRequest> &pseudonymize)
{
    auto found = liveEntry(containerId);
    if (!found)
        return done(fail(found.error()));
    Entry &target = **found;
    if (const Result<> valid = Files::validateName(toPlain(name)); !valid)
        return done(fail(valid.error()));
    // A lone surrogate would become '?' in UTF-8 and pass validateName(): it is refused as not a name.
    if (!name.isValidUtf16())
        return done(fail(QStringLiteral("files.bad_name"),
                         QStringLiteral("import `%1`: the name is not valid Unicode").arg(shown(name))));
    if (!content && hostPath.isEmpty())
        return done(fail(QStringLiteral("files.no_source"), QStringLiteral("give a path or content")));
    // The key first: an upload that cannot be pseudonymised must not start at all.
    std::optional<Secrets::PseudonymKey> key;
    Csv::PseudonymizeOptions options;
    if (pseudonymize) {
        auto keyed = pseudonymKey(pseudonymize->key);
        if (!keyed)
            return done(fail(keyed.error()));
        key = std::move(*keyed);
        for (const QString &column : pseudonymize->columns)
            options.columns.push_back(toPlain(column));
        for (int position : pseudonymize->positions)
            options.positions.push_back(static_cast<std::size_t>(position - 1));
        options.header = pseudonymize->header;
    }
    const std::string inputs = target.container->workspace().paths().inputs;
    Files::CopyLimits limits = limitsFor(target.container->policy());
    // The workspace quota covers everything uploaded: a new file must fit beside the inputs already there
    // and the uploads still under way.
    qint64 used = target.uploadingBytes;
    for (const QJsonObject &input : std::as_const(target.inputs))
        used += input.value(QStringLiteral("size")).toInteger();
    const qint64 incoming = content ? content->size() : QFileInfo(hostPath).size();
    if (used + incoming > limits.maxTotalBytes)
        return done(fail(
            QStringLiteral("files.quota"),
            QStringLiteral("uploading %1 bytes would exceed the workspace quota of %2 MiB (%3 bytes used)")
                .arg(incoming)
                .arg(target.container->policy().limits.workspaceMb)
                .arg(used)));
    limits.maxFileBytes = limits.maxTotalBytes - used;
    // A pseudonymised file is larger than its source (a one-byte value becomes a 20-byte pseudonym: at most
    // eleven times, with its delimiter): that much of the quota is held while it is made, so that uploads
    // side by side cannot overrun it together, and the result may not grow past it.
    const qint64 reserved =
        pseudonymize ? std::min<qint64>(limits.maxFileBytes, incoming * 11 + 64) : incoming;
    if (pseudonymize) {
        options.maxBytes = limits.maxFileBytes;
        options.maxResultBytes = reserved;
        limits.maxFileBytes = reserved;
    }
    target.uploadingBytes += reserved;
    std::optional<std::string> bytes;
    if (content)
        bytes = content->toStdString();
    offload<UploadCopy>(
        [inputs, limits, name = toPlain(name), source = encoded(hostPath), bytes = std::move(bytes), options,
         pseudonyms = key ? std::optional<Secrets::Pseudonymizer>(Secrets::Pseudonymizer(key->bytes))
                          : std::nullopt]() -> Result<UploadCopy> {
            if (!bytes && !pseudonyms) {
                auto copied = Files::importFile(source, inputs, name, limits);
                if (!copied)
                    return fail(copied.error());
                return UploadCopy{std::move(*copied), std::nullopt};
            }
            // Content sent over the socket, and a pseudonymised CSV, go through a private staging file, so
            // that one code path copies into inputs/.
            QTemporaryDir staging;
            if (!staging.isValid())
                return fail(QStringLiteral("files.io"), QStringLiteral("cannot create a staging directory"));
            const std::string staged = encoded(staging.filePath(QStringLiteral("upload")));
            std::optional<Csv::PseudonymizeReport> report;
            if (pseudonyms) {
                auto fd = openCsvSource(source, bytes);
                if (!fd)
                    return fail(fd.error());
                auto made = stagePseudonymizedCsv(fd->get(), staged, *pseudonyms, options);
                if (!made)
                    return fail(made.error());
                report = std::move(*made);
            } else {
                QFile file(staging.filePath(QStringLiteral("upload")));
                if (!file.open(QIODevice::WriteOnly) ||
                    file.write(bytes->data(), qint64(bytes->size())) != qint64(bytes->size()))
                    return fail(QStringLiteral("files.io"), QStringLiteral("cannot stage the upload"));
            }
            auto copied = Files::importFile(staged, inputs, name, limits);
            if (!copied)
                return fail(copied.error());
            return UploadCopy{std::move(*copied), std::move(report)};
        },
        [this, containerId, reserved, key, done = std::move(done)](Result<UploadCopy> copied) {
            if (auto any = entry(containerId))
                (*any)->uploadingBytes -= reserved;
            if (!copied)
                return done(fail(copied.error()));
            auto live = liveEntry(containerId);
            if (!live)
                return done(fail(live.error()));
            Entry &owner = **live;
            const QString path = toQt(copied->file.relativePath);
            QJsonObject file{{QStringLiteral("path"), path},
                             {QStringLiteral("scope"), QStringLiteral("inputs")},
                             {QStringLiteral("size"), qint64(copied->file.size)},
                             {QStringLiteral("sha256"), toQt(copied->file.sha256Hex)}};
            owner.inputs.insert(path, file);
            UploadReport report{std::move(copied->file)};
            if (copied->pseudonymized) {
                report.pseudonymized = pseudonymizedToJson(*copied->pseudonymized, *key);
                file.insert(QStringLiteral("pseudonymized"), report.pseudonymized);
            }
            Store::FileRecord record;
            record.containerId = containerId;
            record.direction = QStringLiteral("upload");
            record.scope = QStringLiteral("inputs");
            record.path = path;
            record.sha256 = toQt(report.file.sha256Hex);
            record.size = report.file.size;
            record.at = QDateTime::currentMSecsSinceEpoch();
            if (!report.pseudonymized.isEmpty())
                record.detail = {{QStringLiteral("pseudonymized"), report.pseudonymized}};
            recordFile(record, "a file transfer");
            touch(owner);
            recordEvent(containerId, {}, QStringLiteral("file.uploaded"), file);
            done(std::move(report));
        });
}

void ContainerManager::listFiles(const QString &containerId, const QString &scope, Done<FileReport> done,
                                 bool scan)
{
    auto found = liveEntry(containerId);
    if (!found)
        return done(fail(found.error()));
    const Entry &target = **found;
    auto root = target.container->filesRoot(scope);
    if (!root)
        return done(fail(root.error()));
    const QString shownScope = scope.isEmpty() ? QStringLiteral("outputs") : scope;
    Files::CopyLimits limits = limitsFor(target.container->policy(), scope);
    std::shared_ptr<Scan::ArtifactInspection> inspection;
    if (scan) {
        // Scanned on the worker as each file is hashed; the masker is copied for that thread.
        inspection =
            std::make_shared<Scan::ArtifactInspection>(target.container->policy().artifactScan, target.masker,
                                                       std::string(), orgPolicy().internalSuffixes());
        limits.examine = [inspection](int fd, const std::string &relative) {
            inspection->look(fd, relative);
        };
    }
    offload<FileReport>(
        [root = *root, limits, shownScope, inspection]() -> Result<FileReport> {
            auto listing = Files::listTree(root, limits);
            if (!listing)
                return fail(listing.error());
            FileReport report{shownScope, std::move(*listing)};
            if (inspection)
                report.inspected = inspection->files();
            return report;
        },
        [this, containerId, done = std::move(done)](Result<FileReport> report) {
            // Each file keeps the name the listing gives it (live listings show names as they are, so that
            // a file can be asked for); what is inside archives is masked as in a download's answer.
            if (report) {
                for (Scan::InspectedFile &file : report->inspected) {
                    report->inspectedShown.push_back(toPlain(maskedText(containerId, toQt(file.path))));
                    for (Scan::Finding &finding : file.findings)
                        finding.path = toPlain(maskedText(containerId, toQt(finding.path)));
                }
            }
            done(std::move(report));
        });
}

void ContainerManager::maskFindings(const QString &containerId, std::vector<Scan::InspectedFile> &files) const
{
    for (Scan::InspectedFile &file : files) {
        file.path = toPlain(maskedText(containerId, toQt(file.path)));
        for (Scan::Finding &finding : file.findings)
            finding.path = toPlain(maskedText(containerId, toQt(finding.path)));
    }
}

namespace {

// The paths a path shown masked may stand for: `path` itself first, then each "[secret:NAME]" in it replaced
// by a value NAME has had (raw: the form a file name takes), or kept; at most MaxCandidates in all, and none
// but `path` when it holds more than MaxMarkers markers, so that no request makes the daemon build many. A
// file named after a value is shown, and reported by the scan, masked; Download Anyway asks for it by that
// name.
std::vector<std::string> unmaskedCandidates(const std::string &path,
                                            const std::set<std::pair<std::string, std::string>> &values)
{
    constexpr std::size_t MaxCandidates = 16;
    constexpr std::size_t MaxMarkers = 4;
    std::size_t markers = 0;
    for (std::size_t at = path.find("[secret:"); at != std::string::npos; at = path.find("[secret:", at + 1))
        ++markers;
    if (markers == 0 || markers > MaxMarkers)
        return {path};
    std::vector<std::string> done{std::string()};
    std::size_t at = 0;
    while (at < path.size()) {
        const std::size_t open = path.find("[secret:", at);
        const std::size_t close = open == std::string::npos ? open : path.find(']', open);
        if (close == std::string::npos) {
            for (std::string &prefix : done)
                prefix += path.substr(at);
            break;
        }
        const std::string name = path.substr(open + 8, close - open - 8);
        std::vector<std::string> next;
        for (const std::string &prefix : done) {
            const std::string head = prefix + path.substr(at, open - at);
            // The marker as it is comes first, so that the first candidate is `path` itself.
            if (next.size() < MaxCandidates)
                next.push_back(head + path.substr(open, close + 1 - open));
            for (const auto &[secret, value] : values) {
                if (secret == name && next.size() < MaxCandidates)
                    next.push_back(head + value);
            }
        }
        done = std::move(next);
        at = close + 1;
    }
    return done;
}

// What a download's copy produced, before the manager records it.
struct DownloadCopy
{
    std::vector<Scan::InspectedFile> inspected;
    std::vector<Files::CopiedFile> copied;
    std::vector<Files::RefusedEntry> refused;
    std::optional<Error> refusal; // a single file's refusal, which is the request's answer
    bool truncated = false;
};

} // namespace

void ContainerManager::download(const QString &containerId, const QString &scope, const QString &path,
                                const QString &destination, Files::ExistingName existing,
                                Done<FileReport> done, const QString &overrideReason)
{
    auto found = liveEntry(containerId);
    if (!found)
        return done(fail(found.error()));
    Entry &target = **found;
    auto root = target.container->filesRoot(scope);
    if (!root)
        return done(fail(root.error()));
    if (destination.isEmpty() || !QDir::isAbsolutePath(destination))
        return done(fail(QStringLiteral("files.destination"),
                         QStringLiteral("the destination must be an absolute directory path")));
    if (!path.isEmpty()) {
        if (const Result<> valid = validateRelativePath(path); !valid)
            return done(fail(valid.error()));
        // A lone surrogate would become '?' in UTF-8 and pass validateName(): it is not a name.
        if (!path.isValidUtf16())
            return done(fail(QStringLiteral("files.bad_name"),
                             QStringLiteral("export `%1`: not valid Unicode").arg(shown(path))));
    }
    if (!QDir().mkpath(destination))
        return done(
            fail(QStringLiteral("files.destination"), QStringLiteral("cannot create `%1`").arg(destination)));
    Files::CopyLimits limits = limitsFor(target.container->policy(), scope);
    limits.existingNames = existing;
    const QString shownScope = scope.isEmpty() ? QStringLiteral("outputs") : scope;
    // Scanned on the worker, each file in its pending copy; the masker is copied for that thread.
    auto inspection =
        std::make_shared<Scan::ArtifactInspection>(target.container->policy().artifactScan, target.masker,
                                                   toPlain(overrideReason), orgPolicy().internalSuffixes());
    Scan::ArtifactInspection::attach(inspection, limits);
    // A value may hold '/' or "..": only candidates that are paths below the scope are tried.
    std::vector<std::string> candidates;
    for (std::string &candidate : unmaskedCandidates(toPlain(path), target.secretValues)) {
        if (candidates.empty() || validateRelativePath(toQt(candidate)))
            candidates.push_back(std::move(candidate));
    }
    offload<DownloadCopy>(
        [root = *root, relative = toPlain(path), candidates, destination = encoded(destination), limits,
         inspection]() -> Result<DownloadCopy> {
            DownloadCopy result;
            // Whatever was copied or refused, the findings go with the answer.
            const auto withFindings = [&]() {
                result.inspected = inspection->files();
                return result;
            };
            if (relative.empty()) {
                auto report = Files::exportTree(root, destination, limits);
                if (!report)
                    return fail(report.error());
                result.copied = std::move(report->copied);
                result.refused = std::move(report->refused);
                result.truncated = report->truncated;
                return withFindings();
            }
            // A masked name may stand for more than one entry (the container may also have made one named
            // like the mask): then none is taken, and the user asks by the real name.
            std::string chosen = relative;
            if (candidates.size() > 1) {
                std::vector<std::string> present;
                for (const std::string &candidate : candidates) {
                    struct stat status
                    {
                    };
                    const Result<UniqueFd> opened = Files::openSourceRoot(root.below(candidate), &status);
                    if (opened || opened.error().code() != "files.not_found")
                        present.push_back(candidate);
                }
                if (present.size() > 1)
                    return fail("files.ambiguous",
                                "`" + relative +
                                    "` stands for more than one entry in the container; ask for it "
                                    "by the name `cordon files` lists");
                if (present.size() == 1)
                    chosen = present.front();
            }
            // Saved under the name asked for: a file asked for masked is saved masked, so that the value is
            // not in the user's folder, the answer or what the CLI prints.
            const std::string fileName = relative.substr(relative.rfind('/') + 1);
            Result<Files::CopiedFile> file =
                Files::exportFile(root, chosen, destination + '/' + fileName, limits);
            if (file) {
                result.copied.push_back(std::move(*file));
            } else if (isRefusalCode(toQt(file.error().code()))) {
                // A file the scan blocked is a report with its findings, not a failed request.
                if (file.error().code() != "files.blocked")
                    result.refusal = file.error();
                result.refused.push_back(
                    Files::RefusedEntry{relative, file.error().code(), file.error().message()});
            } else {
                return fail(file.error());
            }
            return withFindings();
        },
        [this, containerId, shownScope, overrideReason, inspection,
         done = std::move(done)](Result<DownloadCopy> copy) {
            if (!copy) {
                // What was saved before the copy failed was scanned too, and an override of it is evidence.
                recordArtifactFindings(containerId, shownScope, inspection->files(), overrideReason);
                // An error names the file as it was read: a name asked for masked stays masked.
                return done(fail(copy.error().code(),
                                 toPlain(maskedText(containerId, toQt(copy.error().message())))));
            }
            const qint64 at = QDateTime::currentMSecsSinceEpoch();
            for (const Files::CopiedFile &file : copy->copied) {
                Store::FileRecord record;
                record.containerId = containerId;
                record.direction = QStringLiteral("download");
                record.scope = shownScope;
                record.path = toQt(file.relativePath);
                record.sha256 = toQt(file.sha256Hex);
                record.size = file.size;
                record.at = at;
                recordFile(record, "a file transfer");
            }
            if (auto live = liveEntry(containerId))
                touch(**live);
            // A download that copied nothing is still a decision worth proving: what was refused, and why.
            recordArtifactFindings(containerId, shownScope, copy->inspected, overrideReason);
            recordEvent(containerId, {}, QStringLiteral("file.downloaded"),
                        {{QStringLiteral("scope"), shownScope},
                         {QStringLiteral("files"), qint64(copy->copied.size())},
                         {QStringLiteral("refused"), qint64(copy->refused.size())}});
            if (copy->refusal)
                return done(fail(copy->refusal->code(),
                                 toPlain(maskedText(containerId, toQt(copy->refusal->message())))));
            FileReport answer{shownScope, {}};
            answer.report.copied = std::move(copy->copied);
            // What was copied is named masked, as everything else in the answer; where it was saved
            // (saved_as) is the file's real name in the user's folder.
            for (Files::CopiedFile &file : answer.report.copied)
                file.relativePath = toPlain(maskedText(containerId, toQt(file.relativePath)));
            answer.report.refused = std::move(copy->refused);
            // So is a refusal, and its reason.
            for (Files::RefusedEntry &entry : answer.report.refused) {
                entry.relativePath = toPlain(maskedText(containerId, toQt(entry.relativePath)));
                entry.reason = toPlain(maskedText(containerId, toQt(entry.reason)));
            }
            answer.report.truncated = copy->truncated;
            answer.inspected = std::move(copy->inspected);
            maskFindings(containerId, answer.inspected);
            done(std::move(answer));
        });
}

void ContainerManager::recordArtifactFindings(const QString &containerId, const QString &scope,
                                              const std::vector<Scan::InspectedFile> &files,
                                              const QString &overrideReason)
{
    if (files.empty())
        return;
    // Which run wrote each file: the last artifact record of its path.
    QHash<QString, QString> writer;
    if (auto records = m_store.files(containerId)) {
        for (const Store::FileRecord &record : *records) {
            if (record.direction == QLatin1String("artifact"))
                writer.insert(record.path, record.runId);
        }
    }
    for (const Scan::InspectedFile &file : files) {
        const QString path = maskedText(containerId, toQt(file.path));
        QStringList rules;
        for (const Scan::Finding &finding : file.findings) {
            if (!rules.contains(toQt(finding.rule)))
                rules.append(toQt(finding.rule));
        }
        const QString runId = writer.value(path);
        recordEvent(containerId, runId, QStringLiteral("artifact.finding"),
                    {{QStringLiteral("scope"), scope},
                     {QStringLiteral("path"), path},
                     {QStringLiteral("action"), toQt(file.action)},
                     {QStringLiteral("rules"), QJsonArray::fromStringList(rules)},
                     {QStringLiteral("findings"), qint64(file.findings.size())}});
        if (file.action == "overridden")
            recordEvent(containerId, runId, QStringLiteral("artifact.override"),
                        {{QStringLiteral("scope"), scope},
                         {QStringLiteral("path"), path},
                         {QStringLiteral("rules"), QJsonArray::fromStringList(rules)},
                         {QStringLiteral("reason"), maskedText(containerId, overrideReason)}});
    }
}

Result<> ContainerManager::deleteFile(const QString &containerId, const QString &scope, const QString &path)
{
    auto found = liveEntry(containerId);
    if (!found)
        return fail(found.error());
    Entry &target = **found;
    // A save under way could copy the file before it goes, and bring it back at the next start.
    target.container->finishPendingSave();
    auto root = target.container->filesRoot(scope);
    if (!root)
        return fail(root.error());
    CORDON_TRY(validateRelativePath(path));
    // Deleting what is not there is a mistake worth hearing about (a typo, the wrong scope), not a success.
    // A symlink is an entry of its own, removed without following it.
    if (auto removed = Files::removeBelow(*root, encoded(path)); !removed) {
        if (removed.error().code() == "files.not_found")
            return fail(QStringLiteral("file.not_found"),
                        QStringLiteral("%1/%2 does not exist in container %3").arg(scope, path, containerId));
        return fail(removed.error());
    }
    if (scope == QLatin1String("inputs"))
        target.inputs.remove(path);
    else
        target.outputs.remove(path);
    Store::FileRecord record;
    record.containerId = containerId;
    record.direction = QStringLiteral("delete");
    record.scope = scope;
    record.path = path;
    record.at = QDateTime::currentMSecsSinceEpoch();
    recordFile(record, "a file transfer");
    touch(target);
    recordEvent(containerId, {}, QStringLiteral("file.deleted"),
                {{QStringLiteral("scope"), scope}, {QStringLiteral("path"), path}});
    return {};
}

Result<QList<ProcessInfo>> ContainerManager::processes(const QString &containerId) const
{
    auto found = liveEntry(containerId);
    if (!found)
        return fail(found.error());
    QList<ProcessInfo> list;
    for (pid_t pid : (*found)->container->processes()) {
        QFile status(QStringLiteral("/proc/%1/status").arg(pid));
        if (!status.open(QIODevice::ReadOnly))
            continue;
        QString name;
        qint64 rss = 0;
        for (const QByteArray &line : status.readAll().split('\n')) {
            if (line.startsWith("Name:"))
                name = QString::fromUtf8(line.mid(5).trimmed());
            else if (line.startsWith("VmRSS:"))
                rss = line.mid(6).trimmed().split(' ').value(0).toLongLong() * 1024;
        }
        list.append(ProcessInfo{pid, name, rss});
    }
    return list;
}

} // namespace Cordon::Containers
