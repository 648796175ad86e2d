// SPDX-License-Identifier: MIT
// The audit report as the reviewer signs it off, without a daemon: a signed report of 21 rows made here.
// Its PDF is read back with poppler's pdftotext, as a reader's viewer would: a few pages, not one per row or
// two; the first page holds the verdict, the date, who signed off, the signer's key and the signature's
// fingerprint, and the policy in words instead of its JSON; no word of a row is cut in two. A draft says it
// is one. And the audit view, given a finished report, selects its first No-Go row and scrolls to it.
#include "guitest.h"
#include "testutil.h"

#include "auditsignoff.h"
#include "auditview.h"
#include "daemonconnection.h"

#include "audit/reportsignature.h"
#include "auditrunner/auditrunner.h"
#include "core/plainbridge.h"

#include <QProcess>
#include <QRegularExpression>
#include <QScrollBar>
#include <QSet>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTreeWidget>

using namespace Cordon;
using namespace Cordon::Ui;

namespace {

// Reasons as long as real ones, with the paths, names and hashes that a narrow column would cut anywhere.
const char *const Reasons[] = {
    "each of /home/reviewer, /root, /var/lib/cordon-workspaces and /run/user/1000 is ENOENT inside; no host "
    "mount is, holds or sits in one of them",
    "the proxy refused unlisted.example.invalid, 10.255.255.1 and 169.254.169.254 with 403 and a "
    "network.denied event each; localhost was refused after resolution (resolved to a private address)",
    "fewer than 256 forks succeeded, then fork() failed with EAGAIN; the pids.max of the container's cgroup "
    "held",
    "no form of the key (hex, base64, base64url, percent-encoded, JSON-escaped) is in the streams, the "
    "history or the downloaded outputs; each form's line shows [secret:CORDON_AUDIT_KEY]",
};

constexpr int NoGoRow = 16;

QJsonObject makeReport(bool signOff)
{
    Audit::AuditReport report;
    report.id = "au-0123456789abcdef";
    report.createdAt = "2026-12-04T00:51:07Z";
    report.cordonVersion = "0.1.0";
    report.hostFacts = {
        {"kernel", "6.1.0-28-amd64 x86_64"},
        {"cgroup", "cgroup v2, delegated to the user's systemd"},
        {"user_namespaces", "max 96369"},
        {"seccomp", "filter (with SECCOMP_FILTER_FLAG_TSYNC)"},
        {"audited_container", "3f2a41c0e9b1d2c3"},
        {"container_under_test", "7d0e91aa12345678 (the policy named audit-7d0e91aa: version "
                                 "9c1f0a5e3b7d2c4f6a8e0b1d3f5a7c9e1b3d5f7a9c1e3b5d7f9a1c3e5b7d9f1a)"},
    };
    // As a reviewer writes a policy file: a tier in words, rules as strings, keys in any order.
    report.policyText = "{\"name\": \"reviewed\", \"memory_limit\": \"1g\", \"network_policy\": {\"type\": "
                        "\"allowlist\", \"allowed_domains\": [\"pypi.org\", \"*.pythonhosted.org\"]}}";
    report.policyVersion = "5e0c7a1b9d3f2e4c6a8b0d1f3e5c7a9b1d3f5e7c9a1b3d5f7e9c1a3b5d7f9e1c";
    int index = 0;
    for (const auto &[id, title] : Audit::AuditRunner::rowTitles()) {
        Audit::AuditRow row;
        row.id = toPlain(id);
        row.title = toPlain(title);
        row.verdict = index == NoGoRow ? Audit::Verdict::NoGo
                      : index == 3     ? Audit::Verdict::NotApplicable
                                       : Audit::Verdict::Go;
        row.reason = Reasons[index % std::size(Reasons)];
        row.durationMs = 100 + index;
        row.evidence = {{"command", "cordon-audit-probe stat /home/reviewer -> ENOENT"},
                        {"exit status", "0"},
                        {"run", "run 7d0e91aa12345678 in container 3f2a41c0e9b1d2c3"}};
        report.rows.push_back(std::move(row));
        ++index;
    }
    if (!signOff)
        return toQt(report.toJson()).toObject();
    report.signOff = Audit::SignOff{"Ada Reviewer", "Security lead", "no_go", "2026-12-05"};
    auto seed = Audit::newSigningSeed();
    if (!seed)
        return {};
    auto signedReport = Audit::signReport(report, *seed);
    return signedReport ? toQt(*signedReport).toObject() : QJsonObject();
}

// What poppler's pdftotext reads from the pages (all when `page` is 0), in the order they were drawn: its
// default mode would join a line that ends in a hyphen to the next, hiding where the line broke.
QString pdfText(const QString &pdf, int page = 0)
{
    QStringList arguments{QStringLiteral("-raw")};
    if (page > 0)
        arguments << QStringLiteral("-f") << QString::number(page) << QStringLiteral("-l")
                  << QString::number(page);
    arguments << pdf << QStringLiteral("-");
    QProcess process;
    process.start(QStringLiteral("pdftotext"), arguments);
    if (!process.waitForFinished(30000) || process.exitCode() != 0)
        return {};
    return QString::fromUtf8(process.readAllStandardOutput());
}

int pdfPages(const QString &pdf)
{
    QProcess process;
    process.start(QStringLiteral("pdfinfo"), {pdf});
    if (!process.waitForFinished(30000))
        return -1;
    static const QRegularExpression pages(QStringLiteral("^Pages:\\s+(\\d+)$"),
                                          QRegularExpression::MultilineOption);
    return pages.match(QString::fromUtf8(process.readAllStandardOutput())).captured(1).toInt();
}

bool havePoppler()
{
    return !QStandardPaths::findExecutable(QStringLiteral("pdftotext")).isEmpty() &&
           !QStandardPaths::findExecutable(QStringLiteral("pdfinfo")).isEmpty();
}

} // namespace

// Reading the PDF back needs poppler-utils: a skip without it, a failure where it must work.
#define NEEDS_POPPLER()                                                                                      \
    do {                                                                                                     \
        if (!havePoppler()) {                                                                                \
            if (qEnvironmentVariableIntValue("CORDON_MUST_WORK") == 1)                                       \
                QFAIL("pdftotext and pdfinfo (poppler-utils) are needed to read the PDF back");              \
            QSKIP("pdftotext and pdfinfo (poppler-utils) are not installed");                                \
        }                                                                                                    \
    } while (false)

class AuditSignOffTest final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void signedReportIsAShortSignOffDocument()
    {
        NEEDS_POPPLER();
        const QJsonObject report = makeReport(true);
        QVERIFY(report.contains(QStringLiteral("signature")));
        const QString pdf = m_dir.filePath(QStringLiteral("signed.pdf"));
        QCOMPARE(AuditSignOff::writePdf(report, pdf), QString());
        // The pages as pictures; CORDON_AUDIT_PDF_KEEP=DIR keeps them and the PDF there for a person to see.
        const QString keep = qEnvironmentVariable("CORDON_AUDIT_PDF_KEEP", m_dir.path());
        QProcess render;
        render.start(QStringLiteral("pdftoppm"), {QStringLiteral("-png"), QStringLiteral("-r"),
                                                  QStringLiteral("60"), pdf, keep + QStringLiteral("/page")});
        if (render.waitForStarted(5000)) {
            QVERIFY(render.waitForFinished(30000));
            QCOMPARE(render.exitCode(), 0);
        }
        if (keep != m_dir.path()) {
            QFile::remove(keep + QStringLiteral("/signed.pdf"));
            QVERIFY(QFile::copy(pdf, keep + QStringLiteral("/signed.pdf")));
        }

        // A cover page and the rows on a few more.
        const int pages = pdfPages(pdf);
        QVERIFY2(pages >= 2 && pages <= 4, qPrintable(QString::number(pages)));

        const QString first = pdfText(pdf, 1);
        const QJsonObject signature = report.value(QStringLiteral("signature")).toObject();
        const QString fingerprint = AuditSignOff::signatureFingerprint(report);
        QCOMPARE(fingerprint.size(), 39); // 32 digits in groups of four
        for (const QString &expected :
             {QStringLiteral("Go/No-Go audit: sign-off"), QStringLiteral("Verdict of the rows: No-Go"),
              QStringLiteral("20 of 21 rows applied, 19 of them Go"), QStringLiteral("Decision No-Go"),
              QStringLiteral("Ada Reviewer, Security lead"), QStringLiteral("2026-12-05"),
              QStringLiteral("2026-12-04 00:51 UTC"), signature.value(QStringLiteral("key_id")).toString(),
              fingerprint,
              // The policy in words, as `cordon inspect` says it, read from the policy file's own spelling.
              QStringLiteral("1 GiB"), QStringLiteral("pypi.org, ports 80 and 443, any method, any path"),
              QStringLiteral("every subdomain of pythonhosted.org")})
            QVERIFY2(first.simplified().contains(expected),
                     qPrintable(expected + QStringLiteral(" not in:\n") + first));
        // Not the JSON.
        QVERIFY2(!first.contains(QStringLiteral("\"memory_limit\"")) && !first.contains(QLatin1Char('{')),
                 qPrintable(first));
        QVERIFY(!first.contains(report.value(QStringLiteral("rows"))
                                    .toArray()
                                    .at(0)
                                    .toObject()
                                    .value(QStringLiteral("reason"))
                                    .toString()
                                    .left(30)));

        // Every row, and no word of it cut in two: each word of each claim and reason is read whole. A path
        // or a name may break after a slash or a hyphen, as a typesetter breaks them, never inside a word.
        const auto pieces = [](QString text) {
            static const QRegularExpression breakAfter(QStringLiteral("([/-])"));
            text.replace(breakAfter, QStringLiteral("\\1 "));
            return text.split(QRegularExpression(QStringLiteral("\\s+")), Qt::SkipEmptyParts);
        };
        const QStringList words = pieces(pdfText(pdf));
        const QSet<QString> read(words.begin(), words.end());
        for (const QJsonValue &value : report.value(QStringLiteral("rows")).toArray()) {
            const QJsonObject row = value.toObject();
            const QString text = row.value(QStringLiteral("title")).toString() + QLatin1Char(' ') +
                                 row.value(QStringLiteral("reason")).toString() + QLatin1Char(' ') +
                                 row.value(QStringLiteral("id")).toString() + QLatin1Char(' ') +
                                 row.value(QStringLiteral("evidence_sha256")).toString().left(16);
            for (const QString &word : pieces(text))
                QVERIFY2(read.contains(word), qPrintable(word + QStringLiteral(" is not whole in row ") +
                                                         row.value(QStringLiteral("id")).toString()));
        }
        // Every page says which report it belongs to, and which page of how many it is.
        for (int page = 1; page <= pages; ++page)
            QVERIFY2(pdfText(pdf, page).contains(QStringLiteral("page %1 of %2").arg(page).arg(pages)),
                     qPrintable(QString::number(page)));
    }

    void unsignedReportSaysItIsADraft()
    {
        NEEDS_POPPLER();
        const QJsonObject report = makeReport(false);
        const QString pdf = m_dir.filePath(QStringLiteral("draft.pdf"));
        QCOMPARE(AuditSignOff::writePdf(report, pdf), QString());
        const QString first = pdfText(pdf, 1).simplified();
        QVERIFY2(first.contains(QStringLiteral("Not signed off: a draft.")), qPrintable(first));
        QVERIFY(!first.contains(QStringLiteral("fingerprint")));
        QVERIFY2(first.contains(QStringLiteral("not signed off · page 1 of")), qPrintable(first));
    }

    void writingWhereItCannotSaysWhy()
    {
        const QString error = AuditSignOff::writePdf(makeReport(false), QStringLiteral("/nonexistent/x.pdf"));
        QVERIFY2(error.startsWith(QStringLiteral("/nonexistent/x.pdf: ")), qPrintable(error));
    }

    // A view of a few rows' height, as the dock is below the panels.
    void init()
    {
        m_view = std::make_unique<AuditView>(m_connection);
        m_view->resize(900, 260);
        m_view->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_view.get()));
    }

    void cleanup() { m_view.reset(); }

    void finishedReportShowsItsFirstNoGo()
    {
        QTreeWidget *rows = m_view->rows();
        // As after a live audit: scrolled to the last row.
        m_view->showReport(makeReport(false));
        rows->scrollToBottom();
        m_view->showReport(makeReport(true));
        QTreeWidgetItem *noGo = rows->topLevelItem(NoGoRow);
        QCOMPARE(noGo->text(AuditView::VerdictColumn), QStringLiteral("No-Go"));
        QCOMPARE(rows->currentItem(), noGo);
        QVERIFY(noGo->isSelected());
        QVERIFY(noGo->isExpanded());
        QTRY_VERIFY2(rows->viewport()->rect().contains(rows->visualItemRect(noGo)),
                     qPrintable(QStringLiteral("row at %1, viewport %2 high")
                                    .arg(rows->visualItemRect(noGo).top())
                                    .arg(rows->viewport()->height())));
        // The earlier rows are above it, out of the way: the view did scroll.
        QVERIFY(rows->verticalScrollBar()->value() > 0);
    }

    void reportWithoutNoGoOpensAtTheTop()
    {
        QJsonObject report = makeReport(false);
        QJsonArray rows = report.value(QStringLiteral("rows")).toArray();
        QJsonObject row = rows.at(NoGoRow).toObject();
        row.insert(QStringLiteral("verdict"), QStringLiteral("go"));
        rows.replace(NoGoRow, row);
        report.insert(QStringLiteral("rows"), rows);
        m_view->showReport(makeReport(false));
        m_view->showReport(report);
        QCOMPARE(m_view->rows()->currentItem(), nullptr);
        QCOMPARE(m_view->rows()->verticalScrollBar()->value(), 0);
    }

private:
    QTemporaryDir m_dir;
    DaemonConnection m_connection;
    std::unique_ptr<AuditView> m_view;
};

CORDON_GUI_TEST_MAIN(AuditSignOffTest)
#include "tst_auditsignoff.moc"
