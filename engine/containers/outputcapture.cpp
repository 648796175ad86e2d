// SPDX-License-Identifier: MIT
#include "containers/outputcapture.h"

#include "core/notifiers.h"

#include <QSocketNotifier>

#include <fcntl.h>
#include <unistd.h>

namespace Cordon::Containers {

OutputCapture::OutputCapture(int readFd, qint64 cap, Secrets::SecretMasker masker, QObject *parent)
    : QObject(parent), m_fd(readFd), m_output(cap), m_masker(std::move(masker))
{
    ::fcntl(m_fd, F_SETFL, ::fcntl(m_fd, F_GETFL) | O_NONBLOCK);
    m_notifier = std::make_unique<QSocketNotifier>(m_fd, QSocketNotifier::Read);
    connect(m_notifier.get(), &QSocketNotifier::activated, this, &OutputCapture::readAvailable);
}

OutputCapture::~OutputCapture()
{
    close();
}

QByteArray OutputCapture::data() const
{
    return QByteArray::fromStdString(m_masker.empty() ? m_output.data() : m_masked);
}

void OutputCapture::readAvailable()
{
    const bool open =
        Containers::readAvailable(m_fd, m_output, [this](std::string_view kept) { pass(kept); });
    if (!open)
        endOfStream();
}

void OutputCapture::pass(std::string_view kept)
{
    if (m_masker.empty()) {
        Q_EMIT received(QByteArray(kept.data(), static_cast<qsizetype>(kept.size())));
        return;
    }
    const std::string masked = m_masker.feed(kept);
    m_masked += masked;
    if (!masked.empty())
        Q_EMIT received(QByteArray::fromStdString(masked));
}

void OutputCapture::endOfStream()
{
    close();
    if (!m_masker.empty()) {
        // A tail held back because it could have become a secret with the next chunk: there is none.
        const std::string rest = m_masker.finish();
        m_masked += rest;
        if (!rest.empty())
            Q_EMIT received(QByteArray::fromStdString(rest));
    }
    Q_EMIT finished();
}

void OutputCapture::drainAndClose()
{
    if (m_fd < 0)
        return;
    readAvailable();
    if (m_fd >= 0)
        endOfStream();
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
