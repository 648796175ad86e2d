// SPDX-License-Identifier: MIT
// Writing a destination file so that it appears under its final name only when complete, never replacing
// anything, and copying into it from a descriptor with a hard byte cap.
#pragma once

#include "core/plainbridge.h"
#include "core/result.h"
#include "files/safecopy.h"
#include "sandbox/files/safeopen.h"

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
    // `files.exists` when the name is taken, `files.destination` for other failures. With
    // ExistingName::Replace, a regular file of that name is replaced in one rename (never written through,
    // never a symlink followed); anything else of that name is still `files.exists`. With KeepBoth, a taken
    // name moves on to "name (2).ext" and so on, each try a no-replace link. Returns the name used.
    Result<QByteArray> commit(QByteArrayView name, const QString &shownName,
                              ExistingName existing = ExistingName::Refuse);

private:
    PendingFile() = default;
    void discard();
    // One no-replace attempt at `target`; errno is kept for the caller on failure.
    int linkNoReplace(const QByteArray &target);
    Result<QByteArray> replaceRegular(const QByteArray &target, const QString &shownName);

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

// The `attempt`th name (2, 3, ...) Keep Both tries for `name`: "report (2).csv", "archive (2).tar.gz",
// ".bashrc (2)"; shortened so that it stays within NAME_MAX bytes without splitting a UTF-8 character.
QByteArray keepBothName(QByteArrayView name, int attempt);

} // namespace Cordon::Files
