// SPDX-License-Identifier: MIT
// Errors are values that travel: a stable dotted code (also on the wire), the errno when the kernel said no,
// and a message that says what was being done to what.
#pragma once

#include <QString>

namespace Cordon {

namespace Plain {
struct Failure;
}

class Error
{
public:
    Error() = default;
    Error(QString code, QString message, int sysErrno = 0);
    // From the sandbox library (sandbox/failure.h): the same code, message and errno.
    explicit Error(const Plain::Failure &failure);
    // The same error for the Qt-free pieces, e.g. from a callback they make.
    Plain::Failure toPlain() const;

    // Builds an error from the current errno: "open `/sys/fs/cgroup/x`: Permission denied".
    static Error fromErrno(QString code, const QString &what, int sysErrno);

    const QString &code() const { return m_code; }
    const QString &message() const { return m_message; }
    int sysErrno() const { return m_errno; }

    // Adds outer context in front of the message, keeping code and errno: "create container: <inner>".
    Error wrap(const QString &context) const;

    // A sentence a user can act on, looked up by code in one table; empty when there is none.
    QString hint() const;

    // The message with the hint appended, for people.
    QString describe() const;

private:
    QString m_code;
    QString m_message;
    int m_errno = 0;
};

} // namespace Cordon
