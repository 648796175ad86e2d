// SPDX-License-Identifier: MIT
#include "core/error.h"

#include "sandbox/failure.h"

#include <cstring>

namespace Cordon {

Error::Error(QString code, QString message, int sysErrno)
    : m_code(std::move(code)), m_message(std::move(message)), m_errno(sysErrno)
{}

Error Error::fromErrno(QString code, const QString &what, int sysErrno)
{
    return Error(std::move(code),
                 what + QStringLiteral(": ") + QString::fromLocal8Bit(std::strerror(sysErrno)), sysErrno);
}

Error::Error(const Plain::Failure &failure)
    : m_code(QString::fromStdString(failure.code)), m_message(QString::fromStdString(failure.message)),
      m_errno(failure.sysErrno)
{}

Plain::Failure Error::toPlain() const
{
    return Plain::Failure{m_code.toStdString(), m_message.toStdString(), m_errno};
}

Error Error::wrap(const QString &context) const
{
    return Error(m_code, context + QStringLiteral(": ") + m_message, m_errno);
}

QString Error::hint() const
{
    const std::string_view hint = Plain::hintFor(m_code.toStdString());
    return QString::fromUtf8(hint.data(), static_cast<qsizetype>(hint.size()));
}

QString Error::describe() const
{
    const QString advice = hint();
    return advice.isEmpty() ? m_message : m_message + QStringLiteral("\nhint: ") + advice;
}

} // namespace Cordon
