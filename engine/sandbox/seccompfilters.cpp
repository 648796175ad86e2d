// SPDX-License-Identifier: MIT
#include "sandbox/seccompfilters.h"

namespace Cordon::Isolation {

namespace {

// SeccompFilterDefault, SeccompFilterWithPtrace (engine/CMakeLists.txt generates this file).
#include "seccompfilters.inc"

} // namespace

std::string_view prebuiltSeccompFilter(bool allowPtrace)
{
    if (allowPtrace)
        return {reinterpret_cast<const char *>(SeccompFilterWithPtrace), sizeof SeccompFilterWithPtrace};
    return {reinterpret_cast<const char *>(SeccompFilterDefault), sizeof SeccompFilterDefault};
}

} // namespace Cordon::Isolation
