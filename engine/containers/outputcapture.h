// SPDX-License-Identifier: MIT
// Reads one output stream of a run (the read end of a pipe) on the event loop, keeps at most `cap` bytes and
// drains the rest (CappedOutput), so a flooding program never blocks on a full pipe and never grows our
// memory. With secrets, what it passes on and keeps is masked first (the logging boundary: nothing of the
// stream leaves this class unmasked).
#pragma once

#include "sandbox/cappedoutput.h"
#include "sandbox/secrets/secretmasker.h"

#include <QByteArray>
#include <QObject>

#include <memory>

class QSocketNotifier;

namespace Cordon::Containers {

class OutputCapture final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(OutputCapture)

public:
    // `readFd` -1: the stream has ended already (an adopted run's, whose pipe cordon-init read to its end).
    OutputCapture(int readFd, qint64 cap, Secrets::SecretMasker masker = {}, QObject *parent = nullptr);
    ~OutputCapture() override;

    // Appends what is kept (masked) to the file at `path` too, made at the first byte: what the daemon read
    // of a run outlives the daemon with it, and the next daemon that adopts the run starts from it
    // (takeSpooled()). Before anything is read.
    void spoolTo(QString path) { m_spoolPath = std::move(path); }
    // What the daemon before kept of the run (its spool, masked already): the start of what this one keeps.
    void takeSpooled(const QByteArray &kept);
    // What the run wrote before the pipe reaches us (what cordon-init kept while no daemon read it), taken
    // as if read from the pipe: counted, capped, masked and passed on. Before anything is read.
    void takeHeld(std::string_view bytes, std::uint64_t droppedBytes);
    // Bytes the run wrote that cordon-init could not keep while no daemon read them.
    std::uint64_t droppedWhileDetached() const { return m_droppedWhileDetached; }

    // What was kept, masked.
    QByteArray data() const;
    qint64 totalBytes() const { return m_output.totalBytes(); }
    bool truncated() const { return m_output.truncated() || m_maskedTruncated || m_droppedWhileDetached > 0; }
    bool atEnd() const { return m_fd < 0; }

    // Reads whatever is available now, then stops watching and closes the pipe.
    void drainAndClose();

Q_SIGNALS:
    void received(const QByteArray &chunk); // only the part within the cap
    void finished();                        // end of file

private:
    void readAvailable();
    void pass(std::string_view kept);
    void keepMasked(std::string masked);
    void spool(std::string_view kept);
    void endOfStream();
    void close();

    int m_fd;
    CappedOutput m_output;
    Secrets::SecretMasker m_masker;
    std::string m_masked; // what was passed on, when there are secrets to mask
    // A mask may be longer than the value it replaces: what is passed on and kept stays within the cap too.
    bool m_maskedTruncated = false;
    QString m_spoolPath;
    int m_spool = -1;
    std::uint64_t m_droppedWhileDetached = 0;
    qint64 m_cap;
    std::unique_ptr<QSocketNotifier> m_notifier;
};

} // namespace Cordon::Containers
