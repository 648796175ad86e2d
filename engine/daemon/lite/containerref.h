// SPDX-License-Identifier: MIT
// How a command-line ID names a container (docs/cli.md, "Naming containers"), as one pure function over the
// daemon's container.list result, shared by the Qt CLI and the Qt-free `cordon exec` launcher.
#pragma once

#include "sandbox/json.h"

#include <cstddef>
#include <string_view>
#include <vector>

namespace Cordon::Lite {

// Indexes into the list: one for a match, several when the reference is ambiguous, none when nothing
// matched (then the daemon's container.get words the refusal, so every client reports it the same way).
// Like docker: an exact id, then the name of a running or stopped container, then an id prefix, where
// containers that still exist win over expired and deleted ones. Last, the name of an ended container: the
// newest such one (containers are listed newest first), so that using it says when it ended.
std::vector<std::size_t> matchContainers(const Json::Array &containers, std::string_view reference);

// True for the shape of a whole container id (16 lower-case hex digits). Such a reference is first looked up
// with container.get, which finds exactly the ids container.list (with include_deleted) lists and answers
// with the same object: an exact id wins over every other match, so the answer is the same, and a client
// need not read the whole list (about 1 ms with 50 containers) for the common case.
bool isFullContainerId(std::string_view reference);

// How many leading hex digits of a container id tables show (the workbench's list, `cordon ls`, `cordon
// events`): 32 bits, unique among any one user's containers in practice, and a prefix every command accepts
// (an ambiguous one is refused with the candidates). JSON, --quiet and Copy ID give the whole id.
constexpr std::size_t ShortIdLength = 8;

} // namespace Cordon::Lite
