// SPDX-License-Identifier: MIT
#include "audit/reportexport.h"

#include <string_view>

namespace Cordon::Audit {

namespace {

std::string verdictWord(Verdict verdict)
{
    switch (verdict) {
    case Verdict::Go:
        return "Go";
    case Verdict::NotApplicable:
        return "Not applicable";
    case Verdict::NoGo:
        break;
    }
    return "No-Go";
}

std::string verdictClass(Verdict verdict)
{
    return verdict == Verdict::Go ? "go" : verdict == Verdict::NotApplicable ? "na" : "nogo";
}

// "19 of 21 rows applied, 19 Go": a row that could not apply is neither Go nor hidden.
std::string appliedLine(const AuditReport &report)
{
    return std::to_string(report.appliedRows()) + " of " + std::to_string(report.rows.size()) +
           " rows applied, " + std::to_string(report.goRows()) + " Go";
}

// Markdown table cells: a pipe or a line break would end the cell.
std::string cell(std::string_view text)
{
    std::string out;
    for (const char c : text) {
        if (c == '|')
            out += "\\|";
        else if (c == '\n' || c == '\r')
            out += ' ';
        else
            out += c;
    }
    return out;
}

// A fenced block long enough that no run of backticks inside the text can close it.
std::string fenced(std::string_view text, std::string_view language = {})
{
    std::size_t longest = 0;
    std::size_t run = 0;
    for (const char c : text) {
        run = c == '`' ? run + 1 : 0;
        longest = std::max(longest, run);
    }
    const std::string fence(std::max<std::size_t>(3, longest + 1), '`');
    return fence + std::string(language) + "\n" + std::string(text) + "\n" + fence + "\n";
}

std::string html(std::string_view text)
{
    std::string out;
    for (const char c : text) {
        switch (c) {
        case '&':
            out += "&amp;";
            break;
        case '<':
            out += "&lt;";
            break;
        case '>':
            out += "&gt;";
            break;
        case '"':
            out += "&quot;";
            break;
        case '\'':
            out += "&#39;";
            break;
        default:
            out += c;
        }
    }
    return out;
}

std::string signOffLine(const AuditReport &report)
{
    if (!report.signOff)
        return "not signed off";
    const SignOff &signOff = *report.signOff;
    return signOff.name + " (" + signOff.role + "): " + (signOff.decision == "go" ? "Go" : "No-Go") + " on " +
           signOff.date;
}

std::string signatureLine(const AuditReport &report)
{
    if (!report.signature)
        return "unsigned";
    return "Ed25519, key " + report.signature->keyId + " (public key " + report.signature->publicKey + ")";
}

} // namespace

std::string reportMarkdown(const AuditReport &report)
{
    std::string out;
    out += "# Go/No-Go audit " + report.id + ": " + verdictWord(report.verdict()) + "\n\n";
    out += "- Date: " + report.createdAt + "\n";
    out += "- Cordon: " + report.cordonVersion + "\n";
    out += "- Policy version: `" + report.policyVersion + "`\n";
    out += "- Rows: " + appliedLine(report) + "\n";
    out += "- Sign-off: " + signOffLine(report) + "\n";
    out += "- Signature: " + signatureLine(report) + "\n\n";
    out += "## Host\n\n| fact | value |\n| --- | --- |\n";
    for (const auto &[name, value] : report.hostFacts)
        out += "| " + cell(name) + " | " + cell(value) + " |\n";
    out += "\n## Policy\n\n" + fenced(report.policyText, "json") + "\n";
    out += "## Rows\n\n| verdict | row | claim | reason | ms |\n| --- | --- | --- | --- | ---: |\n";
    for (const AuditRow &row : report.rows)
        out += "| " + verdictWord(row.verdict) + " | `" + cell(row.id) + "` | " + cell(row.title) + " | " +
               cell(row.reason) + " | " + std::to_string(row.durationMs) + " |\n";
    out += "\n## Evidence\n";
    for (const AuditRow &row : report.rows) {
        out += "\n### " + verdictWord(row.verdict) + ": " + row.title + " (`" + row.id + "`)\n\n";
        out += row.reason + "\n\n";
        std::string lines;
        for (const Evidence &piece : row.evidence)
            lines += piece.label + ": " + piece.text + "\n";
        if (!lines.empty())
            lines.pop_back();
        out += fenced(lines);
        out += "\nEvidence sha256: `" + row.evidenceSha256() + "`\n";
    }
    return out;
}

std::string reportHtml(const AuditReport &report)
{
    const bool go = report.verdict() == Verdict::Go;
    std::string out =
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>Go/No-Go audit " +
        html(report.id) +
        "</title>\n<style>body{font-family:sans-serif;max-width:70em;margin:2em auto;padding:0 "
        "1em;color:#222}"
        "table{border-collapse:collapse;width:100%}td,th{border:1px solid #ccc;padding:.3em .5em;"
        "text-align:left;vertical-align:top}.go{color:#1a7f37;font-weight:bold}.nogo{color:#b42318;"
        "font-weight:bold}.na{color:#57606a;font-weight:bold}pre{background:#f6f8fa;padding:.6em;overflow-x:"
        "auto;white-space:pre-wrap}"
        "</style></head><body>\n";
    out += "<h1>Go/No-Go audit " + html(report.id) + ": <span class=\"" + (go ? "go" : "nogo") + "\">" +
           verdictWord(report.verdict()) + "</span></h1>\n<ul>\n";
    out += "<li>Date: " + html(report.createdAt) + "</li>\n<li>Cordon: " + html(report.cordonVersion) +
           "</li>\n<li>Policy version: <code>" + html(report.policyVersion) +
           "</code></li>\n<li>Rows: " + html(appliedLine(report)) +
           "</li>\n<li>Sign-off: " + html(signOffLine(report)) +
           "</li>\n<li>Signature: " + html(signatureLine(report)) + "</li>\n</ul>\n";
    out += "<h2>Host</h2>\n<table><tr><th>fact</th><th>value</th></tr>\n";
    for (const auto &[name, value] : report.hostFacts)
        out += "<tr><td>" + html(name) + "</td><td>" + html(value) + "</td></tr>\n";
    out += "</table>\n<h2>Policy</h2>\n<pre>" + html(report.policyText) + "</pre>\n";
    out += "<h2>Rows</h2>\n<table><tr><th>verdict</th><th>row</th><th>claim</th><th>reason</th><th>ms</th></"
           "tr>\n";
    for (const AuditRow &row : report.rows)
        out += std::string("<tr><td class=\"") + verdictClass(row.verdict) + "\">" +
               verdictWord(row.verdict) + "</td><td><a href=\"#" + html(row.id) + "\"><code>" + html(row.id) +
               "</code></a></td><td>" + html(row.title) + "</td><td>" + html(row.reason) + "</td><td>" +
               std::to_string(row.durationMs) + "</td></tr>\n";
    out += "</table>\n<h2>Evidence</h2>\n";
    for (const AuditRow &row : report.rows) {
        out += "<h3 id=\"" + html(row.id) + "\">" + verdictWord(row.verdict) + ": " + html(row.title) +
               "</h3>\n<p>" + html(row.reason) + "</p>\n<pre>";
        for (const Evidence &piece : row.evidence)
            out += html(piece.label) + ": " + html(piece.text) + "\n";
        out += "</pre>\n<p>Evidence sha256: <code>" + row.evidenceSha256() + "</code></p>\n";
    }
    out += "</body></html>\n";
    return out;
}

} // namespace Cordon::Audit
