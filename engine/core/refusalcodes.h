// SPDX-License-Identifier: MIT
// The codes a copy uses when it refuses one entry (a symlink, a taken name, ...), as opposed to a request
// that could not be carried out at all (files.destination, files.not_found). The engine's copy code, the
// daemon's answers and the workbench's wording all sort errors by this one list.
#pragma once

#include <QStringView>

namespace Cordon {

bool isRefusalCode(QStringView code);

} // namespace Cordon
