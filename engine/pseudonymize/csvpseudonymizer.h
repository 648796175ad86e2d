// SPDX-License-Identifier: MIT
// A CSV upload with chosen columns pseudonymised (docs/pseudonymize.md): every non-empty value of those
// columns becomes its keyed pseudonym (sandbox/secrets/pseudonymkey.h), every other byte of meaning stays:
// the header, the other columns, the delimiter, the line ending, a byte-order mark. Empty values stay empty,
// so that "no value" is still told apart. The file streams through: its size is bounded by the caller's
// limit, not by memory.
#pragma once

#include "pseudonymize/csvdialect.h"
#include "sandbox/secrets/pseudonymkey.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace Cordon::Csv {

// A column with at most this many distinct values is open to guessing: whoever can list the values it could
// hold (genders, ages, a team's e-mails) and get a file of them pseudonymised with the same key (the sandbox
// can ask for one) reads the column back. Warned of; docs/pseudonymize.md, "What it cannot do".
constexpr std::size_t FewDistinctValues = 32;

// Counts a column's distinct values up to FewDistinctValues + 1 ("more"), in bounded memory.
class DistinctCounter
{
public:
    void add(const std::string &value);
    std::size_t count() const { return m_seen.size(); }
    bool few() const { return !m_seen.empty() && m_seen.size() <= FewDistinctValues; }

private:
    std::vector<std::string> m_seen;
};

struct PseudonymizeOptions
{
    // Column names from the header, or 1-based positions ("3"). A name found in the first row makes it the
    // header whatever the guess said.
    std::vector<std::string> columns;
    // Columns by 0-based position, exactly (a dialog's checkboxes): never read as names.
    std::vector<std::size_t> positions;
    std::optional<bool> header;      // unset: sniffDialect()'s guess
    std::int64_t maxBytes = 0;       // the source's limit (csv.too_large past it); 0: none
    std::int64_t maxResultBytes = 0; // the result's limit, checked as it is written; 0: none
};

struct PseudonymizeReport
{
    char delimiter = ',';
    bool header = false;
    std::vector<std::string> columns; // the names of the columns pseudonymised ("column 3" without a header)
    std::size_t rows = 0;             // data rows, the header not counted
    std::size_t values = 0;           // values replaced
    std::size_t shortRows = 0;        // data rows too short to have every chosen column
    std::vector<DistinctCounter> distinct; // the non-empty values of each of `columns`
    std::string sourceSha256;
    std::int64_t sourceBytes = 0;
    std::string resultSha256;
    std::int64_t resultBytes = 0;
};

// Reads the CSV from `sourceFd` and writes it, pseudonymised, to `targetFd`. csv.no_column for a column the
// file does not have (the message lists those it has), csv.no_columns when none is given, and the reader's
// csv.header_unknown when nothing settles an unsure header guess, csv.ragged for a row wider than the first,
// and sniffDialect()'s errors; files.io when reading or writing fails.
Result<PseudonymizeReport> pseudonymizeCsv(int sourceFd, int targetFd,
                                           const Secrets::Pseudonymizer &pseudonyms,
                                           const PseudonymizeOptions &options);

struct CsvPreview
{
    char delimiter = ',';
    std::string lineEnding;
    bool byteOrderMark = false;
    bool header = false;
    bool headerSure = false;        // told, or guessed from clear evidence: see Dialect
    std::vector<std::string> names; // the header's names, or "column N"
    std::vector<Row> rows;          // the first data rows
    std::vector<Row> pseudonyms;    // the same rows, every value pseudonymised (empty stays empty)
    bool truncated = false;         // the file has more rows than these
    // Each column's distinct non-empty values in the rows read for the guess (up to SniffBytes), so that a
    // dialog can warn before the upload of a column that few values fill.
    std::vector<DistinctCounter> distinct;
};

// The first `maxRows` data rows of the CSV at `fd` and their pseudonyms, for a dialog to show before the
// upload. `header` overrides the guess.
Result<CsvPreview> previewCsv(int fd, const Secrets::Pseudonymizer &pseudonyms, std::optional<bool> header,
                              std::size_t maxRows);

} // namespace Cordon::Csv
