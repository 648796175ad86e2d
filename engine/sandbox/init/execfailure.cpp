// SPDX-License-Identifier: MIT
#include "sandbox/init/execfailure.h"

#include <cerrno>
#include <cstring>

namespace Cordon::Isolation {

std::optional<ExecFailure> execFailure(Stage stage, int sysErrno, std::string_view program)
{
    if (stage != Stage::SpawnExec)
        return std::nullopt;
    const std::string name = "`" + std::string(program) + "`";
    const bool searched = program.find('/') == std::string_view::npos;
    if (sysErrno == ENOENT || sysErrno == ENOTDIR)
        return ExecFailure{127, "executable not found: " + name +
                                    (searched ? " is in no folder of the container's PATH"
                                              : " does not exist in the container") +
                                    " (the sandbox was set up; the program did not start)"};
    return ExecFailure{126, "cannot execute " + name + ": " + std::strerror(sysErrno) +
                                " (the sandbox was set up; the program did not start)"};
}

} // namespace Cordon::Isolation
