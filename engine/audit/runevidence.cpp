// SPDX-License-Identifier: MIT
#include "audit/runevidence.h"

#include <ctime>

namespace Cordon::Audit {

namespace {

constexpr std::size_t ExcerptCharacters = 400;

// An excerpt of untrusted output: at most ExcerptCharacters code points, control characters but the line
// break as \xNN, so that a piece of evidence cannot rewrite how a report looks.
std::string excerpt(const std::string &text)
{
    std::string out;
    std::size_t characters = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        if ((c & 0xc0) != 0x80 && ++characters > ExcerptCharacters) {
            out += "... (cut)";
            break;
        }
        if ((c < 0x20 && c != '\n') || c == 0x7f) {
            static const char digits[] = "0123456789abcdef";
            out += "\\x";
            out += digits[c >> 4];
            out += digits[c & 15];
        } else {
            out += static_cast<char>(c);
        }
    }
    while (!out.empty() && (out.back() == '\n' || out.back() == ' '))
        out.pop_back();
    return out;
}

std::string isoTime(std::int64_t ms)
{
    if (ms <= 0)
        return "-";
    const std::time_t seconds = static_cast<std::time_t>(ms / 1000);
    std::tm utc{};
    ::gmtime_r(&seconds, &utc);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &utc);
    char withMs[40];
    std::snprintf(withMs, sizeof withMs, "%s.%03dZ", text, static_cast<int>(ms % 1000));
    return withMs;
}

} // namespace

std::vector<Evidence> evidenceOfRun(const Json &run)
{
    std::vector<Evidence> pieces;
    const std::string id = run["id"].toString();
    if (id.empty())
        return pieces;
    pieces.push_back({"run", id + " in container " + run["container"].toString()});
    if (run["command"].isArray() && !run["command"].items().empty()) {
        std::string command;
        for (const Json &arg : run["command"].items())
            command += (command.empty() ? "" : " ") + arg.toString();
        pieces.push_back({"command", excerpt(command)});
    }
    if (!run["language"].toString().empty())
        pieces.push_back({"code", run["language"].toString() + ", sha256 " + run["code_sha256"].toString()});
    if (!run["policy_version"].toString().empty())
        pieces.push_back({"policy version", run["policy_version"].toString()});
    pieces.push_back({"times", isoTime(run["started_at"].toInteger()) + " to " +
                                   isoTime(run["ended_at"].toInteger()) + ", wall " +
                                   std::to_string(run["wall_ms"].toInteger()) + " ms"});
    std::string outcome = run["state"].toString();
    if (!run["error_class"].toString().empty()) {
        outcome = run["error_class"].toString() + ", exit " + std::to_string(run["exit_code"].toInteger());
        if (run["signal"].toInteger() > 0)
            outcome += ", signal " + std::to_string(run["signal"].toInteger());
    }
    pieces.push_back({"outcome", outcome});
    for (const char *stream : {"stdout", "stderr"}) {
        const std::string text = excerpt(run[stream].toString());
        if (!text.empty())
            pieces.push_back({stream, text});
    }
    if (run["artifacts"].isArray()) {
        for (const Json &artifact : run["artifacts"].items())
            pieces.push_back({"artifact", artifact["path"].toString() + ", " +
                                              std::to_string(artifact["size"].toInteger()) +
                                              " bytes, sha256 " + artifact["sha256"].toString()});
    }
    return pieces;
}

Json runEvidenceJson(const Json &run)
{
    AuditRow holder;
    holder.evidence = evidenceOfRun(run);
    Json::Array pieces;
    for (const Evidence &piece : holder.evidence)
        pieces.push_back(Json::object({{"label", piece.label}, {"text", piece.text}}));
    return Json::object(
        {{"evidence", Json(std::move(pieces))}, {"evidence_sha256", holder.evidenceSha256()}});
}

std::string runOfEvidence(const std::vector<Evidence> &evidence)
{
    for (const Evidence &piece : evidence) {
        if (piece.label == "run")
            return piece.text.substr(0, piece.text.find(' '));
    }
    return {};
}

} // namespace Cordon::Audit
