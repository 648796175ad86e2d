// SPDX-License-Identifier: MIT
// A report for people: Markdown and a self-contained HTML page with the same content as the JSON (the date,
// Cordon's version, the host's facts, the policy and its version hash, every row with its evidence and
// evidence hash, the sign-off and the signature's key). The JSON stays what is signed and verified; these
// are views of it.
#pragma once

#include "audit/auditreport.h"

#include <string>

namespace Cordon::Audit {

std::string reportMarkdown(const AuditReport &report);
std::string reportHtml(const AuditReport &report);

} // namespace Cordon::Audit
