// SPDX-License-Identifier: MIT
#include "scan/artifactscanner.h"

#include "sandbox/secrets/secretmasker.h"
#include "scan/embeddedtext.h"
#include "scan/libarchiveloader.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace Cordon::Scan {

namespace {

// One search may take this many backtracking steps; a pattern that needs more on some input ends that
// search there (the file is still reported on what was found), instead of running for minutes.
constexpr std::uint32_t MatchLimit = 10'000'000;
// Where a text is told from a binary, as git and grep do: a NUL in the first bytes.
constexpr std::size_t BinaryProbeBytes = 8000;
// The longest DNS name.
constexpr std::size_t MaxHostNameBytes = 253;
// Matches of one rule in one text kept before the search stops (scan.incomplete): a file of nothing but
// private addresses must not hold the daemon's memory hostage.
constexpr std::size_t MaxSpansPerRule = 100'000;

struct Span
{
    std::size_t start;
    std::size_t end;
    std::size_t rule; // index in the rules, or SecretRule
    std::string_view secretName;
};
constexpr std::size_t SecretRule = static_cast<std::size_t>(-1);

double entropyBits(std::string_view text)
{
    std::array<std::size_t, 256> counts{};
    for (unsigned char c : text)
        ++counts[c];
    double bits = 0;
    for (std::size_t count : counts) {
        if (count == 0)
            continue;
        const double p = double(count) / double(text.size());
        bits -= p * std::log2(p);
    }
    return bits;
}

// Random-looking enough for a generic assignment: see ScanRule::minEntropy.
bool looksRandom(std::string_view text, double minEntropy)
{
    if (entropyBits(text) < minEntropy)
        return false;
    bool lower = false, upper = false, digit = false, other = false;
    for (unsigned char c : text) {
        lower |= c >= 'a' && c <= 'z';
        upper |= c >= 'A' && c <= 'Z';
        digit |= c >= '0' && c <= '9';
        other |= !((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'));
    }
    return int(lower) + int(upper) + int(digit) + int(other) >= 3 || text.size() >= 20;
}

bool isHostNameByte(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.';
}

std::string starred(std::string_view match)
{
    // At most a quarter at the start and an eighth at the end: enough to recognise a key, never enough to
    // use or guess it.
    const std::size_t head = std::min<std::size_t>(4, match.size() / 4);
    const std::size_t tail = std::min<std::size_t>(2, match.size() / 8);
    std::string out(match.substr(0, head));
    out.append(match.size() - head - tail, '*');
    out.append(match.substr(match.size() - tail));
    // A match may span lines (a PEM header does not, a cookie line does not): keep the excerpt on one.
    std::replace_if(
        out.begin(), out.end(), [](char c) { return c == '\n' || c == '\r' || c == '\t'; }, ' ');
    return out;
}

bool startsWith(std::string_view bytes, std::string_view prefix)
{
    return bytes.substr(0, prefix.size()) == prefix;
}

// Formats whose content cannot be read without a key: kept back by default, as what is too large is.
std::optional<std::string> encryptedFormat(std::string_view bytes)
{
    if (startsWith(bytes, "Salted__"))
        return "openssl enc";
    if (startsWith(bytes, "age-encryption.org/v1\n") ||
        startsWith(bytes, "-----BEGIN AGE ENCRYPTED FILE-----"))
        return "age";
    if (startsWith(bytes, "-----BEGIN PGP MESSAGE-----"))
        return "OpenPGP";
    if (startsWith(bytes, "LUKS\xBA\xBE"))
        return "LUKS";
    // OpenPGP packets (RFC 4880 4.2): a public-key encrypted session key (tag 1, version 3) or a symmetric
    // one (tag 3, version 4 or 5), in the old or the new packet format, as gpg -e and gpg -c begin.
    if (bytes.size() >= 4) {
        const auto tag = static_cast<unsigned char>(bytes[0]);
        const auto version = static_cast<unsigned char>(
            bytes[tag == 0x84 || tag == 0x8C || tag == 0xC1 || tag == 0xC3 ? 2 : 3]);
        if (((tag == 0x84 || tag == 0x85 || tag == 0xC1) && version == 3) ||
            ((tag == 0x8C || tag == 0xC3) && (version == 4 || version == 5)))
            return "OpenPGP";
    }
    return std::nullopt;
}

// A zlib stream of its own (Python's zlib.compress, git objects): its two header bytes are common in text
// ("x^", "x\x01"), so compressed data is also told by a control or high byte in its first bytes.
bool isZlibFile(std::string_view bytes)
{
    if (!isZlibStream(bytes) || bytes.size() < 8)
        return false;
    const std::string_view head = bytes.substr(2, 62);
    return std::any_of(head.begin(), head.end(), [](char c) {
        const auto byte = static_cast<unsigned char>(c);
        return byte >= 0x80 || (byte < 0x20 && byte != '\n' && byte != '\r' && byte != '\t');
    });
}

} // namespace

struct ArtifactScanner::Compiled
{
    std::vector<ScanRule> rules;
    std::vector<pcre2_code *> codes;
    pcre2_match_context *context = nullptr;
    pcre2_jit_stack *jitStack = nullptr;
    const Secrets::SecretMasker *secrets = nullptr;
    ScanLimits limits;

    ~Compiled()
    {
        for (pcre2_code *code : codes)
            pcre2_code_free(code);
        pcre2_match_context_free(context);
        pcre2_jit_stack_free(jitStack);
    }

    // Every match of every rule and secret in `bytes`, in order; overlapping ones become one span, their
    // union, named after the most severe. `incomplete` is set when a search hit its match limit, or a rule
    // its MaxSpansPerRule, so that the text was not searched to its end.
    std::vector<Span> spans(std::string_view bytes, bool &incomplete) const;
    void scanContent(std::string_view bytes, const std::string &path, int depth, std::int64_t &budget,
                     std::vector<Finding> &findings) const;
    void scanArchive(std::string_view bytes, const std::string &path, int depth, std::int64_t &budget,
                     std::vector<Finding> &findings) const;
    // Text decoded out of `bytes` (embeddedtext.h), each scanned as a member named path!zlib,
    // path!stream@OFFSET, path!utf-16, path!data@OFFSET; within the same depth and budget as archives.
    void scanEncoded(std::string_view bytes, bool binary, const std::string &path, int depth,
                     std::int64_t &budget, std::vector<Finding> &findings) const;
    // A member's content, decoded or inflated: one level deeper, its size taken from the budget.
    void scanDecoded(std::string_view decoded, const std::string &member, int depth, std::int64_t &budget,
                     std::vector<Finding> &findings) const;
    void scanInflated(std::string_view stream, const std::string &member, int depth, std::int64_t &budget,
                      std::vector<Finding> &findings) const;
    // The findings in a name (a file's or an archive member's): a value there ends up in the user's folder.
    void scanName(std::string_view name, const std::string &path, std::vector<Finding> &findings) const;
    bool blocksByDefault(const Span &span) const
    {
        return span.rule == SecretRule || rules[span.rule].severity == Severity::High;
    }
};

std::vector<Span> ArtifactScanner::Compiled::spans(std::string_view bytes, bool &incomplete) const
{
    std::vector<Span> found;
    pcre2_match_data *data = nullptr;
    for (std::size_t index = 0; index < codes.size(); ++index) {
        pcre2_match_data_free(data);
        data = pcre2_match_data_create_from_pattern(codes[index], nullptr);
        PCRE2_SIZE from = 0;
        std::size_t previousEnd = 0;
        std::size_t ofRule = 0;
        while (from <= bytes.size()) {
            const int matched = pcre2_match(codes[index], reinterpret_cast<PCRE2_SPTR>(bytes.data()),
                                            bytes.size(), from, 0, data, context);
            if (matched < 0) {
                // No more matches; anything else (the match limit, the JIT stack) left text unsearched.
                incomplete |= matched != PCRE2_ERROR_NOMATCH;
                break;
            }
            if (++ofRule > MaxSpansPerRule) {
                incomplete = true;
                break;
            }
            const PCRE2_SIZE *vector = pcre2_get_ovector_pointer(data);
            // The first group when the rule has one and it took part, else the whole match.
            const bool grouped = matched >= 2 && vector[2] != PCRE2_UNSET;
            std::size_t start = grouped ? vector[2] : vector[0];
            const std::size_t end = grouped ? vector[3] : vector[1];
            const ScanRule &rule = rules[index];
            if (rule.extendOverHostName) {
                // A host name is at most 253 bytes, and never reaches back into the previous match: a text
                // of "a.lan.lan..." would otherwise be walked back over at every match.
                const std::size_t floor =
                    std::max(previousEnd, start > MaxHostNameBytes ? start - MaxHostNameBytes : 0);
                while (start > floor && isHostNameByte(bytes[start - 1]))
                    --start;
            }
            previousEnd = end;
            if (rule.minEntropy <= 0 || looksRandom(bytes.substr(start, end - start), rule.minEntropy))
                found.push_back({start, end, index, {}});
            from = vector[1] > vector[0] ? vector[1] : vector[0] + 1;
        }
    }
    pcre2_match_data_free(data);
    if (secrets) {
        for (const Secrets::SecretMasker::Occurrence &occurrence : secrets->occurrences(bytes))
            found.push_back({occurrence.start, occurrence.end, SecretRule, occurrence.name});
    }
    const auto severity = [this](const Span &span) {
        return span.rule == SecretRule ? 3 : int(rules[span.rule].severity);
    };
    std::sort(found.begin(), found.end(), [&](const Span &a, const Span &b) {
        if (a.start != b.start)
            return a.start < b.start;
        return severity(a) > severity(b);
    });
    std::vector<Span> kept;
    for (const Span &span : found) {
        if (!kept.empty() && span.start < kept.back().end) {
            // One place, one finding: the union of overlapping matches (a redaction must cover all of
            // them), named after the most severe.
            Span &last = kept.back();
            last.end = std::max(last.end, span.end);
            if (severity(span) > severity(last)) {
                last.rule = span.rule;
                last.secretName = span.secretName;
            }
            continue;
        }
        kept.push_back(span);
    }
    return kept;
}

void ArtifactScanner::Compiled::scanContent(std::string_view bytes, const std::string &path, int depth,
                                            std::int64_t &budget, std::vector<Finding> &findings) const
{
    if (isArchive(bytes)) {
        if (depth >= limits.maxArchiveDepth)
            findings.push_back({path, 0, 0, "archive.bomb", Severity::High,
                                "archives nested more than " + std::to_string(limits.maxArchiveDepth) +
                                    " deep: not opened"});
        else
            scanArchive(bytes, path, depth + 1, budget, findings);
        // And the archive's own bytes below: text appended to it, a zip comment, an uncompressed tar's
        // contents are there and in no member.
    }
    const bool binary = std::memchr(bytes.data(), '\0', std::min(bytes.size(), BinaryProbeBytes)) != nullptr;
    if (const std::optional<std::string> format = encryptedFormat(bytes))
        findings.push_back(
            {path, 0, 0, "scan.encrypted", Severity::High, *format + " encrypted: not scanned"});
    scanEncoded(bytes, binary, path, depth, budget, findings);
    // The list is capped, but never at the cost of a finding that keeps the file back.
    std::size_t listed = 0, blocking = 0;
    for (const Finding &finding : findings)
        ++(isBlockingByDefault(finding) ? blocking : listed);
    std::int64_t line = 1;
    std::size_t counted = 0;
    bool incomplete = false;
    for (const Span &span : spans(bytes, incomplete)) {
        const bool isSecret = span.rule == SecretRule;
        const bool blocks = blocksByDefault(span);
        if ((blocks ? blocking : listed) >= limits.maxFindingsPerFile)
            continue;
        ++(blocks ? blocking : listed);
        line += std::count(bytes.begin() + counted, bytes.begin() + span.start, '\n');
        counted = span.start;
        Finding finding{path, binary ? 0 : line, std::int64_t(span.start), {}, Severity::High, {}};
        if (isSecret) {
            finding.rule = "secret.value";
            finding.excerpt = "[secret:" + std::string(span.secretName) + "]";
        } else {
            finding.rule = rules[span.rule].name;
            finding.severity = rules[span.rule].severity;
            finding.excerpt = starred(bytes.substr(span.start, span.end - span.start));
        }
        findings.push_back(std::move(finding));
    }
    if (incomplete)
        findings.push_back({path, 0, 0, "scan.incomplete", Severity::Medium,
                            "a search stopped at its bound before the end: not fully scanned"});
}

void ArtifactScanner::Compiled::scanArchive(std::string_view bytes, const std::string &path, int depth,
                                            std::int64_t &budget, std::vector<Finding> &findings) const
{
    const Result<LibArchive> &loaded = libArchive();
    if (!loaded) {
        findings.push_back(
            {path, 0, 0, "archive.unreadable", Severity::Medium, "not scanned: " + loaded.error().message()});
        return;
    }
    const LibArchive &lib = *loaded;
    std::unique_ptr<archive, int (*)(archive *)> reader(lib.readNew(), lib.readFree);
    if (!reader) {
        findings.push_back(
            {path, 0, 0, "archive.unreadable", Severity::Medium, "not scanned: out of memory"});
        return;
    }
    // Every filter libarchive has (gzip, bzip2, xz, lzma, zstd, lz4, compress, lzip; Debian's links their
    // libraries), and the formats people pack outputs in; raw for one compressed file (`xz notes.txt`). A
    // filter that needs an external program (lrzip, lzop) fails here, and its file is not scanned.
    lib.supportFilterAll(reader.get());
    lib.supportFormatZip(reader.get());
    lib.supportFormatTar(reader.get());
    lib.supportFormatGnutar(reader.get());
    lib.supportFormat7zip(reader.get());
    lib.supportFormatRar(reader.get());
    lib.supportFormatRar5(reader.get());
    lib.supportFormatCpio(reader.get());
    lib.supportFormatRaw(reader.get());
    const auto unreadable = [&](const std::string &where) {
        const char *why = lib.errorString(reader.get());
        findings.push_back({where, 0, 0, "archive.unreadable", Severity::Medium,
                            std::string("not scanned: ") + (why ? why : "a damaged archive")});
    };
    if (lib.openMemory(reader.get(), bytes.data(), bytes.size()) != ARCHIVE_OK) {
        unreadable(path);
        return;
    }
    int members = 0;
    archive_entry *entry = nullptr;
    std::string content;
    std::array<char, 65536> block;
    for (;;) {
        const int next = lib.nextHeader(reader.get(), &entry);
        if (next == ARCHIVE_EOF)
            return;
        if (next < ARCHIVE_WARN) {
            unreadable(path);
            return;
        }
        if (++members > limits.maxArchiveMembers) {
            findings.push_back(
                {path, 0, 0, "archive.bomb", Severity::High,
                 "more than " + std::to_string(limits.maxArchiveMembers) + " members: the rest not scanned"});
            return;
        }
        const char *name = lib.entryPathname(entry);
        const std::string member = path + "!" + (name && *name ? name : "data");
        if (name)
            scanName(name, member, findings);
        if (lib.entryFiletype(entry) != AE_IFREG)
            continue;
        content.clear();
        for (;;) {
            const la_ssize_t got = lib.readData(reader.get(), block.data(), block.size());
            if (got == 0)
                break;
            if (got < 0) {
                unreadable(member);
                return;
            }
            if (budget - got < 0) {
                findings.push_back({member, 0, 0, "archive.bomb", Severity::High,
                                    "expands past " + std::to_string(limits.maxScannedBytes / (1024 * 1024)) +
                                        " MiB: the rest not scanned"});
                return;
            }
            budget -= got;
            content.append(block.data(), std::size_t(got));
        }
        scanContent(content, member, depth, budget, findings);
    }
}

void ArtifactScanner::Compiled::scanEncoded(std::string_view bytes, bool binary, const std::string &path,
                                            int depth, std::int64_t &budget,
                                            std::vector<Finding> &findings) const
{
    if (isZlibFile(bytes))
        scanInflated(bytes, path + "!zlib", depth, budget, findings);
    forEachPdfStream(bytes, [&](std::size_t offset, std::string_view data) {
        scanInflated(data, path + "!stream@" + std::to_string(offset), depth, budget, findings);
    });
    // Only what the probe took for binary: UTF-16 text has a NUL in every other byte.
    if (binary) {
        if (const std::optional<std::string> text = utf16AsUtf8(bytes))
            scanDecoded(*text, path + "!utf-16", depth, budget, findings);
    }
    const std::size_t left = std::size_t(std::max<std::int64_t>(budget, 0));
    forEachDataUri(bytes, left, [&](std::size_t offset, std::string_view decoded, bool truncated) {
        const std::string member = path + "!data@" + std::to_string(offset);
        if (truncated)
            findings.push_back({member, 0, 0, "archive.bomb", Severity::High,
                                "decodes past " + std::to_string(limits.maxScannedBytes / (1024 * 1024)) +
                                    " MiB: the rest not scanned"});
        else
            scanDecoded(decoded, member, depth, budget, findings);
    });
}

void ArtifactScanner::Compiled::scanInflated(std::string_view stream, const std::string &member, int depth,
                                             std::int64_t &budget, std::vector<Finding> &findings) const
{
    const Inflated inflated = inflateZlib(stream, std::size_t(std::max<std::int64_t>(budget, 0)));
    if (inflated.status == Inflated::Status::TooLarge) {
        findings.push_back({member, 0, 0, "archive.bomb", Severity::High,
                            "expands past " + std::to_string(limits.maxScannedBytes / (1024 * 1024)) +
                                " MiB: the rest not scanned"});
        return;
    }
    if (inflated.status == Inflated::Status::Damaged) {
        // What did inflate is still searched; the rest is not, so the file is not fully scanned.
        findings.push_back(
            {member, 0, 0, "archive.unreadable", Severity::Medium, "not scanned: a damaged zlib stream"});
    }
    scanDecoded(inflated.bytes, member, depth, budget, findings);
}

void ArtifactScanner::Compiled::scanDecoded(std::string_view decoded, const std::string &member, int depth,
                                            std::int64_t &budget, std::vector<Finding> &findings) const
{
    if (depth >= limits.maxArchiveDepth) {
        findings.push_back(
            {member, 0, 0, "archive.bomb", Severity::High,
             "encodings nested more than " + std::to_string(limits.maxArchiveDepth) + " deep: not decoded"});
        return;
    }
    if (budget - std::int64_t(decoded.size()) < 0) {
        findings.push_back({member, 0, 0, "archive.bomb", Severity::High,
                            "expands past " + std::to_string(limits.maxScannedBytes / (1024 * 1024)) +
                                " MiB: the rest not scanned"});
        return;
    }
    budget -= std::int64_t(decoded.size());
    scanContent(decoded, member, depth + 1, budget, findings);
}

void ArtifactScanner::Compiled::scanName(std::string_view name, const std::string &path,
                                         std::vector<Finding> &findings) const
{
    bool incomplete = false;
    for (const Span &span : spans(name, incomplete)) {
        // Rule "name.RULE", or name.secret_value: told apart from what the content holds, since the file's
        // name is what a download writes into the user's folder.
        if (span.rule == SecretRule)
            findings.push_back({path, 0, std::int64_t(span.start), "name.secret_value", Severity::High,
                                "[secret:" + std::string(span.secretName) + "]"});
        else
            findings.push_back({path, 0, std::int64_t(span.start),
                                std::string("name.") + rules[span.rule].name, rules[span.rule].severity,
                                starred(name.substr(span.start, span.end - span.start))});
    }
}

ArtifactScanner::ArtifactScanner(std::unique_ptr<Compiled> compiled) : m_compiled(std::move(compiled)) {}
ArtifactScanner::ArtifactScanner(ArtifactScanner &&) noexcept = default;
ArtifactScanner &ArtifactScanner::operator=(ArtifactScanner &&) noexcept = default;
ArtifactScanner::~ArtifactScanner() = default;

Result<ArtifactScanner> ArtifactScanner::create(Options options)
{
    auto compiled = std::make_unique<Compiled>();
    std::vector<std::string> suffixes = defaultInternalSuffixes();
    suffixes.insert(suffixes.end(), options.extraInternalSuffixes.begin(),
                    options.extraInternalSuffixes.end());
    compiled->rules = scanRules(suffixes);
    compiled->secrets = options.secrets;
    compiled->limits = options.limits;
    compiled->context = pcre2_match_context_create(nullptr);
    compiled->jitStack = pcre2_jit_stack_create(32 * 1024, 1024 * 1024, nullptr);
    if (!compiled->context || !compiled->jitStack)
        return fail("scan.bad_rule", "cannot allocate the pattern matcher");
    pcre2_set_match_limit(compiled->context, MatchLimit);
    pcre2_jit_stack_assign(compiled->context, nullptr, compiled->jitStack);
    for (const ScanRule &rule : compiled->rules) {
        int code = 0;
        PCRE2_SIZE offset = 0;
        pcre2_code *pattern = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(rule.pattern.c_str()),
                                            PCRE2_ZERO_TERMINATED, 0, &code, &offset, nullptr);
        if (!pattern) {
            PCRE2_UCHAR message[256];
            pcre2_get_error_message(code, message, sizeof message);
            return fail("scan.bad_rule", std::string("rule ") + rule.name + " does not compile at byte " +
                                             std::to_string(offset) + ": " +
                                             reinterpret_cast<char *>(message));
        }
        // Without JIT (a kernel that refuses executable memory) the interpreter runs the same patterns.
        pcre2_jit_compile(pattern, PCRE2_JIT_COMPLETE);
        compiled->codes.push_back(pattern);
    }
    return ArtifactScanner(std::move(compiled));
}

std::vector<Finding> ArtifactScanner::scan(std::string_view bytes, const std::string &path) const
{
    std::vector<Finding> findings;
    std::int64_t budget = m_compiled->limits.maxScannedBytes;
    m_compiled->scanContent(bytes, path, 0, budget, findings);
    return findings;
}

Result<std::vector<Finding>> ArtifactScanner::scanFile(int fd, const std::string &path) const
{
    struct stat status
    {
    };
    if (::fstat(fd, &status) != 0)
        return failErrno("scan.read", "stat " + path, errno);
    const std::int64_t cap = m_compiled->limits.maxScannedBytes;
    if (status.st_size > cap)
        return std::vector<Finding>{
            {path, 0, 0, "scan.too_large", Severity::Medium,
             "larger than " + std::to_string(cap / (1024 * 1024)) + " MiB: not scanned"}};
    if (status.st_size == 0)
        return scan({}, path);
    // Read, not mapped: a mapping of the file dies with SIGBUS, and the daemon with it, when the file
    // shrinks or its file system fails (a pending copy on NFS or FUSE has a name others may reach). The
    // buffer is anonymous memory populated in one call: faulting its pages in one by one as the read fills
    // them cost as much as the scan on these machines (docs/benchmarks.md).
    const std::size_t size = std::size_t(status.st_size);
    void *memory =
        ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (memory == MAP_FAILED)
        return failErrno("scan.read", "allocate " + std::to_string(size) + " bytes to scan " + path, errno);
    const std::unique_ptr<char, std::function<void(char *)>> buffer(
        static_cast<char *>(memory), [size](char *mapped) { ::munmap(mapped, size); });
    std::size_t filled = 0;
    while (filled < size) {
        const ssize_t got = ::pread(fd, buffer.get() + filled, size - filled, off_t(filled));
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return failErrno("scan.read", "read " + path, errno);
        if (got == 0)
            break; // shorter than it was: scan what is there
        filled += std::size_t(got);
    }
    return scan({buffer.get(), filled}, path);
}

std::vector<Finding> ArtifactScanner::scanName(const std::string &path) const
{
    std::vector<Finding> findings;
    m_compiled->scanName(path, path, findings);
    return findings;
}

bool isBlockingByDefault(const Finding &finding)
{
    const std::string_view rule = finding.rule;
    // A file's or folder's name is saved masked instead (ArtifactInspection::maskedName): what it held does
    // not leave. An archive member's name cannot be rewritten: it would leave inside the archive.
    if (rule.substr(0, 5) == "name.")
        return finding.severity == Severity::High && finding.path.find('!') != std::string::npos;
    return finding.severity == Severity::High || rule == "secret.value" || rule.substr(0, 8) == "archive." ||
           rule.substr(0, 5) == "scan.";
}

bool ArtifactScanner::isArchive(std::string_view bytes)
{
    // By magic bytes (each format's own specification), never by name: a name is the sandbox's to choose.
    static constexpr std::string_view Magic[] = {
        "PK\x03\x04",         // zip, a local file header
        "PK\x05\x06",         // zip, an empty archive's end record
        "\x1f\x8b",           // gzip
        "\xFD\x37zXZ",        // xz
        "BZh",                // bzip2, then the block size and a block's magic
        "\x28\xB5\x2F\xFD",   // zstd
        "\x04\x22\x4D\x18",   // lz4 frame
        "\x02\x21\x4C\x18",   // lz4 legacy (lz4 -l)
        "\x1F\x9D",           // compress (.Z)
        "LZIP\x01",           // lzip
        "7z\xBC\xAF\x27\x1C", // 7-Zip
        "Rar!\x1A\x07",       // RAR 4 and 5
    };
    for (std::string_view magic : Magic) {
        if (startsWith(bytes, magic))
            return magic != "BZh" || (bytes.size() >= 10 && bytes.substr(4, 6) == "1AY&SY");
    }
    return bytes.size() >= 262 && bytes.substr(257, 5) == "ustar";
}

std::optional<std::string> ArtifactScanner::redacted(std::string_view bytes) const
{
    bool incomplete = false;
    const std::vector<Span> spans = m_compiled->spans(bytes, incomplete);
    if (incomplete)
        return std::nullopt;
    std::string out;
    out.reserve(bytes.size());
    std::size_t from = 0;
    for (const Span &span : spans) {
        out.append(bytes.substr(from, span.start - from));
        out += span.rule == SecretRule ? "[secret:" + std::string(span.secretName) + "]"
                                       : "[redacted:" + std::string(m_compiled->rules[span.rule].name) + "]";
        from = span.end;
    }
    out.append(bytes.substr(from));
    return out;
}

const std::vector<ScanRule> &ArtifactScanner::rules() const
{
    return m_compiled->rules;
}

} // namespace Cordon::Scan
