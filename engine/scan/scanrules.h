// SPDX-License-Identifier: MIT
// What the artifact scan looks for (docs/artifact-scan.md), as one table reviewed in one place: each rule has
// a name, a PCRE2 pattern, a severity, a description, and one sample it must find and one it must not
// (tst_artifactscan runs every rule against both). The values of a container's secrets are not a rule here:
// they are found with the secret masker's forms (ArtifactScanner::Options::secrets).
#pragma once

#include "sandbox/scanreport.h"

#include <string>
#include <string_view>
#include <vector>

namespace Cordon::Scan {

struct ScanRule
{
    const char *name; // "aws.access_key_id": what a finding and an event call it
    Severity severity;
    const char *description; // for people, one line
    // PCRE2, UTF-8 mode off (files are bytes). A rule with a capture group reports and redacts that group;
    // otherwise the whole match.
    std::string pattern;
    // Shannon entropy in bits per byte the reported text must reach (0: no check), and then also three kinds
    // of character (lower, upper, digit, other) or 20 bytes: for generic assignments (`password = ...`), so
    // that `password = changeme-please` is not a finding and `DB_PASSWORD=Xk9mQ2vL7pR4nZ8w` is.
    double minEntropy = 0;
    const char *positiveSample = "";
    const char *negativeSample = "";
    // The finding also takes the host-name labels ([A-Za-z0-9.-]) just before the match: a rule that
    // matches a host name by its suffix (".corp") reports the whole name, while the search itself starts at
    // a dot instead of at every letter of the text (five times faster on prose and code).
    bool extendOverHostName = false;
};

// Host-name suffixes that only resolve inside an organisation; an organisation policy may add more.
const std::vector<std::string> &defaultInternalSuffixes();

// The rules, with the internal host-name rule built from `internalSuffixes` (defaultInternalSuffixes() and
// the organisation's, each a DNS suffix such as "corp" or "example.internal").
std::vector<ScanRule> scanRules(const std::vector<std::string> &internalSuffixes);

} // namespace Cordon::Scan
