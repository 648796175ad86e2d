// SPDX-License-Identifier: MIT
#pragma once

#include "core/result.h"

#include <QTest>

#include <string>

// A failing Result prints its error code and message instead of a bare "false". The expression is evaluated
// once: it is often a call with side effects.
#define QVERIFY_RESULT(expr)                                                                                 \
    do {                                                                                                     \
        const auto &cordonResult_ = (expr);                                                                  \
        QVERIFY2(static_cast<bool>(cordonResult_),                                                           \
                 cordonResult_                                                                               \
                     ? #expr                                                                                 \
                     : (cordonResult_.error().code() + ": " + cordonResult_.error().message()).c_str());     \
    } while (false)

// QCOMPARE on the error's UTF-8 parts prints them when they differ.
namespace QTest {
template<> inline char *toString(const std::string &text)
{
    return qstrdup(text.c_str());
}

// The sandbox library's UTF-8 text against a Qt string, printed both ways when they differ.
inline bool qCompare(const std::string &t1, const QString &t2, const char *actual, const char *expected,
                     const char *file, int line)
{
    return qCompare(QString::fromStdString(t1), t2, actual, expected, file, line);
}
} // namespace QTest

// A check this host cannot make (a missing tool or kernel feature) is skipped, and fails where the machine is
// known to offer everything: CI and the development machines set CORDON_MUST_WORK=1. Skips for the other
// privilege (a root-only step in the unprivileged run) are not this: they use QSKIP.
#define SKIP_UNLESS_MUST_WORK(message)                                                                       \
    do {                                                                                                     \
        if (qEnvironmentVariableIntValue("CORDON_MUST_WORK") == 1)                                           \
            QFAIL(message);                                                                                  \
        QSKIP(message);                                                                                      \
    } while (false)
