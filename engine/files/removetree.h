// SPDX-License-Identifier: MIT
// Wiping a directory tree that untrusted code wrote into (a container workspace being deleted). The Qt face
// of files/core/removetree.h, which holds the code and documents what it guarantees.
#pragma once

#include "core/result.h"

#include <QString>

namespace Cordon::Files {

// Removes `path` and everything below it without following anything the sandbox left; ok when it does not
// exist. Fails with `files.mount_point`, `files.symlink` or `files.remove`; see Core::removeTree.
Result<> removeTree(const QString &path);

} // namespace Cordon::Files
