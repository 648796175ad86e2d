// SPDX-License-Identifier: MIT
// Where the per-user daemon listens (docs/protocol.md), without Qt. daemon/daemonpaths.h answers with these.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace Cordon::Lite {

constexpr const char *SocketName = "cordond.sock";

// $XDG_RUNTIME_DIR/cordon when the runtime dir is set, exists, is ours and is not group/world writable;
// otherwise $XDG_STATE_HOME/cordon or ~/.local/state/cordon. With CORDON_SOCKET set (tests), its directory.
// Without $HOME, the home directory comes from the password database (socketpathaccount.cpp).
std::string socketDirectory();
// CORDON_SOCKET (made absolute) when set, else socketDirectory()/cordond.sock.
std::string socketPath();

// The same answers from the environment alone: std::nullopt where they would need the password database
// (no CORDON_SOCKET, usable XDG_RUNTIME_DIR, XDG_STATE_HOME or HOME). For the statically linked launcher.
std::optional<std::string> socketDirectoryFromEnvironment();
std::optional<std::string> socketPathFromEnvironment();
// <home>/.local/state/cordon
std::string stateDirectoryIn(std::string_view home);

// `path` made absolute against the working directory and cleaned lexically ("." and ".." segments, repeated
// and trailing slashes), as QFileInfo::absoluteFilePath() does it.
std::string absoluteCleanPath(std::string_view path);
// Everything before the last slash of an absolute clean path ("/" for "/x").
std::string parentPath(std::string_view absolutePath);

} // namespace Cordon::Lite
