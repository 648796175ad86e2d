// SPDX-License-Identifier: MIT
// The test build's definition: CORDON_TEST_WEAKEN names the guarantees to remove, comma-separated
// ("masking,seccomp"). Linked only into cordond-weakened, never installed; tst_audit runs the audit against
// it to show that each row turns No-Go when its guarantee is gone.
#include "sandbox/weakening.h"

#include <cstdlib>
#include <cstring>
#include <string>

namespace Cordon {

namespace {

const char *nameOf(Guarantee guarantee)
{
    switch (guarantee) {
    case Guarantee::OutputMasking:
        return "masking";
    case Guarantee::DomainSecretPlaceholder:
        return "domain-placeholder";
    case Guarantee::EchoMasking:
        return "echo-masking";
    case Guarantee::SpecialFileRefusal:
        return "special-files";
    case Guarantee::NetworkNamespace:
        return "netns";
    case Guarantee::ProxyAllowlist:
        return "proxy-allowlist";
    case Guarantee::OrgListBound:
        return "org-bound";
    case Guarantee::SeccompFilter:
        return "seccomp";
    case Guarantee::PidNamespaceProc:
        return "host-proc";
    case Guarantee::PidsLimit:
        return "pids";
    case Guarantee::RunTimeout:
        return "timeout";
    case Guarantee::OutputCap:
        return "output-cap";
    case Guarantee::ParallelRuns:
        return "parallel";
    case Guarantee::Idempotency:
        return "idempotency";
    case Guarantee::MemoryLimit:
        return "memory";
    case Guarantee::WorkspaceQuota:
        return "workspace-quota";
    case Guarantee::Adoption:
        return "adoption";
    case Guarantee::ExpiryWipe:
        return "expiry-wipe";
    case Guarantee::EventAttribution:
        return "attribution";
    case Guarantee::Cgroups:
        return "no-cgroup";
    }
    return "";
}

} // namespace

bool weakened(Guarantee guarantee) noexcept
{
    const char *list = std::getenv("CORDON_TEST_WEAKEN");
    if (list == nullptr)
        return false;
    const std::string wanted = std::string(",") + list + ",";
    return wanted.find(std::string(",") + nameOf(guarantee) + ",") != std::string::npos;
}

} // namespace Cordon
