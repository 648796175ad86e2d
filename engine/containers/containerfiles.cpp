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

// The scope's directory as the kernel takes it (bytes).
Result<std::string> scopeRoot(const Workspace &workspace, const QString &scope)
{
    const WorkspacePaths paths = workspace.paths();
    if (scope == QLatin1String("inputs"))
        return paths.inputs;
    if (scope.isEmpty() || scope == QLatin1String("outputs"))
        return paths.outputs;
    if (scope == QLatin1String("workspace"))
        return paths.work;
    return fail(QStringLiteral("files.invalid_scope"),
                QStringLiteral("unknown scope `%1`: use inputs, outputs or workspace").arg(scope));
}

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

Files::CopyLimits limitsFor(const Policy::ContainerPolicy &policy)
{
    Files::CopyLimits limits;
    limits.maxFileBytes = static_cast<std::int64_t>(policy.limits.workspaceMb) * 1024 * 1024;
    limits.maxTotalBytes = limits.maxFileBytes;
    return limits;
}

} // namespace

Result<Files::CopiedFile> ContainerManager::upload(const QString &containerId, const QString &name,
                                                   const QString &hostPath,
                                                   const std::optional<QByteArray> &content)
{
    auto found = liveEntry(containerId);
    if (!found)
        return fail(found.error());
    Entry &target = **found;
    CORDON_TRY(Files::validateName(toPlain(name)));
    const std::string inputs = target.container->workspace().paths().inputs;
    Files::CopyLimits limits = limitsFor(target.container->policy());
    // The workspace quota covers everything uploaded: a new file must fit beside the inputs already there.
    qint64 used = 0;
    for (const QJsonObject &input : std::as_const(target.inputs))
        used += input.value(QStringLiteral("size")).toInteger();
    const qint64 incoming = content ? content->size() : QFileInfo(hostPath).size();
    if (used + incoming > limits.maxTotalBytes)
        return fail(
            QStringLiteral("files.quota"),
            QStringLiteral("uploading %1 bytes would exceed the workspace quota of %2 MiB (%3 bytes used)")
                .arg(incoming)
                .arg(target.container->policy().limits.workspaceMb)
                .arg(used));
    limits.maxFileBytes = limits.maxTotalBytes - used;
    // A lone surrogate would become '?' in UTF-8 and pass validateName(): it is refused as not a name.
    const auto importFrom = [&](const QString &source) -> Result<Files::CopiedFile> {
        if (!name.isValidUtf16())
            return fail(QStringLiteral("files.bad_name"),
                        QStringLiteral("import `%1`: the name is not valid Unicode").arg(shown(source)));
        return Files::importFile(encoded(source), inputs, toPlain(name), limits);
    };
    Result<Files::CopiedFile> copied =
        fail(QStringLiteral("files.no_source"), QStringLiteral("give a path or content"));
    if (content) {
        // Content sent over the socket goes through a private temporary file, so one code path does the copy.
        QTemporaryDir staging;
        if (!staging.isValid())
            return fail(QStringLiteral("files.io"), QStringLiteral("cannot create a staging directory"));
        QFile file(staging.filePath(QStringLiteral("upload")));
        if (!file.open(QIODevice::WriteOnly) || file.write(*content) != content->size())
            return fail(QStringLiteral("files.io"), QStringLiteral("cannot stage the upload"));
        file.close();
        copied = importFrom(file.fileName());
    } else if (!hostPath.isEmpty()) {
        copied = importFrom(hostPath);
    }
    if (!copied)
        return fail(copied.error());
    const QString path = toQt(copied->relativePath);
    const QJsonObject file{{QStringLiteral("path"), path},
                           {QStringLiteral("scope"), QStringLiteral("inputs")},
                           {QStringLiteral("size"), qint64(copied->size)},
                           {QStringLiteral("sha256"), toQt(copied->sha256Hex)}};
    target.inputs.insert(path, file);
    Store::FileRecord record;
    record.containerId = containerId;
    record.direction = QStringLiteral("upload");
    record.scope = QStringLiteral("inputs");
    record.path = path;
    record.sha256 = toQt(copied->sha256Hex);
    record.size = copied->size;
    record.at = QDateTime::currentMSecsSinceEpoch();
    logStoreFailure(m_store.recordFile(record), "a file transfer");
    touch(target);
    recordEvent(containerId, {}, QStringLiteral("file.uploaded"), file);
    return *copied;
}

Result<FileReport> ContainerManager::listFiles(const QString &containerId, const QString &scope) const
{
    auto found = liveEntry(containerId);
    if (!found)
        return fail(found.error());
    const Entry &target = **found;
    auto root = scopeRoot(target.container->workspace(), scope);
    if (!root)
        return fail(root.error());
    auto listing = Files::listTree(*root, limitsFor(target.container->policy()));
    if (!listing)
        return fail(listing.error());
    return FileReport{scope.isEmpty() ? QStringLiteral("outputs") : scope, std::move(*listing)};
}

Result<FileReport> ContainerManager::download(const QString &containerId, const QString &scope,
                                              const QString &path, const QString &destination,
                                              Files::ExistingName existing)
{
    auto found = liveEntry(containerId);
    if (!found)
        return fail(found.error());
    Entry &target = **found;
    auto root = scopeRoot(target.container->workspace(), scope);
    if (!root)
        return fail(root.error());
    if (destination.isEmpty() || !QDir::isAbsolutePath(destination))
        return fail(QStringLiteral("files.destination"),
                    QStringLiteral("the destination must be an absolute directory path"));
    if (!QDir().mkpath(destination))
        return fail(QStringLiteral("files.destination"),
                    QStringLiteral("cannot create `%1`").arg(destination));
    Files::CopyLimits limits = limitsFor(target.container->policy());
    limits.existingNames = existing;
    const QString shownScope = scope.isEmpty() ? QStringLiteral("outputs") : scope;
    const std::string plainDestination = encoded(destination);
    std::vector<Files::CopiedFile> copied;
    std::vector<Files::RefusedEntry> refused;
    std::optional<Error> refusal; // a single file's refusal, which is the request's answer
    if (path.isEmpty()) {
        auto report = Files::exportTree(*root, plainDestination, limits);
        if (!report)
            return fail(report.error());
        copied = std::move(report->copied);
        refused = std::move(report->refused);
    } else {
        CORDON_TRY(validateRelativePath(path));
        const std::string relative = toPlain(path);
        const std::string fileName = relative.substr(relative.rfind('/') + 1);
        // A lone surrogate would become '?' in UTF-8 and pass validateName(): it is not a name.
        auto file = path.isValidUtf16()
                        ? Files::exportFile(*root, relative, plainDestination + '/' + fileName, limits)
                        : fail(QStringLiteral("files.bad_name"),
                               QStringLiteral("export `%1`: not valid Unicode").arg(shown(path)));
        if (file) {
            copied.push_back(std::move(*file));
        } else if (isRefusalCode(toQt(file.error().code()))) {
            refusal = file.error();
            refused.push_back(Files::RefusedEntry{relative, file.error().code(), file.error().message()});
        } else {
            return fail(file.error());
        }
    }
    const qint64 at = QDateTime::currentMSecsSinceEpoch();
    for (const Files::CopiedFile &file : copied) {
        Store::FileRecord record;
        record.containerId = containerId;
        record.direction = QStringLiteral("download");
        record.scope = shownScope;
        record.path = toQt(file.relativePath);
        record.sha256 = toQt(file.sha256Hex);
        record.size = file.size;
        record.at = at;
        logStoreFailure(m_store.recordFile(record), "a file transfer");
    }
    touch(target);
    // A download that copied nothing is still a decision worth proving: what was refused, and why.
    recordEvent(containerId, {}, QStringLiteral("file.downloaded"),
                {{QStringLiteral("scope"), shownScope},
                 {QStringLiteral("files"), qint64(copied.size())},
                 {QStringLiteral("refused"), qint64(refused.size())}});
    if (refusal)
        return fail(*refusal);
    FileReport answer{shownScope, {}};
    answer.report.copied = std::move(copied);
    answer.report.refused = std::move(refused);
    return answer;
}

Result<> ContainerManager::deleteFile(const QString &containerId, const QString &scope, const QString &path)
{
    auto found = liveEntry(containerId);
    if (!found)
        return fail(found.error());
    Entry &target = **found;
    auto root = scopeRoot(target.container->workspace(), scope);
    if (!root)
        return fail(root.error());
    CORDON_TRY(validateRelativePath(path));
    // Deleting what is not there is a mistake worth hearing about (a typo, the wrong scope), not a success.
    // lstat: a symlink is an entry of its own, removed without following it.
    struct stat entry = {};
    const std::string entryPath = *root + '/' + encoded(path);
    if (::lstat(entryPath.c_str(), &entry) != 0 && errno == ENOENT)
        return fail(QStringLiteral("file.not_found"),
                    QStringLiteral("%1/%2 does not exist in container %3").arg(scope, path, containerId));
    CORDON_TRY(Files::removeTree(entryPath));
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
    logStoreFailure(m_store.recordFile(record), "a file transfer");
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
