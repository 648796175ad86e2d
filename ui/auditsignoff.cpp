// SPDX-License-Identifier: MIT
#include "auditsignoff.h"

#include "auditrunner/reportpolicy.h"
#include "core/policywords.h"

#include <QAbstractTextDocumentLayout>
#include <QCoreApplication>
#include <QCryptographicHash>
#include <QDateTime>
#include <QJsonArray>
#include <QPainter>
#include <QPdfWriter>
#include <QSaveFile>
#include <QTextDocument>

namespace Cordon::Ui::AuditSignOff {

namespace {

QString tr(const char *text)
{
    return QCoreApplication::translate("AuditSignOff", text);
}

// Paper is white whatever the theme: fixed colours, each dark enough to read printed in grey.
QString verdictColour(const QString &verdict)
{
    if (verdict == QLatin1String("go"))
        return QStringLiteral("#1a7f37");
    return verdict == QLatin1String("not_applicable") ? QStringLiteral("#57606a") : QStringLiteral("#b42318");
}

QString verdictWord(const QString &verdict)
{
    if (verdict == QLatin1String("go"))
        return tr("Go");
    return verdict == QLatin1String("not_applicable") ? tr("Not applicable") : tr("No-Go");
}

QString coloured(const QString &verdict)
{
    return QStringLiteral("<b style=\"color:%1\">%2</b>").arg(verdictColour(verdict), verdictWord(verdict));
}

QString factRow(const QString &label, const QString &value)
{
    return QStringLiteral("<tr><td class=\"label\">%1</td><td>%2</td></tr>")
        .arg(label.toHtmlEscaped(), value);
}

QString escaped(const QJsonValue &value)
{
    return value.toString().toHtmlEscaped();
}

// "2026-12-04T00:51:07Z" as "2026-12-04 00:51 UTC".
QString auditTime(const QString &createdAt)
{
    const QDateTime at = QDateTime::fromString(createdAt, Qt::ISODate);
    return at.isValid() ? at.toUTC().toString(QStringLiteral("yyyy-MM-dd HH:mm 'UTC'")) : createdAt;
}

// "user_namespaces" as "User namespaces".
QString factLabel(const QString &key)
{
    QString label = key;
    label.replace(QLatin1Char('_'), QLatin1Char(' '));
    if (!label.isEmpty())
        label[0] = label.at(0).toUpper();
    return label;
}

struct Counts
{
    int rows = 0;
    int applied = 0;
    int go = 0;
};

Counts countRows(const QJsonArray &rows)
{
    Counts counts;
    for (const QJsonValue &value : rows) {
        const QString verdict = value.toObject().value(QStringLiteral("verdict")).toString();
        ++counts.rows;
        counts.applied += verdict == QLatin1String("not_applicable") ? 0 : 1;
        counts.go += verdict == QLatin1String("go") ? 1 : 0;
    }
    return counts;
}

QString countsLine(const Counts &counts)
{
    QString line =
        tr("%1 of %2 rows applied, %3 of them Go").arg(counts.applied).arg(counts.rows).arg(counts.go);
    if (counts.applied < counts.rows)
        line += tr("; %1 not applicable under this policy").arg(counts.rows - counts.applied);
    return line;
}

QString signOffSection(const QJsonObject &report)
{
    const QJsonObject signOff = report.value(QStringLiteral("sign_off")).toObject();
    const QJsonObject signature = report.value(QStringLiteral("signature")).toObject();
    QString out = QStringLiteral("<h2>%1</h2>").arg(tr("Sign-off"));
    if (signOff.isEmpty() || signature.isEmpty()) {
        out += QStringLiteral("<p class=\"warning\">%1</p>")
                   .arg(tr("Not signed off: a draft. Sign the report in the workbench (or with cordon audit "
                           "sign) and export it again."));
        return out;
    }
    out += QStringLiteral("<table class=\"facts\">");
    out += factRow(tr("Decision"), coloured(signOff.value(QStringLiteral("decision")).toString()));
    out += factRow(tr("Signed off by"), tr("%1, %2").arg(escaped(signOff.value(QStringLiteral("name"))),
                                                         escaped(signOff.value(QStringLiteral("role")))));
    out += factRow(tr("Date"), escaped(signOff.value(QStringLiteral("date"))));
    out += factRow(tr("Signer's key"),
                   tr("%1 (%2)").arg(escaped(signature.value(QStringLiteral("key_id"))), tr("Ed25519")));
    out += factRow(tr("Signature fingerprint"),
                   QStringLiteral("<span class=\"code\">%1</span>").arg(signatureFingerprint(report)));
    out += QStringLiteral("</table>");
    out += QStringLiteral("<p class=\"note\">%1</p>")
               .arg(tr("To check the signature, the evidence of every row and who the key belongs to: cordon "
                       "audit verify audit-%1.json, on the report exported as JSON. The fingerprint is the "
                       "sha256 of the signature's bytes.")
                        .arg(escaped(report.value(QStringLiteral("id")))));
    return out;
}

QString auditedSection(const QJsonObject &report)
{
    const QJsonObject policy = report.value(QStringLiteral("policy")).toObject();
    QString out = QStringLiteral("<h2>%1</h2><table class=\"facts\">").arg(tr("What was audited"));
    out += factRow(tr("Audited"), auditTime(report.value(QStringLiteral("created_at")).toString()));
    out += factRow(tr("Cordon"), escaped(report.value(QStringLiteral("cordon_version"))));
    out += factRow(tr("Policy version"), QStringLiteral("<span class=\"code\">%1</span>")
                                             .arg(escaped(policy.value(QStringLiteral("version")))));
    const QJsonObject host = report.value(QStringLiteral("host")).toObject();
    for (auto it = host.begin(); it != host.end(); ++it)
        out += factRow(factLabel(it.key()), escaped(it.value()));
    out += QStringLiteral("</table>");
    return out;
}

QString policySection(const QJsonObject &report)
{
    QString out = QStringLiteral("<h2>%1</h2>").arg(tr("The policy, in words"));
    const auto policy = Audit::canonicalPolicy(
        report.value(QStringLiteral("policy")).toObject().value(QStringLiteral("text")).toString());
    if (!policy)
        return out + QStringLiteral("<p class=\"warning\">%1</p>")
                         .arg(tr("The report's policy cannot be read: %1")
                                  .arg(QString::fromStdString(policy.error().message()).toHtmlEscaped()));
    out += QStringLiteral("<table class=\"facts\">");
    for (const PolicyWords::Line &line : PolicyWords::policy(*policy)) {
        const QString text = line.text.toHtmlEscaped();
        out += factRow(line.label,
                       line.warning ? QStringLiteral("<b class=\"warning\">(!) %1</b>").arg(text) : text);
    }
    out += QStringLiteral("</table>");
    return out;
}

QString rowsSection(const QJsonArray &rows)
{
    QString out = QStringLiteral("<h2 class=\"newpage\">%1</h2>").arg(tr("The rows"));
    out += QStringLiteral("<p class=\"note\">%1</p>")
               .arg(tr("Each row is a claim of the policy, proved by a live probe in a fresh container. Its "
                       "evidence is in the signed report (JSON); the last column is the start of the sha256 "
                       "of that evidence, which cordon audit verify checks."));
    out +=
        QStringLiteral("<table class=\"rows\" width=\"100%\" cellspacing=\"0\" cellpadding=\"3\"><thead><tr>"
                       "<th width=\"3%\">#</th><th width=\"10%\">%1</th><th width=\"27%\">%2</th>"
                       "<th width=\"46%\">%3</th><th width=\"14%\">%4</th></tr></thead>")
            .arg(tr("Verdict"), tr("Claim"), tr("Reason"), tr("Evidence"));
    int number = 0;
    for (const QJsonValue &value : rows) {
        const QJsonObject row = value.toObject();
        out += QStringLiteral("<tr><td>%1</td><td>%2</td><td>%3<br><span class=\"id\">%4</span></td>"
                              "<td>%5</td><td><span class=\"code\">%6</span></td></tr>")
                   .arg(++number)
                   .arg(coloured(row.value(QStringLiteral("verdict")).toString()),
                        escaped(row.value(QStringLiteral("title"))), escaped(row.value(QStringLiteral("id"))),
                        escaped(row.value(QStringLiteral("reason"))),
                        row.value(QStringLiteral("evidence_sha256")).toString().left(16).toHtmlEscaped());
    }
    out += QStringLiteral("</table>");
    return out;
}

// The line under every page: which report, its verdict and signer, and the page of how many.
QString footerText(const QJsonObject &report, int page, int pages)
{
    const QJsonObject signature = report.value(QStringLiteral("signature")).toObject();
    const QString signedBy =
        signature.isEmpty()
            ? tr("not signed off")
            : tr("signed with key %1").arg(signature.value(QStringLiteral("key_id")).toString());
    return tr("Go/No-Go audit %1 · %2 · %3 · page %4 of %5")
        .arg(report.value(QStringLiteral("id")).toString(),
             verdictWord(report.value(QStringLiteral("verdict")).toString()), signedBy)
        .arg(page)
        .arg(pages);
}

} // namespace

QString signatureFingerprint(const QJsonObject &report)
{
    const QString value =
        report.value(QStringLiteral("signature")).toObject().value(QStringLiteral("value")).toString();
    if (value.isEmpty())
        return {};
    const QString digest = QString::fromLatin1(
        QCryptographicHash::hash(QByteArray::fromHex(value.toLatin1()), QCryptographicHash::Sha256).toHex());
    QStringList groups;
    for (int i = 0; i < 32; i += 4)
        groups.append(digest.mid(i, 4));
    return groups.join(QLatin1Char(' '));
}

QString html(const QJsonObject &report)
{
    const QJsonArray rows = report.value(QStringLiteral("rows")).toArray();
    const QString verdict = report.value(QStringLiteral("verdict")).toString();
    // Qt's rich text reads this subset of CSS; page-break-before starts the rows on a page of their own.
    QString out = QStringLiteral(
        "<html><head><style>"
        "h1{font-size:17pt;margin-bottom:2px}h2{font-size:11.5pt;margin-top:14px;margin-bottom:4px}"
        ".subtitle{color:#57606a}.verdict{font-size:14pt}.warning{color:#b42318}"
        ".note{color:#57606a;font-size:8pt}.id{color:#57606a;font-size:7.5pt}"
        ".code{font-family:monospace}.newpage{page-break-before:always}"
        "table.facts td{padding:1px 8px 1px 0px}td.label{color:#57606a}"
        "table.rows{border-collapse:collapse}table.rows th{background-color:#eaeef2;text-align:left}"
        "table.rows td,table.rows th{border:1px solid #c8ccd0}"
        "</style></head><body>");
    out += QStringLiteral("<h1>%1</h1>").arg(tr("Go/No-Go audit: sign-off"));
    out += QStringLiteral("<p class=\"subtitle\">%1</p>")
               .arg(tr("Report %1 of %2, by Cordon's live probes")
                        .arg(escaped(report.value(QStringLiteral("id"))),
                             auditTime(report.value(QStringLiteral("created_at")).toString())));
    out +=
        QStringLiteral("<p class=\"verdict\">%1 %2</p><p>%3</p>")
            .arg(tr("Verdict of the rows:"), coloured(verdict), countsLine(countRows(rows)).toHtmlEscaped());
    out += signOffSection(report);
    out += auditedSection(report);
    out += policySection(report);
    out += rowsSection(rows);
    out += QStringLiteral("</body></html>");
    return out;
}

QString writePdf(const QJsonObject &report, const QString &path)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return tr("%1: %2").arg(path, file.errorString());
    {
        QPdfWriter writer(&file);
        writer.setPageSize(QPageSize(QPageSize::A4));
        writer.setPageMargins(QMarginsF(16, 14, 16, 12), QPageLayout::Millimeter);
        writer.setResolution(300);
        writer.setTitle(tr("Go/No-Go audit %1").arg(report.value(QStringLiteral("id")).toString()));
        writer.setCreator(QCoreApplication::applicationName());

        QTextDocument document;
        document.documentLayout()->setPaintDevice(&writer);
        QFont font = document.defaultFont();
        font.setPointSizeF(8.5);
        // Any letter spacing turns the font's ligatures off: "filesystem.writes" and "fingerprint" are then
        // found, copied and read back with the letters typed, not a single "fi" glyph. This spacing is too
        // small to see.
        font.setLetterSpacing(QFont::AbsoluteSpacing, 0.02);
        document.setDefaultFont(font);
        // Lines break between words only: a claim, a path or a hash is never cut in two.
        QTextOption option = document.defaultTextOption();
        option.setWrapMode(QTextOption::WordWrap);
        document.setDefaultTextOption(option);
        document.setHtml(html(report));

        QFont footerFont = font;
        footerFont.setPointSizeF(7);
        const QFontMetricsF footerMetrics(footerFont, &writer);
        const QRectF page = writer.pageLayout().paintRectPixels(writer.resolution());
        const qreal footerHeight = footerMetrics.height() * 2;
        const QSizeF body(page.width(), page.height() - footerHeight);
        document.setPageSize(body);

        QPainter painter;
        if (!painter.begin(&writer))
            return tr("%1 could not be written").arg(path);
        const int pages = document.pageCount();
        for (int index = 0; index < pages; ++index) {
            if (index > 0)
                writer.newPage();
            painter.save();
            const QRectF shown(QPointF(0, index * body.height()), body);
            painter.translate(0, -shown.top());
            painter.setClipRect(shown);
            QAbstractTextDocumentLayout::PaintContext context;
            context.clip = shown;
            document.documentLayout()->draw(&painter, context);
            painter.restore();
            painter.setFont(footerFont);
            painter.setPen(QColor(0x57, 0x60, 0x6a));
            painter.drawText(QRectF(0, body.height(), body.width(), footerHeight),
                             Qt::AlignLeft | Qt::AlignBottom, footerText(report, index + 1, pages));
        }
        painter.end();
    }
    if (!file.commit())
        return tr("%1: %2").arg(path, file.errorString());
    return {};
}

} // namespace Cordon::Ui::AuditSignOff
