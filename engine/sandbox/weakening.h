// SPDX-License-Identifier: MIT
// The guarantees a test build may remove, one at a time, to prove that the Go/No-Go audit notices when one is
// gone (docs/audit.md). The shipped programs link weakening.cpp, which removes nothing and reads nothing;
// only the test program cordond-weakened (tests/weakened/) links a definition that reads CORDON_TEST_WEAKEN.
// Each check sits where the guarantee is made, so that removing it is the one-line bug the audit must catch.
#pragma once

namespace Cordon {

enum class Guarantee
{
    OutputMasking,           // secret values masked in kept output
    DomainSecretPlaceholder, // a run gets a placeholder, never a domain secret's value
    EchoMasking,             // an upstream's echo of a domain secret is masked on its way back
    SpecialFileRefusal,      // a symlink in the outputs is refused at download
    NetworkNamespace,        // a container has a network of its own
    ProxyAllowlist,          // the egress proxy refuses what the allowlists do not name
    OrgListBound,            // a container's allowlist stays within the organisation's
    SeccompFilter,           // runs start under the seccomp profile
    PidNamespaceProc,        // /proc shows the container's pid namespace
    PidsLimit,               // the cgroup's pids.max
    RunTimeout,              // a run past its timeout is ended
    OutputCap,               // kept output is capped
    ParallelRuns,            // at most the configured runs at once
    Idempotency,             // a repeated idempotency key runs once
    MemoryLimit,             // the cgroup's memory.max
    WorkspaceQuota,          // the workspace tmpfs has the policy's size
    Adoption,                // a restarted daemon adopts the containers the one before left running
    ExpiryWipe,              // an expired container's workspace is removed
    EventAttribution,        // every event names its container and run
    Cgroups,                 // the daemon finds its cgroups (without them, --allow-degraded runs unlimited)
};

// True when this program was built to remove `guarantee` and was asked to (tests only); always false in
// the programs Cordon ships.
bool weakened(Guarantee guarantee) noexcept;

} // namespace Cordon
