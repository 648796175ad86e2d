// SPDX-License-Identifier: MIT
// The launcher's helpers: programs that do what a static launcher cannot (load libsecret, PCRE2,
// libarchive), found as cordon-init is (beside the launcher, then ../libexec/cordon/), each asked once over
// pipes and answering one JSON document: {"error": {"code", "message"}} or what was asked for.
#pragma once

#include "sandbox/error.h"
#include "sandbox/json.h"

#include <string>
#include <vector>

namespace Cordon::Launcher {

struct HelperCall
{
    const char *program;                // "cordon-secret-reader"
    std::vector<std::string> arguments; // after the program's name
    std::string input;                  // written to its standard input, which then ends
    int passFd = -1;                    // when not -1, the helper's descriptor 3
    std::size_t maxAnswerBytes = 1024 * 1024;
    // The code of the errors of the call itself (not found, would not start, answered nonsense), and what
    // the message says could not be done: "cannot read the desktop keyring".
    std::string errorCode;
    std::string failedTo;
};

// The helper's answer. Its own {"error": ...} as that error; the call's failures under call.errorCode.
Result<Json> callHelper(const HelperCall &call);

} // namespace Cordon::Launcher
