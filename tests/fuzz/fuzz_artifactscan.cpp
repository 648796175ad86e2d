// SPDX-License-Identifier: MIT
// Fuzzes the artifact scan (scan/artifactscanner.h) on bytes a sandboxed program chose: text, binaries, archives
// and compressed files nested in each other (zip, tar, 7z, gzip, xz, bzip2, zstd, lz4), which libarchive opens,
// zlib and PDF streams, UTF-16 and data URIs, which the scan decodes (scan/embeddedtext.h), and file names. Besides memory
// errors it checks what a download relies on: every finding points inside the bytes it names (top level) and
// says why, and the scan ends within its bounds (the fuzzer's -timeout catches a hang).
#include "sandbox/secrets/secretmasker.h"
#include "scan/artifactscanner.h"

#include <cstdint>
#include <cstdlib>
#include <string>

using namespace Cordon;

namespace {

void check(bool condition)
{
    if (!condition)
        std::abort();
}

const Scan::ArtifactScanner &scanner()
{
    static Secrets::SecretMasker masker = [] {
        Secrets::SecretMasker made;
        (void)made.add("API_TOKEN", "tok-9f8e/7d6c+5b4a=0123");
        return made;
    }();
    static Scan::ArtifactScanner scanner = [] {
        Scan::ArtifactScanner::Options options;
        options.secrets = &masker;
        options.limits.maxScannedBytes = 4 * 1024 * 1024;
        options.limits.maxArchiveMembers = 64;
        auto created = Scan::ArtifactScanner::create(std::move(options));
        if (!created)
            std::abort();
        return std::move(*created);
    }();
    return scanner;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const std::string_view bytes(reinterpret_cast<const char *>(data), size);
    for (const Scan::Finding &finding : scanner().scan(bytes, "f")) {
        check(!finding.rule.empty() && !finding.excerpt.empty());
        if (finding.path == "f" && finding.rule.rfind("archive.", 0) != 0)
            check(finding.offset >= 0 && std::size_t(finding.offset) < size);
    }
    if (!Scan::ArtifactScanner::isArchive(bytes))
        (void)scanner().redacted(bytes);
    // The same bytes as a name (at most a path's length): every finding points inside it.
    const std::string name(bytes.substr(0, 4096));
    for (const Scan::Finding &finding : scanner().scanName(name))
        check(finding.rule.rfind("name.", 0) == 0 && std::size_t(finding.offset) < name.size());
    return 0;
}
