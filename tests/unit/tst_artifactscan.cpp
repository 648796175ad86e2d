// SPDX-License-Identifier: MIT
// The artifact scan on real bytes (docs/artifact-scan.md): every rule of the table finds its positive sample
// and not its negative one; a secret's value is found in every form the masker knows; findings carry the
// line, offset and a masked excerpt; text, binary, zip, tar and gzip (nested too) are searched; archives past
// the bounds (members, depth, expanded size) are a finding, quickly; redaction replaces what was found.
#include "sandbox/secrets/secretmasker.h"
#include "scan/artifactscanner.h"

#include "testutil.h"

#include <QElapsedTimer>
#include <QObject>
#include <QTest>

#include <archive.h>
#include <archive_entry.h>

using namespace Cordon;
using Cordon::Scan::ArtifactScanner;
using Cordon::Scan::Finding;

namespace {

const std::string SecretValue = "tok-9f8e/7d6c+5b4a=0123456789";

struct Member
{
    std::string name;
    std::string content;
};

// An archive made with libarchive's writer: "zip", "ustar", or "ustar" + gzip ("tgz"), or one gzip'd file
// ("gz", raw format).
std::string makeArchive(const std::string &kind, const std::vector<Member> &members)
{
    std::unique_ptr<archive, int (*)(archive *)> writer(archive_write_new(), archive_write_free);
    if (kind == "zip")
        archive_write_set_format_zip(writer.get());
    else if (kind == "gz")
        archive_write_set_format_raw(writer.get());
    else
        archive_write_set_format_ustar(writer.get());
    if (kind == "tgz" || kind == "gz")
        archive_write_add_filter_gzip(writer.get());
    std::string out(64 * 1024 * 1024, '\0');
    std::size_t used = 0;
    archive_write_open_memory(writer.get(), out.data(), out.size(), &used);
    for (const Member &member : members) {
        std::unique_ptr<archive_entry, void (*)(archive_entry *)> entry(archive_entry_new(),
                                                                        archive_entry_free);
        archive_entry_set_pathname(entry.get(), member.name.c_str());
        archive_entry_set_filetype(entry.get(), AE_IFREG);
        archive_entry_set_perm(entry.get(), 0644);
        archive_entry_set_size(entry.get(), la_int64_t(member.content.size()));
        archive_write_header(writer.get(), entry.get());
        archive_write_data(writer.get(), member.content.data(), member.content.size());
    }
    archive_write_close(writer.get());
    out.resize(used);
    return out;
}

bool has(const std::vector<Finding> &findings, const std::string &rule, const std::string &path = {})
{
    return std::any_of(findings.begin(), findings.end(), [&](const Finding &finding) {
        return finding.rule == rule && (path.empty() || finding.path == path);
    });
}

QByteArray describe(const std::vector<Finding> &findings)
{
    QByteArray out;
    for (const Finding &finding : findings)
        out += QByteArray::fromStdString(finding.path + ":" + std::to_string(finding.line) + " " +
                                         finding.rule + " " + finding.excerpt + "\n");
    return out;
}

} // namespace

class TestArtifactScan final : public QObject
{
    Q_OBJECT

    Secrets::SecretMasker m_masker;

    ArtifactScanner scanner(Scan::ScanLimits limits = {}) const
    {
        ArtifactScanner::Options options;
        options.secrets = &m_masker;
        options.extraInternalSuffixes = {"acme-intra.example"};
        options.limits = limits;
        auto created = ArtifactScanner::create(std::move(options));
        if (!created)
            qFatal("%s", created.error().message().c_str());
        return std::move(*created);
    }

private Q_SLOTS:
    void initTestCase() { QVERIFY_RESULT(m_masker.add("API_TOKEN", SecretValue)); }

    void everyRuleFindsItsSampleAndNotItsCounterexample_data()
    {
        QTest::addColumn<int>("index");
        const ArtifactScanner probe = scanner();
        for (std::size_t i = 0; i < probe.rules().size(); ++i)
            QTest::newRow(probe.rules()[i].name) << int(i);
    }

    void everyRuleFindsItsSampleAndNotItsCounterexample()
    {
        QFETCH(int, index);
        const ArtifactScanner scan = scanner();
        const Scan::ScanRule &rule = scan.rules()[std::size_t(index)];
        QVERIFY2(*rule.positiveSample && *rule.negativeSample, "a rule without its two samples");
        QVERIFY(*rule.description);
        const auto found = scan.scan(rule.positiveSample, "sample.txt");
        QVERIFY2(has(found, rule.name), describe(found).constData());
        // A negative sample finds nothing at all: not this rule, and not another one in its place.
        const auto missed = scan.scan(rule.negativeSample, "sample.txt");
        QVERIFY2(missed.empty(), describe(missed).constData());
    }

    void aFindingSaysWhereAndHidesTheMatch()
    {
        const std::string text = "line one\nline two\nkey = AKIAQ3EXAMPLE7JX2KPL\n";
        const auto found = scanner().scan(text, "out/report.txt");
        QCOMPARE(found.size(), std::size_t(1));
        QCOMPARE(found[0].path, std::string("out/report.txt"));
        QCOMPARE(found[0].line, std::int64_t(3));
        QCOMPARE(found[0].offset, std::int64_t(text.find("AKIA")));
        QCOMPARE(found[0].excerpt, std::string("AKIA**************PL"));
        QCOMPARE(found[0].severity, Scan::Severity::High);
    }

    void theOrganisationsSuffixesAreInternalToo()
    {
        const auto found = scanner().scan("see http://jira.acme-intra.example/browse/X-1\n", "notes.md");
        QVERIFY2(has(found, "address.internal_host"), describe(found).constData());
    }

    void aSecretsValueIsFoundInEveryForm()
    {
        const ArtifactScanner scan = scanner();
        for (const std::string &form : Secrets::maskedForms(SecretValue)) {
            const auto found = scan.scan("prefix " + form + " suffix", "leak.txt");
            QVERIFY2(has(found, "secret.value"), form.c_str());
            QCOMPARE(found[0].excerpt, std::string("[secret:API_TOKEN]"));
        }
    }

    void binariesAreSearchedWithoutLines()
    {
        std::string binary("\x7f"
                           "ELF\0\0\0\0",
                           8);
        binary +=
            std::string(100, '\0') + "ghp_R2d2C3poExampleTokenValue0123456789ab" + std::string(50, '\0');
        const auto found = scanner().scan(binary, "a.out");
        QVERIFY2(has(found, "github.token"), describe(found).constData());
        QCOMPARE(found[0].line, std::int64_t(0));
        QCOMPARE(found[0].offset, std::int64_t(108));
    }

    void archivesAreOpenedNestedToo()
    {
        const std::string inner =
            makeArchive("ustar", {{"deep/creds.txt", "DB_PASSWORD=Xk9mQ2vL7pR4nZ8w\n"}});
        const std::string zip = makeArchive("zip", {{"readme.txt", "nothing here\n"},
                                                    {"logs/run.log", "ok\nsending " + SecretValue + "\n"},
                                                    {"bundle.tar", inner}});
        const auto found = scanner().scan(zip, "results.zip");
        QVERIFY2(has(found, "secret.value", "results.zip!logs/run.log"), describe(found).constData());
        QVERIFY2(has(found, "credential.assignment", "results.zip!bundle.tar!deep/creds.txt"),
                 describe(found).constData());
        // An uncompressed tar holds its members' bytes as they are: found in the member and in the tar's own.
        QVERIFY2(has(found, "credential.assignment", "results.zip!bundle.tar"), describe(found).constData());
        QCOMPARE(found.size(), std::size_t(3));

        const auto tgz =
            scanner().scan(makeArchive("tgz", {{"k.pem", "-----BEGIN EC PRIVATE KEY-----\n"}}), "k.tgz");
        QVERIFY2(has(tgz, "private_key.pem", "k.tgz!k.pem"), describe(tgz).constData());
        const auto gz = scanner().scan(
            makeArchive("gz", {{"cookies.txt", "Cookie: sid=8f14e45fceea167a5a\n"}}), "cookies.txt.gz");
        QVERIFY2(has(gz, "cookie.header"), describe(gz).constData());
    }

    void archiveBombsAreFindingsWithinBounds()
    {
        Scan::ScanLimits limits;
        limits.maxScannedBytes = 4 * 1024 * 1024;
        limits.maxArchiveMembers = 10;
        limits.maxArchiveDepth = 3;
        QElapsedTimer clock;
        clock.start();
        // 32 MiB of zeros, about 32 KiB zipped.
        const std::string expanding =
            makeArchive("zip", {{"zeros.bin", std::string(32 * 1024 * 1024, '\0')}});
        QVERIFY(expanding.size() < 1024 * 1024);
        const auto big = scanner(limits).scan(expanding, "big.zip");
        QVERIFY2(has(big, "archive.bomb", "big.zip!zeros.bin"), describe(big).constData());

        std::vector<Member> many;
        for (int i = 0; i < 50; ++i)
            many.push_back({"f" + std::to_string(i) + ".txt", "x"});
        const auto crowded = scanner(limits).scan(makeArchive("zip", many), "many.zip");
        QVERIFY2(has(crowded, "archive.bomb", "many.zip"), describe(crowded).constData());

        std::string nested = "AKIAQ3EXAMPLE7JX2KPL\n";
        for (int level = 0; level < 6; ++level)
            nested = makeArchive("zip", {{"level" + std::to_string(level) + ".zip", nested}});
        const auto deep = scanner(limits).scan(nested, "deep.zip");
        QVERIFY2(has(deep, "archive.bomb"), describe(deep).constData());
        QVERIFY(!has(deep, "aws.access_key_id"));

        const auto damaged = scanner(limits).scan(std::string("PK\x03\x04garbage", 11), "broken.zip");
        QVERIFY2(has(damaged, "archive.unreadable", "broken.zip"), describe(damaged).constData());
        // Not a benchmark: a bound that a hang or an unbounded expansion would blow by far.
        QVERIFY2(clock.elapsed() < 60000, "the bombs took a minute");
    }

    // What the review found: text hidden beside an archive's members, a secret after the listing cap, and
    // inputs that made the search quadratic.
    void nothingHidesBesideArchivesOrPastTheCap()
    {
        const std::string gz = makeArchive("gz", {{"a.txt", "harmless\n"}});
        const auto appended = scanner().scan(gz + "token=" + SecretValue + "\n", "notes.gz");
        QVERIFY2(has(appended, "secret.value", "notes.gz"), describe(appended).constData());

        std::string crowded;
        for (int i = 0; i < 250; ++i)
            crowded += "host 10.0.0." + std::to_string(i % 250) + "\n";
        crowded += SecretValue + "\n";
        const auto capped = scanner().scan(crowded, "hosts.txt");
        QVERIFY2(has(capped, "secret.value"), describe(capped).right(300).constData());
        QCOMPARE(std::count_if(capped.begin(), capped.end(),
                               [](const Finding &f) { return f.rule == "address.private_ip"; }),
                 std::ptrdiff_t(Scan::ScanLimits{}.maxFindingsPerFile));

        QElapsedTimer clock;
        clock.start();
        std::string hosts;
        while (hosts.size() < 1600 * 1024)
            hosts += "a.lan.";
        std::string tokens;
        while (tokens.size() < 1600 * 1024)
            tokens += "eyJaaaaaaaa-";
        (void)scanner().scan(hosts, "hosts");
        (void)scanner().scan(tokens, "tokens");
        // Not a benchmark: quadratic searches took minutes on these 1.6 MB.
        QVERIFY2(clock.elapsed() < 10000, "a pathological text took seconds");
    }

    void redactionCoversOverlappingMatchesWhole()
    {
        // A credential assignment whose value holds a secret: the redaction covers both, not the secret
        // alone.
        const std::string text = "password=Xk9mQ2vL7pR4nZ8w" + SecretValue + "Yq7Lp0Zt9Kw3Vb8N\n";
        const std::string out = scanner().redacted(text).value();
        QCOMPARE(out, std::string("password=[secret:API_TOKEN]\n"));
    }

    void redactionReplacesEveryMatch()
    {
        const std::string text = "token=" + SecretValue + "\nkey AKIAQ3EXAMPLE7JX2KPL and 10.1.2.3\n";
        const std::string out = scanner().redacted(text).value();
        QCOMPARE(out, std::string("token=[secret:API_TOKEN]\nkey [redacted:aws.access_key_id] and "
                                  "[redacted:address.private_ip]\n"));
        QVERIFY(scanner().scan(out, "redacted.txt").empty());
        QVERIFY(ArtifactScanner::isArchive(makeArchive("zip", {{"a", "b"}})));
        QVERIFY(!ArtifactScanner::isArchive(text));
    }
};

QTEST_GUILESS_MAIN(TestArtifactScan)
#include "tst_artifactscan.moc"
