// SPDX-License-Identifier: MIT
// Writing a destination file so that it appears under its final name only when complete, never replacing
// anything, and copying into it from a descriptor with a hard byte cap.
#pragma once

#include "sandbox/error.h"
#include "sandbox/files/safecopy.h"
#include "sandbox/uniquefd.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace Cordon::Files {

// An unnamed file in a destination directory: O_TMPFILE where the file system has it, otherwise a random
// ".cordon-partial-*" name created O_EXCL|O_NOFOLLOW. Mode 0644 before the umask; no owner, mode bits or
// xattrs are ever copied from a source. Destroying an uncommitted PendingFile removes it.
class PendingFile final
{
public:
    // `shownDir` names the directory in error messages. Fails with `files.destination`.
    static Result<PendingFile> create(int dirFd, std::string shownDir);

    PendingFile(PendingFile &&other) noexcept;
    PendingFile &operator=(PendingFile &&) = delete;
    PendingFile(const PendingFile &) = delete;
    PendingFile &operator=(const PendingFile &) = delete;
    ~PendingFile();

    int fd() const { return m_fd.get(); }

    // Gives the file its final name in the directory, atomically and without replacing an existing entry:
    // `files.exists` when the name is taken, `files.destination` for other failures. With
    // ExistingName::Replace, a regular file of that name is replaced in one rename (never written through,
    // never a symlink followed); anything else of that name is still `files.exists`. With KeepBoth, a taken
    // name moves on to "name (2).ext" and so on, each try a no-replace link. Returns the name used.
    Result<std::string> commit(std::string_view name, std::string_view shownName,
                               ExistingName existing = ExistingName::Refuse);

private:
    PendingFile() = default;
    void discard();
    // One no-replace attempt at `target`; errno is kept for the caller on failure.
    int linkNoReplace(const std::string &target);
    Result<std::string> replaceRegular(const std::string &target, std::string_view shownName);

    UniqueFd m_fd;
    int m_dirFd = -1;
    std::string m_tempName; // empty for O_TMPFILE
    std::string m_shownDir;
    bool m_committed = false;
};

struct CappedCopy
{
    std::int64_t bytes = 0;
    std::string sha256Hex;    // lower-case
    bool exceededCap = false; // more than `cap` bytes were readable; nothing past the cap was written
};

// Reads `sourceFd` to its end (never trusting st_size: files grow, shrink and have holes) and writes what it
// reads to `destinationFd` unless that is -1. Stops as soon as one byte more than `cap` has been read. Read
// failures are `files.unreadable`, write failures `files.destination`.
Result<CappedCopy> copyCapped(int sourceFd, int destinationFd, std::int64_t cap);

// The `attempt`th name (2, 3, ...) Keep Both tries for `name`: "report (2).csv", "archive (2).tar.gz",
// ".bashrc (2)"; shortened so that it stays within NAME_MAX bytes without splitting a UTF-8 character.
std::string keepBothName(std::string_view name, int attempt);

} // namespace Cordon::Files
