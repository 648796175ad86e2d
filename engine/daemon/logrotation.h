// SPDX-License-Identifier: MIT
// The daemon's log is its standard error, which `cordon` points at a file beside the socket when it starts
// the daemon (<socket>.log, appended to). A client can make the daemon write (each refusal is a line), so
// the file is bounded: past `maxBytes` it is renamed to <log>.1 (replacing the one before) and a new file
// takes its place, at most two files of the log on disk.
#pragma once

#include <QObject>
#include <QTimer>

namespace Cordon::Daemon {

class LogRotation final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(LogRotation)

public:
    // Checks at once and then every `intervalMs`; does nothing when standard error is not a regular file.
    LogRotation(qint64 maxBytes, int intervalMs, QObject *parent = nullptr);

    // Rotates now when the log is past its bound; true when it did.
    bool rotateIfFull();

private:
    qint64 m_maxBytes;
    QTimer m_timer;
};

} // namespace Cordon::Daemon
