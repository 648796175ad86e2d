// SPDX-License-Identifier: MIT
// Plan as data, in plain C++: what a container sees (read-only system directories, the few /etc files
// programs need, a minimal /dev, a masked /proc, a capped /tmp, the workspace at /mnt/data) becomes the
// SetupRequest that cordon-init executes. Every container start builds its plan here (containerlaunch.h).
#pragma once

#include "sandbox/error.h"
#include "sandbox/initprotocol.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace Cordon::Isolation {

// The workspace on the host.
struct WorkspaceDirs
{
    std::string work;    // mounted at /mnt/data, writable
    std::string inputs;  // mounted at /mnt/data/inputs, read-only
    std::string outputs; // mounted at /mnt/data/outputs, writable, noexec
    std::string code; // optional: mounted read-only at /mnt/code, where code runs' source files are written
};

// A host directory or file the policy shares with the container.
struct ExtraMount
{
    std::string host;
    std::string target;
    bool readOnly = true;
};

struct MountPlanInput
{
    WorkspaceDirs workspace;
    std::uint32_t insideUid = 1000;
    std::uint32_t insideGid = 1000;
    int tmpMb = 512;
    int workspaceMb = 2048; // the size of the /mnt/data tmpfs
    // A container that starts again restores what its last stop saved in work/ and outputs/; a one-shot
    // run's workspace starts empty and has neither.
    bool restoreSaved = true;
    // An allowlist network policy: cordon-init opens the egress proxy's listener inside the container.
    bool proxyListener = false;
    std::vector<ExtraMount> mounts;
    // A CA bundle on the host (the system's CAs and the container's own authority, for domain secrets):
    // mounted read-only at InsideTrustBundle. Empty: none.
    std::string trustBundle;
    std::string hostRoot = "/"; // tests plan against a fake host tree
};

constexpr const char *InsideWorkDir = "/mnt/data";
constexpr const char *InsideInputsDir = "/mnt/data/inputs";
constexpr const char *InsideOutputsDir = "/mnt/data/outputs";
// The order of SetupRequest::handBack in every plan: the engine's handles on the in-memory workspace.
enum WorkspaceHandle : std::size_t
{
    WorkspaceRootHandle = 0,
    OutputsHandle = 1,
    WorkspaceHandleCount = 2,
};
constexpr const char *InsideCodeDir = "/mnt/code";
constexpr const char *InsidePath = "/usr/local/bin:/usr/bin:/bin";
constexpr const char *InsideTrustBundle = "/etc/cordon/ca-certificates.crt";

// The whole plan, its bind sources included; `sandbox.invalid_workspace` when a workspace path is relative.
Result<SetupRequest> buildMountPlan(const MountPlanInput &input);

// The options of the workspace tmpfs: its size, and as many inodes as 256 per MiB (at least 8192), so that
// empty files cannot take unbounded kernel memory either.
std::string workspaceTmpfsOptions(int workspaceMb);
std::int64_t workspaceInodes(int workspaceMb);

// The variables that point TLS clients at InsideTrustBundle: OpenSSL (SSL_CERT_FILE), curl, Python's
// requests, pip, git, the AWS SDKs, and Node (NODE_EXTRA_CA_CERTS, which adds to its built-in list).
void addTrustBundleVariables(std::vector<std::string> &env);

// The whole environment of a run, sorted by name: a fixed minimum (PATH, HOME, LANG, TERM, USER, LOGNAME,
// TMPDIR; the proxy variables with an allowlist) with `policyEnv` on top. Nothing of the caller's.
std::vector<std::string> runEnvironment(bool proxyListener,
                                        const std::map<std::string, std::string> &policyEnv);

} // namespace Cordon::Isolation
