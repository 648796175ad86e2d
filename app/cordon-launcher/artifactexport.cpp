// SPDX-License-Identifier: MIT
#include "artifactexport.h"

#include "helperprocess.h"

#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

namespace Cordon::Launcher {

namespace {

constexpr char ExporterName[] = "cordon-artifact-export";
// 10,000 entries with long names, each file's findings (at most 400, excerpts short).
constexpr std::size_t MaxAnswerBytes = 64 * 1024 * 1024;

// Whether the folder open at `directory` has no entries. Read through a description of its own, so that the
// helper's reading starts at the beginning.
bool isEmptyFolder(int directory)
{
    const int fd = ::openat(directory, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return false;
    DIR *listing = ::fdopendir(fd);
    if (!listing) {
        ::close(fd);
        return false;
    }
    bool empty = true;
    while (const dirent *entry = ::readdir(listing)) {
        if (std::strcmp(entry->d_name, ".") != 0 && std::strcmp(entry->d_name, "..") != 0) {
            empty = false;
            break;
        }
    }
    ::closedir(listing);
    return empty;
}

Error badAnswer()
{
    return Error("scan.unavailable",
                 "cannot copy the outputs: `" + std::string(ExporterName) + "` answered nonsense");
}

} // namespace

Result<ScannedExport> exportScanned(const Files::SourceRoot &outputs, const std::string &destination,
                                    const Files::CopyLimits &limits, Policy::ArtifactScan mode,
                                    const std::vector<Secrets::ResolvedSecret> &secrets)
{
    if (!outputs.directory() || !outputs.directory()->isValid() || !outputs.path().empty())
        return fail("scan.unavailable", "cannot copy the outputs: they are not an open folder");
    // Nothing to copy: the helper (about 3 ms of loading its libraries) is not started.
    if (isEmptyFolder(outputs.directory()->get()))
        return ScannedExport{};
    Json::Array values;
    for (const Secrets::ResolvedSecret &secret : secrets)
        values.push_back(Json::object({{"name", secret.name}, {"value", secret.value}}));
    const Json request = Json::object({{"destination", destination},
                                       {"mode", Policy::artifactScanName(mode)},
                                       {"max_file_bytes", limits.maxFileBytes},
                                       {"max_total_bytes", limits.maxTotalBytes},
                                       {"existing", Files::existingNameWord(limits.existingNames)},
                                       {"secrets", Json(std::move(values))}});
    HelperCall call{ExporterName,
                    {},
                    request.serialize(),
                    outputs.directory()->get(),
                    MaxAnswerBytes,
                    "scan.unavailable",
                    "cannot copy the outputs through the artifact scan"};
    Result<Json> answer = callHelper(call);
    if (!answer)
        return fail(answer.error());
    ScannedExport result;
    const Json &copied = (*answer)["copied"];
    const Json &refused = (*answer)["refused"];
    if (!copied.isArray() || !refused.isArray())
        return fail(badAnswer());
    for (const Json &file : copied.items()) {
        if (!file["path"].isString() || !file["sha256"].isString() || !file["size"].isExactInteger())
            return fail(badAnswer());
        result.copied.push_back(
            {file["path"].toString(), file["size"].toInteger(), file["sha256"].toString()});
    }
    for (const Json &entry : refused.items()) {
        if (!entry["path"].isString() || !entry["code"].isString() || !entry["reason"].isString())
            return fail(badAnswer());
        result.refused.push_back(
            {entry["path"].toString(), entry["reason"].toString(), entry["code"].toString()});
    }
    Result<std::vector<Scan::InspectedFile>> scanned = Scan::inspectedFilesFromJson((*answer)["scanned"]);
    if (!scanned)
        return fail(badAnswer());
    result.scanned = std::move(*scanned);
    return result;
}

} // namespace Cordon::Launcher
