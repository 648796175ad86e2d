// SPDX-License-Identifier: MIT
// CSV pseudonymisation on real files (memfd): pseudonyms are stable and keyed, the chosen columns change and
// nothing else does (quoted fields, embedded line breaks, the header, a byte-order mark, CRLF), the dialect
// is guessed from the file, and files in other encodings or with broken quoting are refused with where.
#include "pseudonymize/csvpseudonymizer.h"
#include "sandbox/sha256.h"

#include "testutil.h"

#include <QObject>

#include <sys/mman.h>
#include <unistd.h>

using namespace Cordon;
using Csv::Row;

namespace {

const std::string KeyA(32, 'A');
const std::string KeyB(32, 'B');

// A file descriptor reading `bytes` from the start, as the daemon reads an upload.
int fileWith(const std::string &bytes)
{
    const int fd = ::memfd_create("csv", MFD_CLOEXEC);
    if (fd < 0 || ::write(fd, bytes.data(), bytes.size()) != static_cast<ssize_t>(bytes.size()))
        qFatal("memfd");
    ::lseek(fd, 0, SEEK_SET);
    return fd;
}

std::string contentsOf(int fd)
{
    std::string out;
    ::lseek(fd, 0, SEEK_SET);
    char buffer[65536];
    for (ssize_t got; (got = ::read(fd, buffer, sizeof buffer)) > 0;)
        out.append(buffer, static_cast<std::size_t>(got));
    return out;
}

struct Outcome
{
    Result<Csv::PseudonymizeReport> report;
    std::string text;
};

Outcome pseudonymize(const std::string &csv, std::vector<std::string> columns, const std::string &key = KeyA,
                     std::optional<bool> header = std::nullopt, std::int64_t maxResultBytes = 0)
{
    const int source = fileWith(csv);
    const int target = ::memfd_create("out", MFD_CLOEXEC);
    Csv::PseudonymizeOptions options;
    options.columns = std::move(columns);
    options.header = header;
    options.maxResultBytes = maxResultBytes;
    Outcome outcome{Csv::pseudonymizeCsv(source, target, Secrets::Pseudonymizer(key), options), {}};
    outcome.text = contentsOf(target);
    ::close(source);
    ::close(target);
    return outcome;
}

// The rows of `text` as the same reader sees them.
std::vector<Row> rowsOf(const std::string &text, char delimiter = ',')
{
    std::vector<Row> rows;
    Csv::Reader reader(delimiter);
    const Csv::RowHandler keep = [&](Row &row, std::size_t) -> Result<> {
        rows.push_back(row);
        return {};
    };
    const std::size_t bom = Csv::byteOrderMarkSize(text);
    if (!reader.feed(std::string_view(text).substr(bom), keep) || !reader.finish(keep))
        qFatal("the result does not read as CSV");
    return rows;
}

} // namespace

class TestCsvPseudonymize final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void pseudonymsAreStableKeyedAndRecognisable()
    {
        const Secrets::Pseudonymizer a(KeyA), b(KeyB);
        const std::string first = a("alice@example.com");
        QCOMPARE(a("alice@example.com"), first);
        QVERIFY(b("alice@example.com") != first);
        QVERIFY(a("alice@example.co") != first);
        QCOMPARE(first.size(), std::size_t(4 + Secrets::PseudonymDigits));
        QVERIFY(first.rfind(Secrets::PseudonymPrefix, 0) == 0);
        QVERIFY(first.find_first_not_of("0123456789abcdef", 4) == std::string::npos);
        // The key id names the key and is not a pseudonym of anything.
        QCOMPARE(Secrets::pseudonymKeyId(KeyA), Secrets::pseudonymKeyId(KeyA));
        QVERIFY(Secrets::pseudonymKeyId(KeyA) != Secrets::pseudonymKeyId(KeyB));
        QVERIFY(Secrets::pseudonymKeyId(KeyA).find(first.substr(4)) == std::string::npos);
    }

    void onlyTheChosenColumnsChange()
    {
        const std::string csv = "id,name,email,note\n"
                                "1,Alice Smith,alice@example.com,\"likes \"\"tea\"\", and cake\"\n"
                                "2,\"Bob, Jr.\",,\"two\nlines\"\n"
                                "3,  padded  ,carol@example.com,plain\n";
        const Outcome out = pseudonymize(csv, {"email", "name"});
        QVERIFY_RESULT(out.report);
        QVERIFY(out.report->header);
        QCOMPARE(out.report->columns, (std::vector<std::string>{"email", "name"}));
        QCOMPARE(out.report->rows, std::size_t(3));
        QCOMPARE(out.report->values, std::size_t(5)); // Bob's empty email stays empty
        const Secrets::Pseudonymizer p(KeyA);
        const std::vector<Row> rows = rowsOf(out.text);
        QCOMPARE(rows.size(), std::size_t(4));
        QCOMPARE(rows[0], (Row{"id", "name", "email", "note"}));
        QCOMPARE(rows[1], (Row{"1", p("Alice Smith"), p("alice@example.com"), "likes \"tea\", and cake"}));
        QCOMPARE(rows[2], (Row{"2", p("Bob, Jr."), "", "two\nlines"}));
        // Values are taken byte for byte: the spaces are part of the value.
        QCOMPARE(rows[3], (Row{"3", p("  padded  "), p("carol@example.com"), "plain"}));
        QVERIFY(out.text.find("alice") == std::string::npos);
        QVERIFY(out.text.find("Bob") == std::string::npos);
        // The same value in another file, under another column name, gives the same pseudonym: joins work.
        const Outcome other = pseudonymize("contact;amount\nalice@example.com;12\n", {"contact"});
        QVERIFY_RESULT(other.report);
        QCOMPARE(rowsOf(other.text, ';').at(1).at(0), p("alice@example.com"));
        // Another key, other pseudonyms.
        const Outcome keyed = pseudonymize(csv, {"email"}, KeyB);
        QVERIFY_RESULT(keyed.report);
        QVERIFY(rowsOf(keyed.text).at(1).at(2) != p("alice@example.com"));
    }

    // Few distinct values can be guessed back (docs/pseudonymize.md): the report and the preview count them,
    // in bounded memory, so that the CLI and the dialog warn.
    void aColumnOfFewValuesIsReported()
    {
        std::string csv = "id,gender,email\n";
        for (int i = 0; i < 500; ++i)
            csv += std::to_string(i) + (i % 2 ? ",f," : ",m,") + "person" + std::to_string(i % 40) +
                   "@example.com\n";
        const Outcome out = pseudonymize(csv, {"gender", "id", "email"});
        QVERIFY_RESULT(out.report);
        QCOMPARE(out.report->distinct.size(), std::size_t(3));
        QVERIFY(out.report->distinct[0].few());
        QCOMPARE(out.report->distinct[0].count(), std::size_t(2));
        QVERIFY(!out.report->distinct[1].few()); // 500 ids: counting stopped past the bound
        QCOMPARE(out.report->distinct[1].count(), Csv::FewDistinctValues + 1);
        QVERIFY(!out.report->distinct[2].few()); // 40 addresses: more than the bound
        // An empty column is not "few": there is nothing to guess.
        const Outcome blank = pseudonymize("a,b\n1,\n2,\n", {"b"});
        QVERIFY_RESULT(blank.report);
        QVERIFY(!blank.report->distinct[0].few());

        const int fd = fileWith(csv);
        const auto preview = Csv::previewCsv(fd, Secrets::Pseudonymizer(KeyA), std::nullopt, 5);
        ::close(fd);
        QVERIFY_RESULT(preview);
        QCOMPARE(preview->distinct.size(), std::size_t(3));
        QVERIFY(!preview->distinct[0].few());
        QVERIFY(preview->distinct[1].few());
        QCOMPARE(preview->distinct[1].count(), std::size_t(2));
    }

    void theFilesShapeIsKept()
    {
        // A byte-order mark, CRLF rows and semicolons, as a spreadsheet saves them.
        const std::string csv = "\xEF\xBB\xBFname;city\r\nJosé;Zürich\r\nAnn;Bern\r\n";
        const Outcome out = pseudonymize(csv, {"name"});
        QVERIFY_RESULT(out.report);
        QCOMPARE(out.report->delimiter, ';');
        const Secrets::Pseudonymizer p(KeyA);
        QCOMPARE(out.text, "\xEF\xBB\xBFname;city\r\n" + p("José") + ";Zürich\r\n" + p("Ann") + ";Bern\r\n");
        QCOMPARE(out.report->sourceSha256, sha256Hex(csv));
        QCOMPARE(out.report->resultSha256, sha256Hex(out.text));
        QCOMPARE(out.report->sourceBytes, std::int64_t(csv.size()));
        QCOMPARE(out.report->resultBytes, std::int64_t(out.text.size()));

        // Tabs.
        const Outcome tabs = pseudonymize("a\tb\n1\tx y\n2\tz\n", {"b"});
        QVERIFY_RESULT(tabs.report);
        QCOMPARE(tabs.report->delimiter, '\t');
        QCOMPARE(tabs.text, "a\tb\n1\t" + p("x y") + "\n2\t" + p("z") + "\n");
        // A last row without a line break is kept, and gets none.
        const Outcome last = pseudonymize("k,v\n1,end", {"v"});
        QVERIFY_RESULT(last.report);
        QCOMPARE(last.text, "k,v\n1," + p("end") + "\n");
    }

    void columnsByPositionAndHeaderGuesses()
    {
        const Secrets::Pseudonymizer p(KeyA);
        // No header: every row is data, columns are named by position.
        const Outcome plain = pseudonymize("alice,31\nbob,45\n", {"1"});
        QVERIFY_RESULT(plain.report);
        QVERIFY(!plain.report->header);
        QCOMPARE(plain.report->columns, (std::vector<std::string>{"column 1"}));
        QCOMPARE(plain.text, p("alice") + ",31\n" + p("bob") + ",45\n");
        // A header over numbers is guessed; a position then skips it.
        const Outcome numbered = pseudonymize("user,age\nalice,31\n", {"1"});
        QVERIFY_RESULT(numbered.report);
        QVERIFY(numbered.report->header);
        QCOMPARE(numbered.text, "user,age\n" + p("alice") + ",31\n");
        // Told there is no header, the first row is data.
        const Outcome told = pseudonymize("user,age\nalice,31\n", {"1"}, KeyA, false);
        QVERIFY_RESULT(told.report);
        QCOMPARE(told.text, p("user") + ",age\n" + p("alice") + ",31\n");
        // A row too short for the column is counted and left as it is.
        const Outcome ragged = pseudonymize("a,b,c\n1,2,3\n4\n", {"c"});
        QVERIFY_RESULT(ragged.report);
        QCOMPARE(ragged.report->shortRows, std::size_t(1));
        QCOMPARE(ragged.text, "a,b,c\n1,2," + p("3") + "\n4\n");
    }

    // A wrong guess would send a row in as it is: the reader refuses what it cannot tell apart.
    void whatCouldGoInRawIsRefusedOrReadSafely()
    {
        const Secrets::Pseudonymizer p(KeyA);
        // No header, no number to tell: positions alone cannot say whether row 1 is data.
        const std::string people = "alice@example.com,Alice Smith\nbob@ex.org,Bob Jones\n";
        QCOMPARE(pseudonymize(people, {"1"}).report.error().code(), std::string("csv.header_unknown"));
        QVERIFY(pseudonymize(people, {"1"}).report.error().message().find("alice") == std::string::npos);
        const Outcome told = pseudonymize(people, {"1"}, KeyA, false);
        QVERIFY_RESULT(told.report);
        QCOMPARE(told.text, p("alice@example.com") + ",Alice Smith\n" + p("bob@ex.org") + ",Bob Jones\n");
        // A number is a position, even when a value of the first row reads the same.
        const Outcome numbers = pseudonymize("7,3,alice@x.org\n8,4,bob@y.org\n", {"3"});
        QVERIFY_RESULT(numbers.report);
        QCOMPARE(numbers.text, "7,3," + p("alice@x.org") + "\n8,4," + p("bob@y.org") + "\n");
        // One column whose values hold commas: each value is one value.
        const Outcome names = pseudonymize("name\nSmith, John\nDoe\nRoe\n", {"name"});
        QVERIFY_RESULT(names.report);
        QCOMPARE(names.text, "name\n" + p("Smith, John") + "\n" + p("Doe") + "\n" + p("Roe") + "\n");
        // A row wider than the first: a value with an unquoted delimiter, refused with its row.
        const Outcome wide = pseudonymize("name,email\nSmith, John,j@x.org\nDoe,d@x.org\n", {"email"});
        QCOMPARE(wide.report.error().code(), std::string("csv.ragged"));
        QVERIFY(wide.report.error().message().find("row 2") != std::string::npos);
        // Trailing empty fields are not a wider row.
        QVERIFY_RESULT(pseudonymize("name,email\nDoe,d@x.org,,\n", {"email"}).report);
        // The line ending is the first row's, not one inside a quoted field.
        const Outcome ending = pseudonymize("\"a\nb\",c\r\n1,2\r\n", {"c"}, KeyA, true);
        QVERIFY_RESULT(ending.report);
        QCOMPARE(ending.text, "\"a\nb\",c\r\n1," + p("2") + "\r\n");
        // The result may not outgrow the room it was given.
        QCOMPARE(pseudonymize("v\na\nb\nc\n", {"v"}, KeyA, std::nullopt, 40).report.error().code(),
                 std::string("csv.too_large"));
        // A first MiB that holds only the header and one long row is still read.
        const std::string longRow = "id,text\n1,\"" + std::string(1500 * 1024, 'x') + "\"\n2,short\n";
        const Outcome longOne = pseudonymize(longRow, {"text"});
        QVERIFY_RESULT(longOne.report);
        QCOMPARE(longOne.report->values, std::size_t(2));
    }

    void badFilesAreRefusedWithWhere()
    {
        const auto code = [](const std::string &csv, std::vector<std::string> columns = {"a"}) {
            const Outcome out = pseudonymize(csv, std::move(columns));
            return out.report ? std::string("ok") : out.report.error().code();
        };
        QCOMPARE(code("a,b\n\xE9t\xE9,1\n"), std::string("csv.encoding")); // Latin-1
        QCOMPARE(code(std::string("\xFF\xFE"
                                  "a\0,\0b\0",
                                  8)),
                 std::string("csv.encoding"));
        QCOMPARE(code(std::string("a,b\nx\0y,1\n", 10)), std::string("csv.encoding"));
        QCOMPARE(code("a,b\n\"open,1\n2,3\n"), std::string("csv.malformed"));
        QCOMPARE(code("a,b\n1,2\n3,x\"y\"\n"), std::string("csv.malformed"));
        QCOMPARE(code(""), std::string("csv.empty"));
        QCOMPARE(code("a,b\n1,2\n", {}), std::string("csv.no_columns"));
        const Outcome missing = pseudonymize("name,email,visits\nx,y,3\n", {"phone"});
        QCOMPARE(missing.report.error().code(), std::string("csv.no_column"));
        QVERIFY(missing.report.error().message().find("name, email, visits") != std::string::npos);
        QCOMPARE(code("name,email\nx,y\n", {"3"}), std::string("csv.no_column"));
        // Invalid UTF-8 further down is found where it is, past the sniffed start.
        std::string big = "a,b\n";
        while (big.size() < 3 * 1024 * 1024)
            big += "plain,row\n";
        const Outcome late = pseudonymize(big + "\xC3\x28,x\n", {"a"});
        QCOMPARE(late.report.error().code(), std::string("csv.encoding"));
        QVERIFY(late.report.error().message().find("row ") != std::string::npos);
    }

    void aLargeFileStreamsThrough()
    {
        std::string csv = "id,email\n";
        std::size_t rows = 0;
        for (; csv.size() < 5 * 1024 * 1024; ++rows)
            csv += std::to_string(rows) + ",\"user" + std::to_string(rows) + "@example.com\"\n";
        const Outcome out = pseudonymize(csv, {"email"});
        QVERIFY_RESULT(out.report);
        QCOMPARE(out.report->rows, rows);
        QCOMPARE(out.report->values, rows);
        const std::vector<Row> read = rowsOf(out.text);
        QCOMPARE(read.size(), rows + 1);
        QCOMPARE(read.back().at(1),
                 Secrets::Pseudonymizer(KeyA)("user" + std::to_string(rows - 1) + "@example.com"));
        QCOMPARE(out.report->resultSha256, sha256Hex(out.text));
    }

    void thePreviewShowsRowsAndTheirPseudonyms()
    {
        const int fd = fileWith("name,email\nAlice,a@x.org\nBob,\nCarol,c@x.org\n");
        auto preview = Csv::previewCsv(fd, Secrets::Pseudonymizer(KeyA), std::nullopt, 2);
        ::close(fd);
        QVERIFY_RESULT(preview);
        QVERIFY(preview->header);
        QCOMPARE(preview->names, (std::vector<std::string>{"name", "email"}));
        QCOMPARE(preview->rows.size(), std::size_t(2));
        QCOMPARE(preview->rows[1], (Row{"Bob", ""}));
        QCOMPARE(preview->pseudonyms[1], (Row{Secrets::Pseudonymizer(KeyA)("Bob"), ""}));
        QVERIFY(preview->truncated);
    }
};

QTEST_GUILESS_MAIN(TestCsvPseudonymize)
#include "tst_csvpseudonymize.moc"
