// SPDX-License-Identifier: MIT
// Where the per-user daemon listens (docs/protocol.md), without Qt. daemon/daemonpaths.h answers with these.
#pragma once

#include <string>
#include <string_view>

namespace Cordon::Lite {

// $XDG_RUNTIME_DIR/cordon when the runtime dir is set, exists, is ours and is not group/world writable;
// otherwise $XDG_STATE_HOME/cordon or ~/.local/state/cordon. With CORDON_SOCKET set (tests), its directory.
std::string socketDirectory();
// CORDON_SOCKET (made absolute) when set, else socketDirectory()/cordond.sock.
std::string socketPath();

// `path` made absolute against the working directory and cleaned lexically ("." and ".." segments, repeated
// and trailing slashes), as QFileInfo::absoluteFilePath() does it.
std::string absoluteCleanPath(std::string_view path);
// Everything before the last slash of an absolute clean path ("/" for "/x").
std::string parentPath(std::string_view absolutePath);

} // namespace Cordon::Lite
