// SPDX-License-Identifier: MIT
#include "audit/heldreport.h"

#include "sandbox/policy/canonicaljson.h"

namespace Cordon::Audit {

namespace {

std::string canonical(const Json &value)
{
    return Policy::toCanonicalJson(value);
}

// The row members a reviewer reads, in the order a difference is reported.
constexpr const char *RowMembers[] = {"id",     "verdict", "evidence_sha256", "evidence",
                                      "reason", "title",   "duration_ms"};

std::string rowDifference(const Json &held, const Json &given, std::size_t index)
{
    const std::string name = held["id"].toString();
    for (const char *member : RowMembers) {
        if (canonical(held[member]) == canonical(given[member]))
            continue;
        if (std::string(member) == "id")
            return "row " + std::to_string(index + 1) + " is " + given["id"].toString() +
                   ", the history's record has " + name;
        // Short values are shown (a verdict, a hash); evidence and reasons only named.
        const bool shown = std::string(member) == "verdict" || std::string(member) == "evidence_sha256";
        return "row " + name + "'s " + member + " is not the history's record's" +
               (shown ? " (" + given[member].toString() + " here, " + held[member].toString() + " there)"
                      : "");
    }
    return canonical(held) == canonical(given) ? std::string()
                                               : "row " + name + " is not the history's record's";
}

} // namespace

std::string differenceFromHeld(const Json &held, const Json &given)
{
    if (held["id"].toString() != given["id"].toString())
        return "its id " + given["id"].toString() + " is not the history's record's " + held["id"].toString();
    const Json::Array &heldRows = held["rows"].items();
    const Json::Array &givenRows = given["rows"].items();
    if (heldRows.size() != givenRows.size())
        return "it has " + std::to_string(givenRows.size()) + " rows, the history's record has " +
               std::to_string(heldRows.size());
    for (std::size_t i = 0; i < heldRows.size(); ++i) {
        if (std::string difference = rowDifference(heldRows[i], givenRows[i], i); !difference.empty())
            return difference;
    }
    for (const auto &[name, value] : given.members()) {
        if (name != "sign_off" && name != "signature" && name != "rows" &&
            canonical(held[name]) != canonical(value))
            return "its " + name + " is not the history's record's";
    }
    for (const auto &[name, value] : held.members()) {
        if (name != "sign_off" && name != "signature" && given[name].isUndefined())
            return "it lacks the history's record's " + name;
    }
    return {};
}

} // namespace Cordon::Audit
