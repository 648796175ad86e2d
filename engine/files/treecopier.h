// SPDX-License-Identifier: MIT
// The walk behind exportTree(), exportFile() and listTree(): SECURITY.md section 3, steps 2 to 6, one
// directory entry at a time, by descriptor. Internal to engine/files.
#pragma once

#include "core/plainbridge.h"
#include "core/result.h"
#include "files/safecopy.h"
#include "sandbox/files/safeopen.h"

#include <optional>

#include <sys/stat.h>

namespace Cordon::Files {

struct Refusal
{
    QString code;
    QString reason;
};

QString joinedPath(const QString &parent, const QString &name);
// A host path escaped for messages.
QString shownPath(const QString &path);
// The refusal for a file type that is neither regular nor a directory; nullopt for those two.
std::optional<Refusal> refusalForType(mode_t mode);
// The refusal a failed open of an entry stands for (ELOOP: symlink, EXDEV: mount point, ENXIO: socket, ...).
Refusal refusalForOpenError(int error);

// SECURITY.md section 3 step 2: an O_PATH descriptor for a source root that is not, and does not pass
// through, a symlink. files.symlink, files.not_found, files.not_directory, files.unreadable.
Result<UniqueFd> openSourceRoot(const QString &root, struct stat *st);
// A readable descriptor for the directory an O_PATH descriptor pins.
Result<UniqueFd> reopenReadable(const UniqueFd &pathFd, const QString &shown);
// The user's own destination directory: symlinks in the path are the user's choice and are followed.
Result<UniqueFd> openDestinationDir(const QString &path, struct stat *st);

class TreeCopier final
{
public:
    TreeCopier(const CopyLimits &limits, const struct stat &root);

    // Without a destination the copier only reads and hashes (listTree).
    void setDestination(const struct stat &destination, const QString &shown);
    // exportFile(): a directory is refused instead of being copied.
    void setFilesOnly() { m_filesOnly = true; }

    // Copies the entries of `sourceDir` (readable, O_RDONLY|O_DIRECTORY), which are at depth + 1.
    void walkDirectory(const UniqueFd &sourceDir, int destinationDir, const QString &relDir,
                       const QString &shownDir, int depth);
    // Copies one entry `name` of `sourceDir` (any directory descriptor, O_PATH too), `depth` components below
    // the root, to `destinationName` in `destinationDir`.
    void copyEntry(int sourceDir, int destinationDir, const QString &relDir, const QString &shownDir,
                   QByteArrayView name, QByteArrayView destinationName, int depth);

    const CopyReport &report() const { return m_report; }
    CopyReport takeReport() { return std::move(m_report); }
    // Set when the destination failed; the copy stopped there.
    const std::optional<Error> &fatal() const { return m_fatal; }

private:
    bool stopped() const { return m_stopped || m_fatal.has_value(); }
    void refuse(const QString &shown, const Refusal &refusal) { refuse(shown, refusal.code, refusal.reason); }
    void refuse(const QString &shown, const QString &code, const QString &reason);
    void stopTruncated(const QString &shown, const QString &code, const QString &reason);
    bool isOnRootDevice(const struct stat &st) const { return st.st_dev == m_rootDev; }
    void copyDirectory(int sourceDir, int destinationDir, const QString &rel, const QString &shown,
                       QByteArrayView name, int depth);
    void copyFile(int sourceDir, int destinationDir, const QString &rel, const QString &shown,
                  QByteArrayView name, QByteArrayView destinationName, const struct stat &before);

    CopyLimits m_limits;
    dev_t m_rootDev;
    std::optional<struct stat> m_destination;
    QString m_shownDestination;
    CopyReport m_report;
    std::optional<Error> m_fatal;
    int m_entries = 0;
    bool m_stopped = false;
    bool m_filesOnly = false;
};

} // namespace Cordon::Files
