// SPDX-License-Identifier: MIT
// Per-container limits of the egress proxy. Exceeding one closes that connection with a record; the daemon
// and the container's other connections carry on.
#pragma once

#include <QByteArray>
#include <QIODevice>

namespace Cordon::Network {

struct ProxyLimits
{
    // Client connections open at once; one more is answered 429 and closed.
    int maxConnections = 64;
    // Bytes both ways on one client connection (all its keep-alive requests); large enough for a 1 GiB
    // download with room to spare.
    qint64 maxBytesPerConnection = 8LL * 1024 * 1024 * 1024;
    // No byte either way for this long closes a tunnel, a keep-alive connection or an exchange.
    int idleTimeoutMs = 300 * 1000;
    // From accepting (or the previous request) to a complete request head: slow-loris clients are cut here.
    int headTimeoutMs = 30 * 1000;
    int resolveTimeoutMs = 10 * 1000;
    int connectTimeoutMs = 15 * 1000;
    // From "200 Connection established" to a complete TLS ClientHello.
    int clientHelloTimeoutMs = 10 * 1000;

    bool operator==(const ProxyLimits &other) const = default;
};

// Back-pressure: each socket buffers at most ReadBufferBytes from the kernel, and a side stops reading while
// the other side has more than HighWaterBytes waiting to be written, so a fast sender meets TCP flow control
// instead of the daemon's memory.
constexpr qint64 ReadBufferBytes = 256 * 1024;
constexpr qint64 HighWaterBytes = 1024 * 1024;
constexpr qint64 ChunkBytes = 256 * 1024;

// At most ChunkBytes of what device has already buffered, in an allocation of that size. Not
// device.read(ChunkBytes): that allocates the whole chunk (more, rounded up by QByteArray) and only shrinks
// the size to what was read, so a 60-byte request head kept half a megabyte for the connection's life, and a
// chunk queued in a socket's write buffer kept its allocation too. With a few hundred connections open at
// once that was most of the daemon's memory, and after a flood glibc kept the heap it had grown
// (docs/benchmarks.md, "Proxy connection floods").
inline QByteArray readChunk(QIODevice &device)
{
    return device.read(qMin(device.bytesAvailable(), ChunkBytes));
}

// The bytes one client connection may still move, shared by its requests and its tunnel.
class ByteBudget
{
public:
    explicit ByteBudget(qint64 limit) : m_limit(limit) {}
    // Counts bytes; false once more than the limit has been spent.
    bool spend(qint64 bytes)
    {
        m_used += bytes;
        return m_used <= m_limit;
    }
    qint64 limit() const { return m_limit; }

private:
    qint64 m_limit;
    qint64 m_used = 0;
};

} // namespace Cordon::Network
