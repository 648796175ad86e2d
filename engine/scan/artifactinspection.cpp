// SPDX-License-Identifier: MIT
#include "scan/artifactinspection.h"

#include "sandbox/readall.h"
#include "sandbox/sha256.h"

#include <algorithm>
#include <unistd.h>

namespace Cordon::Scan {

namespace {

// The findings as a refusal's reason: the first few, each "rule (line N)".
std::string summary(const std::vector<Finding> &findings)
{
    std::string text = "the artifact scan found ";
    for (std::size_t i = 0; i < findings.size() && i < 3; ++i) {
        const Finding &finding = findings[i];
        text += (i ? ", " : "") + finding.rule;
        if (finding.line > 0)
            text += " (line " + std::to_string(finding.line) + ")";
        else if (finding.path.find('!') != std::string::npos)
            text += " (in " + finding.path.substr(finding.path.find('!') + 1) + ")";
    }
    if (findings.size() > 3)
        text += " and " + std::to_string(findings.size() - 3) + " more";
    return text;
}

bool blocks(Policy::ArtifactScan mode, const std::vector<Finding> &findings)
{
    if (mode == Policy::ArtifactScan::Block)
        return true;
    // The default: a high-severity finding (a key, a token, a secret's value) never leaves, nor does what
    // could not be fully scanned; the rest is worth a warning. Under "warn" nothing is kept back.
    if (mode == Policy::ArtifactScan::Warn)
        return false;
    return std::any_of(findings.begin(), findings.end(),
                       [](const Finding &finding) { return isBlockingByDefault(finding); });
}

// Why a file with these findings cannot be redacted, or empty when it can: a redaction replaces matches
// in place, so it needs the whole text searched, and a private key's body is not part of its match.
std::string unredactable(const std::vector<Finding> &findings)
{
    for (const Finding &finding : findings) {
        if (finding.rule.rfind("archive.", 0) == 0 || finding.path.find('!') != std::string::npos)
            return "an archive cannot be redacted";
        if (finding.rule.rfind("scan.", 0) == 0)
            return "a file not fully scanned cannot be redacted";
        if (finding.rule.rfind("private_key.", 0) == 0)
            return "a private key cannot be redacted (its body is not part of the match)";
    }
    return {};
}

} // namespace

ArtifactInspection::ArtifactInspection(Policy::ArtifactScan mode, Secrets::SecretMasker secrets,
                                       std::string overrideReason, std::vector<std::string> internalSuffixes)
    : m_mode(mode), m_secrets(std::move(secrets)), m_overrideReason(std::move(overrideReason)),
      m_internalSuffixes(std::move(internalSuffixes))
{}

void ArtifactInspection::attach(const std::shared_ptr<ArtifactInspection> &inspection,
                                Files::CopyLimits &limits)
{
    limits.inspect = [inspection](int fd, const std::string &relative) {
        return inspection->inspect(fd, relative);
    };
    limits.directoryName = [inspection](const std::string &relative) {
        return inspection->directoryName(relative);
    };
}

const ArtifactScanner *ArtifactInspection::scanner()
{
    if (!m_scanner) {
        ArtifactScanner::Options options;
        options.secrets = m_secrets.empty() ? nullptr : &m_secrets;
        options.extraInternalSuffixes = m_internalSuffixes;
        m_scanner = ArtifactScanner::create(std::move(options));
    }
    return *m_scanner ? &**m_scanner : nullptr;
}

void ArtifactInspection::look(int fd, const std::string &relativePath)
{
    if (m_mode == Policy::ArtifactScan::Off)
        return;
    // A file that cannot be scanned is not shown as clean: its download would keep it back.
    const auto unscanned = [&](const std::string &why) {
        m_files.push_back(
            {relativePath, "blocked", {{relativePath, 0, 0, "scan.incomplete", Severity::High, why}}});
    };
    if (!scanner())
        return unscanned("the artifact scan cannot run: " + m_scanner->error().message());
    auto findings = scanner()->scanFile(fd, relativePath);
    if (!findings)
        return unscanned("could not be read for the scan: " + findings.error().message());
    withName(*findings, relativePath);
    if (findings->empty())
        return;
    InspectedFile file{relativePath, "warned", std::move(*findings)};
    if (m_mode == Policy::ArtifactScan::Redact)
        file.action = unredactable(file.findings).empty() ? "redacted" : "blocked";
    else if (blocks(m_mode, file.findings))
        file.action = "blocked";
    m_files.push_back(std::move(file));
}

Files::Inspection ArtifactInspection::inspect(int fd, const std::string &relativePath)
{
    if (m_mode == Policy::ArtifactScan::Off)
        return {};
    // A file that cannot be scanned does not leave: the scan fails closed.
    if (!scanner())
        return {"files.blocked", "the artifact scan cannot run: " + m_scanner->error().message()};
    auto findings = scanner()->scanFile(fd, relativePath);
    if (!findings)
        return {"files.blocked", "the artifact scan could not read the copy: " + findings.error().message()};
    withName(*findings, relativePath);
    if (findings->empty())
        return {};
    InspectedFile file{relativePath, "warned", std::move(*findings)};
    Files::Inspection verdict;
    if (m_mode == Policy::ArtifactScan::Redact) {
        const std::string why = unredactable(file.findings);
        verdict = why.empty() ? redact(fd, relativePath) : Files::Inspection{"files.blocked", why};
        file.action = verdict.refusalCode.empty() ? "redacted" : "blocked";
        if (!verdict.refusalCode.empty())
            verdict.refusalReason = summary(file.findings) + "; " + verdict.refusalReason;
    } else if (blocks(m_mode, file.findings)) {
        file.action = "blocked";
        verdict = {"files.blocked", summary(file.findings)};
    }
    // A reason given: what would be kept back is saved as it is.
    if (file.action == "blocked" && !m_overrideReason.empty()) {
        file.action = "overridden";
        verdict = {};
    }
    // Saved with a name that holds a key or a value: under that name masked, never the value itself.
    if (verdict.refusalCode.empty())
        verdict.savedName = maskedName(file.findings, relativePath);
    m_files.push_back(std::move(file));
    return verdict;
}

void ArtifactInspection::withName(std::vector<Finding> &findings, const std::string &relativePath)
{
    std::vector<Finding> inName = scanner()->scanName(relativePath);
    findings.insert(findings.begin(), std::make_move_iterator(inName.begin()),
                    std::make_move_iterator(inName.end()));
}

std::string ArtifactInspection::maskedName(const std::vector<Finding> &findings,
                                           const std::string &relativePath)
{
    // Only what is in the last component: a directory's name is masked when it is made (directoryName).
    const std::size_t nameStart = relativePath.rfind('/') + 1;
    const bool named = std::any_of(findings.begin(), findings.end(), [&](const Finding &finding) {
        return finding.path == relativePath && finding.rule.rfind("name.", 0) == 0 &&
               finding.severity == Severity::High && std::size_t(finding.offset) >= nameStart;
    });
    if (!named)
        return {};
    // A name is at most 255 bytes, so no search on it stops at its bound; if one did, nothing of it is kept.
    return scanner()->redacted(relativePath.substr(nameStart)).value_or("[redacted]");
}

std::string ArtifactInspection::directoryName(const std::string &relativePath)
{
    if (m_mode == Policy::ArtifactScan::Off || !scanner())
        return {};
    const std::string name = relativePath.substr(relativePath.rfind('/') + 1);
    const std::vector<Finding> findings = scanner()->scanName(name);
    return maskedName(findings, name);
}

Files::Inspection ArtifactInspection::redact(int fd, const std::string &relativePath)
{
    // The copy's writer left the offset at its end.
    if (::lseek(fd, 0, SEEK_SET) != 0)
        return {"files.blocked", "could not read the copy of " + relativePath};
    auto bytes =
        readToEnd(fd, std::size_t(ScanLimits{}.maxScannedBytes), "the copy", "scan.read", "scan.too_large");
    if (!bytes)
        return {"files.blocked", bytes.error().message()};
    // An archive's members cannot be rewritten in place.
    if (ArtifactScanner::isArchive(*bytes))
        return {"files.blocked", "an archive cannot be redacted"};
    const std::optional<std::string> redacted = scanner()->redacted(*bytes);
    if (!redacted)
        return {"files.blocked", "a file not fully scanned cannot be redacted"};
    if (::ftruncate(fd, 0) != 0 ||
        ::pwrite(fd, redacted->data(), redacted->size(), 0) != ssize_t(redacted->size()))
        return {"files.blocked", "could not write the redacted copy of " + relativePath};
    return {{}, {}, true, std::int64_t(redacted->size()), sha256Hex(*redacted)};
}

} // namespace Cordon::Scan
