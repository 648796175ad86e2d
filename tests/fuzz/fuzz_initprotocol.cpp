// SPDX-License-Identifier: MIT
// Fuzzes the init protocol's decoders, which read what crosses the control socket between the daemon (or the
// launcher) and cordon-init. A process inside a container could write to a leaked end of that socket, so a
// malformed message must be refused without reading past it; an accepted one must be stable: encoding what
// was decoded and decoding that again gives the same bytes.
#include "sandbox/initprotocol.h"

#include <cstdint>
#include <cstdlib>
#include <vector>

using namespace Cordon::Isolation;

namespace {

template<typename Message> void roundTrip(const uint8_t *data, size_t size)
{
    Message first;
    if (!decode(data, size, first))
        return;
    const std::vector<std::uint8_t> encoded = encode(first);
    Message second;
    if (!decode(encoded.data(), encoded.size(), second))
        std::abort();
    if (encode(second) != encoded)
        std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    // Every decoder sees every input: a message of one type must be refused by the others' decoders too.
    (void)peekType(data, size);
    roundTrip<SetupRequest>(data, size);
    roundTrip<CgroupJoined>(data, size);
    roundTrip<SetupReply>(data, size);
    roundTrip<SpawnRequest>(data, size);
    roundTrip<SpawnReply>(data, size);
    roundTrip<ExitReport>(data, size);
    roundTrip<KillRequest>(data, size);
    roundTrip<Adopt>(data, size);
    roundTrip<HeldRun>(data, size);
    roundTrip<HeldOutput>(data, size);
    roundTrip<AdoptDone>(data, size);
    roundTrip<RunCollected>(data, size);
    roundTrip<EndProcesses>(data, size);
    roundTrip<ProcessesEnded>(data, size);
    // A reply of another version is read only as far as its frozen fields, so it cannot round-trip whole.
    AdoptReply reply;
    if (decode(data, size, reply) && reply.protocolVersion == InitProtocolVersion)
        roundTrip<AdoptReply>(data, size);
    return 0;
}
