// SPDX-License-Identifier: MIT
// Signing and verifying an audit report (docs/audit.md) with Ed25519, through OpenSSL's libcrypto (loaded at
// first use). The signature covers signedBytes() of the report's JSON: any edit (a verdict, a piece of
// evidence, the policy, the sign-off) breaks it. verifyReport() also recomputes each row's evidence hash, so
// that a reviewer learns which row was altered, not only that something was.
#pragma once

#include "audit/auditreport.h"
#include "sandbox/error.h"
#include "sandbox/json.h"

#include <string>
#include <vector>

namespace Cordon::Audit {

constexpr std::size_t SigningSeedBytes = 32;

// 32 bytes from the system's random source: an Ed25519 private key (its seed).
Result<std::string> newSigningSeed();
// The public key (32 bytes) of a seed; audit.bad_key when the seed is not 32 bytes.
Result<std::string> publicKeyOf(const std::string &seed);
// "ak-" and the first 16 hex digits of the public key's sha256: how reports and people name a key.
std::string signingKeyId(const std::string &publicKey);

// The report's JSON with its signature made by `seed` (a signature it had is replaced).
Result<Json> signReport(const AuditReport &report, const std::string &seed);

struct Verification
{
    bool isSigned = false;                // the document has a signature at all
    bool signatureValid = false;          // it verifies against the public key it names
    std::string keyId;                    // of that key (whose it is, the caller decides: reviewerkeyring.h)
    std::string publicKey;                // that key, hex
    std::vector<std::string> alteredRows; // rows whose evidence no longer has its recorded sha256
    bool intact() const { return isSigned && signatureValid && alteredRows.empty(); }
};

// Checks a report as stored: each row's evidence against its evidence_sha256, and the signature against
// signedBytes(). audit.bad_report for a document that is not a report, audit.bad_signature for a signature
// that is not an Ed25519 one of the right sizes.
Result<Verification> verifyReport(const Json &document);

} // namespace Cordon::Audit
