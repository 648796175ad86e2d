// SPDX-License-Identifier: MIT
#include "daemon/lite/frames.h"

namespace Cordon::Lite {

std::string encodeFrame(std::string_view json)
{
    const auto length = static_cast<std::uint32_t>(json.size());
    std::string frame;
    frame.reserve(FrameHeaderBytes + json.size());
    frame += static_cast<char>(length >> 24);
    frame += static_cast<char>(length >> 16);
    frame += static_cast<char>(length >> 8);
    frame += static_cast<char>(length);
    frame.append(json);
    return frame;
}

void FrameSplitter::feed(std::string_view bytes)
{
    if (m_broken || bytes.empty())
        return;
    if (m_pos == m_buffer.size()) {
        m_buffer.clear();
        m_pos = 0;
    } else if (m_pos > 0 && m_pos >= m_buffer.size() / 2) {
        m_buffer.erase(0, m_pos);
        m_pos = 0;
    }
    m_buffer.append(bytes);
}

FrameSplitter::Status FrameSplitter::next(std::string_view &body, std::uint32_t &length)
{
    if (m_broken)
        return Status::NeedMore;
    const std::size_t available = m_buffer.size() - m_pos;
    if (available < FrameHeaderBytes)
        return Status::NeedMore;
    const auto *header = reinterpret_cast<const unsigned char *>(m_buffer.data() + m_pos);
    length = static_cast<std::uint32_t>(header[0]) << 24 | static_cast<std::uint32_t>(header[1]) << 16 |
             static_cast<std::uint32_t>(header[2]) << 8 | header[3];
    if (length > MaxFrameBytes) {
        // Whatever follows is not a frame boundary we could trust, so there is no way to skip ahead.
        m_broken = true;
        std::string().swap(m_buffer);
        m_pos = 0;
        return Status::TooLarge;
    }
    if (available < FrameHeaderBytes + static_cast<std::size_t>(length))
        return Status::NeedMore;
    body = std::string_view(m_buffer).substr(m_pos + FrameHeaderBytes, length);
    m_pos += FrameHeaderBytes + static_cast<std::size_t>(length);
    return Status::Frame;
}

} // namespace Cordon::Lite
