// SPDX-License-Identifier: MIT
// ContainerManager: files. Uploads go to inputs/ (read-only inside); downloads come from outputs/ or, on
// explicit request, the whole workspace, always through the fd-based safe copier: code in the container may
// have planted symlinks, hardlinks, fifos or odd names there.
#include "containers/containermanager.h"
#include "core/refusalcodes.h"

#include "core/plainbridge.h"
#include "sandbox/files/filenames.h"
#include "sandbox/files/removetree.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>

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

template<typename T> void ContainerManager::offload(std::function<Result<T>()> work, Done<T> finish)
{
    m_filePool.start([this, work = std::move(work), finish = std::move(finish)]() mutable {
        auto result = std::make_shared<Result<T>>(work());
        // Queued to the manager: if it is gone by then, the event goes with it.
        QMetaObject::invokeMethod(
            this, [finish = std::move(finish), result] { finish(std::move(*result)); }, Qt::QueuedConnection);
    });
}

void ContainerManager::upload(const QString &containerId, const QString &name, const QString &hostPath,
                              const std::optional<QByteArray> &content, Done<Files::CopiedFile> done)
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
    target.uploadingBytes += incoming;
    offload<Files::CopiedFile>(
        [inputs, limits, name = toPlain(name), source = encoded(hostPath),
         content]() -> Result<Files::CopiedFile> {
            if (!content)
                return Files::importFile(source, inputs, name, limits);
            // Content sent over the socket goes through a private temporary file, so one code path copies.
            QTemporaryDir staging;
            if (!staging.isValid())
                return fail(QStringLiteral("files.io"), QStringLiteral("cannot create a staging directory"));
            QFile file(staging.filePath(QStringLiteral("upload")));
            if (!file.open(QIODevice::WriteOnly) || file.write(*content) != content->size())
                return fail(QStringLiteral("files.io"), QStringLiteral("cannot stage the upload"));
            file.close();
            return Files::importFile(encoded(file.fileName()), inputs, name, limits);
        },
        [this, containerId, incoming, done = std::move(done)](Result<Files::CopiedFile> copied) {
            if (auto any = entry(containerId))
                (*any)->uploadingBytes -= incoming;
            if (!copied)
                return done(fail(copied.error()));
            auto live = liveEntry(containerId);
            if (!live)
                return done(fail(live.error()));
            Entry &owner = **live;
            const QString path = toQt(copied->relativePath);
            const QJsonObject file{{QStringLiteral("path"), path},
                                   {QStringLiteral("scope"), QStringLiteral("inputs")},
                                   {QStringLiteral("size"), qint64(copied->size)},
                                   {QStringLiteral("sha256"), toQt(copied->sha256Hex)}};
            owner.inputs.insert(path, file);
            Store::FileRecord record;
            record.containerId = containerId;
            record.direction = QStringLiteral("upload");
            record.scope = QStringLiteral("inputs");
            record.path = path;
            record.sha256 = toQt(copied->sha256Hex);
            record.size = copied->size;
            record.at = QDateTime::currentMSecsSinceEpoch();
            recordFile(record, "a file transfer");
            touch(owner);
            recordEvent(containerId, {}, QStringLiteral("file.uploaded"), file);
            done(std::move(*copied));
        });
}

void ContainerManager::listFiles(const QString &containerId, const QString &scope, Done<FileReport> done)
{
    auto found = liveEntry(containerId);
    if (!found)
        return done(fail(found.error()));
    const Entry &target = **found;
    auto root = target.container->filesRoot(scope);
    if (!root)
        return done(fail(root.error()));
    const QString shownScope = scope.isEmpty() ? QStringLiteral("outputs") : scope;
    offload<FileReport>(
        [root = *root, limits = limitsFor(target.container->policy(), scope),
         shownScope]() -> Result<FileReport> {
            auto listing = Files::listTree(root, limits);
            if (!listing)
                return fail(listing.error());
            return FileReport{shownScope, std::move(*listing)};
        },
        std::move(done));
}

namespace {

// What a download's copy produced, before the manager records it.
struct DownloadCopy
{
    std::vector<InspectedFile> inspected;
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
    auto inspection = std::make_shared<ArtifactInspection>(target.container->policy().artifactScan,
                                                           target.masker, toPlain(overrideReason));
    limits.inspect = [inspection](int fd, const std::string &relative) {
        return inspection->inspect(fd, relative);
    };
    offload<DownloadCopy>(
        [root = *root, relative = toPlain(path), destination = encoded(destination), limits,
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
            const std::string fileName = relative.substr(relative.rfind('/') + 1);
            auto file = Files::exportFile(root, relative, destination + '/' + fileName, limits);
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
                return done(fail(copy.error()));
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
                return done(fail(*copy->refusal));
            FileReport answer{shownScope, {}};
            answer.report.copied = std::move(copy->copied);
            answer.report.refused = std::move(copy->refused);
            answer.report.truncated = copy->truncated;
            answer.inspected = std::move(copy->inspected);
            for (InspectedFile &file : answer.inspected) {
                file.path = toPlain(maskedText(containerId, toQt(file.path)));
                for (Scan::Finding &finding : file.findings)
                    finding.path = toPlain(maskedText(containerId, toQt(finding.path)));
            }
            done(std::move(answer));
        });
}

void ContainerManager::recordArtifactFindings(const QString &containerId, const QString &scope,
                                              const std::vector<InspectedFile> &files,
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
    for (const InspectedFile &file : files) {
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
