// SPDX-License-Identifier: MIT
// `cordon run [options] -- CMD...` without Qt: every one-shot run, with a policy file, inputs, outputs, stdin
// or --json, is parsed, run and reported here, so that no `cordon run` pays for loading Qt (about 2 ms,
// docs/benchmarks.md). The run itself is the sandbox library's one-shot sequence (sandbox/oneshotrun.h); the
// policy file is read by the sandbox library's policy reader, inputs and outputs are copied by its tree
// copier (sandbox/files/safecopy.h), and the summary is worded by the client's wording (daemon/lite).
#pragma once

#include "sandbox/files/safecopy.h"
#include "sandbox/oneshotrun.h"
#include "sandbox/policy/containerpolicy.h"

#include <string>
#include <variant>
#include <vector>

namespace Cordon::Launcher {

// What `cordon run` was asked to do.
struct RunInvocation
{
    Policy::ContainerPolicy policy; // the policy file's, with --memory and --timeout applied
    std::vector<std::string> command;
    std::vector<std::string> inputs; // absolute host paths, copied to /mnt/data/inputs under their names
    std::string outputDirectory;     // where /mnt/data/outputs is copied after the run; empty: not copied
    // What an output whose name is in outputDirectory already gets: refused (the run then exits 1, as `cordon
    // cp` does), replaced (--force) or saved as "NAME (2).EXT" (--keep-both).
    Files::ExistingName existingNames = Files::ExistingName::Refuse;
    std::optional<std::string> stdinData;
    bool json = false;
    bool allowDegraded = false;
};

// The invocation `arguments` (what follows `cordon run`) asks for, or the status to exit with when it ends
// here: 0 after --help, 2 after a usage error (printed, with what to type instead).
std::variant<RunInvocation, int> parseRunArguments(const std::vector<std::string> &arguments);

// Runs it, streams its output (or prints the outcome as JSON), prints the summary, and returns the status
// that mirrors the run: its exit code, 128+signal, or 125 when the sandbox could not be set up.
int runOneShot(RunInvocation invocation);

} // namespace Cordon::Launcher
