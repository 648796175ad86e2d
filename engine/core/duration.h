// SPDX-License-Identifier: MIT
#pragma once

#include "core/result.h"

namespace Cordon {

// "30s", "5m", "2h", "1500ms" or plain seconds ("45") to milliseconds; 0, negative, fractional or absurd
// (over a week) values are errors that repeat what was given.
Result<qint64> parseDuration(const QString &text);

} // namespace Cordon
