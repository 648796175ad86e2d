// SPDX-License-Identifier: MIT
// `cordon run --output-dir` through the artifact scan: the outputs are copied by cordon-artifact-export
// (app/cordon-artifact-export), which scans each file as a daemon download does and saves, redacts or keeps
// it back as the policy's `artifact_scan` says (docs/artifact-scan.md). The launcher cannot load the
// scanner's libraries itself. Without the helper nothing is copied: the scan fails closed.
#pragma once

#include "sandbox/error.h"
#include "sandbox/files/safecopy.h"
#include "sandbox/outcome.h"
#include "sandbox/policy/containerpolicy.h"
#include "sandbox/scanreport.h"
#include "sandbox/secrets/secretinjection.h"

#include <string>
#include <vector>

namespace Cordon::Launcher {

struct ScannedExport
{
    std::vector<OneShotArtifact> copied;
    std::vector<OneShotRefusal> refused; // a file the scan kept back: code files.blocked
    std::vector<Scan::InspectedFile> scanned;
};

// Copies what `outputs` (a directory the launcher holds open) holds into `destination` under `limits`'
// sizes. scan.unavailable when the helper cannot be run, its own errors otherwise.
Result<ScannedExport> exportScanned(const Files::SourceRoot &outputs, const std::string &destination,
                                    const Files::CopyLimits &limits, Policy::ArtifactScan mode,
                                    const std::vector<Secrets::ResolvedSecret> &secrets);

} // namespace Cordon::Launcher
