// SPDX-License-Identifier: MIT
// The Go/No-Go audit's report (engine/audit/): its JSON form read back, the overall verdict, and the Ed25519
// signature: a signed report verifies, and any edit breaks it (a verdict, a piece of evidence with or without
// its hash recomputed, the policy, the sign-off, a member added), as does a signature moved to another key.
// A row that cannot apply is neither Go nor hidden; a report given for signing is compared with the one the
// history holds (each forgery named); the reviewers' keyring names who signed; the credentials row's forms of
// a key are the ones docs/secrets.md lists.
#include "audit/auditreport.h"
#include "audit/heldreport.h"
#include "audit/reportexport.h"
#include "audit/reportsignature.h"
#include "audit/reviewerkeyring.h"
#include "auditrunner/secretforms.h"
#include "sandbox/hex.h"

#include <QTest>

using namespace Cordon;
using namespace Cordon::Audit;

namespace {

AuditReport sampleReport()
{
    AuditReport report;
    report.id = "au-0123456789abcdef";
    report.createdAt = "2026-12-04T00:51:07Z";
    report.cordonVersion = "0.1.0";
    report.hostFacts = {{"kernel", "6.1.0-28-amd64"}, {"cgroup", "v2"}, {"seccomp", "filter"}};
    report.policyText = R"({"network_policy": {"type": "disabled"}})";
    report.policyVersion = "sha256:4f1c";
    report.rows.push_back({"network.disabled",
                           "No route without network",
                           Verdict::Go,
                           "connect() to 1.1.1.1:443 failed with ENETUNREACH",
                           412,
                           {{"command", "python3 -c 'socket.create_connection((\"1.1.1.1\", 443))'"},
                            {"exit status", "1"},
                            {"excerpt", "OSError: [Errno 101] Network is unreachable"}}});
    report.rows.push_back({"tools.capabilities",
                           "No capabilities",
                           Verdict::Go,
                           "CapEff is 0",
                           87,
                           {{"excerpt", "CapEff:\t0000000000000000"}}});
    report.signOff = SignOff{"A. Reviewer", "security", "go", "2026-12-04"};
    return report;
}

Json signedSample(const std::string &seed)
{
    Result<Json> signedReport = signReport(sampleReport(), seed);
    return signedReport ? *signedReport : Json();
}

// `document` with the member at `path` (keys, or an index into an array) replaced by `value`.
Json edited(Json document, const std::vector<std::string> &path, const Json &value)
{
    if (path.empty())
        return value;
    Json copy = document;
    if (copy.isArray()) {
        Json::Array items = copy.items();
        const std::size_t index = std::stoul(path.front());
        items[index] = edited(items[index], {path.begin() + 1, path.end()}, value);
        return Json(std::move(items));
    }
    copy.insert(path.front(), edited(copy[path.front()], {path.begin() + 1, path.end()}, value));
    return copy;
}

bool verifies(const Json &document)
{
    Result<Verification> verification = verifyReport(document);
    return verification && verification->intact();
}

} // namespace

class TestAuditReport final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void theJsonFormReadsBack()
    {
        const Json json = sampleReport().toJson();
        Result<AuditReport> read = AuditReport::fromJson(json);
        QVERIFY2(read, read ? "" : read.error().message().c_str());
        QCOMPARE(read->toJson().serialize(), json.serialize());
        QCOMPARE(json["verdict"].toString(), std::string("go"));
        QCOMPARE(json["rows"].items()[0]["evidence_sha256"].toString(),
                 sampleReport().rows[0].evidenceSha256());
    }

    void oneNoGoRowMakesTheReportNoGo()
    {
        AuditReport report = sampleReport();
        QCOMPARE(report.verdict(), Verdict::Go);
        report.rows[1].verdict = Verdict::NoGo;
        QCOMPARE(report.verdict(), Verdict::NoGo);
        report.rows.clear();
        QCOMPARE(report.verdict(), Verdict::NoGo); // nothing shown is not a Go
    }

    void aRowThatCannotApplyIsNeitherGoNorHidden()
    {
        AuditReport report = sampleReport();
        report.rows.push_back({"network.allowed_host",
                               "The allowlisted host is reached",
                               Verdict::NotApplicable,
                               "the policy's network is disabled: there is no allowed host",
                               0,
                               {}});
        QCOMPARE(report.verdict(), Verdict::Go);
        QCOMPARE(report.appliedRows(), 2);
        QCOMPARE(report.goRows(), 2);
        const Json json = report.toJson();
        QCOMPARE(json["rows"].items()[2]["verdict"].toString(), std::string("not_applicable"));
        QCOMPARE(json["rows_applied"].toInteger(), std::int64_t(2));
        Result<AuditReport> read = AuditReport::fromJson(json);
        QVERIFY(read && read->rows[2].verdict == Verdict::NotApplicable);
        QVERIFY(reportMarkdown(report).find("- Rows: 2 of 3 rows applied, 2 Go") != std::string::npos);
        QVERIFY(reportMarkdown(report).find("| Not applicable | `network.allowed_host`") !=
                std::string::npos);
        QVERIFY(reportHtml(report).find("<td class=\"na\">Not applicable</td>") != std::string::npos);
        // Rows that could not apply prove nothing: a report of them alone is No-Go.
        report.rows.erase(report.rows.begin(), report.rows.begin() + 2);
        QCOMPARE(report.appliedRows(), 0);
        QCOMPARE(report.verdict(), Verdict::NoGo);
    }

    // `audit sign` signs only the report the history holds: each way of making one up is named.
    void aReportNotTheHistorysIsNamedForWhatDiffers()
    {
        const Json held = sampleReport().toJson();
        QCOMPARE(differenceFromHeld(held, held), std::string());
        // The sign-off and signature are what signing replaces.
        QCOMPARE(differenceFromHeld(held, signedSample(*newSigningSeed())), std::string());

        AuditReport newId = sampleReport();
        newId.id = "au-ffffffffffffffff";
        QCOMPARE(differenceFromHeld(held, newId.toJson()),
                 std::string("its id au-ffffffffffffffff is not the history's record's au-0123456789abcdef"));

        AuditReport flipped = sampleReport();
        flipped.rows[0].verdict = Verdict::NoGo;
        const Json heldNoGo = flipped.toJson();
        QCOMPARE(differenceFromHeld(heldNoGo, held),
                 std::string(
                     "row network.disabled's verdict is not the history's record's (go here, no_go there)"));

        AuditReport invented = sampleReport();
        invented.rows[0].evidence[2].text = "connect: ENETUNREACH";
        const Json rehashed = invented.toJson(); // its evidence_sha256 recomputed: it verifies on its own
        QVERIFY(verifyReport(rehashed) && verifyReport(rehashed)->alteredRows.empty());
        QVERIFY(differenceFromHeld(held, rehashed)
                    .rfind("row network.disabled's evidence_sha256 is not the history's "
                           "record's",
                           0) == 0);

        AuditReport fewer = sampleReport();
        fewer.rows.pop_back();
        QCOMPARE(differenceFromHeld(held, fewer.toJson()),
                 std::string("it has 1 rows, the history's record has 2"));

        QCOMPARE(differenceFromHeld(held, edited(held, {"policy", "text"}, "{}")),
                 std::string("its policy is not the history's record's"));
    }

    void theKeyringNamesTheSigner()
    {
        const std::string seed = *newSigningSeed();
        const std::string publicKey = *publicKeyOf(seed);
        const std::string other = *publicKeyOf(*newSigningSeed());
        Result<ReviewerKeyring> keyring =
            parseKeyring("# reviewers\n\n" + toHex(publicKey) + "  Ada Reviewer\n" + signingKeyId(other) +
                         "\tBob Auditor\r\n");
        QVERIFY2(keyring, keyring ? "" : keyring.error().message().c_str());
        QCOMPARE(keyring->keys.size(), std::size_t(2));
        Result<Verification> verification = verifyReport(signedSample(seed));
        QVERIFY(verification && verification->intact());
        const TrustedKey *signer = keyring->signer(verification->keyId, verification->publicKey);
        QVERIFY(signer);
        QCOMPARE(signer->name, std::string("Ada Reviewer"));
        QCOMPARE(keyring->signer(signingKeyId(other), toHex(other))->name, std::string("Bob Auditor"));
        // A signer the keyring does not name is nobody it trusts.
        const std::string stranger = *publicKeyOf(*newSigningSeed());
        QVERIFY(keyring->signer(signingKeyId(stranger), toHex(stranger)) == nullptr);
        // A key id that is another key's is not its public key.
        QVERIFY(keyring->signer(signingKeyId(publicKey), toHex(stranger)) == nullptr);

        QCOMPARE(parseKeyring("not-a-key Ada\n").error().code(), std::string("audit.bad_keyring"));
        QCOMPARE(parseKeyring(toHex(publicKey) + "\n").error().message(),
                 "line 1: the key " + toHex(publicKey) + " has no name");
        QVERIFY(parseKeyring("")->keys.empty());
    }

    // The credentials row prints and looks for every form docs/secrets.md lists, each distinct for its key.
    void everyDocumentedFormOfAKeyIsLookedFor()
    {
        const QByteArray value = (QStringLiteral("sk-audit-invalid-0123") + distinctFormsSuffix()).toUtf8();
        QHash<QString, QByteArray> forms;
        for (const SecretForm &form : secretForms(value))
            forms.insert(form.label, form.text);
        QCOMPARE(forms.size(), 17);
        QCOMPARE(forms.value(QStringLiteral("raw")), value);
        QCOMPARE(forms.value(QStringLiteral("lower")),
                 QStringLiteral("sk-audit-invalid-0123/q+ \"\\\u00e9~~~?>").toUtf8());
        QCOMPARE(forms.value(QStringLiteral("json")),
                 QByteArray("sk-audit-invalid-0123/Q+ \\\"\\\\\xc3\xa9~~~?>"));
        QCOMPARE(forms.value(QStringLiteral("json-unicode")),
                 QByteArray("sk-audit-invalid-0123/Q+ \\\"\\\\\\u00e9~~~?>"));
        QCOMPARE(forms.value(QStringLiteral("json-slash")),
                 QByteArray("sk-audit-invalid-0123\\/Q+ \\\"\\\\\xc3\xa9~~~?>"));
        QCOMPARE(forms.value(QStringLiteral("percent")),
                 QByteArray("sk-audit-invalid-0123%2FQ%2B%20%22%5C%C3%A9~~~%3F%3E"));
        QCOMPARE(forms.value(QStringLiteral("percent-plus")),
                 QByteArray("sk-audit-invalid-0123%2FQ%2B+%22%5C%C3%A9~~~%3F%3E"));
        QCOMPARE(forms.value(QStringLiteral("percent-lower")),
                 QByteArray("sk-audit-invalid-0123%2fQ%2b%20%22%5c%c3%a9~~~%3f%3e"));
        QCOMPARE(forms.value(QStringLiteral("hex")), value.toHex());
        QCOMPARE(forms.value(QStringLiteral("hex-upper")), value.toHex().toUpper());
        QCOMPARE(forms.value(QStringLiteral("base64-1")), QByteArray(QByteArray("x") + value).toBase64());
        QCOMPARE(forms.value(QStringLiteral("base64url-2")),
                 QByteArray(QByteArray("xx") + value).toBase64(QByteArray::Base64UrlEncoding));
        // No two forms alike: each checks something of its own.
        QCOMPARE(QSet<QByteArray>(forms.cbegin(), forms.cend()).size(), 17);
    }

    void aSignedReportVerifies()
    {
        Result<std::string> seed = newSigningSeed();
        QVERIFY(seed && seed->size() == SigningSeedBytes);
        const Json document = signedSample(*seed);
        Result<Verification> verification = verifyReport(document);
        QVERIFY2(verification, verification ? "" : verification.error().message().c_str());
        QVERIFY(verification->intact());
        QCOMPARE(verification->keyId, signingKeyId(*publicKeyOf(*seed)));
        QCOMPARE(document["signature"]["key_id"].toString(), verification->keyId);
        // Read back from its text, as a file is.
        Result<Json> reread = Json::read(document.serializeIndented());
        QVERIFY(reread && verifies(*reread));
    }

    void anyEditBreaksIt()
    {
        const Json document = signedSample(*newSigningSeed());
        QVERIFY(verifies(document));
        QVERIFY(!verifies(edited(document, {"rows", "0", "verdict"}, "no_go")));
        QVERIFY(!verifies(edited(document, {"verdict"}, "no_go")));
        QVERIFY(
            !verifies(edited(document, {"policy", "text"}, R"({"network_policy": {"type": "allowlist"}})")));
        QVERIFY(!verifies(edited(document, {"sign_off", "decision"}, "no_go")));
        QVERIFY(!verifies(edited(document, {"host", "kernel"}, "5.10")));
        QVERIFY(!verifies(edited(document, {"added"}, "a member the signer never saw")));

        // Evidence changed: the row is named, whether its hash was left or recomputed.
        const Json excerpt = edited(document, {"rows", "0", "evidence", "2", "text"}, "connected");
        Result<Verification> stale = verifyReport(excerpt);
        QVERIFY(stale && !stale->intact());
        QCOMPARE(stale->alteredRows, std::vector<std::string>{"network.disabled"});
        AuditReport forged = *AuditReport::fromJson(excerpt);
        const Json rehashed =
            edited(excerpt, {"rows", "0", "evidence_sha256"}, forged.rows[0].evidenceSha256());
        Result<Verification> recomputed = verifyReport(rehashed);
        QVERIFY(recomputed && recomputed->alteredRows.empty() && !recomputed->signatureValid);
    }

    void aSignatureMovedToAnotherKeyFails()
    {
        const Json document = signedSample(*newSigningSeed());
        const std::string otherKey = *publicKeyOf(*newSigningSeed());
        const std::string hex = toHex(otherKey);
        Json moved = edited(document, {"signature", "public_key"}, hex);
        moved = edited(moved, {"signature", "key_id"}, signingKeyId(otherKey));
        QVERIFY(!verifies(moved));
        // A key id that is not the key's own is not believed either.
        QVERIFY(!verifies(edited(document, {"signature", "key_id"}, "ak-0000000000000000")));
    }

    void badDocumentsAreClearErrors()
    {
        const Json document = signedSample(*newSigningSeed());
        Result<Verification> unsignedReport = verifyReport(sampleReport().toJson());
        QVERIFY(unsignedReport && !unsignedReport->isSigned && !unsignedReport->intact());
        Result<Verification> shortValue = verifyReport(edited(document, {"signature", "value"}, "abcd"));
        QVERIFY(!shortValue && shortValue.error().code() == "audit.bad_signature");
        Result<Verification> otherAlgorithm =
            verifyReport(edited(document, {"signature", "algorithm"}, "rsa"));
        QVERIFY(!otherAlgorithm && otherAlgorithm.error().code() == "audit.bad_signature");
        Result<Verification> noRows = verifyReport(edited(document, {"rows"}, "none"));
        QVERIFY(!noRows && noRows.error().code() == "audit.bad_report");
        Result<Verification> notAnObject = verifyReport(Json("a report"));
        QVERIFY(!notAnObject && notAnObject.error().code() == "audit.bad_report");
        QVERIFY(!publicKeyOf("short") && publicKeyOf("short").error().code() == "audit.bad_key");
    }
};

QTEST_GUILESS_MAIN(TestAuditReport)
#include "tst_auditreport.moc"
