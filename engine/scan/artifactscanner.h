// SPDX-License-Identifier: MIT
// The artifact scan (docs/artifact-scan.md): what a file about to leave a container holds that should not
// leave with it. The rules of scanrules.h, matched with PCRE2 (JIT, a match limit per search, so every rule
// ends in bounded time), and the values of the container's secrets in every form the masker knows. Archives
// and compressed files are opened with libarchive and their members scanned in turn, nested archives too,
// and encoded text decoded (embeddedtext.h), within Limits: an archive that would pass them is a finding
// (archive.bomb), never a hang; an encrypted file is one too (scan.encrypted). Plain C++.
#pragma once

#include "sandbox/error.h"
#include "scan/scanrules.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace Cordon::Secrets {
class SecretMasker;
}

namespace Cordon::Scan {

struct ScanLimits
{
    std::int64_t maxScannedBytes = 256 * 1024 * 1024; // a file, or all of an archive's members expanded
    int maxArchiveDepth = 3;                          // archives inside archives
    int maxArchiveMembers = 10000;                    // in one archive, nested ones counted in theirs
    // Listed per file, and as many again of those that keep a file back; the scan itself goes on.
    std::size_t maxFindingsPerFile = 200;
};

// What keeps a file back under the default policy: a high-severity finding (a private key, a cloud or
// service token, a secret's value, in the content or the name), and anything not fully scanned
// (archive.bomb, archive.unreadable, scan.too_large, scan.incomplete, scan.encrypted): the scan fails
// closed. The rest (internal addresses, cookies, generic assignments) is a warning, and so is a finding in a
// file's name (name.*): the name is saved masked; one in an archive member's name cannot be, and blocks.
bool isBlockingByDefault(const Finding &finding);

class ArtifactScanner
{
public:
    struct Options
    {
        const Secrets::SecretMasker *secrets = nullptr; // the container's secrets; may be null
        std::vector<std::string> extraInternalSuffixes; // the organisation's, added to the defaults
        ScanLimits limits;
    };

    // scan.bad_rule when a pattern does not compile (a rule table or a suffix list mistake).
    static Result<ArtifactScanner> create(Options options);
    ArtifactScanner(ArtifactScanner &&) noexcept;
    ArtifactScanner &operator=(ArtifactScanner &&) noexcept;
    ~ArtifactScanner();

    // The findings in `bytes`, the content of the file `path`; archives are opened, and zlib streams, PDF
    // content streams, UTF-16 text and base64 data URIs decoded.
    std::vector<Finding> scan(std::string_view bytes, const std::string &path) const;
    // Reads the regular file open at `fd` (at most limits.maxScannedBytes; a larger file is a scan.too_large
    // finding) and scans it. scan.read on a read error.
    Result<std::vector<Finding>> scanFile(int fd, const std::string &path) const;

    // The findings in `path` itself, a relative path (name.secret_value, name.RULE): a name is saved in the
    // user's folder and printed, so a value in it leaves as surely as one in the content.
    std::vector<Finding> scanName(const std::string &path) const;

    // Whether `bytes` is an archive or a compressed file this scanner opens (zip, tar, 7z, rar, and gzip,
    // bzip2, xz, zstd, lz4, compress, lzip streams): such a file is refused, not
    // redacted, under "redact" (its members cannot be rewritten in place).
    static bool isArchive(std::string_view bytes);
    // `bytes` with every finding's match replaced: [redacted:RULE], or [secret:NAME] for a value; nullopt
    // when a search stopped at its bound before the end (what it did not reach cannot be redacted).
    std::optional<std::string> redacted(std::string_view bytes) const;

    // The rules in use, for tests and `cordon doctor`.
    const std::vector<ScanRule> &rules() const;

private:
    struct Compiled;
    explicit ArtifactScanner(std::unique_ptr<Compiled> compiled);
    std::unique_ptr<Compiled> m_compiled;
};

} // namespace Cordon::Scan
