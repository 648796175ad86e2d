// SPDX-License-Identifier: MIT
// What the start of a CSV file says about all of it: UTF-8 with or without a byte-order mark (UTF-16 and
// UTF-32 are refused with a clear error), the delimiter, the line ending, and whether the first row names
// the columns. A guess from the first rows, as every spreadsheet makes one; callers let the user override
// the header guess, and column names a user gives settle it (csvpseudonymizer.h).
#pragma once

#include "pseudonymize/csvreader.h"

#include <string>
#include <string_view>

namespace Cordon::Csv {

// How much of a file the guesses read.
constexpr std::size_t SniffBytes = 1024 * 1024;
// The rows of that start the header guess weighs.
constexpr std::size_t SniffRows = 50;

// The delimiter of a file whose rows no delimiter splits alike: one column. NUL never occurs in an accepted
// file, so nothing in a value is taken for a delimiter.
constexpr char SingleColumn = '\0';

struct Dialect
{
    char delimiter = ',';          // or SingleColumn
    std::string lineEnding = "\n"; // the first row's
    bool byteOrderMark = false;    // a UTF-8 BOM, kept when the file is written again
    // The guess: true also when the evidence is even (most files have a header), but then not `headerSure`,
    // and a caller that would send the first row into a container raw on a wrong guess must ask.
    bool header = false;
    bool headerSure = false;
    // The first complete rows of the start (at most SniffRows), the header row among them.
    std::vector<Row> sample;
    bool sampleTruncated = false; // the file has rows past the sample
};

// `start` is the file's first bytes (up to SniffBytes); `complete` when it is all of it. csv.encoding for a
// UTF-16 or UTF-32 byte-order mark or NUL bytes; csv.empty for a file with no row; csv.malformed when no
// delimiter reads the start as CSV, or the first row does not end within SniffBytes.
Result<Dialect> sniffDialect(std::string_view start, bool complete);

// Bytes a UTF-8 byte-order mark takes at the start of `text`: 3 or 0.
std::size_t byteOrderMarkSize(std::string_view text);

// The delimiter as the protocol writes it: the character, or "" for SingleColumn.
std::string delimiterText(char delimiter);

// "3", "-2.5", "1e6", "2024-05-01", "12:30": a value that looks like data rather than a column's name.
bool looksLikeData(std::string_view value);

} // namespace Cordon::Csv
