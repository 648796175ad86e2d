// SPDX-License-Identifier: MIT
#include "helperprocess.h"

#include "sandbox/initlaunch.h"
#include "sandbox/readall.h"
#include "sandbox/uniquefd.h"
#include "sandbox/writeall.h"

#include <cerrno>
#include <csignal>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace Cordon::Launcher {

namespace {

std::string findProgram(const char *name)
{
    for (const std::string &candidate : Isolation::programCandidates(name)) {
        if (::access(candidate.c_str(), X_OK) == 0)
            return candidate;
    }
    return {};
}

} // namespace

Result<Json> callHelper(const HelperCall &call)
{
    const auto failed = [&call](const std::string &why) {
        return Error(call.errorCode, call.failedTo + ": " + why);
    };
    const std::string program = findProgram(call.program);
    if (program.empty())
        return fail(failed(std::string(call.program) + " is not installed beside cordon"));
    int out[2];
    int in[2];
    if (::pipe2(out, O_CLOEXEC) != 0)
        return fail(failed(errnoText(errno)));
    UniqueFd answerEnd(out[0]);
    UniqueFd answerWriteEnd(out[1]);
    if (::pipe2(in, O_CLOEXEC) != 0)
        return fail(failed(errnoText(errno)));
    UniqueFd requestReadEnd(in[0]);
    UniqueFd requestEnd(in[1]);
    // Above 3, so that dup2 onto 3 always makes a new descriptor without FD_CLOEXEC.
    UniqueFd passed(call.passFd < 0 ? -1 : ::fcntl(call.passFd, F_DUPFD_CLOEXEC, 10));
    if (call.passFd >= 0 && !passed.isValid())
        return fail(failed(errnoText(errno)));

    posix_spawn_file_actions_t actions;
    ::posix_spawn_file_actions_init(&actions);
    ::posix_spawn_file_actions_adddup2(&actions, requestReadEnd.get(), STDIN_FILENO);
    ::posix_spawn_file_actions_adddup2(&actions, answerWriteEnd.get(), STDOUT_FILENO);
    if (passed.isValid())
        ::posix_spawn_file_actions_adddup2(&actions, passed.get(), 3);
    std::vector<char *> argv{const_cast<char *>(program.c_str())};
    for (const std::string &argument : call.arguments)
        argv.push_back(const_cast<char *>(argument.c_str()));
    argv.push_back(nullptr);
    pid_t pid = 0;
    const int spawned = ::posix_spawn(&pid, program.c_str(), &actions, nullptr, argv.data(), environ);
    ::posix_spawn_file_actions_destroy(&actions);
    if (spawned != 0)
        return fail(failed("start `" + program + "`: " + errnoText(spawned)));
    answerWriteEnd = UniqueFd();
    requestReadEnd = UniqueFd();
    passed = UniqueFd();
    // The helper reads all of its request before it answers, so this cannot block on a full answer pipe. A
    // helper that died early is noticed below (SIGPIPE is ignored by the caller, or ends a dying launcher).
    (void)writeFully(requestEnd.get(), call.input);
    requestEnd = UniqueFd();
    auto answer =
        readToEnd(answerEnd.get(), call.maxAnswerBytes, "the answer of " + std::string(call.program),
                  call.errorCode.c_str(), call.errorCode.c_str());
    // An answer past the cap leaves the helper blocked on a full pipe: it must not be waited for so.
    if (!answer)
        ::kill(pid, SIGKILL);
    answerEnd = UniqueFd();
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (!answer)
        return fail(failed(answer.error().message()));
    auto document = Json::read(*answer);
    if (!document || !document->isObject())
        return fail(failed("`" + program + "` answered nonsense"));
    const Json &error = (*document)["error"];
    if (error.isObject())
        return fail(error["code"].toString(), error["message"].toString());
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return fail(failed("`" + program + "` failed"));
    return std::move(*document);
}

} // namespace Cordon::Launcher
