// SPDX-License-Identifier: MIT
// The container policy: what a container may use and reach. Read strictly from JSON (unknown keys, wrong
// types, duplicate keys are errors, never ignored), written back in one canonical form, identified by its
// sha256. Every field, with its default and bounds, is documented in docs/policy.md. Plain C++, so that the
// `cordon` launcher reads policy files with the same rules as the daemon.
#pragma once

#include "sandbox/error.h"
#include "sandbox/json.h"
#include "sandbox/policy/domainrule.h"
#include "sandbox/policy/fields.h"
#include "sandbox/policy/memorylimit.h"
#include "sandbox/policy/networkpolicy.h"
#include "sandbox/policy/policydefaults.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace Cordon::Policy {

constexpr std::size_t MaxNameLength = 64;
constexpr std::size_t MaxMounts = 32;
// PATH_MAX, including the terminating NUL that the kernel counts.
constexpr std::size_t MaxMountPathLength = 4095;
constexpr std::size_t MaxEnvEntries = 128;
constexpr std::size_t MaxEnvNameLength = 256;
constexpr std::size_t MaxEnvValueBytes = 32 * 1024;

struct Limits
{
    int runTimeoutS = Defaults::RunTimeoutS; // run_timeout_s: 1..86400, wall-clock seconds per run
    int pids = Defaults::Pids; // pids: 1..65536, processes and threads in the container (pids.max)
    // tmp_mb: 1..65536, size of the /tmp tmpfs; by default a quarter of the memory limit, at most 512
    int tmpMb = Defaults::TmpMb;
    // workspace_mb: 1..1048576, size of /mnt/data; by default half the memory limit, at most 2048
    int workspaceMb = Defaults::WorkspaceMb;
    int outputMb = Defaults::OutputMb; // output_mb: 1..4096, captured stdout + stderr per run

    bool operator==(const Limits &other) const = default;
};

struct Mount
{
    std::string host;   // absolute, normalised ("//", "." and a trailing "/" removed), no ".."
    std::string target; // absolute, strictly under /mnt/ or /opt/, never /mnt/data or beneath it
    bool readOnly = true;

    bool operator==(const Mount &other) const = default;
};

struct ExpiresAfter
{
    std::string anchor = "last_active_at"; // the only anchor there is, as in OpenAI's Containers API
    int minutes = 20;                      // 1..10080 (a week)

    bool operator==(const ExpiresAfter &other) const = default;
};

// A secret from the host's store (docs/secrets.md) that each run receives as an environment variable.
struct SecretRef
{
    std::string name; // the store's name: [A-Za-z_][A-Za-z0-9_]*, at most 128 characters
    std::string env;  // the variable the run sees; the name when the policy leaves it out

    bool operator==(const SecretRef &other) const = default;
};

constexpr std::size_t MaxSecretRefs = 64;

// What a download does with what the artifact scan finds (docs/artifact-scan.md).
enum class ArtifactScan
{
    Default, // a high-severity finding (a key, a token, a secret's value) blocks the file, the rest warn
    Block,   // any finding blocks the file
    Warn,    // the file is copied, the findings reported
    Redact,  // the copy has every finding replaced (an archive with findings is blocked)
    Off,     // no scan
};

// "default", "block", "warn", "redact", "off".
const char *artifactScanName(ArtifactScan mode);
// The mode artifactScanName() names, or nullopt.
std::optional<ArtifactScan> artifactScanFromName(std::string_view name);

struct ContainerPolicy
{
    std::string name = "sandbox"; // 1..64 characters of [A-Za-z0-9._-], not "." or ".."
    std::int64_t memoryLimitBytes =
        Defaults::MemoryLimitBytes; // a tier (1, 4, 16, 64 GiB) or a byte count in [64 MiB, 64 GiB]
    ExpiresAfter expiresAfter;
    NetworkPolicy network;
    Limits limits;
    std::vector<Mount> mounts; // at most 32, unique targets, no target inside another
    // At most 128; names [A-Za-z_][A-Za-z0-9_]*; values UTF-8 without NUL, <= 32 KiB.
    std::map<std::string, std::string> env;
    // At most 64; each variable once and not also in env. Names only: values stay in the store.
    std::vector<SecretRef> secrets;
    bool allowPtrace = false; // allow_ptrace: lets debuggers inside use ptrace (the seccomp filter allows it)
    ArtifactScan artifactScan = ArtifactScan::Default; // artifact_scan

    // Strict: unknown keys, wrong types, duplicate keys, out-of-range values are errors with stable codes
    // (policy.*) and messages that start with the field path ("limits.pids: must be between 1 and 65536, got
    // 0"). The document is read by Fields::readDocument().
    static Result<ContainerPolicy> fromJson(std::string_view json);
    // The same rules for a document already read (for example a protocol message's member).
    static Result<ContainerPolicy> fromJsonValue(const Json &document);

    // Sets memory_limit. A workspace_mb or tmp_mb still at the default for the old limit follows it to the
    // new one's default (policydefaults.h); one chosen otherwise stays as chosen.
    void setMemoryLimit(std::int64_t bytes);

    // Every field with its value, network rules in object form; fromJsonValue reads it back to an equal
    // policy.
    Json toJson() const;
    // toJson() in canonical form (see canonicaljson.h): sorted keys, no whitespace. Two documents that mean
    // the same policy (key order, "1g" or 1073741824, "PYPI.ORG." or "pypi.org") give the same bytes.
    std::string canonicalJson() const;
    // Lower-case hex sha256 of canonicalJson(): the policy version that runs record.
    std::string version() const;
    // The policy normalised and checked by the same rules as fromJson, for policies built or edited in code
    // (command-line overrides). A policy from fromJson is returned unchanged.
    Result<ContainerPolicy> validated() const;

    bool operator==(const ContainerPolicy &other) const = default;
};

} // namespace Cordon::Policy
