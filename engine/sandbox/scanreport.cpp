// SPDX-License-Identifier: MIT
#include "sandbox/scanreport.h"

namespace Cordon::Scan {

namespace {

Error badReport(const std::string &why)
{
    return Error("scan.bad_report", "the artifact scan's report is not readable: " + why);
}

} // namespace

std::string_view severityName(Severity severity)
{
    switch (severity) {
    case Severity::Low:
        return "low";
    case Severity::Medium:
        return "medium";
    case Severity::High:
        break;
    }
    return "high";
}

std::optional<Severity> severityFromName(std::string_view name)
{
    for (const Severity severity : {Severity::Low, Severity::Medium, Severity::High}) {
        if (severityName(severity) == name)
            return severity;
    }
    return std::nullopt;
}

Json toJson(const std::vector<InspectedFile> &files)
{
    Json::Array array;
    for (const InspectedFile &file : files) {
        Json::Array findings;
        for (const Finding &finding : file.findings)
            findings.push_back(Json::object({{"path", finding.path},
                                             {"line", finding.line},
                                             {"offset", finding.offset},
                                             {"rule", finding.rule},
                                             {"severity", severityName(finding.severity)},
                                             {"excerpt", finding.excerpt}}));
        array.push_back(Json::object(
            {{"path", file.path}, {"action", file.action}, {"findings", Json(std::move(findings))}}));
    }
    return Json(std::move(array));
}

Result<std::vector<InspectedFile>> inspectedFilesFromJson(const Json &json)
{
    if (!json.isArray())
        return fail(badReport("not a list of files"));
    std::vector<InspectedFile> files;
    for (const Json &item : json.items()) {
        if (!item["path"].isString() || !item["action"].isString() || !item["findings"].isArray())
            return fail(badReport("a file without its path, action or findings"));
        InspectedFile file{item["path"].toString(), item["action"].toString(), {}};
        for (const Json &entry : item["findings"].items()) {
            const std::optional<Severity> severity = severityFromName(entry["severity"].toString());
            if (!entry["path"].isString() || !entry["rule"].isString() || !entry["excerpt"].isString() ||
                !entry["line"].isExactInteger() || !entry["offset"].isExactInteger() || !severity)
                return fail(badReport("a finding of " + file.path + " is incomplete"));
            file.findings.push_back({entry["path"].toString(), entry["line"].toInteger(),
                                     entry["offset"].toInteger(), entry["rule"].toString(), *severity,
                                     entry["excerpt"].toString()});
        }
        files.push_back(std::move(file));
    }
    return files;
}

} // namespace Cordon::Scan
