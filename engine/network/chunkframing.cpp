// SPDX-License-Identifier: MIT
#include "network/chunkframing.h"

#include "network/httprequest.h"

namespace Cordon::Network {

namespace {

tl::unexpected<Error> badRequest(const QString &why)
{
    return fail(QStringLiteral("network.bad_request"), why);
}

tl::unexpected<Error> malformed()
{
    return badRequest(QStringLiteral("malformed chunked body framing"));
}

} // namespace

Result<void> ChunkFramingCheck::data() const
{
    if (m_state != State::Data)
        return badRequest(QStringLiteral("chunk data where framing was expected"));
    return {};
}

Result<void> ChunkFramingCheck::framing(char c)
{
    const bool hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    switch (m_state) {
    case State::Size:
        if (hex) {
            m_sizeDigits = true;
            m_sizeNonZero = m_sizeNonZero || c != '0';
            return {};
        }
        if (c == ';')
            return badRequest(QStringLiteral("chunk extensions are not supported"));
        if (c != '\r' || !m_sizeDigits)
            return malformed();
        m_state = State::SizeLf;
        return {};
    case State::SizeLf:
        if (c != '\n')
            return malformed();
        m_state = m_sizeNonZero ? State::Data : State::TrailerStart;
        m_sizeDigits = m_sizeNonZero = false;
        return {};
    case State::Data:
        // The first framing byte after the data of a chunk.
        if (c != '\r')
            return malformed();
        m_state = State::DataLf;
        return {};
    case State::DataLf:
        if (c != '\n')
            return malformed();
        m_state = State::Size;
        return {};
    case State::TrailerStart:
    case State::Trailer:
        if (++m_trailerBytes > MaxHeadBytes)
            return badRequest(QStringLiteral("chunked trailer larger than %1 bytes").arg(MaxHeadBytes));
        if (c == '\r') {
            m_state = m_state == State::TrailerStart ? State::EndLf : State::TrailerLf;
            return {};
        }
        if (c == '\n' || (static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7f)
            return malformed();
        m_state = State::Trailer;
        return {};
    case State::TrailerLf:
        if (c != '\n')
            return malformed();
        m_state = State::TrailerStart;
        return {};
    case State::EndLf:
        if (c != '\n')
            return malformed();
        m_state = State::End;
        return {};
    case State::End:
        break;
    }
    // Nothing may follow the final empty line within the body.
    return malformed();
}

} // namespace Cordon::Network
