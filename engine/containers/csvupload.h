// SPDX-License-Identifier: MIT
// The file side of a pseudonymised upload (docs/pseudonymize.md), run on the manager's file pool: the source
// opened as a regular file (a FIFO or device named as the source is refused at once, not waited on), and
// the pseudonymised copy written to a private staging file that the upload then imports like any other.
#pragma once

#include "pseudonymize/csvpseudonymizer.h"
#include "sandbox/uniquefd.h"

#include <optional>
#include <string>

namespace Cordon::Containers {

// `hostPath` opened for reading, or `content` in a memory file when it is set. files.no_source,
// files.not_regular, files.io.
Result<UniqueFd> openCsvSource(const std::string &hostPath, const std::optional<std::string> &content);

// Writes the pseudonymised CSV to `stagedPath` (created 0600, replaced if there).
Result<Csv::PseudonymizeReport> stagePseudonymizedCsv(int sourceFd, const std::string &stagedPath,
                                                      const Secrets::Pseudonymizer &pseudonyms,
                                                      const Csv::PseudonymizeOptions &options);

} // namespace Cordon::Containers
