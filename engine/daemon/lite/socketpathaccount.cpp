// SPDX-License-Identifier: MIT
// The socket path when the environment does not say where home is: the account's home directory from the
// password database. Apart from socketpath.cpp on purpose: the `cordon` launcher, linked statically, calls
// only socketPathFromEnvironment() and so never links getpwuid (which needs glibc's NSS modules at run
// time).
#include "daemon/lite/socketpath.h"

#include <pwd.h>
#include <unistd.h>

namespace Cordon::Lite {

namespace {

std::string accountHome()
{
    if (const passwd *entry = ::getpwuid(::getuid()))
        return entry->pw_dir;
    return "/";
}

} // namespace

std::string socketDirectory()
{
    if (std::optional<std::string> directory = socketDirectoryFromEnvironment())
        return *directory;
    return stateDirectoryIn(accountHome());
}

std::string socketPath()
{
    if (std::optional<std::string> path = socketPathFromEnvironment())
        return *path;
    return socketDirectory() + "/" + SocketName;
}

} // namespace Cordon::Lite
