// SPDX-License-Identifier: MIT
// Cordon::Result<T>: the one fallible return type of the engine. Switch to std::expected with C++23.
#pragma once

#include "core/error.h"
#include "sandbox/failure.h"

#include <tl/expected.hpp>

namespace Cordon {

template<typename T = void> using Result = tl::expected<T, Error>;

inline tl::unexpected<Error> fail(QString code, QString message, int sysErrno = 0)
{
    return tl::unexpected<Error>(Error(std::move(code), std::move(message), sysErrno));
}

inline tl::unexpected<Error> fail(Error error)
{
    return tl::unexpected<Error>(std::move(error));
}

// A failure of the Qt-free pieces as the same error. Call it qualified, Cordon::fail(failure): unqualified,
// argument-dependent lookup finds Plain::fail as well.
inline tl::unexpected<Error> fail(const Plain::Failure &failure)
{
    return tl::unexpected<Error>(Error(failure));
}

// A Qt-free result as an engine result: the value as it is, a failure as the same error.
template<typename T> Result<T> fromPlain(Plain::Result<T> result)
{
    if (!result)
        return fail(Error(result.error()));
    if constexpr (std::is_void_v<T>)
        return {};
    else
        return std::move(*result);
}

inline tl::unexpected<Error> failErrno(QString code, const QString &what, int sysErrno)
{
    return tl::unexpected<Error>(Error::fromErrno(std::move(code), what, sysErrno));
}

} // namespace Cordon

// Propagates an error from an expression returning Result<...> or the sandbox library's Plain::Result<...>;
// reads like a checklist.
#define CORDON_TRY(expr)                                                                                     \
    do {                                                                                                     \
        auto cordonTryResult_ = (expr);                                                                      \
        if (!cordonTryResult_)                                                                               \
            return tl::unexpected<Cordon::Error>(Cordon::Error(std::move(cordonTryResult_).error()));        \
    } while (false)
