// SPDX-License-Identifier: MIT
// `cordon run` without Qt, for the invocations that need nothing but a command and its limits: `cordon run
// [--memory TIER] [--timeout DURATION] [--allow-degraded] [--] CMD...`, the commonest one-shot runs and the
// one whose latency is measured against bubblewrap (docs/benchmarks.md). The run itself is
// engine/containers/oneshot; everything else (--policy, --input, --output-dir, --json, --stdin, --help,
// values it cannot read, usage errors) goes to `cordon-run`.
#pragma once

#include "sandbox/oneshotrun.h"

#include <optional>
#include <string>
#include <vector>

namespace Cordon::Launcher {

// The request when `arguments` (what follows `cordon run`) is an invocation this path handles exactly as
// cordon-run would; std::nullopt for anything else, which cordon-run then parses and reports itself.
std::optional<Containers::OneShot::PlainRunRequest>
parseRunArguments(const std::vector<std::string> &arguments);

// Runs it, streams its output, prints the summary cordon-run prints, and returns the status it returns.
int runOneShot(const Containers::OneShot::PlainRunRequest &request);

} // namespace Cordon::Launcher
