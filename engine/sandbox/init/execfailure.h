// SPDX-License-Identifier: MIT
// A program that could not be executed although its sandbox was set up: the command is not there, or is not
// executable. That is the program's failure, not the sandbox's, so it ends the run the way a shell and docker
// end it: exit status 127 for "not found", 126 for "found but cannot be run", with a sentence that says
// which.
#pragma once

#include "sandbox/initprotocol.h"

#include <optional>
#include <string>
#include <string_view>

namespace Cordon::Isolation {

struct ExecFailure
{
    int exitCode = 127;
    std::string message;
};

// For a spawn that failed at execve (Stage::SpawnExec) with sysErrno; nullopt for every earlier stage, which
// is a setup failure.
std::optional<ExecFailure> execFailure(Stage stage, int sysErrno, std::string_view program);

} // namespace Cordon::Isolation
