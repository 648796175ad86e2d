// SPDX-License-Identifier: MIT
#include "containers/outputcapture.h"

#include "core/notifiers.h"

#include <QSocketNotifier>

#include <fcntl.h>
#include <unistd.h>

namespace Cordon::Containers {

OutputCapture::OutputCapture(int readFd, qint64 cap, QObject *parent)
    : QObject(parent), m_fd(readFd), m_output(cap)
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
    const bool open = Containers::readAvailable(m_fd, m_output, [this](std::string_view kept) {
        Q_EMIT received(QByteArray(kept.data(), static_cast<qsizetype>(kept.size())));
    });
    if (!open) {
        close();
        Q_EMIT finished();
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
