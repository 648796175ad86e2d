// SPDX-License-Identifier: MIT
// The artifact scan of one download (docs/artifact-scan.md): each file copied out of a container is scanned
// in its pending copy, before it gets its name, and saved, redacted or refused as the container's policy says
// (`artifact_scan`). The copy is ours alone, so what is scanned is what is saved: the sandbox cannot change a
// file between its scan and its download. The daemon runs it on a download's worker thread, and
// cordon-artifact-export for a one-shot run's outputs; one copy, one instance.
#pragma once

#include "sandbox/files/safecopy.h"
#include "sandbox/policy/containerpolicy.h"
#include "sandbox/secrets/secretmasker.h"
#include "scan/artifactscanner.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace Cordon::Scan {

class ArtifactInspection
{
public:
    // `overrideReason` non-empty: files the policy would block are saved, and say so ("overridden").
    // `internalSuffixes`: the organisation's own internal domains, reported beside the usual ones.
    ArtifactInspection(Policy::ArtifactScan mode, Secrets::SecretMasker secrets, std::string overrideReason,
                       std::vector<std::string> internalSuffixes = {});

    // Sets `limits`' inspect and directoryName to this inspection's (one copy's: it keeps the findings).
    static void attach(const std::shared_ptr<ArtifactInspection> &inspection, Files::CopyLimits &limits);
    // CopyLimits::inspect.
    Files::Inspection inspect(int fd, const std::string &relativePath);
    // CopyLimits::examine: scans a listed file and records what a download would do with it ("blocked",
    // "warned" or "redacted"), changing nothing. A file that cannot be scanned is "blocked" with a
    // scan.incomplete finding saying why, as its download would be.
    void look(int fd, const std::string &relativePath);
    // CopyLimits::directoryName: a directory whose name holds a key or a secret's value is made masked.
    std::string directoryName(const std::string &relativePath);
    // The files with findings, in copy order.
    const std::vector<InspectedFile> &files() const { return m_files; }

private:
    // The scanner, made at the first file; null when it cannot be made (its error in m_scanner).
    const ArtifactScanner *scanner();
    Files::Inspection redact(int fd, const std::string &relativePath);
    // Adds the findings in the file's name (ArtifactScanner::scanName) before those in its content.
    void withName(std::vector<Finding> &findings, const std::string &relativePath);
    // The file's name with what keeps it back masked ([secret:NAME], [redacted:RULE]), or empty when its
    // name holds nothing that would.
    std::string maskedName(const std::vector<Finding> &findings, const std::string &relativePath);

    Policy::ArtifactScan m_mode;
    Secrets::SecretMasker m_secrets;
    std::string m_overrideReason;
    std::vector<std::string> m_internalSuffixes;
    std::optional<Result<ArtifactScanner>> m_scanner; // made at the first file
    std::vector<InspectedFile> m_files;
};

} // namespace Cordon::Scan
