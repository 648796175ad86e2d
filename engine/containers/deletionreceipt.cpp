// SPDX-License-Identifier: MIT
#include "containers/deletionreceipt.h"

#include "core/plainbridge.h"
#include "sandbox/cgroup/cgroupfs.h"
#include "sandbox/files/safecopy.h"

#include <QDateTime>

#include <sys/stat.h>

namespace Cordon::Containers {

namespace {

bool pathExists(const QString &path)
{
    struct stat st;
    return ::lstat(path.toStdString().c_str(), &st) == 0;
}

} // namespace

DeletionReceipt DeletionReceipt::take(const Container &container, const Cgroup::CgroupBackend *cgroup)
{
    DeletionReceipt receipt;
    receipt.m_containerId = container.id();
    receipt.m_workspaceRoot = toQt(container.workspace().root());
    receipt.m_listedAt = QDateTime::currentMSecsSinceEpoch();

    // Hashes cost a read of every byte: the receipt reads at most the workspace quota per scope, as a
    // download could.
    Files::CopyLimits limits;
    limits.maxFileBytes = static_cast<std::int64_t>(container.policy().limits.workspaceMb) * 1024 * 1024;
    limits.maxTotalBytes = limits.maxFileBytes;
    for (const QString &scope :
         {QStringLiteral("workspace"), QStringLiteral("outputs"), QStringLiteral("inputs")}) {
        auto root = container.filesRoot(scope);
        if (!root)
            continue;
        limits.skipMountPoints = scope == QLatin1String("workspace");
        auto listing = Files::listTree(*root, limits);
        if (!listing) {
            if (listing.error().code() != "files.not_found")
                receipt.m_truncated = true;
            continue;
        }
        receipt.m_truncated = receipt.m_truncated || listing->truncated;
        for (const Files::CopiedFile &file : listing->copied) {
            ++receipt.m_filesTotal;
            receipt.m_bytesTotal += file.size;
            if (receipt.m_files.size() < MaxListed)
                receipt.m_files.append(QJsonObject{{QStringLiteral("scope"), scope},
                                                   {QStringLiteral("path"), toQt(file.relativePath)},
                                                   {QStringLiteral("size"), qint64(file.size)},
                                                   {QStringLiteral("sha256"), toQt(file.sha256Hex)}});
        }
        // Symlinks, FIFOs, devices and files past the limits go too: named with why they have no hash.
        for (const Files::RefusedEntry &entry : listing->refused) {
            ++receipt.m_filesTotal;
            if (receipt.m_files.size() < MaxListed)
                receipt.m_files.append(QJsonObject{{QStringLiteral("scope"), scope},
                                                   {QStringLiteral("path"), toQt(entry.relativePath)},
                                                   {QStringLiteral("kind"), toQt(entry.code)}});
        }
    }
    if (cgroup != nullptr) {
        const std::string name = container.id().toStdString();
        for (const std::string &path : cgroup->groupPaths(name))
            receipt.m_cgroupPaths.append(toQt(path));
        if (auto processes = cgroup->processes(name))
            receipt.m_processesBefore = static_cast<int>(processes->size());
    }
    return receipt;
}

void DeletionReceipt::confirm(const Cgroup::CgroupBackend *cgroup)
{
    m_confirmedAt = QDateTime::currentMSecsSinceEpoch();
    m_workspaceGone = !m_workspaceRoot.isEmpty() && !pathExists(m_workspaceRoot);
    // No cgroup known (degraded mode): nothing was checked, so nothing is claimed.
    m_cgroupGone = !m_cgroupPaths.isEmpty();
    for (const QJsonValue path : std::as_const(m_cgroupPaths))
        m_cgroupGone = m_cgroupGone && !Cgroup::Fs::exists(path.toString().toStdString());
    m_processesAfter = m_cgroupPaths.isEmpty() ? -1 : 0;
    if (cgroup != nullptr && !m_cgroupPaths.isEmpty() && !m_cgroupGone) {
        if (auto processes = cgroup->processes(m_containerId.toStdString()))
            m_processesAfter = static_cast<int>(processes->size());
    }
}

QJsonObject DeletionReceipt::toJson() const
{
    return {{QStringLiteral("listed_at"), m_listedAt},
            {QStringLiteral("confirmed_at"), m_confirmedAt},
            {QStringLiteral("workspace"), m_workspaceRoot},
            {QStringLiteral("files"), m_files},
            {QStringLiteral("files_total"), m_filesTotal},
            {QStringLiteral("bytes_total"), m_bytesTotal},
            {QStringLiteral("truncated"), m_truncated},
            {QStringLiteral("cgroups"), m_cgroupPaths},
            {QStringLiteral("processes_before"), m_processesBefore},
            {QStringLiteral("workspace_gone"), m_workspaceGone},
            {QStringLiteral("cgroups_gone"), m_cgroupGone},
            {QStringLiteral("processes_after"), m_processesAfter}};
}

} // namespace Cordon::Containers
