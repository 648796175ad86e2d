// SPDX-License-Identifier: MIT
#include "audit/auditreport.h"

#include "sandbox/policy/canonicaljson.h"
#include "sandbox/sha256.h"

#include <algorithm>

namespace Cordon::Audit {

namespace {

Error badReport(const std::string &why)
{
    return Error("audit.bad_report", "not an audit report: " + why);
}

Json evidenceJson(const std::vector<Evidence> &evidence)
{
    Json::Array items;
    for (const Evidence &piece : evidence)
        items.push_back(Json::object({{"label", piece.label}, {"text", piece.text}}));
    return Json(std::move(items));
}

std::optional<Verdict> verdictFromName(const std::string &name)
{
    if (name == verdictName(Verdict::Go))
        return Verdict::Go;
    if (name == verdictName(Verdict::NoGo))
        return Verdict::NoGo;
    if (name == verdictName(Verdict::NotApplicable))
        return Verdict::NotApplicable;
    return std::nullopt;
}

// The string member `key` of `object` into `out`, or why not.
Result<> readText(const Json &object, const char *key, const std::string &where, std::string &out)
{
    const Json &value = object[key];
    if (!value.isString())
        return fail(badReport(where + key + " is missing or not a string"));
    out = value.toString();
    return {};
}

} // namespace

const char *verdictName(Verdict verdict)
{
    switch (verdict) {
    case Verdict::Go:
        return "go";
    case Verdict::NotApplicable:
        return "not_applicable";
    case Verdict::NoGo:
        break;
    }
    return "no_go";
}

std::string AuditRow::evidenceSha256() const
{
    return sha256Hex(Policy::toCanonicalJson(evidenceJson(evidence)));
}

Verdict AuditReport::verdict() const
{
    // A report whose every row was not applicable proves nothing: No-Go.
    return appliedRows() > 0 && goRows() == appliedRows() ? Verdict::Go : Verdict::NoGo;
}

int AuditReport::appliedRows() const
{
    return int(std::count_if(rows.begin(), rows.end(),
                             [](const AuditRow &row) { return row.verdict != Verdict::NotApplicable; }));
}

int AuditReport::goRows() const
{
    return int(std::count_if(rows.begin(), rows.end(),
                             [](const AuditRow &row) { return row.verdict == Verdict::Go; }));
}

Json AuditReport::toJson() const
{
    Json host = Json::object();
    for (const auto &[name, value] : hostFacts)
        host.insert(name, value);
    Json::Array rowItems;
    for (const AuditRow &row : rows)
        rowItems.push_back(Json::object({{"id", row.id},
                                         {"title", row.title},
                                         {"verdict", verdictName(row.verdict)},
                                         {"reason", row.reason},
                                         {"duration_ms", row.durationMs},
                                         {"evidence", evidenceJson(row.evidence)},
                                         {"evidence_sha256", row.evidenceSha256()}}));
    Json json = Json::object({{"id", id},
                              {"created_at", createdAt},
                              {"cordon_version", cordonVersion},
                              {"host", std::move(host)},
                              {"policy", Json::object({{"text", policyText}, {"version", policyVersion}})},
                              {"verdict", verdictName(verdict())},
                              {"rows_applied", appliedRows()},
                              {"rows", Json(std::move(rowItems))}});
    if (signOff)
        json.insert("sign_off", Json::object({{"name", signOff->name},
                                              {"role", signOff->role},
                                              {"decision", signOff->decision},
                                              {"date", signOff->date}}));
    if (signature)
        json.insert("signature", Json::object({{"algorithm", signature->algorithm},
                                               {"key_id", signature->keyId},
                                               {"public_key", signature->publicKey},
                                               {"value", signature->value}}));
    return json;
}

Result<AuditReport> AuditReport::fromJson(const Json &json)
{
    if (!json.isObject())
        return fail(badReport("the document is not a JSON object"));
    AuditReport report;
    CORDON_TRY(readText(json, "id", {}, report.id));
    CORDON_TRY(readText(json, "created_at", {}, report.createdAt));
    CORDON_TRY(readText(json, "cordon_version", {}, report.cordonVersion));
    const Json &host = json["host"];
    if (!host.isObject())
        return fail(badReport("host is missing or not an object"));
    for (const auto &[name, value] : host.members()) {
        if (!value.isString())
            return fail(badReport("host." + name + " is not a string"));
        report.hostFacts.emplace_back(name, value.toString());
    }
    const Json &policy = json["policy"];
    CORDON_TRY(readText(policy, "text", "policy.", report.policyText));
    CORDON_TRY(readText(policy, "version", "policy.", report.policyVersion));
    const Json &rows = json["rows"];
    if (!rows.isArray())
        return fail(badReport("rows is missing or not a list"));
    for (std::size_t i = 0; i < rows.items().size(); ++i) {
        const Json &item = rows.items()[i];
        const std::string where = "rows[" + std::to_string(i) + "].";
        AuditRow row;
        CORDON_TRY(readText(item, "id", where, row.id));
        CORDON_TRY(readText(item, "title", where, row.title));
        CORDON_TRY(readText(item, "reason", where, row.reason));
        const std::optional<Verdict> verdict = verdictFromName(item["verdict"].toString());
        if (!verdict)
            return fail(badReport(where + "verdict must be \"go\", \"no_go\" or \"not_applicable\""));
        row.verdict = *verdict;
        if (!item["duration_ms"].isExactInteger())
            return fail(badReport(where + "duration_ms is missing or not an integer"));
        row.durationMs = item["duration_ms"].toInteger();
        if (!item["evidence"].isArray())
            return fail(badReport(where + "evidence is missing or not a list"));
        for (const Json &piece : item["evidence"].items()) {
            Evidence evidence;
            CORDON_TRY(readText(piece, "label", where + "evidence.", evidence.label));
            CORDON_TRY(readText(piece, "text", where + "evidence.", evidence.text));
            row.evidence.push_back(std::move(evidence));
        }
        report.rows.push_back(std::move(row));
    }
    if (const Json &signOff = json["sign_off"]; !signOff.isUndefined()) {
        SignOff read;
        CORDON_TRY(readText(signOff, "name", "sign_off.", read.name));
        CORDON_TRY(readText(signOff, "role", "sign_off.", read.role));
        CORDON_TRY(readText(signOff, "decision", "sign_off.", read.decision));
        CORDON_TRY(readText(signOff, "date", "sign_off.", read.date));
        report.signOff = std::move(read);
    }
    if (const Json &signature = json["signature"]; !signature.isUndefined()) {
        ReportSignature read;
        CORDON_TRY(readText(signature, "algorithm", "signature.", read.algorithm));
        CORDON_TRY(readText(signature, "key_id", "signature.", read.keyId));
        CORDON_TRY(readText(signature, "public_key", "signature.", read.publicKey));
        CORDON_TRY(readText(signature, "value", "signature.", read.value));
        report.signature = std::move(read);
    }
    return report;
}

std::string signedBytes(const Json &document)
{
    Json covered = Json::object();
    for (const auto &[name, value] : document.members()) {
        if (name != "signature")
            covered.insert(name, value);
    }
    return Policy::toCanonicalJson(covered);
}

} // namespace Cordon::Audit
