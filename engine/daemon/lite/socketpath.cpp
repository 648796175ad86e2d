// SPDX-License-Identifier: MIT
#include "daemon/lite/socketpath.h"

#include <cstdlib>
#include <sys/stat.h>
#include <unistd.h>

#include <vector>

namespace Cordon::Lite {

namespace {

std::string environment(const char *name)
{
    const char *value = std::getenv(name);
    return value ? std::string(value) : std::string();
}

// The runtime dir is only worth using when it is really ours: the socket's directory inherits its protection.
bool usableRuntimeDirectory(const std::string &path)
{
    if (path.empty() || path.front() != '/')
        return false;
    struct stat st = {};
    if (::stat(path.c_str(), &st) != 0)
        return false;
    return S_ISDIR(st.st_mode) && st.st_uid == ::getuid() && (st.st_mode & (S_IWGRP | S_IWOTH)) == 0;
}

} // namespace

std::string absoluteCleanPath(std::string_view path)
{
    std::string full;
    if (path.empty() || path.front() != '/') {
        std::vector<char> cwd(4096);
        while (::getcwd(cwd.data(), cwd.size()) == nullptr && cwd.size() < (1u << 20))
            cwd.resize(cwd.size() * 2);
        full = cwd.data();
        full += '/';
    }
    full.append(path);

    std::vector<std::string_view> segments;
    std::string_view rest(full);
    while (!rest.empty()) {
        const std::size_t slash = rest.find('/');
        const std::string_view segment = rest.substr(0, slash);
        rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash + 1);
        if (segment.empty() || segment == ".")
            continue;
        // As QDir::cleanPath: a ".." with nothing left to remove stays, even at the root.
        if (segment == ".." && !segments.empty() && segments.back() != "..") {
            segments.pop_back();
            continue;
        }
        segments.push_back(segment);
    }
    std::string clean;
    for (const std::string_view segment : segments) {
        clean += '/';
        clean.append(segment);
    }
    return clean.empty() ? std::string("/") : clean;
}

std::string parentPath(std::string_view absolutePath)
{
    const std::size_t slash = absolutePath.rfind('/');
    if (slash == std::string_view::npos || slash == 0)
        return "/";
    return std::string(absolutePath.substr(0, slash));
}

std::optional<std::string> socketDirectoryFromEnvironment()
{
    const std::string overridden = environment("CORDON_SOCKET");
    if (!overridden.empty())
        return parentPath(absoluteCleanPath(overridden));

    const std::string runtime = environment("XDG_RUNTIME_DIR");
    if (usableRuntimeDirectory(runtime))
        return runtime + "/cordon";

    const std::string state = environment("XDG_STATE_HOME");
    if (!state.empty() && state.front() == '/')
        return state + "/cordon";
    const std::string home = environment("HOME");
    if (!home.empty())
        return stateDirectoryIn(home);
    return std::nullopt;
}

std::string stateDirectoryIn(std::string_view home)
{
    return std::string(home) + "/.local/state/cordon";
}

std::optional<std::string> socketPathFromEnvironment()
{
    const std::string overridden = environment("CORDON_SOCKET");
    if (!overridden.empty())
        return absoluteCleanPath(overridden);
    const std::optional<std::string> directory = socketDirectoryFromEnvironment();
    return directory ? std::optional<std::string>(*directory + "/" + SocketName) : std::nullopt;
}

} // namespace Cordon::Lite
