// SPDX-License-Identifier: MIT
// Writing a destination file so that it appears under its final name only when complete, never replacing
// anything, and copying into it from a descriptor with a hard byte cap.
#pragma once

#include "core/result.h"
#include "files/safeopen.h"

#include <QByteArray>
#include <QString>

namespace Cordon::Files {

// An unnamed file in a destination directory: O_TMPFILE where the file system has it, otherwise a random
// ".cordon-partial-*" name created O_EXCL|O_NOFOLLOW. Mode 0644 before the umask; no owner, mode bits or
// xattrs are ever copied from a source. Destroying an uncommitted PendingFile removes it.
class PendingFile final
{
public:
    // `shownDir` names the directory in error messages. Fails with `files.destination`.
    static Result<PendingFile> create(int dirFd, const QString &shownDir);

    PendingFile(PendingFile &&other) noexcept;
    PendingFile &operator=(PendingFile &&) = delete;
    ~PendingFile();
    Q_DISABLE_COPY(PendingFile)

    int fd() const { return m_fd.get(); }

    // Gives the file its final name in the directory, atomically and without replacing an existing entry:
    // `files.exists` when the name is taken, `files.destination` for other failures. With replaceRegularFile,
    // a regular file of that name is replaced in one rename (never written through, never a symlink
    // followed); anything else of that name is still `files.exists`.
    Result<> commit(QByteArrayView name, const QString &shownName, bool replaceRegularFile = false);

private:
    PendingFile() = default;
    void discard();

    UniqueFd m_fd;
    int m_dirFd = -1;
    QByteArray m_tempName; // empty for O_TMPFILE
    QString m_shownDir;
    bool m_committed = false;
};

struct CappedCopy
{
    qint64 bytes = 0;
    QByteArray sha256Hex;
    bool exceededCap = false; // more than `cap` bytes were readable; nothing past the cap was written
};

// Reads `sourceFd` to its end (never trusting st_size: files grow, shrink and have holes) and writes what it
// reads to `destinationFd` unless that is -1. Stops as soon as one byte more than `cap` has been read. Read
// failures are `files.unreadable`, write failures `files.destination`.
Result<CappedCopy> copyCapped(int sourceFd, int destinationFd, qint64 cap);

} // namespace Cordon::Files
