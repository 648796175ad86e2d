// SPDX-License-Identifier: MIT
#include "pseudonymize/csvdialect.h"

#include "sandbox/utf8.h"

#include <algorithm>
#include <map>
#include <set>

namespace Cordon::Csv {

namespace {

constexpr char Delimiters[] = {',', ';', '\t', '|'};

// The line of the first byte of `text` that does not start well-formed UTF-8, or 0 when all of it is UTF-8.
std::size_t firstLineNotUtf8(std::string_view text)
{
    std::size_t line = 1;
    for (std::size_t at = 0; at < text.size();) {
        char32_t codePoint = 0;
        const std::size_t length = decodeUtf8(text, at, &codePoint);
        if (length == 0)
            return line;
        line += codePoint == U'\n' ? 1 : 0;
        at += length;
    }
    return 0;
}

// `text` without a last code point cut short by the end of the start that was read.
std::string_view withoutCutCodePoint(std::string_view text)
{
    std::size_t end = text.size();
    std::size_t continuation = 0;
    while (end > 0 && continuation < 3 && (static_cast<unsigned char>(text[end - 1]) & 0xC0) == 0x80) {
        --end;
        ++continuation;
    }
    if (end > 0 && static_cast<unsigned char>(text[end - 1]) >= 0xC0)
        return text.substr(0, end - 1);
    return text;
}

Result<> checkEncoding(std::string_view start, bool complete)
{
    const auto startsWith = [&](std::string_view mark) { return start.substr(0, mark.size()) == mark; };
    // UTF-32 LE begins like UTF-16 LE: test it first.
    if (startsWith(std::string_view("\xFF\xFE\0\0", 4)) || startsWith(std::string_view("\0\0\xFE\xFF", 4)))
        return fail("csv.encoding",
                    "the file is UTF-32 (it starts with a UTF-32 byte-order mark): save it as UTF-8");
    if (startsWith("\xFF\xFE") || startsWith("\xFE\xFF"))
        return fail("csv.encoding",
                    "the file is UTF-16 (it starts with a UTF-16 byte-order mark): save it as UTF-8");
    if (start.find('\0') != std::string_view::npos)
        return fail("csv.encoding",
                    "the file holds NUL bytes: it is not UTF-8 text (UTF-16 without a byte-order "
                    "mark?); save it as UTF-8");
    if (const std::size_t line = firstLineNotUtf8(complete ? start : withoutCutCodePoint(start)); line != 0)
        return fail("csv.encoding",
                    "line " + std::to_string(line) +
                        " is not UTF-8 (Latin-1 or a Windows code page?): save the file as UTF-8");
    return {};
}

// The first row's line ending: the first CR or LF outside quotes (a quoted field may hold line breaks of
// its own). A quote toggles, so "" inside quotes toggles twice.
std::string lineEndingOf(std::string_view text)
{
    bool quoted = false;
    for (std::size_t at = 0; at < text.size(); ++at) {
        if (text[at] == '"')
            quoted = !quoted;
        else if (!quoted && text[at] == '\n')
            return "\n";
        else if (!quoted && text[at] == '\r')
            return at + 1 < text.size() && text[at + 1] == '\n' ? "\r\n" : "\r";
    }
    return "\n";
}

struct Sample
{
    std::vector<Row> rows;
    bool truncated = false;
};

// The rows `delimiter` reads from the start, or nothing when it cannot read it (strict quoting failed). Only
// complete rows: libcsv hands a row over at its line break, and the last one of a whole file at finish().
std::optional<Sample> rowsWith(char delimiter, std::string_view text, bool complete)
{
    Sample sample;
    Reader reader(delimiter);
    const RowHandler keep = [&](Row &row, std::size_t) -> Result<> {
        if (sample.rows.size() < SniffRows)
            sample.rows.push_back(row);
        else
            sample.truncated = true;
        return {};
    };
    if (!reader.feed(text, keep))
        return std::nullopt;
    if (complete && !reader.finish(keep))
        return std::nullopt;
    sample.truncated = sample.truncated || !complete;
    return sample;
}

// How well `rows` read as a table: the number of rows with the commonest field count, when that count is
// above one; zero otherwise.
std::size_t consistency(const std::vector<Row> &rows)
{
    std::map<std::size_t, std::size_t> counts;
    for (const Row &row : rows)
        ++counts[row.size()];
    const auto commonest = std::max_element(counts.begin(), counts.end(),
                                            [](const auto &a, const auto &b) { return a.second < b.second; });
    return commonest == counts.end() || commonest->first < 2 ? 0 : commonest->second;
}

// The first row names the columns when its values are distinct, non-empty words, and the columns below it
// hold values unlike them: numbers under a word, or values of one length (two at least) under a name of
// another. Python's csv.Sniffer weighs the same evidence. Even evidence is a header, but not a sure one.
void guessHeader(Dialect &dialect)
{
    const std::vector<Row> &rows = dialect.sample;
    dialect.header = false;
    dialect.headerSure = true;
    if (rows.empty())
        return;
    const Row &first = rows.front();
    std::set<std::string_view> seen;
    for (const std::string &name : first) {
        if (name.empty() || looksLikeData(name) || !seen.insert(name).second)
            return;
    }
    int votes = 0;
    for (std::size_t column = 0; column < first.size(); ++column) {
        std::vector<std::string_view> values;
        for (std::size_t r = 1; r < rows.size(); ++r) {
            if (column < rows[r].size() && !rows[r][column].empty())
                values.push_back(rows[r][column]);
        }
        if (values.empty())
            continue;
        if (std::all_of(values.begin(), values.end(), looksLikeData)) {
            ++votes;
        } else if (std::find(values.begin(), values.end(), first[column]) != values.end()) {
            --votes;
        } else if (values.size() >= 2 && std::all_of(values.begin(), values.end(), [&](std::string_view v) {
                       return v.size() == values.front().size();
                   })) {
            votes += first[column].size() != values.front().size() ? 1 : -1;
        }
    }
    dialect.header = votes >= 0;
    dialect.headerSure = votes != 0;
}

} // namespace

std::string delimiterText(char delimiter)
{
    return delimiter == SingleColumn ? std::string() : std::string(1, delimiter);
}

std::size_t byteOrderMarkSize(std::string_view text)
{
    return text.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
}

bool looksLikeData(std::string_view value)
{
    if (value.empty())
        return false;
    // Digits with the punctuation of numbers, dates and times, and at most one exponent or sign letter.
    std::size_t digits = 0, letters = 0;
    for (char c : value) {
        if (c >= '0' && c <= '9')
            ++digits;
        else if (c == 'e' || c == 'E' || c == 'T' || c == 'Z')
            ++letters;
        else if (std::string_view("+-.,:/ %").find(c) == std::string_view::npos)
            return false;
    }
    return digits > 0 && letters <= 1;
}

Result<Dialect> sniffDialect(std::string_view start, bool complete)
{
    CORDON_TRY(checkEncoding(start, complete));
    Dialect dialect;
    const std::size_t bom = byteOrderMarkSize(start);
    dialect.byteOrderMark = bom != 0;
    const std::string_view text = start.substr(bom);
    dialect.lineEnding = lineEndingOf(text);
    std::size_t best = 0;
    std::optional<Sample> chosen;
    for (char delimiter : Delimiters) {
        auto sample = rowsWith(delimiter, text, complete);
        if (!sample || sample->rows.empty())
            continue;
        if (const std::size_t score = consistency(sample->rows); score > best) {
            best = score;
            dialect.delimiter = delimiter;
            chosen = std::move(sample);
        }
    }
    // No delimiter splits the rows alike: one column, whatever commas its values hold ("Smith, John" is one
    // name, not a name and a stray first name).
    if (!chosen) {
        dialect.delimiter = SingleColumn;
        chosen = rowsWith(SingleColumn, text, complete);
        if (chosen && chosen->rows.empty())
            chosen.reset();
    }
    if (!chosen) {
        if (text.find_first_not_of("\r\n") == std::string_view::npos)
            return fail("csv.empty", "the file has no rows");
        if (!complete && text.find_first_of("\r\n") == std::string_view::npos)
            return fail("csv.malformed", "the first row does not end within the first " +
                                             std::to_string(SniffBytes / (1024 * 1024)) + " MiB");
        return fail("csv.malformed",
                    "the start of the file is not CSV: a quote where RFC 4180 allows none, or "
                    "a quote left open");
    }
    dialect.sample = std::move(chosen->rows);
    dialect.sampleTruncated = chosen->truncated;
    guessHeader(dialect);
    return dialect;
}

} // namespace Cordon::Csv
