// SPDX-License-Identifier: MIT
// The Go/No-Go report as a document to sign off on paper (the audit's PDF export). The first page is what
// the person signing reads and files: the verdict, who signed off when and with which key, the signature's
// fingerprint, what was audited, and the policy in words (core/policywords.h, the lines `cordon inspect`
// prints), not its JSON. Then every row in one table, its header repeated on each page. The evidence itself
// stays in the signed JSON, which the document names and whose per-row hashes it shows the start of; the
// Markdown and HTML exports carry the evidence in full.
#pragma once

#include <QJsonObject>
#include <QString>

namespace Cordon::Ui::AuditSignOff {

// The document in the rich-text HTML that QTextDocument lays out.
QString html(const QJsonObject &report);

// The first 32 hex digits of the sha256 of the signature's 64 bytes, in groups of four
// ("1f0c 9a2e ..."): short enough to read aloud and compare; empty for a report without a signature.
QString signatureFingerprint(const QJsonObject &report);

// Writes the document as an A4 PDF with a footer on every page (the report, its verdict, the page of how
// many); an error message, or empty.
QString writePdf(const QJsonObject &report, const QString &path);

} // namespace Cordon::Ui::AuditSignOff
