// SPDX-License-Identifier: MIT
#include "sandbox/outcome.h"

#include <iterator>

namespace Cordon {

namespace {

constexpr std::string_view Descriptions[] = {
    "the run finished successfully",
    "the program exited with a non-zero status",
    "the run exceeded its memory limit and was killed by the OOM killer",
    "the run exceeded its wall-time limit and was killed with all its processes",
    "the program was killed by a signal",
    "the sandbox could not be set up, the program did not run",
};
static_assert(std::size(Descriptions) == std::size(ErrorClassNames));

int classIndex(std::string_view className)
{
    for (std::size_t i = 0; i < std::size(ErrorClassNames); ++i) {
        if (ErrorClassNames[i] == className)
            return static_cast<int>(i);
    }
    return -1;
}

} // namespace

std::string_view describeErrorClass(std::string_view className)
{
    const int index = classIndex(className);
    return index < 0 ? std::string_view() : Descriptions[index];
}

bool isErrorClass(std::string_view className)
{
    return classIndex(className) >= 0;
}

int shellStatus(std::string_view className, int exitCode, int signal)
{
    if (className == "setup_failed")
        return SetupFailureStatus;
    if (signal > 0)
        return 128 + signal;
    if (className == "timeout" || className == "oom")
        return exitCode > 0 ? exitCode : 137;
    return exitCode < 0 ? SetupFailureStatus : exitCode;
}

std::string_view classifyEndedRun(bool timedOut, std::int64_t oomKills, int signal, int exitCode)
{
    if (timedOut)
        return "timeout";
    if (oomKills > 0)
        return "oom";
    if (signal > 0 || exitCode < 0)
        return "killed";
    return exitCode != 0 ? "nonzero_exit" : "ok";
}

} // namespace Cordon
