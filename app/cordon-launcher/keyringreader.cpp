// SPDX-License-Identifier: MIT
#include "keyringreader.h"

#include "sandbox/initlaunch.h"
#include "sandbox/json.h"
#include "sandbox/readall.h"
#include "sandbox/secrets/secretrules.h"
#include "sandbox/uniquefd.h"

#include <cerrno>
#include <csignal>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace Cordon::Launcher {

namespace {

constexpr char ReaderName[] = "cordon-secret-reader";
// A value JSON-escaped at worst six bytes a byte, and an error message.
constexpr std::size_t MaxAnswerBytes = Secrets::MaxValueBytes * 6 + 4096;

Error unavailable(const std::string &why)
{
    return Error("secrets.keyring_unavailable", "cannot read the desktop keyring: " + why);
}

std::string findReader()
{
    for (const std::string &candidate : Isolation::programCandidates(ReaderName)) {
        if (::access(candidate.c_str(), X_OK) == 0)
            return candidate;
    }
    return {};
}

} // namespace

std::string KeyringReader::kind() const
{
    return Secrets::SecretServiceKind;
}

Result<std::string> KeyringReader::read(const std::string &storeId, const std::string &name)
{
    const std::string program = findReader();
    if (program.empty())
        return fail(unavailable(std::string(ReaderName) + " is not installed beside cordon"));
    int ends[2];
    if (::pipe2(ends, O_CLOEXEC) != 0)
        return fail(unavailable(errnoText(errno)));
    UniqueFd readEnd(ends[0]);
    UniqueFd writeEnd(ends[1]);
    posix_spawn_file_actions_t actions;
    ::posix_spawn_file_actions_init(&actions);
    ::posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    ::posix_spawn_file_actions_adddup2(&actions, writeEnd.get(), STDOUT_FILENO);
    char *argv[] = {const_cast<char *>(program.c_str()), const_cast<char *>(storeId.c_str()),
                    const_cast<char *>(name.c_str()), nullptr};
    pid_t pid = 0;
    const int spawned = ::posix_spawn(&pid, program.c_str(), &actions, nullptr, argv, environ);
    ::posix_spawn_file_actions_destroy(&actions);
    if (spawned != 0)
        return fail(unavailable("start `" + program + "`: " + errnoText(spawned)));
    writeEnd = UniqueFd();
    auto answer = readToEnd(readEnd.get(), MaxAnswerBytes, "the keyring reader's answer",
                            "secrets.keyring_unavailable", "secrets.keyring_unavailable");
    // An answer past the cap leaves the reader blocked on a full pipe: it must not be waited for so.
    if (!answer)
        ::kill(pid, SIGKILL);
    readEnd = UniqueFd();
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (!answer)
        return fail(answer.error());
    auto document = Json::read(*answer);
    if (!document)
        return fail(unavailable("`" + program + "` answered nonsense"));
    const Json &error = (*document)["error"];
    if (error.isObject())
        return fail(error["code"].toString(), error["message"].toString());
    const Json &value = (*document)["value"];
    if (!value.isString() || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return fail(unavailable("`" + program + "` answered nonsense"));
    return value.toString();
}

Result<> KeyringReader::write(const std::string &, const std::string &name, std::string_view)
{
    return fail(unavailable("only the daemon changes secret " + name));
}

Result<> KeyringReader::erase(const std::string &, const std::string &name)
{
    return fail(unavailable("only the daemon changes secret " + name));
}

} // namespace Cordon::Launcher
