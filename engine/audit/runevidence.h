// SPDX-License-Identifier: MIT
// One evidence format for a run, shared by the Go/No-Go report's rows and the History's run export: the run
// (id, container), what ran, the policy version, the times, the outcome, excerpts of its output as the daemon
// kept it (masked), and its artifacts with their hashes. Both carry it as {label, text} pieces with the
// sha256 of their canonical JSON (AuditRow::evidenceSha256), so a run exported from the History and the same
// run in a report show the same pieces, and either can be checked against the other.
#pragma once

#include "audit/auditreport.h"
#include "sandbox/json.h"

#include <vector>

namespace Cordon::Audit {

// The evidence of a run object as `run.get`/`run.wait` answer it (docs/protocol.md). Pieces the object lacks
// are left out; output excerpts are cut to 400 characters with control characters shown as \xNN.
std::vector<Evidence> evidenceOfRun(const Json &run);

// {"evidence": [{label, text}], "evidence_sha256"}: what the run export adds to the run object.
Json runEvidenceJson(const Json &run);

// The run id in a piece labelled "run" (its first word); empty when the pieces name no run.
std::string runOfEvidence(const std::vector<Evidence> &evidence);

} // namespace Cordon::Audit
