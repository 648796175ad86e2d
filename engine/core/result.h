// SPDX-License-Identifier: MIT
// Qt spellings of the one error type (sandbox/error.h): Qt code makes errors from QStrings and reads their
// UTF-8 parts with toQt(). Nothing here is a second type; Result<T> and CORDON_TRY are the sandbox
// library's.
#pragma once

#include "core/plainbridge.h"
#include "sandbox/error.h"

#include <QString>

namespace Cordon {

inline Error makeError(const QString &code, const QString &message, int sysErrno = 0)
{
    return Error(code.toStdString(), message.toStdString(), sysErrno);
}

inline tl::unexpected<Error> fail(const QString &code, const QString &message, int sysErrno = 0)
{
    return tl::unexpected<Error>(makeError(code, message, sysErrno));
}

// "<what>: <strerror(sysErrno)>", as Error::fromErrno words it.
inline tl::unexpected<Error> failErrno(const QString &code, const QString &what, int sysErrno)
{
    return tl::unexpected<Error>(Error::fromErrno(code.toStdString(), what.toStdString(), sysErrno));
}

inline Error errnoError(const QString &code, const QString &what, int sysErrno)
{
    return Error::fromErrno(code.toStdString(), what.toStdString(), sysErrno);
}

} // namespace Cordon
