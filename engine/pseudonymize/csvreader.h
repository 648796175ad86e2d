// SPDX-License-Identifier: MIT
// CSV rows read with libcsv in its strict mode: RFC 4180 quoting ("" for a quote, delimiters and line
// breaks inside quotes), rows ended by LF, CRLF or CR, fields kept byte for byte (no trimming of spaces).
// Every field must be UTF-8 without NUL: a file in another encoding is refused with where, not turned into
// mojibake. The input comes in pieces of any size, so a file of any length streams through bounded memory.
#pragma once

#include "sandbox/error.h"

#include <csv.h>

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace Cordon::Csv {

using Row = std::vector<std::string>;
// Each complete row, with its number (1 for the first): an error stops the reading with it.
using RowHandler = std::function<Result<>(Row &row, std::size_t number)>;

// Beyond these, a file is not a table but a mistake (an unclosed quote swallowing the rest of the file).
constexpr std::size_t MaxFieldBytes = 16 * 1024 * 1024;
constexpr std::size_t MaxColumns = 10000;
constexpr std::size_t MaxRowBytes = 64 * 1024 * 1024;

class Reader final
{
public:
    explicit Reader(char delimiter);
    ~Reader();
    Reader(const Reader &) = delete;
    Reader &operator=(const Reader &) = delete;

    // Reads the next bytes, handing every row they complete to `handler`. csv.malformed for quoting RFC
    // 4180 does not allow, csv.encoding for a NUL byte or a field that is not UTF-8, csv.too_large past the
    // limits above; the reader is unusable after an error.
    Result<> feed(std::string_view bytes, const RowHandler &handler);
    // The end of the input: hands over a last row without a line break. csv.malformed when the input ends
    // inside quotes.
    Result<> finish(const RowHandler &handler);

private:
    static void onField(void *bytes, std::size_t size, void *self);
    static void onRow(int terminator, void *self);
    // The error a callback or libcsv met, or a field past the limit.
    Result<> check(bool parseFailed);

    csv_parser m_parser{};
    Row m_row;
    std::size_t m_rowBytes = 0;
    std::size_t m_rows = 0;
    std::size_t m_offset = 0; // bytes read before the current piece
    const RowHandler *m_handler = nullptr;
    std::optional<Error> m_error;
};

// `row` as RFC 4180 writes it, with `lineEnding`: a field is quoted when it holds the delimiter, a quote or
// a line break, or starts or ends with white space (which some readers would trim).
void appendRow(std::string &out, const Row &row, char delimiter, std::string_view lineEnding);

} // namespace Cordon::Csv
