// SPDX-License-Identifier: MIT
// A tiny length-checked binary codec for the messages between the engine and cordon-init. Both ends are ours
// and run the same build, but the reader still bounds-checks everything: a process inside the container could
// try to talk on a leaked socket, and a malformed message must end in an error, never in a read past the
// buffer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace Cordon::Isolation {

class WireWriter
{
public:
    void u8(std::uint8_t value) { m_bytes.push_back(value); }
    void u32(std::uint32_t value);
    void u64(std::uint64_t value);
    void i64(std::int64_t value) { u64(static_cast<std::uint64_t>(value)); }
    void boolean(bool value) { u8(value ? 1 : 0); }
    void bytes(const void *data, std::size_t length);
    void string(const std::string &value) { bytes(value.data(), value.size()); }
    void strings(const std::vector<std::string> &values);

    const std::vector<std::uint8_t> &data() const { return m_bytes; }

private:
    std::vector<std::uint8_t> m_bytes;
};

class WireReader
{
public:
    WireReader(const std::uint8_t *data, std::size_t length) : m_data(data), m_length(length) {}

    bool u8(std::uint8_t &value);
    bool u32(std::uint32_t &value);
    bool u64(std::uint64_t &value);
    bool i64(std::int64_t &value);
    bool boolean(bool &value);
    bool string(std::string &value);
    bool strings(std::vector<std::string> &values);

    bool atEnd() const { return m_offset == m_length; }

private:
    bool take(void *out, std::size_t length);

    const std::uint8_t *m_data;
    std::size_t m_length;
    std::size_t m_offset = 0;
};

} // namespace Cordon::Isolation
