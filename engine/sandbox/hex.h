// SPDX-License-Identifier: MIT
// Lower-case hex, the form keys, fingerprints and signatures take in Cordon's JSON files.
#pragma once

#include <string>
#include <string_view>

namespace Cordon {

std::string toHex(std::string_view bytes);
// The bytes of lower-case hex `text` into `out`; false (and `out` unspecified) for an odd length or a
// character that is not a lower-case hex digit.
bool fromHex(std::string_view text, std::string &out);

} // namespace Cordon
