// SPDX-License-Identifier: MIT
// `cordon exec` without Qt, for the invocations that need nothing more than a command (or --language with
// --code) run in a container with its output streamed: the common case, and the one whose latency is
// measured against bubblewrap (docs/benchmarks.md). Everything else goes to the Qt CLI.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace Cordon::Launcher {

struct ExecRequest
{
    std::string reference; // the ID argument
    std::vector<std::string> command;
    std::string language; // with code, instead of a command
    std::string code;
};

// The request when `arguments` (what follows `cordon exec`) is an invocation this path handles exactly as
// the Qt CLI would; std::nullopt for anything else (other options, --help, usage errors, arguments that are
// not UTF-8), which the Qt CLI then parses and reports itself.
std::optional<ExecRequest> parseExecArguments(const std::vector<std::string> &arguments);

// Runs the request through cordond and returns the exit status, with output, summary and errors printed as
// the Qt CLI prints them. std::nullopt means "let the Qt CLI do it": returned only before anything that
// changes state was sent (no daemon listening, a failed hello, an ambiguous ID, a malformed or late answer),
// so running the Qt CLI afterwards is the same as running it in the first place.
std::optional<int> runExec(const ExecRequest &request);

} // namespace Cordon::Launcher
