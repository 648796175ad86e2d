// SPDX-License-Identifier: MIT
#pragma once

#include <QTest>

// A failing Result prints its error code and message instead of a bare "false".
#define QVERIFY_RESULT(result)                                                                               \
    QVERIFY2(static_cast<bool>(result),                                                                      \
             (result)                                                                                        \
                 ? #result                                                                                   \
                 : qPrintable((result).error().code() + QStringLiteral(": ") + (result).error().message()))
