// SPDX-License-Identifier: MIT
// Writing what a client prints, without Qt.
#pragma once

#include <string_view>

namespace Cordon::Lite {

// Writes all of `bytes` to `fd`, retrying after signals. Output that nobody reads any more (a closed pipe,
// with SIGPIPE ignored) is dropped, as the Qt CLI's fwrite drops it.
void writeAll(int fd, std::string_view bytes);

} // namespace Cordon::Lite
