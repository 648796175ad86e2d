// SPDX-License-Identifier: MIT
// cordon: the command-line entry point, without Qt. Starting a Qt program costs about 5 ms of dynamic
// linking and library start-up (Qt Core, Qt Network, ICU: 32 libraries), more than a warm `cordon exec`
// spends in the daemon (docs/benchmarks.md). So this small program runs the common `cordon exec` itself
// (fastexec.h) and every `cordon run` (runcommand.h), and hands every other command, and every exec it does
// not handle, to the full Qt CLI, `cordon-cli`, with the arguments unchanged: that parses, starts the daemon
// when needed, and words every usage error.
#include "fastexec.h"
#include "runcommand.h"

#include "daemon/lite/output.h"
#include "daemon/lite/runreport.h"
#include "sandbox/initlaunch.h"

#include <cerrno>
#include <cstring>
#include <optional>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

constexpr int CannotRun = 125;
const char FullCliName[] = "cordon-cli";

// Returns only when the exec failed.
int execHelper(const std::string &path, char *argv[], const char *what)
{
    ::execv(path.c_str(), argv);
    const int error = errno;
    Cordon::Lite::writeAll(STDERR_FILENO,
                           Cordon::Lite::errorReport(
                               "cannot run `" + path + "`, " + what + ": " + Cordon::errnoText(error), {}));
    return CannotRun;
}

// The first of Cordon::Isolation::programCandidates(name) that this user may execute.
std::optional<std::string> findHelper(const char *name)
{
    for (const std::string &candidate : Cordon::Isolation::programCandidates(name)) {
        if (::access(candidate.c_str(), X_OK) == 0)
            return candidate;
    }
    return std::nullopt;
}

int runFullCli(char *argv[])
{
    if (const std::optional<std::string> cli = findHelper(FullCliName))
        return execHelper(*cli, argv, "the full command line");
    const std::vector<std::string> candidates = Cordon::Isolation::programCandidates(FullCliName);
    Cordon::Lite::writeAll(
        STDERR_FILENO,
        Cordon::Lite::errorReport(
            "`" + std::string(FullCliName) +
                "`, which runs every command except `cordon run` and a plain `cordon exec`, is not at `" +
                candidates[0] + "` or `" + candidates[1] + "`",
            "Install cordon and cordon-cli together (cordon-cli goes to libexec/cordon), or copy cordon-cli "
            "beside cordon."));
    return CannotRun;
}

} // namespace

int main(int argc, char *argv[])
{
    if (argc >= 2 && std::strcmp(argv[1], "exec") == 0) {
        const std::vector<std::string> arguments(argv + 2, argv + argc);
        if (const auto request = Cordon::Launcher::parseExecArguments(arguments)) {
            if (const std::optional<int> status = Cordon::Launcher::runExec(*request))
                return *status;
        }
    }
    if (argc >= 2 && std::strcmp(argv[1], "run") == 0) {
        const std::vector<std::string> arguments(argv + 2, argv + argc);
        auto invocation = Cordon::Launcher::parseRunArguments(arguments);
        if (const int *status = std::get_if<int>(&invocation))
            return *status;
        return Cordon::Launcher::runOneShot(std::move(std::get<Cordon::Launcher::RunInvocation>(invocation)));
    }
    return runFullCli(argv);
}
