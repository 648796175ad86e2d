// SPDX-License-Identifier: MIT
// Base64 (RFC 4648, standard alphabet) as the protocol carries output and stdin chunks.
#pragma once

#include <string>
#include <string_view>

namespace Cordon::Lite {

std::string base64Encode(std::string_view bytes);
// Like QByteArray::fromBase64 without AbortOnBase64DecodingErrors, so both clients print the same bytes for
// the same event: characters outside the alphabet (padding included) are skipped, never an error.
std::string base64Decode(std::string_view text);

} // namespace Cordon::Lite
