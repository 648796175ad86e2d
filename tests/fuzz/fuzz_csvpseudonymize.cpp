// SPDX-License-Identifier: MIT
// Fuzzes CSV pseudonymisation (pseudonymize/csvpseudonymizer.h) on files a user uploads: any bytes, as libcsv,
// the dialect guess and the rewrite see them. Besides memory errors it checks what an upload relies on: a file
// accepted comes out as CSV that reads back with the same number of rows, every value of the chosen column a
// pseudonym or empty, and the recorded sha256s are of the bytes read and written.
#include "pseudonymize/csvpseudonymizer.h"
#include "sandbox/sha256.h"

#include <cstdint>
#include <cstdlib>
#include <string>
#include <sys/mman.h>
#include <unistd.h>

using namespace Cordon;

namespace {

void check(bool condition)
{
    if (!condition)
        std::abort();
}

int memoryFile(const std::string &bytes)
{
    const int fd = ::memfd_create("fuzz", MFD_CLOEXEC);
    check(fd >= 0);
    check(::write(fd, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size()));
    ::lseek(fd, 0, SEEK_SET);
    return fd;
}

std::string contents(int fd)
{
    std::string out;
    ::lseek(fd, 0, SEEK_SET);
    char buffer[65536];
    for (ssize_t got; (got = ::read(fd, buffer, sizeof buffer)) > 0;)
        out.append(buffer, static_cast<std::size_t>(got));
    return out;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const std::string input(reinterpret_cast<const char *>(data), size);
    const Secrets::Pseudonymizer pseudonyms(std::string(32, 'k'));
    const int source = memoryFile(input);
    const int target = ::memfd_create("out", MFD_CLOEXEC);
    Csv::PseudonymizeOptions options;
    options.positions = {0};
    auto report = Csv::pseudonymizeCsv(source, target, pseudonyms, options);
    if (report) {
        const std::string output = contents(target);
        check(report->sourceSha256 == sha256Hex(input));
        check(report->resultSha256 == sha256Hex(output));
        std::size_t rows = 0;
        bool allPseudonyms = true;
        Csv::Reader reader(report->delimiter);
        const Csv::RowHandler count = [&](Csv::Row &row, std::size_t number) -> Result<> {
            ++rows;
            if ((number > 1 || !report->header) && !row.empty() && !row[0].empty())
                allPseudonyms = allPseudonyms && row[0].rfind(Secrets::PseudonymPrefix, 0) == 0;
            return {};
        };
        const std::string_view body = std::string_view(output).substr(Csv::byteOrderMarkSize(output));
        check(reader.feed(body, count).has_value() && reader.finish(count).has_value());
        check(rows == report->rows + (report->header ? 1 : 0));
        check(allPseudonyms);
    }
    ::lseek(source, 0, SEEK_SET);
    (void)Csv::previewCsv(source, pseudonyms, std::nullopt, 10);
    ::close(source);
    ::close(target);
    return 0;
}
