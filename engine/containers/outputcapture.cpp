// SPDX-License-Identifier: MIT
#include "containers/outputcapture.h"

#include "core/notifiers.h"

#include <QSocketNotifier>

#include <fcntl.h>
#include <unistd.h>

namespace Cordon::Containers {

OutputCapture::OutputCapture(int readFd, qint64 cap, Secrets::SecretMasker masker, QObject *parent)
    : QObject(parent), m_fd(readFd), m_output(cap), m_masker(std::move(masker)), m_cap(cap)
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
    keepMasked(m_masker.feed(kept));
}

void OutputCapture::keepMasked(std::string masked)
{
    const auto room = static_cast<std::size_t>(std::max<qint64>(0, m_cap - qint64(m_masked.size())));
    if (masked.size() > room) {
        masked.resize(room); // what a mask replaced is gone already: a cut here shows nothing of a value
        m_maskedTruncated = true;
    }
    m_masked += masked;
    if (!masked.empty())
        Q_EMIT received(QByteArray::fromStdString(masked));
}

void OutputCapture::endOfStream()
{
    close();
    if (!m_masker.empty()) {
        // A tail held back because it could have become a secret with the next chunk: there is none.
        keepMasked(m_masker.finish());
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
