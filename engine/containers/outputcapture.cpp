// SPDX-License-Identifier: MIT
#include "containers/outputcapture.h"

#include "core/notifiers.h"

#include <QSocketNotifier>

#include <cerrno>
#include <fcntl.h>
#include <unistd.h>

namespace Cordon::Containers {

OutputCapture::OutputCapture(int readFd, qint64 cap, QObject *parent)
    : QObject(parent), m_fd(readFd), m_cap(cap)
{
    ::fcntl(m_fd, F_SETFL, ::fcntl(m_fd, F_GETFL) | O_NONBLOCK);
    m_notifier = std::make_unique<QSocketNotifier>(m_fd, QSocketNotifier::Read);
    connect(m_notifier.get(), &QSocketNotifier::activated, this, &OutputCapture::readAvailable);
}

OutputCapture::~OutputCapture()
{
    close();
}

void OutputCapture::readAvailable()
{
    char buffer[65536];
    for (;;) {
        const ssize_t n = ::read(m_fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            return;
        if (n <= 0) {
            close();
            Q_EMIT finished();
            return;
        }
        const qint64 room = m_cap - qMin(m_total, m_cap);
        m_total += n;
        if (room > 0) {
            const QByteArray chunk(buffer, static_cast<int>(qMin<qint64>(room, n)));
            m_data.append(chunk);
            Q_EMIT received(chunk);
        }
    }
}

void OutputCapture::drainAndClose()
{
    if (m_fd < 0)
        return;
    readAvailable();
    if (m_fd >= 0) {
        close();
        Q_EMIT finished();
    }
}

void OutputCapture::close()
{
    retireNotifier(m_notifier);
    if (m_fd >= 0) {
        ::close(m_fd);
        m_fd = -1;
    }
}

} // namespace Cordon::Containers
