// SPDX-License-Identifier: MIT
// A second, strict reading of the framing bytes of a chunked request body. libhttp-parser 2.9.4 does not
// check the CRLF after chunk data ("3\r\nabcXX0\r\n\r\n" is accepted) and ends a chunk extension at a bare LF
// ("3;x\nabc"), so it can frame a body differently from a strict upstream: request smuggling, the class of
// CVE-2025-55315 (Kestrel), h11 CVE-2025-43859 and Squid CVE-2023-46846. The parser still decodes the body;
// this check is fed the bytes it treated as framing and refuses anything but: hex digits and CRLF, CRLF after
// the data, no chunk extensions, trailer lines ending in CRLF, a final empty line.
#pragma once

#include "core/result.h"

namespace Cordon::Network {

class ChunkFramingCheck
{
public:
    // One framing byte, in order. Errors: network.bad_request.
    Result<void> framing(char byte);
    // The parser reported chunk data here; only allowed right after a chunk-size line of a non-empty chunk.
    Result<void> data() const;
    // The final empty line after the last chunk (and trailers) has been seen.
    bool isComplete() const { return m_state == State::End; }

private:
    enum class State
    {
        Size,         // hex digits of a chunk size
        SizeLf,       // after the CR of a size line
        Data,         // chunk data (the parser's), then the CR after it
        DataLf,       // after the CR that follows the data
        TrailerStart, // at the start of a trailer line or the final empty line
        Trailer,      // inside a trailer line
        TrailerLf,    // after the CR of a trailer line
        EndLf,        // after the CR of the final empty line
        End,
    };
    State m_state = State::Size;
    bool m_sizeDigits = false;
    bool m_sizeNonZero = false;
    qsizetype m_trailerBytes = 0;
};

} // namespace Cordon::Network
