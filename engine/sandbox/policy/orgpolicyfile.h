// SPDX-License-Identifier: MIT
// Where the organisation policy file is, and its `internal_suffixes` (docs/network.md), in plain C++: the
// daemon's OrgPolicy (engine/network/orgpolicy.h) reads the whole file through these, and
// cordon-artifact-export, which scans a one-shot run's outputs without a daemon, reads the suffixes alone.
#pragma once

#include "sandbox/error.h"
#include "sandbox/json.h"

#include <string>
#include <vector>

namespace Cordon::Policy {

// /etc/cordon/org-policy.json. Tests stand in for an administrator with CORDON_SYSTEM_ORG_POLICY (an
// absolute path), which is honoured only while /etc/cordon/org-policy.json does not exist: it can add a
// restriction where there is none, never replace the one an administrator wrote.
std::string orgPolicySystemPath();
// $XDG_CONFIG_HOME/cordon/org-policy.json, else ~/.config/cordon/org-policy.json (empty without a home).
std::string orgPolicyUserPath();
// Whether something is at `path`: a dangling symlink where the administrator's file should be counts, so that
// it is an error rather than a reason to fall back to the user's own file.
bool orgPolicyEntryExists(const std::string &path);

constexpr std::size_t MaxInternalSuffixes = 64;

// The document's "internal_suffixes": host-name suffixes (labels of letters, digits and hyphens, a leading
// dot dropped), lower-cased, duplicates dropped, at most MaxInternalSuffixes. None when absent.
// policy.invalid_domain, policy.* otherwise.
Result<std::vector<std::string>> readInternalSuffixes(const Json &document);

// The internal suffixes of the file in force: the system file when it exists, else the user's, else none.
// network.org_policy_unreadable, policy.* (with the file's name) when that file cannot be read or parsed.
Result<std::vector<std::string>> loadOrgInternalSuffixes();

} // namespace Cordon::Policy
