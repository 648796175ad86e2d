// SPDX-License-Identifier: MIT
// Writing all of a buffer to a descriptor, through short writes and EINTR: the one write loop of the sandbox
// library (protocol memfds, files cordon-init makes, a run's stdin).
#pragma once

#include <string_view>

namespace Cordon {

// 0 once every byte of `bytes` is written, else the errno of the failed write (EIO for a write of 0 bytes).
int writeFully(int fd, std::string_view bytes);

} // namespace Cordon
