// SPDX-License-Identifier: MIT
#include "sandbox/wire.h"

#include <cstring>

namespace Cordon::Isolation {

namespace {
// Caps keep a hostile length field from making the reader allocate gigabytes.
constexpr std::uint32_t MaxStringBytes = 8u * 1024 * 1024;
constexpr std::uint32_t MaxListEntries = 65536;
} // namespace

void WireWriter::u32(std::uint32_t value)
{
    for (int shift = 0; shift < 32; shift += 8)
        m_bytes.push_back(static_cast<std::uint8_t>(value >> shift));
}

void WireWriter::u64(std::uint64_t value)
{
    for (int shift = 0; shift < 64; shift += 8)
        m_bytes.push_back(static_cast<std::uint8_t>(value >> shift));
}

void WireWriter::bytes(const void *data, std::size_t length)
{
    u32(static_cast<std::uint32_t>(length));
    const auto *begin = static_cast<const std::uint8_t *>(data);
    m_bytes.insert(m_bytes.end(), begin, begin + length);
}

void WireWriter::strings(const std::vector<std::string> &values)
{
    u32(static_cast<std::uint32_t>(values.size()));
    for (const std::string &value : values)
        string(value);
}

bool WireReader::take(void *out, std::size_t length)
{
    if (length > m_length - m_offset)
        return false;
    std::memcpy(out, m_data + m_offset, length);
    m_offset += length;
    return true;
}

bool WireReader::u8(std::uint8_t &value)
{
    return take(&value, 1);
}

bool WireReader::u32(std::uint32_t &value)
{
    std::uint8_t raw[4];
    if (!take(raw, sizeof raw))
        return false;
    value = 0;
    for (int i = 3; i >= 0; --i)
        value = (value << 8) | raw[i];
    return true;
}

bool WireReader::u64(std::uint64_t &value)
{
    std::uint8_t raw[8];
    if (!take(raw, sizeof raw))
        return false;
    value = 0;
    for (int i = 7; i >= 0; --i)
        value = (value << 8) | raw[i];
    return true;
}

bool WireReader::i64(std::int64_t &value)
{
    std::uint64_t raw = 0;
    if (!u64(raw))
        return false;
    value = static_cast<std::int64_t>(raw);
    return true;
}

bool WireReader::boolean(bool &value)
{
    std::uint8_t raw = 0;
    if (!u8(raw) || raw > 1)
        return false;
    value = raw == 1;
    return true;
}

bool WireReader::string(std::string &value)
{
    std::uint32_t length = 0;
    if (!u32(length) || length > MaxStringBytes || length > m_length - m_offset)
        return false;
    value.assign(reinterpret_cast<const char *>(m_data + m_offset), length);
    m_offset += length;
    return true;
}

bool WireReader::strings(std::vector<std::string> &values)
{
    std::uint32_t count = 0;
    if (!u32(count) || count > MaxListEntries)
        return false;
    values.clear();
    values.reserve(count);
    for (std::uint32_t i = 0; i < count; ++i) {
        std::string value;
        if (!string(value))
            return false;
        values.push_back(std::move(value));
    }
    return true;
}

} // namespace Cordon::Isolation
