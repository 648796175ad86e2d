// SPDX-License-Identifier: MIT
// The artifact scan's speed on text (docs/benchmarks.md): ArtifactScanner::scanFile over a file, timed.
//   artifact-scan-bench corpus PATH MIB   writes MIB MiB of log- and code-like text with a finding every ~64
//   KiB artifact-scan-bench patterns PATH     writes the rules' patterns, one a line (the peer, grep -P,
//   reads them) artifact-scan-bench scan PATH         scans the file with every rule and one secret; prints
//                                         "<seconds> <MB/s> <findings>"
#include "sandbox/secrets/secretmasker.h"
#include "scan/artifactscanner.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <random>
#include <string>
#include <unistd.h>

namespace {

int writeCorpus(const char *path, long mebibytes)
{
    static const char *const Lines[] = {
        "2026-12-03T16:55:01.123Z INFO  worker-3 processed batch 1842 in 12.4 ms (rows=512, retries=0)\n",
        "    for index, row in enumerate(frame.itertuples()):\n",
        "        total += row.amount * rates.get(row.currency, 1.0)\n",
        "{\"id\": 48213, \"name\": \"Widget 7\", \"price\": 19.99, \"tags\": [\"blue\", \"small\"]}\n",
        "GET /api/v2/items?page=3&limit=100 HTTP/1.1 200 1532 \"python-requests/2.31\"\n",
        "def normalise(values: list[float]) -> list[float]:\n",
        "# Compute the weighted mean of each group; missing weights count as one.\n",
        "2026-12-03T16:55:01.456Z WARN  cache miss for key user:1842:profile, fetching from origin\n",
    };
    static const char *const Findings[] = {
        "aws_access_key_id = AKIAQ3EXAMPLE7JX2KPL\n",
        "export GITHUB_TOKEN=ghp_R2d2C3poExampleTokenValue0123456789ab\n",
        "db_host: 10.20.30.40\n",
        "Set-Cookie: session=8f14e45fceea167a5a36dedd4bea2543; Path=/\n",
    };
    std::ofstream out(path, std::ios::binary);
    std::mt19937 random(42);
    const long target = mebibytes * 1024 * 1024;
    long written = 0, sinceFinding = 0;
    std::size_t nextFinding = 0;
    while (written < target) {
        const char *line = Lines[random() % std::size(Lines)];
        if (sinceFinding > 64 * 1024) {
            line = Findings[nextFinding++ % std::size(Findings)];
            sinceFinding = 0;
        }
        const long length = long(std::strlen(line));
        out.write(line, length);
        written += length;
        sinceFinding += length;
    }
    return out ? 0 : 1;
}

int writePatterns(const char *path)
{
    auto scanner = Cordon::Scan::ArtifactScanner::create({});
    if (!scanner)
        return 1;
    std::ofstream out(path);
    for (const Cordon::Scan::ScanRule &rule : scanner->rules())
        out << rule.pattern << "\n";
    return out ? 0 : 1;
}

int scan(const char *path)
{
    Cordon::Secrets::SecretMasker masker;
    if (!masker.add("API_TOKEN", "tok-9f8e/7d6c+5b4a=0123456789"))
        return 1;
    Cordon::Scan::ArtifactScanner::Options options;
    if (!std::getenv("BENCH_NO_SECRETS"))
        options.secrets = &masker;
    options.limits.maxScannedBytes = 1024L * 1024 * 1024;
    options.limits.maxFindingsPerFile = 1'000'000;
    auto scanner = Cordon::Scan::ArtifactScanner::create(std::move(options));
    const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
    if (!scanner || fd < 0)
        return 1;
    const off_t size = ::lseek(fd, 0, SEEK_END);
    const auto start = std::chrono::steady_clock::now();
    auto findings = scanner->scanFile(fd, path);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ::close(fd);
    if (!findings)
        return 1;
    std::printf("%.3f %.1f %zu\n", seconds, double(size) / 1e6 / seconds, findings->size());
    return 0;
}

} // namespace

int main(int argc, char *argv[])
{
    if (argc == 4 && std::strcmp(argv[1], "corpus") == 0)
        return writeCorpus(argv[2], std::atol(argv[3]));
    if (argc == 3 && std::strcmp(argv[1], "patterns") == 0)
        return writePatterns(argv[2]);
    if (argc == 3 && std::strcmp(argv[1], "scan") == 0)
        return scan(argv[2]);
    std::fprintf(stderr, "usage: artifact-scan-bench corpus PATH MIB | patterns PATH | scan PATH\n");
    return 2;
}
