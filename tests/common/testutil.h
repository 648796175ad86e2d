// SPDX-License-Identifier: MIT
#pragma once

#include "core/result.h"

#include <QTest>

// A failing Result (the engine's, or the sandbox library's Plain::Result) prints its error code and message
// instead of a bare "false". The expression is evaluated once: it is often a call with side effects.
#define QVERIFY_RESULT(expr)                                                                                 \
    do {                                                                                                     \
        const auto &cordonResult_ = (expr);                                                                  \
        QVERIFY2(static_cast<bool>(cordonResult_),                                                           \
                 cordonResult_                                                                               \
                     ? #expr                                                                                 \
                     : qPrintable(Cordon::Error(cordonResult_.error()).code() + QStringLiteral(": ") +       \
                                  Cordon::Error(cordonResult_.error()).message()));                          \
    } while (false)

// A check this host cannot make (a missing tool or kernel feature) is skipped, and fails where the machine is
// known to offer everything: CI and the development machines set CORDON_MUST_WORK=1. Skips for the other
// privilege (a root-only step in the unprivileged run) are not this: they use QSKIP.
#define SKIP_UNLESS_MUST_WORK(message)                                                                       \
    do {                                                                                                     \
        if (qEnvironmentVariableIntValue("CORDON_MUST_WORK") == 1)                                           \
            QFAIL(message);                                                                                  \
        QSKIP(message);                                                                                      \
    } while (false)
