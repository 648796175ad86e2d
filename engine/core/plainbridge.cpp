// SPDX-License-Identifier: MIT
#include "core/plainbridge.h"

#include <pwd.h>

namespace Cordon {

std::string userNameFromNss(uid_t uid)
{
    const passwd *pw = ::getpwuid(uid);
    return pw ? std::string(pw->pw_name) : std::to_string(uid);
}

} // namespace Cordon
