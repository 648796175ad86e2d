// SPDX-License-Identifier: MIT
// The engine's error value without Qt: what the Qt-free pieces (the cgroup core, the one-shot run the
// `cordon` launcher does itself) return. Same shape as Cordon::Error (core/error.h), which is built from it
// without loss: a stable dotted code, a message that says what was done to what, and the errno.
#pragma once

#include <string>
#include <string_view>

#include <tl/expected.hpp>

namespace Cordon::Plain {

struct Failure
{
    std::string code;
    std::string message;
    int sysErrno = 0;

    // "create container: <message>", keeping code and errno.
    Failure wrap(std::string_view context) const;
};

template<typename T = void> using Result = tl::expected<T, Failure>;

inline tl::unexpected<Failure> fail(std::string code, std::string message, int sysErrno = 0)
{
    return tl::unexpected<Failure>(Failure{std::move(code), std::move(message), sysErrno});
}

inline tl::unexpected<Failure> fail(Failure failure)
{
    return tl::unexpected<Failure>(std::move(failure));
}

// "<what>: <strerror(sysErrno)>", as Cordon::Error::fromErrno words it.
tl::unexpected<Failure> failErrno(std::string code, std::string_view what, int sysErrno);

// "`path`": how every message quotes a path or a name.
std::string ticked(std::string_view path);

// Advice a user can act on, looked up by code prefix in the one table every client uses; empty when none.
std::string_view hintFor(std::string_view code);

} // namespace Cordon::Plain

// Propagates a failure from an expression returning Plain::Result<...>.
#define CORDON_PLAIN_TRY(expr)                                                                               \
    do {                                                                                                     \
        auto cordonPlainTryResult_ = (expr);                                                                 \
        if (!cordonPlainTryResult_)                                                                          \
            return tl::unexpected<Cordon::Plain::Failure>(std::move(cordonPlainTryResult_).error());         \
    } while (false)
