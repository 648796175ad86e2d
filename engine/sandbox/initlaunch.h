// SPDX-License-Identifier: MIT
// Starting cordon-init, in plain C++: clone it into new user, mount, pid, net, ipc and uts namespaces, write
// its id maps, and later read its answer to the setup request. The engine's Sandbox (isolation/sandbox.h)
// and the Qt-free one-shot run of the `cordon` launcher both start containers with these.
#pragma once

#include "sandbox/error.h"
#include "sandbox/initprotocol.h"
#include "sandbox/uniquefd.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <vector>

namespace Cordon::Isolation {

// Who the sandboxed code is inside, and which host ids that maps to.
struct IdMapping
{
    std::uint32_t insideUid = 1000;
    std::uint32_t insideGid = 1000;
    std::uint32_t hostUid = 0;
    std::uint32_t hostGid = 0;
};

// Unprivileged callers map their own uid/gid (the only mapping the kernel allows them). A root caller maps to
// nobody/nogroup, so that code inside is never host root, not even for files on read-only binds.
IdMapping idMappingFor(std::uint32_t callerUid, std::uint32_t callerGid);

// Where one of Cordon's programs is looked for, in order: beside the running program (the build tree, a copy
// of the programs anywhere), then ../libexec/cordon/ from it, where `make install` puts the helpers.
std::vector<std::string> programCandidates(std::string_view name);

// Where cordon-init lives: $CORDON_INIT, else beside the running program, else ../libexec/cordon/ from it.
std::string locateInit();

struct InitProcess
{
    pid_t pid = -1;
    int control = -1; // our end of the control socketpair (SOCK_SEQPACKET, close-on-exec)
    // Set for a cordon-init an earlier engine started (initadoption.h): not our child, so it is killed and
    // waited for through this instead of waitpid().
    int pidfd = -1;
};

// Clones cordon-init (stdio on /dev/null, the control socket at ControlFd, nothing else inherited, its
// capabilities kept across the exec for the mounts it makes) and writes its id maps. Nothing is left behind
// on failure: `userns.unavailable` when the kernel refuses new user namespaces, `sandbox.init_missing`,
// `sandbox.clone`, `userns.id_map`.
Result<InitProcess> launchInit(const std::string &initPath, const IdMapping &ids);

// How long cordon-init may take to carry out a setup request before the start is given up.
inline constexpr int SetupReplyTimeoutMs = 15000;
// A container that restores a saved workspace copies up to workspace_mb before it answers: allowed 10 ms a
// MiB (100 MB/s, a slow disk) beyond the usual wait.
inline int setupReplyTimeoutMs(int workspaceMb)
{
    return SetupReplyTimeoutMs + (workspaceMb > 0 ? workspaceMb : 0) * 10;
}

// The descriptors a successful setup passes back: one per SetupRequest::handBack entry, in its order, then
// the proxy listener when the request asked for one.
struct SetupHandles
{
    std::vector<UniqueFd> handedBack;
    UniqueFd proxyListener;
};

// Waits for the SetupReply and takes the descriptors that came with it (`handBackCount` directories, then
// the proxy listener if there is one). When cordon-init exited instead, it is reaped and `init.pid` set to
// -1. A reply that reports a failed stage is returned as it is (see setupFailure()); a successful one
// without every directory asked for is `sandbox.protocol`.
Result<SetupReply> awaitSetupReply(InitProcess &init, int timeoutMs, std::size_t handBackCount,
                                   SetupHandles &handles);

// "container setup failed at <stage> (<detail>): <errno text>", code `sandbox.setup_failed`.
Error setupFailure(const SetupReply &reply);

// What cordon-init said about the runs of a set-up container, one message at a time. The daemon's Sandbox
// and the one-shot run both read their control socket with it, so that a message is decoded one way.
struct InitMessage
{
    enum class Kind
    {
        None,           // nothing to read now (the socket is non-blocking)
        Gone,           // cordon-init closed its end, or the socket failed: the container's PID 1 is dead
        Spawned,        // spawn: a run started (stage None) or its setup failed (stage and error say where)
        Exited,         // exit: a run ended
        ProcessesEnded, // every process but PID 1 is gone (the answer to EndProcesses)
        Malformed       // a message that does not decode, or of a type the engine never receives: ignored
    };
    Kind kind = Kind::None;
    SpawnReply spawn;
    ExitReport exit;
};
// Reads the next message; descriptors passed with it are closed (runs never pass any back).
InitMessage readInitMessage(int controlFd);

// SIGKILL (which ends the whole pid namespace) and reap (or, for an adopted cordon-init, wait for its end);
// closes the control socket.
void killAndReap(InitProcess &init);

} // namespace Cordon::Isolation
