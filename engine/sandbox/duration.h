// SPDX-License-Identifier: MIT
// Durations on the command line, in plain C++: the Qt CLI and the `cordon` launcher read --timeout and
// --expires-after with these rules.
#pragma once

#include "sandbox/error.h"

#include <cstdint>
#include <string_view>

namespace Cordon {

// "30s", "5m", "2h", "1500ms" or plain seconds ("45"), 1 to 9 digits, to milliseconds between 1 ms and 7
// days; spaces and tabs around it are ignored. Anything else is `cli.invalid_duration`, with a message that
// repeats what was given.
Result<std::int64_t> parseDurationMillis(std::string_view text);

// A run's wall-time limit (--timeout of `run` and `exec`): a duration as above, in whole seconds from 1 s to
// 24 h, the bounds and unit of a policy's run_timeout_s. "500ms" or "1500ms" is `cli.invalid_duration`, not
// rounded to a second the user did not ask for.
Result<int> parseRunTimeoutSeconds(std::string_view text);

} // namespace Cordon
