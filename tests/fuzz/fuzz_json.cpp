// SPDX-License-Identifier: MIT
// Fuzzes the sandbox library's strict JSON reader, which reads every protocol frame a client or the daemon
// receives. A refusal names its code and where (key path, line and column); what it accepts must survive a round trip: its compact form
// parses again and prints the same, so a frame relayed or stored is read the same way twice.
#include "sandbox/json.h"

#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const std::string_view input(reinterpret_cast<const char *>(data), size);
    const auto parsed = Cordon::Json::read(input);
    if (!parsed) {
        // Where: " (line L, column C)" at the end, but for a document refused by its size before reading.
        const std::string &message = parsed.error().message();
        const bool placed = message.ends_with(")") && message.find(" (line ") != std::string::npos;
        if (!parsed.error().code().starts_with("json.") || (!placed && parsed.error().code() != "json.too_large"))
            std::abort();
        return 0;
    }
    const std::string compact = parsed->serialize();
    if (!Cordon::isValidUtf8(compact))
        std::abort();
    const auto again = Cordon::Json::read(compact);
    if (!again || again->serialize() != compact)
        std::abort();
    return 0;
}
