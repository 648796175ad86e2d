// SPDX-License-Identifier: MIT
#include "fastrun.h"

#include "daemon/lite/output.h"
#include "daemon/lite/runreport.h"
#include "daemon/lite/signalpipe.h"
#include "sandbox/duration.h"
#include "sandbox/json.h"
#include "sandbox/policy/memorylimit.h"

#include <cerrno>
#include <clocale>
#include <csignal>
#include <unistd.h>

namespace Cordon::Launcher {

std::optional<Containers::OneShot::PlainRunRequest>
parseRunArguments(const std::vector<std::string> &arguments)
{
    Containers::OneShot::PlainRunRequest request;
    std::size_t index = 0;
    // "--name value" or "--name=value"; the value when `argument` is that option.
    const auto valueOf = [&](std::string_view name) -> std::optional<std::string> {
        const std::string &argument = arguments[index];
        if (argument == name && index + 1 < arguments.size())
            return arguments[++index];
        if (argument.size() > name.size() && argument.starts_with(name) && argument[name.size()] == '=')
            return argument.substr(name.size() + 1);
        return std::nullopt;
    };
    for (; index < arguments.size(); ++index) {
        const std::string &argument = arguments[index];
        if (argument == "--") {
            ++index;
            break;
        }
        if (argument == "--allow-degraded") {
            request.allowDegraded = true;
            continue;
        }
        // A value this path cannot read is cordon-run's to report. The last of a repeated option counts.
        if (const auto memory = valueOf("--memory")) {
            const auto bytes = Policy::parseMemoryLimit(*memory);
            if (!bytes)
                return std::nullopt;
            request.policy.memoryLimitBytes = *bytes;
            continue;
        }
        if (const auto timeout = valueOf("--timeout")) {
            const auto millis = parseDurationMillis(*timeout);
            if (!millis)
                return std::nullopt;
            request.policy.runTimeoutS = Containers::OneShot::timeoutSeconds(*millis);
            continue;
        }
        // Every other option is cordon-run's; so is "-", a command name rare enough to leave to it.
        if (argument.starts_with('-'))
            return std::nullopt;
        break; // the command: with cordon-run's ParseAsPositionalArguments, everything from here on is its
    }
    request.command.assign(arguments.begin() + static_cast<std::ptrdiff_t>(index), arguments.end());
    if (request.command.empty())
        return std::nullopt; // cordon-run words the usage error
    for (const std::string &argument : arguments) {
        // cordon-run decodes arguments as UTF-8 with replacement characters; such arguments are left to it.
        if (!isValidUtf8(argument))
            return std::nullopt;
        // QCoreApplication takes -qmljsdebugger (with one or two dashes) out of any argv, even after `--`:
        // such a command means something else to cordon-run, which is what it has always meant.
        if (argument.starts_with("-qmljsdebugger") || argument.starts_with("--qmljsdebugger"))
            return std::nullopt;
    }
    return request;
}

int runOneShot(const Containers::OneShot::PlainRunRequest &request)
{
    // Output piped into `head` must end in a write error we ignore, not kill us before the container is
    // removed (as cordon-run, which ignores SIGPIPE too).
    ::signal(SIGPIPE, SIG_IGN);
    // Error texts from the C library in the user's language, as QCoreApplication sets it up for cordon-run.
    std::setlocale(LC_ALL, "");
    // Ctrl-C (or SIGTERM, SIGHUP) cancels the run and still removes the container, instead of leaving its
    // workspace and cgroup behind.
    Containers::OneShot::PlainRunRequest cancellable = request;
    cancellable.interruptFd = Lite::interruptSignalPipe();
    const Containers::OneShot::PlainRunOutcome outcome =
        Containers::OneShot::runPlain(cancellable, [](int stream, std::string_view chunk) {
            Lite::writeAll(stream == 1 ? STDOUT_FILENO : STDERR_FILENO, chunk);
        });

    Lite::writeAll(STDERR_FILENO, Lite::summarizeOneShot(outcome));
    if (outcome.className != "ok")
        Lite::writeAll(STDERR_FILENO, Lite::hostFileHint(request.command, {}));
    return Cordon::shellStatus(outcome.className, outcome.exitCode, outcome.signal);
}

} // namespace Cordon::Launcher
