// SPDX-License-Identifier: MIT
#pragma once

#include <QByteArrayView>

namespace Cordon {

// Writes all of `data` to a blocking descriptor, retrying short writes and EINTR. Returns 0 or the errno.
int writeAll(int fd, QByteArrayView data);

} // namespace Cordon
