// SPDX-License-Identifier: MIT
// Durations on the command line, in plain C++: the rules live here once; core/duration.h words their errors
// for the Qt CLI, and the `cordon` launcher's one-shot run reads --timeout with them.
#pragma once

#include "sandbox/failure.h"

#include <cstdint>
#include <string_view>

namespace Cordon::Plain {

// "30s", "5m", "2h", "1500ms" or plain seconds ("45"), 1 to 9 digits, to milliseconds between 1 ms and 7
// days. Anything else (surrounding spaces included: callers trim first if they allow them) is
// `cli.invalid_duration`, with a message that repeats what was given.
Result<std::int64_t> parseDurationMillis(std::string_view text);

} // namespace Cordon::Plain
