// SPDX-License-Identifier: MIT
// The protocol's framing (docs/protocol.md) without Qt: a 4-byte big-endian length, then that many bytes of
// JSON. The Qt codec (daemon/framecodec.h) splits frames with the same FrameSplitter.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace Cordon::Lite {

inline constexpr int ProtocolVersion = 1;
// Larger frames are refused before their body is read, so a bogus length cannot make us allocate it.
inline constexpr std::uint32_t MaxFrameBytes = 16u * 1024 * 1024;
inline constexpr int FrameHeaderBytes = 4;

// The header and `json`; the caller keeps `json` under MaxFrameBytes.
std::string encodeFrame(std::string_view json);

// Splits a byte stream into frame bodies. Feed it whatever arrived; next() yields each complete body once.
class FrameSplitter
{
public:
    enum class Status
    {
        NeedMore, // no complete frame buffered (or broken, see below)
        Frame,    // `body` holds the frame's bytes, valid until the next feed()
        TooLarge, // the header announced more than MaxFrameBytes: the stream cannot be resynchronised, so
                  // everything is dropped and the splitter stays broken; the caller closes the connection
    };

    void feed(std::string_view bytes);
    // `length` receives the announced length (also for TooLarge).
    Status next(std::string_view &body, std::uint32_t &length);

    bool isBroken() const { return m_broken; }
    std::size_t bufferedBytes() const { return m_buffer.size() - m_pos; }

private:
    std::string m_buffer;
    // Consumed frames are skipped by offset and compacted away in bulk, so a chunk holding many small frames
    // costs linear time, not one memmove per frame.
    std::size_t m_pos = 0;
    bool m_broken = false;
};

} // namespace Cordon::Lite
