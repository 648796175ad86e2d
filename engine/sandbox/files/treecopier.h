// SPDX-License-Identifier: MIT
// The walk behind exportTree(), exportFile() and listTree(): SECURITY.md section 3, steps 2 to 6, one
// directory entry at a time, by descriptor. Internal to sandbox/files.
#pragma once

#include "sandbox/error.h"
#include "sandbox/files/safecopy.h"
#include "sandbox/uniquefd.h"

#include <optional>
#include <string>
#include <string_view>

#include <sys/stat.h>

namespace Cordon::Files {

struct Refusal
{
    std::string code;
    std::string reason;
};

std::string joinedPath(std::string_view parent, std::string_view name);
// A host path escaped for messages.
std::string shownPath(std::string_view path);
// The refusal for a file type that is neither regular nor a directory; nullopt for those two.
std::optional<Refusal> refusalForType(mode_t mode);
// The refusal a failed open of an entry stands for (ELOOP: symlink, EXDEV: mount point, ENXIO: socket, ...).
Refusal refusalForOpenError(int error);

// SECURITY.md section 3 step 2: an O_PATH descriptor for a source root that is not, and does not pass
// through, a symlink (below a held directory: no component is a symlink, a mount point or "..").
// files.symlink, files.not_found, files.not_directory, files.unreadable.
Result<UniqueFd> openSourceRoot(const SourceRoot &root, struct stat *st);
// A readable descriptor for the directory an O_PATH descriptor pins.
Result<UniqueFd> reopenReadable(const UniqueFd &pathFd, std::string_view shown);
// The user's own destination directory: symlinks in the path are the user's choice and are followed.
Result<UniqueFd> openDestinationDir(const std::string &path, struct stat *st);

class TreeCopier final
{
public:
    TreeCopier(const CopyLimits &limits, const struct stat &root);

    // Without a destination the copier only reads and hashes (listTree).
    void setDestination(const struct stat &destination, std::string shown);
    // exportFile(): a directory is refused instead of being copied.
    void setFilesOnly() { m_filesOnly = true; }

    // Copies the entries of `sourceDir` (readable, O_RDONLY|O_DIRECTORY), which are at depth + 1.
    void walkDirectory(const UniqueFd &sourceDir, int destinationDir, const std::string &relDir,
                       const std::string &shownDir, int depth);
    // Copies one entry `name` of `sourceDir` (any directory descriptor, O_PATH too), `depth` components below
    // the root, to `destinationName` in `destinationDir`.
    void copyEntry(int sourceDir, int destinationDir, const std::string &relDir, const std::string &shownDir,
                   const std::string &name, const std::string &destinationName, int depth);

    const CopyReport &report() const { return m_report; }
    CopyReport takeReport() { return std::move(m_report); }
    // Set when the destination failed; the copy stopped there.
    const std::optional<Error> &fatal() const { return m_fatal; }

private:
    bool stopped() const { return m_stopped || m_fatal.has_value(); }
    void refuse(const std::string &shown, Refusal refusal);
    // The entry budget ran out: nothing more is examined (the report says where it stopped).
    void stopTruncated(const std::string &shown, Refusal refusal);
    // The byte budget ran out: nothing more is copied, and every later file is refused by name.
    void reachTotal(const std::string &shown, Refusal refusal);
    bool isOnRootDevice(const struct stat &st) const { return st.st_dev == m_rootDev; }
    void copyDirectory(int sourceDir, int destinationDir, const std::string &rel, const std::string &shown,
                       const std::string &name, int depth);
    void copyFile(int sourceDir, int destinationDir, const std::string &rel, const std::string &shown,
                  const std::string &name, const std::string &destinationName, const struct stat &before);

    CopyLimits m_limits;
    dev_t m_rootDev;
    std::optional<struct stat> m_destination;
    std::string m_shownDestination;
    // Where the directory being walked was made, relative to the destination (names as saved: masked where
    // CopyLimits::directoryName said so).
    std::string m_savedDir;
    CopyReport m_report;
    std::optional<Error> m_fatal;
    int m_entries = 0;
    bool m_stopped = false;
    bool m_totalReached = false;
    bool m_filesOnly = false;
};

} // namespace Cordon::Files
