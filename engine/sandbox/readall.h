// SPDX-License-Identifier: MIT
// Reading a whole file or pipe with a bound, so that no input can make a reader take unbounded memory: the
// one reader of whole files in the sandbox library and the launcher (policy files, stdin, cgroup files).
#pragma once

#include "sandbox/error.h"
#include "sandbox/uniquefd.h"

#include <cstddef>
#include <string>
#include <string_view>

namespace Cordon {

// Reads `fd` to its end. More than `cap` bytes fails with `tooLargeCode` ("WHAT is larger than 1 MiB"); a
// read error fails with `readCode` and its errno ("read WHAT").
Result<std::string> readToEnd(int fd, std::size_t cap, std::string_view what, const char *readCode,
                              const char *tooLargeCode);

// `path` opened for reading when it is a regular file. Opened without blocking (a FIFO opens at once instead
// of waiting for a writer; O_NONBLOCK means nothing to a regular file's reads) and checked on the descriptor:
// `openCode` when it cannot be opened, `notRegularCode` ("cannot read WHAT: not a regular file") otherwise.
Result<UniqueFd> openRegularFile(const std::string &path, std::string_view what, const char *openCode,
                                 const char *notRegularCode);

// The file at `path` when it is a regular file (openRegularFile()), read with readToEnd(). It is opened
// without blocking and checked before any read, so that a FIFO, a device or a socket where a file was
// expected is refused at once
// ("cannot read WHAT: not a regular file", `openCode`) instead of hanging the reader.
Result<std::string> readRegularFile(const std::string &path, std::size_t cap, std::string_view what,
                                    const char *openCode, const char *readCode, const char *tooLargeCode);

} // namespace Cordon
