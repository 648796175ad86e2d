// SPDX-License-Identifier: MIT
#include "pseudonymize/csvpseudonymizer.h"

#include "sandbox/sha256.h"
#include "sandbox/writeall.h"

#include <algorithm>
#include <cerrno>
#include <unistd.h>

namespace Cordon::Csv {

namespace {

// The source is read, and the result written, this much at a time.
constexpr std::size_t Chunk = 1024 * 1024;

// Up to `size` bytes of `fd` (fewer only at its end).
Result<std::string> readUpTo(int fd, std::size_t size)
{
    std::string bytes(size, '\0');
    std::size_t filled = 0;
    while (filled < size) {
        const ssize_t got = ::read(fd, bytes.data() + filled, size - filled);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return failErrno("files.io", "read the CSV file", errno);
        if (got == 0)
            break;
        filled += static_cast<std::size_t>(got);
    }
    bytes.resize(filled);
    return bytes;
}

std::string columnLabel(std::size_t position)
{
    return "column " + std::to_string(position + 1);
}

std::optional<std::size_t> positionOf(std::string_view text)
{
    if (text.empty() || text.size() > 6 || text.find_first_not_of("0123456789") != std::string_view::npos)
        return std::nullopt;
    const std::size_t number = std::stoul(std::string(text));
    if (number == 0)
        return std::nullopt;
    return number - 1;
}

std::string listed(const Row &names)
{
    std::string out;
    for (const std::string &name : names)
        out += (out.empty() ? "" : ", ") + name;
    return out;
}

// The chosen columns' positions in the file, and whether its first row is the header. A number is a position,
// unless the caller said there is a header and it has a column of that name; any other text is a name, and a
// name found in the first row makes that row the header. Guessing wrong would send the first row into the
// container as it is, so an unsure guess that nothing settles is refused.
Result<std::vector<std::size_t>> resolveColumns(const PseudonymizeOptions &options, const Dialect &dialect,
                                                bool &header)
{
    if (options.columns.empty() && options.positions.empty())
        return fail("csv.no_columns", "name the columns to pseudonymise");
    const Row &first = dialect.sample.front();
    header = options.header.value_or(dialect.header);
    const auto noColumn = [&](const std::string &column) {
        return fail("csv.no_column", "the file has " + std::to_string(first.size()) +
                                         " columns: there is no column " + column);
    };
    const auto nameIn = [&](const std::string &column) -> std::optional<std::size_t> {
        const auto named = std::find(first.begin(), first.end(), column);
        if (named == first.end())
            return std::nullopt;
        return static_cast<std::size_t>(named - first.begin());
    };
    std::vector<std::size_t> positions;
    const auto add = [&](std::size_t position) {
        if (std::find(positions.begin(), positions.end(), position) == positions.end())
            positions.push_back(position);
    };
    bool named = false;
    for (std::size_t position : options.positions) {
        if (position >= first.size())
            return noColumn(std::to_string(position + 1));
        add(position);
    }
    for (const std::string &column : options.columns) {
        std::optional<std::size_t> position;
        if (options.header == true)
            position = nameIn(column);
        if (!position) {
            if (const std::optional<std::size_t> number = positionOf(column)) {
                if (*number >= first.size())
                    return noColumn(column);
                position = number;
            }
        }
        if (!position && options.header != false) {
            position = nameIn(column);
            named = named || position.has_value();
        }
        if (!position) {
            const bool showNames = options.header == true || (dialect.header && dialect.headerSure);
            return fail("csv.no_column",
                        "no column named `" + column + "`: " +
                            (showNames ? "the columns are " + listed(first)
                                       : "name a column of the header, or give positions 1 to " +
                                             std::to_string(first.size())));
        }
        add(*position);
    }
    if (named)
        header = true;
    else if (!options.header && !dialect.headerSure)
        return fail("csv.header_unknown",
                    "cannot tell whether the first row names the columns or holds data: say which "
                    "(`--csv-header yes` or `no`), or name the columns as the header does");
    return positions;
}

// Writes and hashes what has been made so far.
Result<> flush(int fd, std::string &out, Sha256 &hash, std::int64_t &written)
{
    if (out.empty())
        return {};
    if (const int failed = writeFully(fd, out); failed != 0)
        return failErrno("files.io", "write the pseudonymised CSV", failed);
    hash.add(out);
    written += static_cast<std::int64_t>(out.size());
    out.clear();
    return {};
}

} // namespace

void DistinctCounter::add(const std::string &value)
{
    if (value.empty() || m_seen.size() > FewDistinctValues)
        return;
    if (std::find(m_seen.begin(), m_seen.end(), value) == m_seen.end())
        m_seen.push_back(value);
}

Result<PseudonymizeReport> pseudonymizeCsv(int sourceFd, int targetFd,
                                           const Secrets::Pseudonymizer &pseudonyms,
                                           const PseudonymizeOptions &options)
{
    auto start = readUpTo(sourceFd, SniffBytes);
    if (!start)
        return fail(start.error());
    const bool complete = start->size() < SniffBytes;
    auto dialect = sniffDialect(*start, complete);
    if (!dialect)
        return fail(dialect.error());
    if (dialect->sample.empty())
        return fail("csv.malformed", "the first row does not end within the first " +
                                         std::to_string(SniffBytes / (1024 * 1024)) + " MiB");
    PseudonymizeReport report;
    report.delimiter = dialect->delimiter;
    bool header = false;
    auto positions = resolveColumns(options, *dialect, header);
    if (!positions)
        return fail(positions.error());
    // A row wider than the first has a value with an unquoted delimiter in it, or is not of this table: its
    // fields are not where the columns say, and a value could reach the container in pieces, as it is.
    const std::size_t width = dialect->sample.front().size();
    report.header = header;
    for (std::size_t position : *positions)
        report.columns.push_back(header ? dialect->sample.front()[position] : columnLabel(position));
    report.distinct.resize(positions->size());

    Sha256 sourceHash, resultHash;
    std::string out;
    if (dialect->byteOrderMark)
        out += "\xEF\xBB\xBF";
    const RowHandler rewrite = [&](Row &row, std::size_t number) -> Result<> {
        if (row.size() > width && std::any_of(row.begin() + std::ptrdiff_t(width), row.end(),
                                              [](const std::string &f) { return !f.empty(); }))
            return fail("csv.ragged",
                        "row " + std::to_string(number) + " has " + std::to_string(row.size()) +
                            " fields, the first row " + std::to_string(width) +
                            ": a value with an unquoted delimiter? Quote it, then upload again");
        if (number > 1 || !header) {
            ++report.rows;
            bool shortRow = false;
            for (std::size_t i = 0; i < positions->size(); ++i) {
                const std::size_t position = (*positions)[i];
                if (position >= row.size()) {
                    shortRow = true;
                } else if (!row[position].empty()) {
                    report.distinct[i].add(row[position]);
                    row[position] = pseudonyms(row[position]);
                    ++report.values;
                }
            }
            report.shortRows += shortRow ? 1 : 0;
        }
        appendRow(out, row, dialect->delimiter, dialect->lineEnding);
        if (options.maxResultBytes > 0 &&
            report.resultBytes + static_cast<std::int64_t>(out.size()) > options.maxResultBytes)
            return fail("csv.too_large", "the pseudonymised file would be larger than " +
                                             std::to_string(options.maxResultBytes) +
                                             " bytes, the room left here");
        if (out.size() >= Chunk)
            return flush(targetFd, out, resultHash, report.resultBytes);
        return {};
    };

    Reader reader(dialect->delimiter);
    std::string piece = std::move(*start);
    std::size_t skip = byteOrderMarkSize(piece);
    bool atEnd = complete;
    while (!piece.empty()) {
        sourceHash.add(piece);
        report.sourceBytes += static_cast<std::int64_t>(piece.size());
        if (options.maxBytes > 0 && report.sourceBytes > options.maxBytes)
            return fail("csv.too_large", "the CSV file is larger than " + std::to_string(options.maxBytes) +
                                             " bytes, the limit here");
        CORDON_TRY(reader.feed(std::string_view(piece).substr(skip), rewrite));
        skip = 0;
        if (atEnd)
            break;
        auto next = readUpTo(sourceFd, Chunk);
        if (!next)
            return fail(next.error());
        atEnd = next->size() < Chunk;
        piece = std::move(*next);
    }
    CORDON_TRY(reader.finish(rewrite));
    CORDON_TRY(flush(targetFd, out, resultHash, report.resultBytes));
    report.sourceSha256 = sourceHash.hexDigest();
    report.resultSha256 = resultHash.hexDigest();
    return report;
}

Result<CsvPreview> previewCsv(int fd, const Secrets::Pseudonymizer &pseudonyms, std::optional<bool> header,
                              std::size_t maxRows)
{
    auto start = readUpTo(fd, SniffBytes);
    if (!start)
        return fail(start.error());
    auto dialect = sniffDialect(*start, start->size() < SniffBytes);
    if (!dialect)
        return fail(dialect.error());
    CsvPreview preview;
    preview.delimiter = dialect->delimiter;
    preview.lineEnding = dialect->lineEnding;
    preview.byteOrderMark = dialect->byteOrderMark;
    preview.header = header.value_or(dialect->header) && !dialect->sample.empty();
    preview.headerSure = header.has_value() || dialect->headerSure;
    const std::vector<Row> &sample = dialect->sample;
    const std::size_t firstData = preview.header ? 1 : 0;
    // The columns are the first row's: an upload refuses rows wider than it.
    const std::size_t width = sample.empty() ? 0 : sample.front().size();
    for (std::size_t r = 0; r < sample.size(); ++r) {
        if (r < firstData || preview.rows.size() >= maxRows)
            continue;
        preview.rows.push_back(sample[r]);
        Row masked = sample[r];
        for (std::string &value : masked) {
            if (!value.empty())
                value = pseudonyms(value);
        }
        preview.pseudonyms.push_back(std::move(masked));
    }
    preview.distinct.resize(width);
    for (std::size_t column = 0; column < width; ++column) {
        const bool named = preview.header && column < sample.front().size();
        preview.names.push_back(named ? sample.front()[column] : columnLabel(column));
        for (std::size_t r = firstData; r < sample.size(); ++r) {
            if (column < sample[r].size())
                preview.distinct[column].add(sample[r][column]);
        }
    }
    preview.truncated = dialect->sampleTruncated || sample.size() > firstData + preview.rows.size();
    return preview;
}

} // namespace Cordon::Csv
