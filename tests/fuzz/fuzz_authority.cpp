// SPDX-License-Identifier: MIT
// Fuzzes authority parsing. What it accepts must be stable: parsing the normalised form again gives the same
// host and port, so the proxy and the allowlist cannot disagree about a name after one round of
// normalisation.
#include "network/hostmatch.h"

#include <cstdint>
#include <cstdlib>

using namespace Cordon::Network;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QByteArrayView input(reinterpret_cast<const char *>(data), qsizetype(size));
    const auto parsed = parseAuthority(input, size % 2 ? std::optional<quint16>(80) : std::nullopt);
    if (!parsed)
        return 0;
    if (parsed->host.isEmpty() || parsed->port == 0)
        std::abort();
    const auto again = parseAuthority(parsed->toString().toLatin1());
    if (!again || !(*again == *parsed))
        std::abort();
    for (QChar c : parsed->host) {
        if (c.unicode() >= 0x80 || c.isUpper())
            std::abort();
    }
    return 0;
}
