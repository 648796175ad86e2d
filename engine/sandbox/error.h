// SPDX-License-Identifier: MIT
// Cordon's one error type and one Result, used by the sandbox library, the daemon, the CLIs and the client
// library alike (docs/errors.md). An error is a value that travels: a stable dotted code (also on the wire),
// a message that says what was being done to what, and the errno when the kernel said no. The strings are
// UTF-8; Qt code reads them through core/result.h.
#pragma once

#include <string>
#include <string_view>

#include <tl/expected.hpp>

namespace Cordon {

// strerror(sysErrno) in the user's language (LANG, LC_ALL, LC_MESSAGES), whatever the program's own locale:
// the user's locale is loaded the first time an error is worded, not by every run that never words one.
std::string errnoText(int sysErrno);

class Error
{
public:
    Error() = default;
    Error(std::string code, std::string message, int sysErrno = 0)
        : m_code(std::move(code)), m_message(std::move(message)), m_errno(sysErrno)
    {}

    // "<what>: <errnoText(sysErrno)>": `open `/sys/fs/cgroup/x`: Permission denied`.
    static Error fromErrno(std::string code, std::string_view what, int sysErrno);

    const std::string &code() const { return m_code; }
    const std::string &message() const { return m_message; }
    int sysErrno() const { return m_errno; }

    // Adds outer context in front of the message, keeping code and errno: "create container: <inner>".
    Error wrap(std::string_view context) const;

    // A sentence a user can act on, looked up by code in one table; empty when there is none.
    std::string_view hint() const;

    // The message with the hint appended, for people.
    std::string describe() const;

private:
    std::string m_code;
    std::string m_message;
    int m_errno = 0;
};

// Switch to std::expected with C++23.
template<typename T = void> using Result = tl::expected<T, Error>;

inline tl::unexpected<Error> fail(std::string code, std::string message, int sysErrno = 0)
{
    return tl::unexpected<Error>(Error(std::move(code), std::move(message), sysErrno));
}

inline tl::unexpected<Error> fail(Error error)
{
    return tl::unexpected<Error>(std::move(error));
}

inline tl::unexpected<Error> failErrno(std::string code, std::string_view what, int sysErrno)
{
    return tl::unexpected<Error>(Error::fromErrno(std::move(code), what, sysErrno));
}

// "`path`": how every message quotes a path or a name.
std::string ticked(std::string_view path);

// Advice a user can act on, looked up by code prefix in the one table every client uses; empty when none.
std::string_view hintFor(std::string_view code);

} // namespace Cordon

// Propagates the error of an expression returning Result<...>; reads like a checklist.
#define CORDON_TRY(expr)                                                                                     \
    do {                                                                                                     \
        auto cordonTryResult_ = (expr);                                                                      \
        if (!cordonTryResult_)                                                                               \
            return tl::unexpected<Cordon::Error>(std::move(cordonTryResult_).error());                       \
    } while (false)
