// SPDX-License-Identifier: MIT
// The Go/No-Go audit's report (engine/audit/): its JSON form read back, the overall verdict, and the Ed25519
// signature: a signed report verifies, and any edit breaks it (a verdict, a piece of evidence with or without
// its hash recomputed, the policy, the sign-off, a member added), as does a signature moved to another key.
#include "audit/auditreport.h"
#include "audit/reportsignature.h"
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
