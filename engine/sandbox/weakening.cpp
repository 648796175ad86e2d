// SPDX-License-Identifier: MIT
// The shipped definition: no guarantee is ever removed. It is alone in its object file, so that the test
// program that links a definition of its own (tests/weakened/) never pulls this one from the archive.
#include "sandbox/weakening.h"

namespace Cordon {

bool weakened(Guarantee) noexcept
{
    return false;
}

} // namespace Cordon
