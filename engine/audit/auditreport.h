// SPDX-License-Identifier: MIT
// A Go/No-Go audit's report (docs/audit.md): what was audited (the policy's text and version hash, Cordon's
// version, the host's facts), one row per claim of the policy with its verdict, the reason, the evidence
// that shows it and the evidence's sha256, an optional sign-off, and an optional Ed25519 signature
// (reportsignature.h). One JSON form, which is what is stored, exported and signed.
#pragma once

#include "sandbox/error.h"
#include "sandbox/json.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace Cordon::Audit {

enum class Verdict
{
    Go,   // the claim held, and the evidence shows it
    NoGo, // it did not, or it could not be shown on this host: never skipped silently
    // The claim cannot apply under this policy (the allowed host of a policy without network): the reason
    // says why. Never counted as Go: the report says how many rows applied.
    NotApplicable,
};

const char *verdictName(Verdict verdict); // "go", "no_go", "not_applicable"

// One piece of what a row observed: a command and its exit status, an excerpt, an event id, a hash.
struct Evidence
{
    std::string label; // "command", "exit status", "event", "excerpt", ...
    std::string text;
};

struct AuditRow
{
    std::string id;    // "network.disabled": stable, for reviewers and tests
    std::string title; // for people: "No route without network"
    Verdict verdict = Verdict::NoGo;
    std::string reason; // why Go, or why No-Go
    std::int64_t durationMs = 0;
    std::vector<Evidence> evidence;

    // sha256 of the canonical JSON of the evidence list: a reviewer checks that what is shown is what was
    // signed.
    std::string evidenceSha256() const;
};

struct SignOff
{
    std::string name;
    std::string role;
    std::string decision; // "go" or "no_go", the person's
    std::string date;     // YYYY-MM-DD
};

struct ReportSignature
{
    std::string algorithm = "ed25519";
    std::string keyId;     // signingKeyId() of the public key
    std::string publicKey; // 32 bytes, hex
    std::string value;     // 64 bytes, hex
};

struct AuditReport
{
    std::string id;
    std::string createdAt; // ISO 8601 UTC, "2026-12-04T00:51:07Z"
    std::string cordonVersion;
    std::vector<std::pair<std::string, std::string>> hostFacts; // "kernel" -> "6.1.0-28-amd64", ...
    std::string policyText;
    std::string policyVersion; // the policy's version hash
    std::vector<AuditRow> rows;
    std::optional<SignOff> signOff;
    std::optional<ReportSignature> signature;

    // Go when at least one row applied and every row that applied is Go.
    Verdict verdict() const;
    // The rows that applied (Go or No-Go), and those of them that are Go.
    int appliedRows() const;
    int goRows() const;

    // {id, created_at, cordon_version, host: {..}, policy: {text, version}, verdict, rows_applied, rows:
    // [{id, title, verdict, reason, duration_ms, evidence: [{label, text}], evidence_sha256}], sign_off?,
    // signature?}.
    Json toJson() const;
    // The same form read back: audit.bad_report naming what is wrong. The stored evidence hashes are not
    // checked here (verifyReport() does that).
    static Result<AuditReport> fromJson(const Json &json);
};

// The bytes a signature covers: the canonical JSON (RFC 8785) of the document without its "signature"
// member. Taken of the document as stored, so that every member, also one this version does not know, is
// covered.
std::string signedBytes(const Json &document);

} // namespace Cordon::Audit
