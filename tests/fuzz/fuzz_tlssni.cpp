// SPDX-License-Identifier: MIT
// Fuzzes the ClientHello reader. A name it reports must be a plain ASCII host name, and a prefix of an input
// whose ClientHello was complete must never be judged differently from "incomplete" or an error.
#include "network/tlssni.h"

#include <cstdint>
#include <cstdlib>

using namespace Cordon::Network;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QByteArrayView input(reinterpret_cast<const char *>(data), qsizetype(size));
    const auto result = parseClientHelloSni(input);
    if (!result || result->status != ClientHelloSni::Status::Found)
        return 0;
    const QString &name = result->serverName;
    if (name.isEmpty() || name.size() > 255)
        std::abort();
    for (QChar c : name) {
        const char16_t u = c.unicode();
        const bool ok = (u >= u'a' && u <= u'z') || (u >= u'A' && u <= u'Z') || (u >= u'0' && u <= u'9') ||
                        u == u'-' || u == u'.' || u == u'_';
        if (!ok)
            std::abort();
    }
    // Half of the bytes: incomplete, or refused, never a different name.
    const auto half = parseClientHelloSni(input.first(input.size() / 2));
    if (half && half->status == ClientHelloSni::Status::Found && half->serverName != name)
        std::abort();
    return 0;
}
