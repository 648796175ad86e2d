// SPDX-License-Identifier: MIT
// cordon-artifact-export: copies a one-shot run's outputs out through the artifact scan, for the `cordon`
// launcher. The launcher is a static program and cannot load PCRE2 and libarchive, so `cordon run
// --output-dir` hands the outputs folder to this helper (app/cordon-launcher/artifactexport.h), which copies
// it exactly as a daemon download does: each file into a pending copy in the destination, scanned there, and
// named, redacted or kept back as the policy's `artifact_scan` says (docs/artifact-scan.md).
//
// The folder arrives open as descriptor 3 (the container's in-memory workspace, which has no path on the
// host); the request is JSON on standard input:
//   {"destination": DIR, "mode": "default"|"block"|"warn"|"redact", "max_file_bytes": N,
//    "max_total_bytes": N, "secrets": [{"name": NAME, "value": VALUE}]}
// and the answer JSON on standard output: {"copied": [{path, size, sha256}], "refused": [{path, code,
// reason}], "truncated": BOOL, "scanned": [...]} (Scan::toJson) or {"error": {"code", "message"}}.
// Secret values arrive over the pipe only to be recognised; standard output must not be a terminal.
#include "sandbox/files/safecopy.h"
#include "sandbox/json.h"
#include "sandbox/policy/containerpolicy.h"
#include "sandbox/policy/orgpolicyfile.h"
#include "sandbox/readall.h"
#include "sandbox/scanreport.h"
#include "sandbox/secrets/secretmasker.h"
#include "sandbox/secrets/secretrules.h"
#include "sandbox/uniquefd.h"
#include "sandbox/writeall.h"
#include "scan/artifactinspection.h"

#include <fcntl.h>
#include <memory>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

namespace {

using namespace Cordon;

constexpr int SourceFd = 3;
// Every secret a policy may name (MaxSecretRefs), each at its largest, JSON-escaped at worst.
constexpr std::size_t MaxRequestBytes = Policy::MaxSecretRefs * Secrets::MaxValueBytes * 6 + 64 * 1024;

int answer(const Json &document, int status)
{
    return writeFully(STDOUT_FILENO, document.serialize() + "\n") == 0 ? status : 1;
}

int refuse(const Error &error)
{
    return answer(
        Json::object({{"error", Json::object({{"code", error.code()}, {"message", error.message()}})}}), 1);
}

Result<Json> exportOutputs(const Json &request)
{
    const Json &destination = request["destination"];
    const std::optional<Policy::ArtifactScan> mode = Policy::artifactScanFromName(request["mode"].toString());
    if (!destination.isString() || destination.toString().empty() || destination.toString().front() != '/' ||
        !mode || !request["max_file_bytes"].isExactInteger() ||
        !request["max_total_bytes"].isExactInteger() || !request["secrets"].isArray())
        return fail("scan.bad_request", "the request lacks its destination, mode, limits or secrets");
    Secrets::SecretMasker secrets;
    for (const Json &secret : request["secrets"].items())
        CORDON_TRY(secrets.add(secret["name"].toString(), secret["value"].toString()));
    // The organisation's own internal domains, as the daemon's downloads report them. A file that cannot be
    // read keeps every output back: the scan fails closed.
    Result<std::vector<std::string>> suffixes = Policy::loadOrgInternalSuffixes();
    if (!suffixes)
        return fail(suffixes.error().wrap("the artifact scan cannot run"));

    struct stat source
    {
    };
    if (::fstat(SourceFd, &source) != 0 || !S_ISDIR(source.st_mode))
        return fail("scan.bad_request", "descriptor 3 is not the outputs folder");
    auto directory = std::make_shared<const UniqueFd>(::fcntl(SourceFd, F_DUPFD_CLOEXEC, 0));
    ::close(SourceFd);

    auto inspection = std::make_shared<Scan::ArtifactInspection>(*mode, std::move(secrets), std::string(),
                                                                 std::move(*suffixes));
    Files::CopyLimits limits;
    limits.maxFileBytes = request["max_file_bytes"].toInteger();
    limits.maxTotalBytes = request["max_total_bytes"].toInteger();
    const std::optional<Files::ExistingName> existing = Files::existingNameFromWord(
        request["existing"].isString() ? request["existing"].toString() : std::string());
    if (!existing)
        return fail("scan.bad_request", "`existing` must be refuse, replace or keep_both");
    limits.existingNames = *existing;
    Scan::ArtifactInspection::attach(inspection, limits);
    const Result<Files::CopyReport> report = Files::exportTree(
        Files::SourceRoot(directory, {}, "/mnt/data/outputs"), destination.toString(), limits);
    if (!report)
        return fail(report.error());
    Json::Array copied;
    for (const Files::CopiedFile &file : report->copied)
        copied.push_back(
            Json::object({{"path", file.relativePath}, {"size", file.size}, {"sha256", file.sha256Hex}}));
    Json::Array refused;
    for (const Files::RefusedEntry &entry : report->refused)
        refused.push_back(
            Json::object({{"path", entry.relativePath}, {"code", entry.code}, {"reason", entry.reason}}));
    return Json::object({{"copied", Json(std::move(copied))},
                         {"refused", Json(std::move(refused))},
                         {"truncated", report->truncated},
                         {"scanned", Scan::toJson(inspection->files())}});
}

} // namespace

int main(int argc, char *[])
{
    if (argc != 1 || ::isatty(STDOUT_FILENO)) {
        const char usage[] =
            "cordon-artifact-export is a helper of `cordon run --output-dir`, which copies a "
            "run's outputs out through the artifact scan with it; it is not meant to be run "
            "by hand\n";
        (void)writeFully(STDERR_FILENO, usage);
        return 2;
    }
    Result<std::string> text =
        readToEnd(STDIN_FILENO, MaxRequestBytes, "the request", "scan.bad_request", "scan.bad_request");
    if (!text)
        return refuse(text.error());
    Result<Json> request = Json::read(*text, JsonLimits{MaxRequestBytes, 8, 4096});
    if (!request)
        return refuse(request.error());
    Result<Json> report = exportOutputs(*request);
    if (!report)
        return refuse(report.error());
    return answer(*report, 0);
}
