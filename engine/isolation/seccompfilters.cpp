// SPDX-License-Identifier: MIT
#include "isolation/seccompfilters.h"

namespace Cordon::Isolation {

namespace {

// SeccompFilterDefault, SeccompFilterWithPtrace (engine/CMakeLists.txt generates this file).
#include "seccompfilters.inc"

} // namespace

QByteArrayView prebuiltSeccompFilter(const SeccompOptions &options)
{
    if (options.allowPtrace)
        return {reinterpret_cast<const char *>(SeccompFilterWithPtrace), sizeof SeccompFilterWithPtrace};
    return {reinterpret_cast<const char *>(SeccompFilterDefault), sizeof SeccompFilterDefault};
}

} // namespace Cordon::Isolation
