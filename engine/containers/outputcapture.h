// SPDX-License-Identifier: MIT
// Reads one output stream of a run (the read end of a pipe) on the event loop, keeps at most `cap` bytes and
// drains the rest, so a flooding program never blocks on a full pipe and never grows our memory.
#pragma once

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
    OutputCapture(int readFd, qint64 cap, QObject *parent = nullptr);
    ~OutputCapture() override;

    const QByteArray &data() const { return m_data; }
    qint64 totalBytes() const { return m_total; }
    bool truncated() const { return m_total > m_cap; }
    bool atEnd() const { return m_fd < 0; }

    // Reads whatever is available now, then stops watching and closes the pipe.
    void drainAndClose();

Q_SIGNALS:
    void received(const QByteArray &chunk); // only the part within the cap
    void finished();                        // end of file

private:
    void readAvailable();
    void close();

    int m_fd;
    qint64 m_cap;
    qint64 m_total = 0;
    QByteArray m_data;
    std::unique_ptr<QSocketNotifier> m_notifier;
};

} // namespace Cordon::Containers
