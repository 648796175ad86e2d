// SPDX-License-Identifier: MIT
#include "containers/outputcapture.h"

#include "core/fdio.h"
#include "core/notifiers.h"

#include <QFile>

#include <QSocketNotifier>

#include <fcntl.h>
#include <unistd.h>

namespace Cordon::Containers {

OutputCapture::OutputCapture(int readFd, qint64 cap, Secrets::SecretMasker masker, QObject *parent)
    : QObject(parent), m_fd(readFd), m_output(cap), m_masker(std::move(masker)), m_cap(cap)
{
    if (m_fd < 0)
        return;
    ::fcntl(m_fd, F_SETFL, ::fcntl(m_fd, F_GETFL) | O_NONBLOCK);
    m_notifier = std::make_unique<QSocketNotifier>(m_fd, QSocketNotifier::Read);
    connect(m_notifier.get(), &QSocketNotifier::activated, this, &OutputCapture::readAvailable);
}

void OutputCapture::takeSpooled(const QByteArray &kept)
{
    const std::string_view bytes(kept.constData(), static_cast<std::size_t>(kept.size()));
    if (m_masker.empty()) {
        const std::string_view counted = m_output.append(bytes);
        if (!counted.empty())
            Q_EMIT received(QByteArray(counted.data(), static_cast<qsizetype>(counted.size())));
        return;
    }
    (void)m_output.append(bytes); // counted; what was kept of it is the masked text itself
    const auto room = static_cast<std::size_t>(std::max<qint64>(0, m_cap - qint64(m_masked.size())));
    m_masked.append(bytes.substr(0, room));
    if (bytes.size() > room)
        m_maskedTruncated = true;
    Q_EMIT received(kept.left(static_cast<qsizetype>(room)));
}

void OutputCapture::spool(std::string_view kept)
{
    if (m_spoolPath.isEmpty() || kept.empty())
        return;
    if (m_spool < 0) {
        m_spool = ::open(QFile::encodeName(m_spoolPath).constData(),
                         O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (m_spool < 0) {
            m_spoolPath.clear(); // the run goes on; only a crash of the daemon would show what is missing
            return;
        }
    }
    (void)writeAll(m_spool, QByteArray::fromRawData(kept.data(), static_cast<qsizetype>(kept.size())));
}

void OutputCapture::takeHeld(std::string_view bytes, std::uint64_t droppedBytes)
{
    m_droppedWhileDetached = droppedBytes;
    const std::string_view kept = m_output.append(bytes);
    if (!kept.empty())
        pass(kept);
    // The tail a masker holds back waits for the pipe's next bytes; a stream that ended has none.
    if (m_fd < 0 && !m_masker.empty())
        keepMasked(m_masker.finish());
}

OutputCapture::~OutputCapture()
{
    close();
    if (m_spool >= 0)
        ::close(m_spool);
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
        spool(kept);
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
    spool(masked);
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
