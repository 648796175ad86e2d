// SPDX-License-Identifier: MIT
// The messages between the engine and cordon-init over the container's control socketpair (SOCK_SEQPACKET, so
// one datagram is one message). File descriptors travel beside a message with SCM_RIGHTS. Plain C++:
// cordon-init links this and nothing of Qt.
//
//   engine -> init   SetupRequest                       once, after the engine wrote the id maps
//   engine -> init   CgroupJoined                       when the request asks for it (awaitCgroup):
//   cordon-init
//                                                       is in the container's cgroup
//   init -> engine   SetupReply
//   engine -> init   SpawnRequest (+ stdin, stdout, stderr fds), or SpawnRequestInMemfd (+ the same fds and a
//                    sealed memfd holding the encoded SpawnRequest) when it is too large for one datagram
//   init -> engine   SpawnReply, later ExitReport
//   engine -> init   KillRequest
//   engine -> init   RunCollected                       a run's end is recorded: init forgets it
//   engine -> init   EndProcesses                       kill every process but PID 1 (a stop, before the
//   init -> engine   ProcessesEnded                     workspace is saved: the container's tmpfs and PID 1
//                                                       stay until the save is done)
//
// A container outlives the engine (docs/architecture.md, "Containers outlive the daemon"): when the setup
// request asks for it (survivesEngine), the engine passes a bound unix socket with it (init listens on it),
// and cordon-init, when its control connection closes, keeps its runs going, keeps what they write (bounded)
// and their exit statuses, and waits on that socket for the next engine:
//
//   engine -> init   Adopt                              the first message on a new connection
//   init -> engine   AdoptReply (+ the hand-back directories, then the proxy listener)
//   init -> engine   HeldRun (+ its stdout and stderr read ends while open), then its HeldOutput chunks,
//                    for every run init still knows
//   init -> engine   AdoptDone
//
// after which the connection is the control connection, as the first one was.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace Cordon::Isolation {

enum class MessageType : std::uint8_t
{
    SetupRequest = 1,
    SetupReply = 2,
    SpawnRequest = 3,
    SpawnReply = 4,
    ExitReport = 5,
    KillRequest = 6,
    SpawnRequestInMemfd = 7,
    CgroupJoined = 8,
    Adopt = 9,
    AdoptReply = 10,
    HeldRun = 11,
    HeldOutput = 12,
    AdoptDone = 13,
    RunCollected = 14,
    EndProcesses = 15,
    ProcessesEnded = 16,
};

// What both sides speak. An engine adopts containers whose cordon-init speaks a version from
// MinAdoptableProtocol up to its own; AdoptReply's first two fields and the descriptors passed with it are
// the same in every version, so an engine can always save the workspace of a container it cannot adopt.
// 1: containers ended with the engine; 2: containers outlive it.
constexpr std::uint32_t InitProtocolVersion = 2;
constexpr std::uint32_t MinAdoptableProtocol = 2;

// The largest message either side sends or accepts; seccomp programs and mount plans are far below it.
constexpr std::size_t MaxMessageBytes = 256 * 1024;
// A spawn request larger than this travels in a memfd: one datagram may not exceed the socket's send buffer
// (net.core.wmem_default, 208 KiB on most systems), and an argv or environment may be far larger (execve(2)
// takes up to a quarter of the stack limit, 2 MiB by default).
constexpr std::size_t MaxInlineSpawnBytes = 64 * 1024;
// The largest encoded spawn request cordon-init reads from a memfd: above what execve(2) accepts with any
// usual stack limit, so the kernel, not the protocol, says when a command line is too long.
constexpr std::size_t MaxSpawnRequestBytes = 32 * 1024 * 1024;
constexpr int MaxPassedFds = 64;
// Directories a setup request may ask back (the workspace and its outputs mount are two).
constexpr std::size_t MaxHandBack = 8;
// Bind sources a setup request may name (the system directories, /etc entries, devices, the workspace and
// the policy's own mounts come to about 30).
constexpr std::uint32_t MaxBindSources = 256;

// Every step of container and run setup, so a failure names where it happened ("setup failed at pivot_root:
// Operation not permitted"). Values are stable: they cross the socket.
enum class Stage : std::uint32_t
{
    None = 0,
    ReadSetup,
    SetIds,
    MakePrivate,
    MountRootTmpfs,
    MountOp,
    PivotRoot,
    DetachOldRoot,
    RemountRootReadOnly,
    SetHostname,
    LoopbackUp,
    UnshareCgroup,
    DropCapabilities,
    NoNewPrivs,
    SpawnFork,
    SpawnSetsid,
    SpawnFds,
    SpawnChdir,
    SpawnRlimits,
    Seccomp,
    SpawnExec,
    SpawnTooMany,
    ProxyListener,
    OpenBindSource,
    RestoreWorkspace,
    HandBack,
    AwaitCgroup,
};

const char *stageName(Stage stage);

// A mount plan is data: the engine decides, cordon-init executes each op with one dumb loop.
enum class MountOpKind : std::uint8_t
{
    Tmpfs = 1,    // target, data = tmpfs options ("size=..,mode=.."), flags
    BindFd = 2,   // fdIndex (into the fds passed with SetupRequest), target, flags (MS_RDONLY etc. applied by
                  // remount)
    Dir = 3,      // target, mode
    File = 4,     // target, contents, mode
    Symlink = 5,  // target, contents = link value
    Proc = 6,     // fresh procfs for the container's pid namespace
    Devpts = 7,   // private devpts instance (newinstance)
    MaskFile = 8, // bind /dev/null (fdIndex) over target when it exists
    MaskDir = 9,  // read-only empty tmpfs over target when it exists
    ReadOnly = 10, // remount an existing mount point read-only (e.g. /proc/sys)
    SelfBind = 11, // bind target (a directory of the plan's own) onto itself with flags (MS_NOEXEC etc.)
    Restore = 12,  // copy the tree of a host directory (fdIndex) into target as it is (files/treemirror.h)
};

struct MountOp
{
    MountOpKind kind = MountOpKind::Dir;
    std::string target; // absolute path inside the container
    std::string contents;
    std::uint64_t flags = 0; // MS_* flags
    std::uint32_t mode = 0755;
    std::int32_t fdIndex = -1;
    bool recursive = false;
};

struct SetupRequest
{
    std::uint32_t insideUid = 1000;
    std::uint32_t insideGid = 1000;
    std::string hostname = "sandbox";
    std::string rootTmpfsOptions = "size=16m,mode=0755";
    bool loopbackUp = true;
    // Host paths that MountOp::fdIndex points into. cordon-init opens them (O_PATH) when the request arrives,
    // before it takes the inside uid: inside the new mount namespace (a bind from a mount of another
    // namespace fails with EINVAL) and with the caller's host credentials, as the engine would. So the engine
    // can make the workspace while cordon-init is still being exec-ed.
    std::vector<std::string> bindSources;
    // Open a listening TCP socket on 127.0.0.1:ProxyPort inside the container's network namespace and pass it
    // to the engine with the SetupReply: the egress proxy accepts on it, so every connection on it is known
    // to come from this container, and there is still no route out.
    bool proxyListener = false;
    // Mount with mount(2) on /proc/self/fd paths even where the file-descriptor mount API exists
    // (mountcalls.h). The engine sets it only when CORDON_CLASSIC_MOUNTS=1, so that tests cover the route
    // that kernels before 5.12 take.
    bool classicMountCalls = false;
    // The engine moves cordon-init into the container's cgroup while the mount plan is applied (the two take
    // about as long, on two CPUs), and says so with a CgroupJoined message. cordon-init waits for it before
    // anything the container's memory limit must cover (restoring a saved workspace into its tmpfs) and
    // before it roots its cgroup namespace where it stands. False: it is in the cgroup already, or there is
    // none.
    bool awaitCgroup = false;
    std::vector<MountOp> mounts;
    // Directories inside the container (the in-memory workspace) that cordon-init opens (O_PATH) once the
    // setup is done and passes back with the SetupReply, in this order and before the proxy listener: the
    // engine reads and saves the workspace through them, and they keep its tmpfs alive after the container
    // ends until the engine closes them.
    std::vector<std::string> handBack;
    // Raw struct sock_filter array compiled by the engine. cordon-init installs it on itself once the setup
    // is done and before it answers, so that every run inherits it from the clone: the kernel checks and
    // JIT-compiles the program once per container instead of once per run. Empty is refused (Stage::Seccomp).
    std::string seccompBpf;
    // The container outlives the engine: a bound unix socket comes with this request (its only
    // descriptor), cordon-init no longer dies with its parent once it is set up, and an engine that goes
    // away leaves it waiting on that socket for the next one (Adopt). False (a one-shot run): the container
    // ends when the control socket closes.
    bool survivesEngine = false;
};

constexpr std::uint16_t ProxyPort = 3128;

constexpr int ControlFd = 3;

// No content: the message is its type.
struct CgroupJoined
{
};

struct SetupReply
{
    Stage stage = Stage::None; // None means success
    std::int32_t error = 0;
    std::string detail;
};

struct ResourceLimit
{
    std::uint32_t resource = 0; // RLIMIT_*
    std::uint64_t soft = 0;
    std::uint64_t hard = 0;
};

struct SpawnRequest
{
    std::uint64_t runId = 0;
    std::vector<std::string> argv;
    std::vector<std::string> env; // "NAME=value"; the whole environment of the run
    std::string cwd = "/mnt/data";
    std::vector<ResourceLimit> rlimits;
    bool raiseOomScore = true;
    // The container's only run (a one-shot `cordon run`): once its exit is reported and no process is left in
    // the container, cordon-init exits by itself, so that the kernel tears the namespaces down while the
    // engine is still reading the cgroup's counters, instead of after its kill.
    bool endsContainer = false;
    // The engine's own name for the run, given back when a later engine adopts the container.
    std::string tag;
    // CLOCK_MONOTONIC milliseconds after which cordon-init kills the run's session itself while no engine
    // is connected (the engine's timer does so while it is); 0: none.
    std::uint64_t deadlineMonotonicMs = 0;
    // Two more descriptors come after stdin, stdout and stderr: the engine's read ends of the stdout and
    // stderr pipes. cordon-init never reads them while an engine is connected; when none is, it drains them
    // into a bounded buffer, so that a run never blocks on a full pipe and what it wrote is kept.
    bool holdOutput = false;
};

struct SpawnReply
{
    std::uint64_t runId = 0;
    std::int32_t pid = 0; // pid inside the container's namespace
    Stage stage = Stage::None;
    std::int32_t error = 0;
    std::string detail;
};

struct ExitReport
{
    std::uint64_t runId = 0;
    std::int32_t waitStatus = 0;
    std::uint64_t userMicros = 0;
    std::uint64_t systemMicros = 0;
    std::uint64_t maxRssKiB = 0;
};

struct KillRequest
{
    std::uint64_t runId = 0;
    std::int32_t signal = 9;
    bool wholeSession = true; // the run's session (and process group), not only its first process
};

// The first message of an engine on the adoption socket.
struct Adopt
{
    std::uint32_t protocolVersion = InitProtocolVersion;
};

struct AdoptReply
{
    std::uint32_t protocolVersion = InitProtocolVersion; // frozen: first in every version
    std::uint32_t handBackCount = 0;                     // frozen: the directories passed first
    bool proxyListener = false;                          // then the listener, when there is one
    std::uint32_t heldRuns = 0;                          // HeldRun messages that follow
};

// One run cordon-init knows: still running, or ended and not yet collected by an engine.
struct HeldRun
{
    std::uint64_t runId = 0;
    std::string tag;
    std::int32_t pid = 0;
    bool exited = false;
    std::int32_t waitStatus = 0;
    std::uint64_t userMicros = 0;
    std::uint64_t systemMicros = 0;
    std::uint64_t maxRssKiB = 0;
    bool timedOut = false; // cordon-init killed it at its deadline while no engine was connected
    std::uint64_t deadlineMonotonicMs = 0;
    // Bytes of each stream that did not fit in the buffer while no engine read (dropped, counted).
    std::uint64_t stdoutDropped = 0;
    std::uint64_t stderrDropped = 0;
    // The read ends still open come with the message, stdout first.
    bool stdoutOpen = false;
    bool stderrOpen = false;
};

// What a run wrote while no engine read it, in order, at most MaxHeldOutputChunk bytes a message.
struct HeldOutput
{
    std::uint64_t runId = 0;
    std::uint8_t stream = 1; // 1 stdout, 2 stderr
    std::string bytes;
};
constexpr std::size_t MaxHeldOutputChunk = 128 * 1024;
// What cordon-init keeps of a run's output while no engine reads it: at most this much per stream, and all
// runs together at most MaxHeldOutputTotal, before the rest is dropped and counted. The buffer is charged to
// the container's memory, and the engine caps what it keeps anyway.
constexpr std::size_t MaxHeldOutputPerStream = 4 * 1024 * 1024;
constexpr std::size_t MaxHeldOutputTotal = 16 * 1024 * 1024;

struct AdoptDone
{
};

struct RunCollected
{
    std::uint64_t runId = 0;
};

// No content: the message is its type.
struct EndProcesses
{
};
struct ProcessesEnded
{
};

std::vector<std::uint8_t> encode(const SetupRequest &message);
std::vector<std::uint8_t> encode(const EndProcesses &message);
std::vector<std::uint8_t> encode(const ProcessesEnded &message);
std::vector<std::uint8_t> encode(const Adopt &message);
std::vector<std::uint8_t> encode(const AdoptReply &message);
std::vector<std::uint8_t> encode(const HeldRun &message);
std::vector<std::uint8_t> encode(const HeldOutput &message);
std::vector<std::uint8_t> encode(const AdoptDone &message);
std::vector<std::uint8_t> encode(const RunCollected &message);
std::vector<std::uint8_t> encode(const CgroupJoined &message);
std::vector<std::uint8_t> encode(const SetupReply &message);
std::vector<std::uint8_t> encode(const SpawnRequest &message);
std::vector<std::uint8_t> encode(const SpawnReply &message);
std::vector<std::uint8_t> encode(const ExitReport &message);
std::vector<std::uint8_t> encode(const KillRequest &message);

// The first byte of every message is its MessageType.
std::optional<MessageType> peekType(const std::uint8_t *data, std::size_t length);
bool decode(const std::uint8_t *data, std::size_t length, SetupRequest &out);
bool decode(const std::uint8_t *data, std::size_t length, EndProcesses &out);
bool decode(const std::uint8_t *data, std::size_t length, ProcessesEnded &out);
bool decode(const std::uint8_t *data, std::size_t length, Adopt &out);
bool decode(const std::uint8_t *data, std::size_t length, AdoptReply &out);
bool decode(const std::uint8_t *data, std::size_t length, HeldRun &out);
bool decode(const std::uint8_t *data, std::size_t length, HeldOutput &out);
bool decode(const std::uint8_t *data, std::size_t length, AdoptDone &out);
bool decode(const std::uint8_t *data, std::size_t length, RunCollected &out);
bool decode(const std::uint8_t *data, std::size_t length, CgroupJoined &out);
bool decode(const std::uint8_t *data, std::size_t length, SetupReply &out);
bool decode(const std::uint8_t *data, std::size_t length, SpawnRequest &out);
bool decode(const std::uint8_t *data, std::size_t length, SpawnReply &out);
bool decode(const std::uint8_t *data, std::size_t length, ExitReport &out);
bool decode(const std::uint8_t *data, std::size_t length, KillRequest &out);

// Sends one message with optional fds (SCM_RIGHTS). Returns 0 or errno.
int sendMessage(int socketFd, const std::vector<std::uint8_t> &message, const int *fds = nullptr,
                int fdCount = 0);
// Receives one message and any fds (marked close-on-exec). Returns the byte count, 0 on EOF, or -errno.
// Fds beyond maxFds, or a truncated message, are closed and reported as -EMSGSIZE.
long receiveMessage(int socketFd, std::vector<std::uint8_t> &message, std::vector<int> &fds);

// Sends `request` with the run's stdin, stdout and stderr (and, with holdOutput, the two read ends after
// them, which the request's holdOutput must say): inline up to MaxInlineSpawnBytes, else as a
// SpawnRequestInMemfd message with a sealed memfd as the last fd. Returns 0 or errno (E2BIG above
// MaxSpawnRequestBytes, EINVAL when holdOutput and the descriptors disagree).
int sendSpawnRequest(int socketFd, const SpawnRequest &request, const int (&stdio)[3]);
int sendSpawnRequest(int socketFd, const SpawnRequest &request, const int (&stdio)[3],
                     const int (&heldReadEnds)[2]);
// cordon-init's side of a SpawnRequestInMemfd message: the encoded request read from `memfd` (at most
// MaxSpawnRequestBytes), empty when it cannot be read.
std::vector<std::uint8_t> readSpawnRequestMemfd(int memfd);

} // namespace Cordon::Isolation
