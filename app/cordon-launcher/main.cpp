// SPDX-License-Identifier: MIT
// cordon: the command-line entry point, without Qt. Starting a Qt program costs about 5 ms of dynamic
// linking and library start-up (Qt Core, Qt Network, ICU: 32 libraries), more than a warm `cordon exec`
// spends in the daemon (docs/benchmarks.md). So this small program runs the common `cordon exec` itself
// (fastexec.h) and hands every other command, and every exec it does not handle, to the full Qt CLI,
// `cordon-cli`, with the arguments unchanged: that one parses, starts the daemon when needed, and words
// every usage error.
#include "fastexec.h"

#include "daemon/lite/runreport.h"

#include <cerrno>
#include <climits>
#include <cstring>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

constexpr int CannotRun = 125;
const char FullCliName[] = "cordon-cli";

std::string directoryOfThisProgram()
{
    char path[PATH_MAX];
    const ssize_t n = ::readlink("/proc/self/exe", path, sizeof path - 1);
    if (n <= 0)
        return {};
    const std::string self(path, static_cast<std::size_t>(n));
    return self.substr(0, self.rfind('/'));
}

// Beside this program (the build tree, and a copy of both programs anywhere), else where `make install`
// puts it, as the engine looks for cordon-init.
int runFullCli(char *argv[])
{
    const std::string directory = directoryOfThisProgram();
    const std::string candidates[] = {directory + "/" + FullCliName,
                                      directory + "/../libexec/cordon/" + FullCliName};
    for (const std::string &candidate : candidates) {
        if (::access(candidate.c_str(), X_OK) == 0) {
            ::execv(candidate.c_str(), argv);
            const int error = errno;
            const std::string message =
                "cannot run `" + candidate + "`, the full command line: " + std::strerror(error);
            std::string report = Cordon::Lite::errorReport(message, {});
            [[maybe_unused]] const ssize_t written = ::write(STDERR_FILENO, report.data(), report.size());
            return CannotRun;
        }
    }
    const std::string report = Cordon::Lite::errorReport(
        "`" + std::string(FullCliName) +
            "`, which runs every command except a plain `cordon exec`, is not at `" + candidates[0] +
            "` or `" + candidates[1] + "`",
        "Install cordon and cordon-cli together (cordon-cli goes to libexec/cordon), or copy cordon-cli "
        "beside cordon.");
    [[maybe_unused]] const ssize_t written = ::write(STDERR_FILENO, report.data(), report.size());
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
    return runFullCli(argv);
}
