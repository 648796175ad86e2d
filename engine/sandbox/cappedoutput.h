// SPDX-License-Identifier: MIT
// One output stream of a run as it is kept: at most `cap` bytes, and a count of everything the run wrote, so
// a flooding program is cut (and the cut reported) without growing our memory. The engine's OutputCapture
// (containers/outputcapture.h) and the Qt-free one-shot run keep their streams with it.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace Cordon::Containers {

class CappedOutput final
{
public:
    explicit CappedOutput(std::int64_t cap) : m_cap(cap) {}

    // Counts `bytes` and keeps what fits under the cap; returns the part that was kept (empty once cut).
    std::string_view append(std::string_view bytes);

    const std::string &data() const { return m_data; }
    std::int64_t totalBytes() const { return m_total; }
    bool truncated() const { return m_total > m_cap; }

private:
    std::int64_t m_cap;
    std::int64_t m_total = 0;
    std::string m_data;
};

// Reads what the non-blocking pipe `fd` holds now into `output`, and gives `onKept` each part that was kept.
// True when the pipe is merely empty for now; false at end of file or on a read error (the caller closes it).
bool readAvailable(int fd, CappedOutput &output, const std::function<void(std::string_view)> &onKept);

} // namespace Cordon::Containers
