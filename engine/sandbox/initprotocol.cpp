// SPDX-License-Identifier: MIT
#include "sandbox/initprotocol.h"

#include "sandbox/readall.h"
#include "sandbox/wire.h"
#include "sandbox/writeall.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <memory>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

namespace Cordon::Isolation {

const char *stageName(Stage stage)
{
    switch (stage) {
    case Stage::None:
        return "none";
    case Stage::ReadSetup:
        return "read setup request";
    case Stage::SetIds:
        return "set user and group ids";
    case Stage::MakePrivate:
        return "make mounts private";
    case Stage::MountRootTmpfs:
        return "mount root tmpfs";
    case Stage::MountOp:
        return "mount";
    case Stage::PivotRoot:
        return "pivot_root";
    case Stage::DetachOldRoot:
        return "detach old root";
    case Stage::RemountRootReadOnly:
        return "remount root read-only";
    case Stage::SetHostname:
        return "set hostname";
    case Stage::LoopbackUp:
        return "bring up loopback";
    case Stage::UnshareCgroup:
        return "unshare cgroup namespace";
    case Stage::DropCapabilities:
        return "drop capabilities";
    case Stage::NoNewPrivs:
        return "set no_new_privs";
    case Stage::SpawnFork:
        return "fork";
    case Stage::SpawnSetsid:
        return "setsid";
    case Stage::SpawnFds:
        return "set up stdio";
    case Stage::SpawnChdir:
        return "chdir";
    case Stage::SpawnRlimits:
        return "set rlimits";
    case Stage::Seccomp:
        return "install seccomp filter";
    case Stage::SpawnExec:
        return "execve";
    case Stage::SpawnTooMany:
        return "too many runs";
    case Stage::ProxyListener:
        return "open the proxy listener";
    case Stage::OpenBindSource:
        return "open bind source";
    case Stage::RestoreWorkspace:
        return "restore the workspace";
    case Stage::HandBack:
        return "open the workspace for the engine";
    case Stage::AwaitCgroup:
        return "wait to be in the container's cgroup";
    }
    return "unknown";
}

namespace {

void writeStage(WireWriter &w, Stage stage, std::int32_t error, const std::string &detail)
{
    w.u32(static_cast<std::uint32_t>(stage));
    w.u32(static_cast<std::uint32_t>(error));
    w.string(detail);
}

bool readStage(WireReader &r, Stage &stage, std::int32_t &error, std::string &detail)
{
    std::uint32_t rawStage = 0, rawError = 0;
    if (!r.u32(rawStage) || !r.u32(rawError) || !r.string(detail))
        return false;
    if (rawStage > static_cast<std::uint32_t>(Stage::AwaitCgroup))
        return false;
    stage = static_cast<Stage>(rawStage);
    error = static_cast<std::int32_t>(rawError);
    return true;
}

WireReader begin(const std::uint8_t *data, std::size_t length, MessageType type, bool &ok)
{
    ok = length >= 1 && data[0] == static_cast<std::uint8_t>(type);
    return ok ? WireReader(data + 1, length - 1) : WireReader(data, 0);
}

WireWriter start(MessageType type)
{
    WireWriter w;
    w.u8(static_cast<std::uint8_t>(type));
    return w;
}

// A message that is its type alone.
std::vector<std::uint8_t> encodeBare(MessageType type)
{
    return start(type).data();
}

bool decodeBare(const std::uint8_t *data, std::size_t length, MessageType type)
{
    bool ok = false;
    WireReader r = begin(data, length, type, ok);
    return ok && r.atEnd();
}

} // namespace

std::optional<MessageType> peekType(const std::uint8_t *data, std::size_t length)
{
    if (length == 0 || data[0] < 1 || data[0] > static_cast<std::uint8_t>(MessageType::ProcessesEnded))
        return std::nullopt;
    return static_cast<MessageType>(data[0]);
}

std::vector<std::uint8_t> encode(const SetupRequest &m)
{
    WireWriter w = start(MessageType::SetupRequest);
    w.u32(m.insideUid);
    w.u32(m.insideGid);
    w.string(m.hostname);
    w.string(m.rootTmpfsOptions);
    w.boolean(m.loopbackUp);
    w.u32(static_cast<std::uint32_t>(m.bindSources.size()));
    for (const std::string &source : m.bindSources)
        w.string(source);
    w.boolean(m.proxyListener);
    w.boolean(m.classicMountCalls);
    w.boolean(m.awaitCgroup);
    w.u32(static_cast<std::uint32_t>(m.mounts.size()));
    for (const MountOp &op : m.mounts) {
        w.u8(static_cast<std::uint8_t>(op.kind));
        w.string(op.target);
        w.string(op.contents);
        w.u64(op.flags);
        w.u32(op.mode);
        w.u32(static_cast<std::uint32_t>(op.fdIndex));
        w.boolean(op.recursive);
    }
    w.strings(m.handBack);
    w.string(m.seccompBpf);
    w.boolean(m.survivesEngine);
    return w.data();
}

bool decode(const std::uint8_t *data, std::size_t length, SetupRequest &m)
{
    bool ok = false;
    WireReader r = begin(data, length, MessageType::SetupRequest, ok);
    std::uint32_t count = 0;
    std::uint32_t sources = 0;
    if (!ok || !r.u32(m.insideUid) || !r.u32(m.insideGid) || !r.string(m.hostname) ||
        !r.string(m.rootTmpfsOptions) || !r.boolean(m.loopbackUp) || !r.u32(sources) ||
        sources > MaxBindSources)
        return false;
    m.bindSources.assign(sources, {});
    for (std::string &source : m.bindSources) {
        if (!r.string(source) || source.empty() || source.find('\0') != std::string::npos)
            return false;
    }
    if (!r.boolean(m.proxyListener) || !r.boolean(m.classicMountCalls) || !r.boolean(m.awaitCgroup) ||
        !r.u32(count) || count > 1024)
        return false;
    m.mounts.clear();
    for (std::uint32_t i = 0; i < count; ++i) {
        MountOp op;
        std::uint8_t kind = 0;
        std::uint32_t fdIndex = 0;
        if (!r.u8(kind) || kind < 1 || kind > static_cast<std::uint8_t>(MountOpKind::Restore) ||
            !r.string(op.target) || !r.string(op.contents) || !r.u64(op.flags) || !r.u32(op.mode) ||
            !r.u32(fdIndex) || !r.boolean(op.recursive))
            return false;
        op.kind = static_cast<MountOpKind>(kind);
        op.fdIndex = static_cast<std::int32_t>(fdIndex);
        m.mounts.push_back(std::move(op));
    }
    if (!r.strings(m.handBack) || m.handBack.size() > MaxHandBack)
        return false;
    return r.string(m.seccompBpf) && r.boolean(m.survivesEngine) && r.atEnd();
}

std::vector<std::uint8_t> encode(const CgroupJoined &)
{
    return encodeBare(MessageType::CgroupJoined);
}

bool decode(const std::uint8_t *data, std::size_t length, CgroupJoined &)
{
    return decodeBare(data, length, MessageType::CgroupJoined);
}

std::vector<std::uint8_t> encode(const SetupReply &m)
{
    WireWriter w = start(MessageType::SetupReply);
    writeStage(w, m.stage, m.error, m.detail);
    return w.data();
}

bool decode(const std::uint8_t *data, std::size_t length, SetupReply &m)
{
    bool ok = false;
    WireReader r = begin(data, length, MessageType::SetupReply, ok);
    return ok && readStage(r, m.stage, m.error, m.detail) && r.atEnd();
}

std::vector<std::uint8_t> encode(const SpawnRequest &m)
{
    WireWriter w = start(MessageType::SpawnRequest);
    w.u64(m.runId);
    w.strings(m.argv);
    w.strings(m.env);
    w.string(m.cwd);
    w.u32(static_cast<std::uint32_t>(m.rlimits.size()));
    for (const ResourceLimit &limit : m.rlimits) {
        w.u32(limit.resource);
        w.u64(limit.soft);
        w.u64(limit.hard);
    }
    w.boolean(m.raiseOomScore);
    w.boolean(m.endsContainer);
    w.string(m.tag);
    w.u64(m.deadlineMonotonicMs);
    w.boolean(m.holdOutput);
    return w.data();
}

bool decode(const std::uint8_t *data, std::size_t length, SpawnRequest &m)
{
    bool ok = false;
    WireReader r = begin(data, length, MessageType::SpawnRequest, ok);
    std::uint32_t count = 0;
    if (!ok || !r.u64(m.runId) || !r.strings(m.argv) || !r.strings(m.env) || !r.string(m.cwd) ||
        !r.u32(count) || count > 32)
        return false;
    m.rlimits.clear();
    for (std::uint32_t i = 0; i < count; ++i) {
        ResourceLimit limit;
        if (!r.u32(limit.resource) || !r.u64(limit.soft) || !r.u64(limit.hard))
            return false;
        m.rlimits.push_back(limit);
    }
    return r.boolean(m.raiseOomScore) && r.boolean(m.endsContainer) && r.string(m.tag) &&
           r.u64(m.deadlineMonotonicMs) && r.boolean(m.holdOutput) && r.atEnd() && !m.argv.empty();
}

std::vector<std::uint8_t> encode(const SpawnReply &m)
{
    WireWriter w = start(MessageType::SpawnReply);
    w.u64(m.runId);
    w.u32(static_cast<std::uint32_t>(m.pid));
    writeStage(w, m.stage, m.error, m.detail);
    return w.data();
}

bool decode(const std::uint8_t *data, std::size_t length, SpawnReply &m)
{
    bool ok = false;
    WireReader r = begin(data, length, MessageType::SpawnReply, ok);
    std::uint32_t pid = 0;
    if (!ok || !r.u64(m.runId) || !r.u32(pid))
        return false;
    m.pid = static_cast<std::int32_t>(pid);
    return readStage(r, m.stage, m.error, m.detail) && r.atEnd();
}

std::vector<std::uint8_t> encode(const ExitReport &m)
{
    WireWriter w = start(MessageType::ExitReport);
    w.u64(m.runId);
    w.u32(static_cast<std::uint32_t>(m.waitStatus));
    w.u64(m.userMicros);
    w.u64(m.systemMicros);
    w.u64(m.maxRssKiB);
    return w.data();
}

bool decode(const std::uint8_t *data, std::size_t length, ExitReport &m)
{
    bool ok = false;
    WireReader r = begin(data, length, MessageType::ExitReport, ok);
    std::uint32_t status = 0;
    if (!ok || !r.u64(m.runId) || !r.u32(status) || !r.u64(m.userMicros) || !r.u64(m.systemMicros) ||
        !r.u64(m.maxRssKiB))
        return false;
    m.waitStatus = static_cast<std::int32_t>(status);
    return r.atEnd();
}

std::vector<std::uint8_t> encode(const KillRequest &m)
{
    WireWriter w = start(MessageType::KillRequest);
    w.u64(m.runId);
    w.u32(static_cast<std::uint32_t>(m.signal));
    w.boolean(m.wholeSession);
    return w.data();
}

bool decode(const std::uint8_t *data, std::size_t length, KillRequest &m)
{
    bool ok = false;
    WireReader r = begin(data, length, MessageType::KillRequest, ok);
    std::uint32_t signal = 0;
    if (!ok || !r.u64(m.runId) || !r.u32(signal) || !r.boolean(m.wholeSession) || signal > 64)
        return false;
    m.signal = static_cast<std::int32_t>(signal);
    return r.atEnd();
}

std::vector<std::uint8_t> encode(const Adopt &m)
{
    WireWriter w = start(MessageType::Adopt);
    w.u32(m.protocolVersion);
    return w.data();
}

bool decode(const std::uint8_t *data, std::size_t length, Adopt &m)
{
    bool ok = false;
    WireReader r = begin(data, length, MessageType::Adopt, ok);
    return ok && r.u32(m.protocolVersion) && r.atEnd();
}

// Only the first two fields are frozen: a reader of another version stops after them.
std::vector<std::uint8_t> encode(const AdoptReply &m)
{
    WireWriter w = start(MessageType::AdoptReply);
    w.u32(m.protocolVersion);
    w.u32(m.handBackCount);
    w.boolean(m.proxyListener);
    w.u32(m.heldRuns);
    return w.data();
}

bool decode(const std::uint8_t *data, std::size_t length, AdoptReply &m)
{
    bool ok = false;
    WireReader r = begin(data, length, MessageType::AdoptReply, ok);
    if (!ok || !r.u32(m.protocolVersion) || !r.u32(m.handBackCount) || m.handBackCount > MaxHandBack)
        return false;
    if (m.protocolVersion != InitProtocolVersion)
        return true; // what follows is that version's; the caller reads no further
    return r.boolean(m.proxyListener) && r.u32(m.heldRuns) && r.atEnd();
}

std::vector<std::uint8_t> encode(const HeldRun &m)
{
    WireWriter w = start(MessageType::HeldRun);
    w.u64(m.runId);
    w.string(m.tag);
    w.u32(static_cast<std::uint32_t>(m.pid));
    w.boolean(m.exited);
    w.u32(static_cast<std::uint32_t>(m.waitStatus));
    w.u64(m.userMicros);
    w.u64(m.systemMicros);
    w.u64(m.maxRssKiB);
    w.boolean(m.timedOut);
    w.u64(m.deadlineMonotonicMs);
    w.u64(m.stdoutDropped);
    w.u64(m.stderrDropped);
    w.boolean(m.stdoutOpen);
    w.boolean(m.stderrOpen);
    return w.data();
}

bool decode(const std::uint8_t *data, std::size_t length, HeldRun &m)
{
    bool ok = false;
    WireReader r = begin(data, length, MessageType::HeldRun, ok);
    std::uint32_t pid = 0, status = 0;
    if (!ok || !r.u64(m.runId) || !r.string(m.tag) || !r.u32(pid) || !r.boolean(m.exited) || !r.u32(status) ||
        !r.u64(m.userMicros) || !r.u64(m.systemMicros) || !r.u64(m.maxRssKiB) || !r.boolean(m.timedOut) ||
        !r.u64(m.deadlineMonotonicMs) || !r.u64(m.stdoutDropped) || !r.u64(m.stderrDropped) ||
        !r.boolean(m.stdoutOpen) || !r.boolean(m.stderrOpen))
        return false;
    m.pid = static_cast<std::int32_t>(pid);
    m.waitStatus = static_cast<std::int32_t>(status);
    return r.atEnd();
}

std::vector<std::uint8_t> encode(const HeldOutput &m)
{
    WireWriter w = start(MessageType::HeldOutput);
    w.u64(m.runId);
    w.u8(m.stream);
    w.string(m.bytes);
    return w.data();
}

bool decode(const std::uint8_t *data, std::size_t length, HeldOutput &m)
{
    bool ok = false;
    WireReader r = begin(data, length, MessageType::HeldOutput, ok);
    return ok && r.u64(m.runId) && r.u8(m.stream) && (m.stream == 1 || m.stream == 2) && r.string(m.bytes) &&
           m.bytes.size() <= MaxHeldOutputChunk && r.atEnd();
}

std::vector<std::uint8_t> encode(const EndProcesses &)
{
    return encodeBare(MessageType::EndProcesses);
}

bool decode(const std::uint8_t *data, std::size_t length, EndProcesses &)
{
    return decodeBare(data, length, MessageType::EndProcesses);
}

std::vector<std::uint8_t> encode(const ProcessesEnded &)
{
    return encodeBare(MessageType::ProcessesEnded);
}

bool decode(const std::uint8_t *data, std::size_t length, ProcessesEnded &)
{
    return decodeBare(data, length, MessageType::ProcessesEnded);
}

std::vector<std::uint8_t> encode(const AdoptDone &)
{
    return encodeBare(MessageType::AdoptDone);
}

bool decode(const std::uint8_t *data, std::size_t length, AdoptDone &)
{
    return decodeBare(data, length, MessageType::AdoptDone);
}

std::vector<std::uint8_t> encode(const RunCollected &m)
{
    WireWriter w = start(MessageType::RunCollected);
    w.u64(m.runId);
    return w.data();
}

bool decode(const std::uint8_t *data, std::size_t length, RunCollected &m)
{
    bool ok = false;
    WireReader r = begin(data, length, MessageType::RunCollected, ok);
    return ok && r.u64(m.runId) && r.atEnd();
}

int sendMessage(int socketFd, const std::vector<std::uint8_t> &message, const int *fds, int fdCount)
{
    if (message.size() > MaxMessageBytes || fdCount < 0 || fdCount > MaxPassedFds)
        return EMSGSIZE;
    iovec iov{const_cast<std::uint8_t *>(message.data()), message.size()};
    msghdr header{};
    header.msg_iov = &iov;
    header.msg_iovlen = 1;
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * MaxPassedFds)];
    if (fdCount > 0) {
        std::memset(control, 0, sizeof control);
        header.msg_control = control;
        header.msg_controllen = CMSG_SPACE(sizeof(int) * static_cast<std::size_t>(fdCount));
        cmsghdr *cmsg = CMSG_FIRSTHDR(&header);
        cmsg->cmsg_level = SOL_SOCKET;
        cmsg->cmsg_type = SCM_RIGHTS;
        cmsg->cmsg_len = CMSG_LEN(sizeof(int) * static_cast<std::size_t>(fdCount));
        std::memcpy(CMSG_DATA(cmsg), fds, sizeof(int) * static_cast<std::size_t>(fdCount));
    }
    for (;;) {
        const ssize_t sent = ::sendmsg(socketFd, &header, MSG_NOSIGNAL);
        if (sent >= 0)
            return static_cast<std::size_t>(sent) == message.size() ? 0 : EMSGSIZE;
        if (errno != EINTR)
            return errno;
    }
}

namespace {

// One receive buffer per thread, as large as the largest message and never cleared: the kernel writes what
// arrives, so only the pages a message fills are ever touched. (A vector resized to 256 KiB for every message
// zeroed it, and faulted in 64 fresh pages, on each of the several receives of every run.)
std::uint8_t *receiveBuffer()
{
    thread_local const std::unique_ptr<std::uint8_t[]> buffer(new std::uint8_t[MaxMessageBytes]);
    return buffer.get();
}

} // namespace

long receiveMessage(int socketFd, std::vector<std::uint8_t> &message, std::vector<int> &fds)
{
    std::uint8_t *const buffer = receiveBuffer();
    message.clear();
    fds.clear();
    iovec iov{buffer, MaxMessageBytes};
    msghdr header{};
    header.msg_iov = &iov;
    header.msg_iovlen = 1;
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * MaxPassedFds)];
    header.msg_control = control;
    header.msg_controllen = sizeof control;
    // ECONNRESET only says that the peer closed with messages of ours unread (cordon-init exiting after a
    // failed setup, with the spawn request the engine queued behind the setup request). The kernel reports it
    // once, ahead of what the peer sent before it closed: the next call returns that, then end of file.
    bool resetReported = false;
    ssize_t received = 0;
    do {
        received = ::recvmsg(socketFd, &header, MSG_CMSG_CLOEXEC);
    } while (received < 0 &&
             (errno == EINTR || (errno == ECONNRESET && !std::exchange(resetReported, true))));
    if (received < 0)
        return -errno;
    for (cmsghdr *cmsg = CMSG_FIRSTHDR(&header); cmsg; cmsg = CMSG_NXTHDR(&header, cmsg)) {
        if (cmsg->cmsg_level != SOL_SOCKET || cmsg->cmsg_type != SCM_RIGHTS)
            continue;
        const std::size_t count = (cmsg->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (std::size_t i = 0; i < count; ++i) {
            int fd = -1;
            std::memcpy(&fd, CMSG_DATA(cmsg) + i * sizeof(int), sizeof fd);
            fds.push_back(fd);
        }
    }
    if (header.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) {
        for (int fd : fds)
            ::close(fd);
        fds.clear();
        return -EMSGSIZE;
    }
    message.assign(buffer, buffer + received);
    return static_cast<long>(received);
}

namespace {

int sendSpawn(int socketFd, const SpawnRequest &request, const int *passed, int passedCount)
{
    const std::vector<std::uint8_t> encoded = encode(request);
    if (encoded.size() <= MaxInlineSpawnBytes)
        return sendMessage(socketFd, encoded, passed, passedCount);
    if (encoded.size() > MaxSpawnRequestBytes)
        return E2BIG;
    // Sealed, so that what cordon-init reads is what was written, whoever else holds the fd.
    const int memfd = ::memfd_create("cordon-spawn", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (memfd < 0)
        return errno;
    int error =
        writeFully(memfd, std::string_view(reinterpret_cast<const char *>(encoded.data()), encoded.size()));
    if (error == 0 &&
        ::fcntl(memfd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) != 0)
        error = errno;
    if (error == 0) {
        int fds[6] = {};
        std::memcpy(fds, passed, sizeof(int) * static_cast<std::size_t>(passedCount));
        fds[passedCount] = memfd;
        error = sendMessage(socketFd, {static_cast<std::uint8_t>(MessageType::SpawnRequestInMemfd)}, fds,
                            passedCount + 1);
    }
    ::close(memfd);
    return error;
}

} // namespace

int sendSpawnRequest(int socketFd, const SpawnRequest &request, const int (&stdio)[3])
{
    if (request.holdOutput)
        return EINVAL;
    return sendSpawn(socketFd, request, stdio, 3);
}

int sendSpawnRequest(int socketFd, const SpawnRequest &request, const int (&stdio)[3],
                     const int (&heldReadEnds)[2])
{
    if (!request.holdOutput)
        return EINVAL;
    const int fds[5] = {stdio[0], stdio[1], stdio[2], heldReadEnds[0], heldReadEnds[1]};
    return sendSpawn(socketFd, request, fds, 5);
}

std::vector<std::uint8_t> readSpawnRequestMemfd(int memfd)
{
    struct stat info
    {
    };
    if (::fstat(memfd, &info) != 0 || !S_ISREG(info.st_mode) || ::lseek(memfd, 0, SEEK_SET) != 0)
        return {};
    const Result<std::string> bytes =
        readToEnd(memfd, MaxSpawnRequestBytes, "spawn request", "sandbox.protocol", "sandbox.protocol");
    if (!bytes || bytes->empty())
        return {};
    return std::vector<std::uint8_t>(bytes->begin(), bytes->end());
}

} // namespace Cordon::Isolation
