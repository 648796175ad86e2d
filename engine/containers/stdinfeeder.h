// SPDX-License-Identifier: MIT
// Feeds a run's stdin through a pipe without ever blocking the event loop: data is queued and written as the
// pipe drains; end-of-file closes our end once the queue is empty.
#pragma once

#include <QByteArray>
#include <QObject>

#include <memory>

class QSocketNotifier;

namespace Cordon::Containers {

class StdinFeeder final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(StdinFeeder)

public:
    // Takes ownership of the pipe's write end.
    explicit StdinFeeder(int writeFd, QObject *parent = nullptr);
    ~StdinFeeder() override;

    // Queues data; false once end-of-file was given, the reader went away, or the queue would exceed its cap.
    bool write(const QByteArray &data);
    void closeWhenDrained();
    bool isOpen() const { return m_fd >= 0; }

private:
    void flush();
    void close();

    int m_fd;
    QByteArray m_queue;
    bool m_eof = false;
    std::unique_ptr<QSocketNotifier> m_notifier;
};

} // namespace Cordon::Containers
