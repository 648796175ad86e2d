// SPDX-License-Identifier: MIT
// Opening paths that untrusted code can change under us without following anything it planted: the Qt face
// of files/core/safeopen.h, which holds the openat2(2) and openat(O_NOFOLLOW) code and its documentation.
#pragma once

#include "sandbox/files/safeopen.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QList>
#include <QtGlobal>

#include <string_view>

namespace Cordon::Files {

using Core::UniqueFd;

// One directory entry below `dirFd`, beneath it and on its mount, with no symlink followed; see
// Core::openBeneath.
inline UniqueFd openBeneath(int dirFd, QByteArrayView name, int flags)
{
    return Core::openBeneath(dirFd, std::string_view(name.data(), std::size_t(name.size())), flags);
}

// A host path none of whose components is a symlink; see Core::openNoSymlinks.
inline UniqueFd openNoSymlinks(QByteArrayView path, int flags)
{
    return Core::openNoSymlinks(std::string_view(path.data(), std::size_t(path.size())), flags);
}

using Core::changeModePinned;

// Up to `max` entry names of `dirFd` without "." and ".."; see Core::readDirectoryNames.
bool readDirectoryNames(int dirFd, qsizetype max, QList<QByteArray> *names);

namespace Detail {
using Core::Detail::setOpenat2Disabled;
} // namespace Detail

} // namespace Cordon::Files
