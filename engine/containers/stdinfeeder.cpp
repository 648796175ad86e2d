// SPDX-License-Identifier: MIT
#include "containers/stdinfeeder.h"

#include "core/notifiers.h"

#include <QSocketNotifier>

#include <cerrno>
#include <fcntl.h>
#include <unistd.h>

namespace Cordon::Containers {

namespace {
constexpr qsizetype MaxQueuedBytes = 64 * 1024 * 1024;
} // namespace

StdinFeeder::StdinFeeder(int writeFd, QObject *parent) : QObject(parent), m_fd(writeFd)
{
    ::fcntl(m_fd, F_SETFL, ::fcntl(m_fd, F_GETFL) | O_NONBLOCK);
    m_notifier = std::make_unique<QSocketNotifier>(m_fd, QSocketNotifier::Write);
    m_notifier->setEnabled(false);
    connect(m_notifier.get(), &QSocketNotifier::activated, this, &StdinFeeder::flush);
}

StdinFeeder::~StdinFeeder()
{
    close();
}

bool StdinFeeder::write(const QByteArray &data)
{
    if (m_fd < 0 || m_eof || m_queue.size() + data.size() > MaxQueuedBytes)
        return false;
    m_queue.append(data);
    flush();
    return true;
}

void StdinFeeder::closeWhenDrained()
{
    m_eof = true;
    flush();
}

void StdinFeeder::flush()
{
    while (m_fd >= 0 && !m_queue.isEmpty()) {
        const ssize_t n = ::write(m_fd, m_queue.constData(), static_cast<size_t>(m_queue.size()));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            break;
        if (n <= 0) { // EPIPE: the program closed its stdin; drop what is queued
            m_queue.clear();
            close();
            return;
        }
        m_queue.remove(0, n);
    }
    if (m_fd < 0)
        return;
    m_notifier->setEnabled(!m_queue.isEmpty());
    if (m_queue.isEmpty() && m_eof)
        close();
}

void StdinFeeder::close()
{
    retireNotifier(m_notifier);
    if (m_fd >= 0) {
        ::close(m_fd);
        m_fd = -1;
    }
}

} // namespace Cordon::Containers
