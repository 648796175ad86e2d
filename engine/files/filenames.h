// SPDX-License-Identifier: MIT
// Names written by untrusted code, handled as bytes: validated before they are used as a path component on
// the host, escaped before a person or a log sees them. The Qt face of files/core/filenames.h, which holds
// the rules and their documentation.
#pragma once

#include "core/result.h"
#include "sandbox/files/filenames.h"

#include <QByteArrayView>
#include <QString>

namespace Cordon::Files {

// Longest path component Linux accepts (NAME_MAX).
constexpr qsizetype MaxNameBytes = qsizetype(Core::MaxNameBytes);

// One path component, or `files.bad_name` with the escaped name; see Core::validateName.
Result<> validateName(QByteArrayView name);

// A printable rendering of untrusted bytes for logs and the UI; see Core::escapeForDisplay.
QString escapeForDisplay(QByteArrayView name);

} // namespace Cordon::Files
