// SPDX-License-Identifier: MIT
#pragma once

#include <QTest>

// A failing Result prints its error code and message instead of a bare "false". The expression is evaluated
// once: it is often a call with side effects.
#define QVERIFY_RESULT(expr)                                                                                 \
    do {                                                                                                     \
        const auto &cordonResult_ = (expr);                                                                  \
        QVERIFY2(static_cast<bool>(cordonResult_),                                                           \
                 cordonResult_ ? #expr                                                                       \
                               : qPrintable(cordonResult_.error().code() + QStringLiteral(": ") +            \
                                            cordonResult_.error().message()));                               \
    } while (false)
