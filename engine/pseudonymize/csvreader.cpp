// SPDX-License-Identifier: MIT
#include "pseudonymize/csvreader.h"

#include "sandbox/utf8.h"

#include <new>

namespace Cordon::Csv {

namespace {

// libcsv trims spaces and tabs around unquoted fields unless told nothing is a space: a value is kept as
// written, and a tab may be the delimiter.
int nothingIsSpace(unsigned char)
{
    return 0;
}

// The input's pieces are read this much at a time, so that the limits are checked often.
constexpr std::size_t Step = 64 * 1024;

} // namespace

Reader::Reader(char delimiter)
{
    // CSV_STRICT: a quote inside an unquoted field, or text after a closing quote, is an error rather than
    // a guess. CSV_STRICT_FINI: so is the end of the input inside quotes.
    if (csv_init(&m_parser, CSV_STRICT | CSV_STRICT_FINI) != 0)
        throw std::bad_alloc();
    csv_set_delim(&m_parser, static_cast<unsigned char>(delimiter));
    csv_set_space_func(&m_parser, nothingIsSpace);
}

Reader::~Reader()
{
    csv_free(&m_parser);
}

void Reader::onField(void *bytes, std::size_t size, void *self)
{
    auto *reader = static_cast<Reader *>(self);
    if (reader->m_error)
        return;
    const std::string_view field(bytes ? static_cast<const char *>(bytes) : "", bytes ? size : 0);
    const auto where = [&] {
        return "row " + std::to_string(reader->m_rows + 1) + ", field " +
               std::to_string(reader->m_row.size() + 1);
    };
    if (field.find('\0') != std::string_view::npos) {
        reader->m_error =
            Error("csv.encoding", where() + " holds NUL bytes: the file is not UTF-8 text (UTF-16?); "
                                            "save it as UTF-8");
        return;
    }
    if (!isValidUtf8(field)) {
        reader->m_error = Error("csv.encoding", where() + " is not UTF-8 (Latin-1 or a Windows code page?); "
                                                          "save the file as UTF-8");
        return;
    }
    reader->m_rowBytes += field.size();
    if (reader->m_rowBytes > MaxRowBytes) {
        reader->m_error =
            Error("csv.too_large", "row " + std::to_string(reader->m_rows + 1) + " is larger than " +
                                       std::to_string(MaxRowBytes / (1024 * 1024)) + " MiB");
        return;
    }
    if (reader->m_row.size() >= MaxColumns) {
        reader->m_error =
            Error("csv.too_large", "row " + std::to_string(reader->m_rows + 1) + " has more than " +
                                       std::to_string(MaxColumns) + " fields");
        return;
    }
    reader->m_row.emplace_back(field);
}

void Reader::onRow(int, void *self)
{
    auto *reader = static_cast<Reader *>(self);
    if (reader->m_error)
        return;
    ++reader->m_rows;
    if (Result<> handled = (*reader->m_handler)(reader->m_row, reader->m_rows); !handled)
        reader->m_error = handled.error();
    reader->m_row.clear();
    reader->m_rowBytes = 0;
}

Result<> Reader::check(bool parseFailed)
{
    if (m_error)
        return fail(*m_error);
    if (parseFailed) {
        const int code = csv_error(&m_parser);
        if (code == CSV_EPARSE)
            return fail("csv.malformed",
                        "row " + std::to_string(m_rows + 1) + " (near byte " + std::to_string(m_offset) +
                            "): a quote where RFC 4180 allows none, or text after a closing quote");
        if (code != CSV_SUCCESS)
            return fail("csv.too_large", std::string("reading the CSV: ") + csv_strerror(code));
    }
    if (csv_get_buffer_size(&m_parser) > MaxFieldBytes)
        return fail("csv.too_large", "row " + std::to_string(m_rows + 1) + " has a field larger than " +
                                         std::to_string(MaxFieldBytes / (1024 * 1024)) +
                                         " MiB (a quote left open?)");
    return {};
}

Result<> Reader::feed(std::string_view bytes, const RowHandler &handler)
{
    m_handler = &handler;
    // NUL is never text, and it is the one-column reader's delimiter: refused before libcsv sees it.
    if (const std::size_t nul = bytes.find('\0'); nul != std::string_view::npos)
        return fail("csv.encoding", "byte " + std::to_string(m_offset + nul) +
                                        " is NUL: the file is not UTF-8 text (UTF-16?); save it as UTF-8");
    for (std::size_t at = 0; at < bytes.size(); at += Step) {
        const std::string_view piece = bytes.substr(at, Step);
        const std::size_t parsed = csv_parse(&m_parser, piece.data(), piece.size(), onField, onRow, this);
        m_offset += parsed;
        CORDON_TRY(check(parsed != piece.size()));
    }
    return {};
}

Result<> Reader::finish(const RowHandler &handler)
{
    m_handler = &handler;
    if (csv_fini(&m_parser, onField, onRow, this) != 0) {
        if (m_error)
            return fail(*m_error);
        return fail("csv.malformed", "the file ends inside a quoted field of row " +
                                         std::to_string(m_rows + 1) + ": a quote was left open");
    }
    return check(false);
}

void appendRow(std::string &out, const Row &row, char delimiter, std::string_view lineEnding)
{
    const auto isBlank = [](char c) { return c == ' ' || c == '\t'; };
    // A row of one empty field written bare would be a blank line, which readers skip.
    if (row.size() == 1 && row.front().empty()) {
        out += "\"\"";
        out += lineEnding;
        return;
    }
    for (std::size_t i = 0; i < row.size(); ++i) {
        if (i > 0)
            out += delimiter;
        const std::string &field = row[i];
        const bool quoted =
            field.find_first_of(std::string{delimiter, '"', '\r', '\n'}) != std::string::npos ||
            (!field.empty() && (isBlank(field.front()) || isBlank(field.back())));
        if (!quoted) {
            out += field;
            continue;
        }
        out += '"';
        for (char c : field) {
            if (c == '"')
                out += '"';
            out += c;
        }
        out += '"';
    }
    out += lineEnding;
}

} // namespace Cordon::Csv
