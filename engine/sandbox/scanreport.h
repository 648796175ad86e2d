// SPDX-License-Identifier: MIT
// What the artifact scan reports (docs/artifact-scan.md), as plain data and one JSON form. The scanner
// itself (engine/scan/) needs PCRE2 and libarchive; its report does not, so the static `cordon` launcher,
// which hands a one-shot run's outputs to the scanner in a helper process (cordon-artifact-export), reads the
// same findings the daemon sends with a download (`file.download`'s `scanned`).
#pragma once

#include "sandbox/error.h"
#include "sandbox/json.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace Cordon::Scan {

enum class Severity
{
    Low,    // worth a look: an internal address in a report
    Medium, // likely a credential: a token, a cookie, a password assignment
    High,   // a credential beyond doubt: a private key, a cloud key, a secret's own value
};

std::string_view severityName(Severity severity);
std::optional<Severity> severityFromName(std::string_view name);

struct Finding
{
    // The file's path as given, then "!member" for each archive it is inside: "logs.zip!app/run.log".
    std::string path;
    std::int64_t line = 0;   // 1-based, in a text (0 in a binary)
    std::int64_t offset = 0; // bytes from the start of the file or member
    // A rule's name, "secret.value" for a secret's value, "name.secret_value" or "name.RULE" for one in the
    // path itself, "archive.bomb" past the limits, "archive.unreadable" for a damaged archive or stream,
    // "scan.too_large" for a file too large to scan, "scan.encrypted" for an encrypted one,
    // "scan.incomplete" for a search stopped at its bound.
    std::string rule;
    Severity severity = Severity::High;
    // The match with all but its first four and last two bytes starred (never a whole credential), or
    // [secret:NAME] for a secret's value, or a sentence for the archive findings.
    std::string excerpt;
};

// A file copied out that had findings, and what became of it.
struct InspectedFile
{
    std::string path; // relative to the folder copied (outputs/, the workspace)
    // "blocked" (not saved), "warned" (saved as it was), "redacted" (saved with the findings replaced),
    // "overridden" (would have been blocked; saved because the user gave a reason).
    std::string action;
    std::vector<Finding> findings;
};

// [{path, action, findings: [{path, line, offset, rule, severity, excerpt}]}]: the protocol's form.
Json toJson(const std::vector<InspectedFile> &files);
// The same form read back; scan.bad_report when it is not that form.
Result<std::vector<InspectedFile>> inspectedFilesFromJson(const Json &json);

} // namespace Cordon::Scan
