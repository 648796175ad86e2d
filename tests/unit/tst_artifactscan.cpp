// SPDX-License-Identifier: MIT
// The artifact scan on real bytes (docs/artifact-scan.md): every rule of the table finds its positive sample
// and not its negative one; a secret's value is found in every form the masker knows; findings carry the
// line, offset and a masked excerpt; text, binary, zip, tar and gzip (nested too) are searched; archives past
// the bounds (members, depth, expanded size) are a finding, quickly; redaction replaces what was found.
#include "sandbox/secrets/secretmasker.h"
#include "scan/artifactinspection.h"
#include "scan/artifactscanner.h"

#include "testutil.h"

#include <QElapsedTimer>
#include <QFile>
#include <QObject>
#include <QTemporaryDir>
#include <QTest>

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

using namespace Cordon;
using Cordon::Scan::ArtifactScanner;
using Cordon::Scan::Finding;

namespace {

const std::string SecretValue = "tok-9f8e/7d6c+5b4a=0123456789";
// A value that fits in a file name (SecretValue holds a '/').
const std::string NameValue = "nametok-4c1d9e7a2b55";

struct Member
{
    std::string name;
    std::string content;
};

// An archive made with libarchive's writer in `format` (by its name: "zip", "ustar", "7zip", "raw" for one
// compressed file), through `filter` ("gzip", "xz", "bzip2", "zstd", "lz4"; "" for none).
std::string makeArchiveAs(const char *format, const char *filter, const std::vector<Member> &members)
{
    std::unique_ptr<archive, int (*)(archive *)> writer(archive_write_new(), archive_write_free);
    if (archive_write_set_format_by_name(writer.get(), format) != ARCHIVE_OK ||
        (*filter && archive_write_add_filter_by_name(writer.get(), filter) != ARCHIVE_OK))
        qFatal("libarchive cannot write %s through %s", format, filter);
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

// "zip", "ustar", "ustar" + gzip ("tgz"), or one gzip'd file ("gz").
std::string makeArchive(const std::string &kind, const std::vector<Member> &members)
{
    if (kind == "zip")
        return makeArchiveAs("zip", "", members);
    if (kind == "gz")
        return makeArchiveAs("raw", "gzip", members);
    return makeArchiveAs("ustar", kind == "tgz" ? "gzip" : "", members);
}

// A zip whose member is encrypted (traditional PKWARE encryption, as `zip -e` writes).
std::string encryptedZip(const std::string &content)
{
    std::unique_ptr<archive, int (*)(archive *)> writer(archive_write_new(), archive_write_free);
    archive_write_set_format_zip(writer.get());
    if (archive_write_set_options(writer.get(), "zip:encryption=zipcrypt") != ARCHIVE_OK ||
        archive_write_set_passphrase(writer.get(), "hunter2") != ARCHIVE_OK)
        qFatal("libarchive cannot encrypt a zip");
    std::string out(1024 * 1024, '\0');
    std::size_t used = 0;
    archive_write_open_memory(writer.get(), out.data(), out.size(), &used);
    std::unique_ptr<archive_entry, void (*)(archive_entry *)> entry(archive_entry_new(), archive_entry_free);
    archive_entry_set_pathname(entry.get(), ".env");
    archive_entry_set_filetype(entry.get(), AE_IFREG);
    archive_entry_set_perm(entry.get(), 0600);
    archive_entry_set_size(entry.get(), la_int64_t(content.size()));
    archive_write_header(writer.get(), entry.get());
    archive_write_data(writer.get(), content.data(), content.size());
    archive_write_close(writer.get());
    out.resize(used);
    return out;
}

std::string zlibCompressed(const std::string &text)
{
    uLongf size = compressBound(uLong(text.size()));
    std::string out(size, '\0');
    if (compress(reinterpret_cast<Bytef *>(out.data()), &size, reinterpret_cast<const Bytef *>(text.data()),
                 uLong(text.size())) != Z_OK)
        qFatal("zlib cannot compress");
    out.resize(size);
    return out;
}

std::string utf16(const std::string &ascii, bool littleEndian, bool mark)
{
    std::string out =
        mark ? (littleEndian ? std::string("\xFF\xFE") : std::string("\xFE\xFF")) : std::string();
    for (char c : ascii)
        out += littleEndian ? std::string{c, '\0'} : std::string{'\0', c};
    return out;
}

// A file of `bytes` in a fresh temporary directory, open for reading and writing (a download's pending copy).
int pendingCopy(const QTemporaryDir &dir, const std::string &bytes)
{
    const QByteArray path = QFile::encodeName(dir.filePath(QStringLiteral("copy")));
    const int fd = ::open(path.constData(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0 || ::write(fd, bytes.data(), bytes.size()) != ssize_t(bytes.size()))
        qFatal("cannot write the copy");
    return fd;
}

bool has(const std::vector<Finding> &findings, const std::string &rule, const std::string &path = {})
{
    return std::any_of(findings.begin(), findings.end(), [&](const Finding &finding) {
        return finding.rule == rule && (path.empty() || finding.path == path);
    });
}

// A finding of `rule` in a member whose path starts with `prefix` ("page.html!data@").
bool hasIn(const std::vector<Finding> &findings, const std::string &rule, const std::string &prefix)
{
    return std::any_of(findings.begin(), findings.end(), [&](const Finding &finding) {
        return finding.rule == rule && finding.path.rfind(prefix, 0) == 0;
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
    void initTestCase()
    {
        QVERIFY_RESULT(m_masker.add("API_TOKEN", SecretValue));
        QVERIFY_RESULT(m_masker.add("NAME_TOKEN", NameValue));
    }

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

    // Issue 40: `tar cJf out.tar.xz dir` of a folder holding a .env, and every other compressed format.
    void compressedArchivesAreOpened_data()
    {
        QTest::addColumn<QByteArray>("format");
        QTest::addColumn<QByteArray>("filter");
        QTest::newRow("tar.xz (tar cJf)") << QByteArray("ustar") << QByteArray("xz");
        QTest::newRow("tar.bz2 (tar cjf)") << QByteArray("ustar") << QByteArray("bzip2");
        QTest::newRow("tar.zst") << QByteArray("ustar") << QByteArray("zstd");
        QTest::newRow("tar.lz4") << QByteArray("ustar") << QByteArray("lz4");
        QTest::newRow("7z") << QByteArray("7zip") << QByteArray();
        QTest::newRow("one file, xz") << QByteArray("raw") << QByteArray("xz");
        QTest::newRow("one file, bzip2") << QByteArray("raw") << QByteArray("bzip2");
        QTest::newRow("one file, zstd") << QByteArray("raw") << QByteArray("zstd");
        QTest::newRow("one file, lz4") << QByteArray("raw") << QByteArray("lz4");
    }

    void compressedArchivesAreOpened()
    {
        QFETCH(QByteArray, format);
        QFETCH(QByteArray, filter);
        std::string env;
        for (int i = 0; i < 100; ++i)
            env += "# settings for the staging deployment, see the wiki\n";
        env += "API_TOKEN=" + SecretValue + "\naws_access_key_id = AKIAQ3EXAMPLE7JX2KPL\n";
        const std::string packed =
            makeArchiveAs(format.constData(), filter.constData(), {{"project/.env", env}});
        QVERIFY(ArtifactScanner::isArchive(packed));
        // Compressed: neither is in the file's own bytes (lz4 has no entropy coding: what occurs once stays
        // as it is, and only a member proves the stream was read).
        if (filter != "lz4")
            QVERIFY(packed.find(SecretValue) == std::string::npos &&
                    packed.find("AKIAQ3") == std::string::npos);
        const auto found = scanner().scan(packed, "out.pack");
        QVERIFY2(hasIn(found, "secret.value", "out.pack!"), describe(found).constData());
        QVERIFY2(hasIn(found, "aws.access_key_id", "out.pack!"), describe(found).constData());
        QVERIFY2(!has(found, "archive.unreadable"), describe(found).constData());
    }

    void zlibStreamsAreInflated()
    {
        const auto found = scanner().scan(zlibCompressed("state\ntoken=" + SecretValue + "\n"), "state.zz");
        QVERIFY2(has(found, "secret.value", "state.zz!zlib"), describe(found).constData());
        // Text that begins like a zlib header ("x^" is one) is text, not a damaged stream.
        const auto text = scanner().scan("x^2 + y^2 = r^2, nothing else here\n", "circle.txt");
        QVERIFY2(text.empty(), describe(text).constData());
        const auto damaged = scanner().scan(zlibCompressed(std::string(4096, 'a')).substr(0, 12), "cut.zz");
        QVERIFY2(has(damaged, "archive.unreadable", "cut.zz!zlib"), describe(damaged).constData());
    }

    void pdfContentStreamsAreInflated()
    {
        const std::string content = zlibCompressed("BT /F1 12 Tf 72 712 Td (key AKIAQ3EXAMPLE7JX2KPL) Tj ET");
        const std::string pdf = "%PDF-1.7\n4 0 obj\n<< /Length " + std::to_string(content.size()) +
                                " /Filter /FlateDecode >>\nstream\r\n" + content +
                                "\r\nendstream\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n";
        const auto found = scanner().scan(pdf, "report.pdf");
        QVERIFY2(hasIn(found, "aws.access_key_id", "report.pdf!stream@"), describe(found).constData());
    }

    void utf16TextIsDecoded_data()
    {
        QTest::addColumn<bool>("littleEndian");
        QTest::addColumn<bool>("mark");
        QTest::newRow("UTF-16LE with a mark (Notepad)") << true << true;
        QTest::newRow("UTF-16BE with a mark") << false << true;
        QTest::newRow("UTF-16LE without one (PowerShell >)") << true << false;
    }

    void utf16TextIsDecoded()
    {
        QFETCH(bool, littleEndian);
        QFETCH(bool, mark);
        const std::string text =
            "user=admin\nAPI=" + SecretValue + "\ngithub ghp_R2d2C3poExampleTokenValue0123456789ab\n";
        const auto found = scanner().scan(utf16(text, littleEndian, mark), "env.txt");
        QVERIFY2(has(found, "secret.value", "env.txt!utf-16"), describe(found).constData());
        QVERIFY2(has(found, "github.token", "env.txt!utf-16"), describe(found).constData());
    }

    void dataUrisAreDecoded()
    {
        const QByteArray key = QByteArrayLiteral("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjE=\n"
                                                 "-----END OPENSSH PRIVATE KEY-----\n")
                                   .toBase64();
        const std::string html = "<p>download</p><a href=\"data:application/octet-stream;base64," +
                                 key.toStdString() + "\">id_ed25519</a>\n";
        const auto found = scanner().scan(html, "page.html");
        QVERIFY2(hasIn(found, "private_key.openssh", "page.html!data@"), describe(found).constData());
        // A zip in a data URI is opened too.
        const QByteArray zip =
            QByteArray::fromStdString(makeArchive("zip", {{"creds", "AKIAQ3EXAMPLE7JX2KPL\n"}})).toBase64();
        const auto zipped =
            scanner().scan("src='data:application/zip;base64," + zip.toStdString() + "'", "a.js");
        QVERIFY2(hasIn(zipped, "aws.access_key_id", "a.js!data@"), describe(zipped).constData());
    }

    // What cannot be read without a key, or cannot be decompressed, is not fully scanned: kept back.
    void whatCannotBeScannedIsKeptBack_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QByteArray>("rule");
        QTest::newRow("openssl enc") << QByteArray("Salted__\x8a\x11\x02\x93\xfe\x01\x7f\x00\x10\x20\x30", 19)
                                     << QByteArray("scan.encrypted");
        QTest::newRow("age") << QByteArray("age-encryption.org/v1\n-> X25519 abc\n---\n\x01\x02")
                             << QByteArray("scan.encrypted");
        QTest::newRow("gpg --armor") << QByteArray("-----BEGIN PGP MESSAGE-----\n\njA0ECQMC\n")
                                     << QByteArray("scan.encrypted");
        QTest::newRow("gpg -c") << QByteArray("\x8c\x0d\x04\x09\x03\x02\xa1\xb2\xc3\xd4", 10)
                                << QByteArray("scan.encrypted");
        QTest::newRow("damaged xz") << QByteArray("\xFD"
                                                  "7zXZ\0\0garbage-garbage-garbage",
                                                  28)
                                    << QByteArray("archive.unreadable");
        QTest::newRow("encrypted zip (zip -e)")
            << QByteArray::fromStdString(encryptedZip("AWS=AKIAQ3EXAMPLE7JX2KPL\n"))
            << QByteArray("archive.unreadable");
        QTest::newRow("damaged 7z") << QByteArray("7z\xBC\xAF\x27\x1C\0\x04garbage", 15)
                                    << QByteArray("archive.unreadable");
    }

    void whatCannotBeScannedIsKeptBack()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(QByteArray, rule);
        const auto found = scanner().scan(bytes.toStdString(), "blob");
        QVERIFY2(has(found, rule.toStdString()), describe(found).constData());
        const auto blocking = std::find_if(found.begin(), found.end(),
                                           [&](const Finding &f) { return f.rule == rule.toStdString(); });
        QVERIFY(Scan::isBlockingByDefault(*blocking));
    }

    // A name is saved in the user's folder and printed: a value there is a finding, and the name is
    // saved masked.
    void namesAreScannedAndSavedMasked()
    {
        const std::string path = "reports/clean-" + NameValue + ".txt";
        const auto named = scanner().scanName(path);
        QVERIFY2(has(named, "name.secret_value", path), describe(named).constData());
        QCOMPARE(named[0].excerpt, std::string("[secret:NAME_TOKEN]"));
        QCOMPARE(named[0].offset, std::int64_t(path.find(NameValue)));
        QVERIFY(scanner().scanName("reports/clean.txt").empty());

        const auto member = scanner().scan(makeArchive("zip", {{NameValue + ".txt", "fine\n"}}), "out.zip");
        QVERIFY2(has(member, "name.secret_value", "out.zip!" + NameValue + ".txt"),
                 describe(member).constData());
        // A member's name leaves inside the archive, unmasked: that keeps the archive back; a file's does
        // not.
        QVERIFY(Scan::isBlockingByDefault(member.at(0)));
        QVERIFY(!Scan::isBlockingByDefault(named.at(0)));

        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        Scan::ArtifactInspection inspection(Policy::ArtifactScan::Default, m_masker, {});
        const int fd = pendingCopy(dir, "fine\n");
        const Files::Inspection verdict = inspection.inspect(fd, "reports/clean-" + NameValue + ".txt");
        ::close(fd);
        QCOMPARE(verdict.refusalCode, std::string());
        QCOMPARE(verdict.savedName, std::string("clean-[secret:NAME_TOKEN].txt"));
        QCOMPARE(inspection.files().size(), std::size_t(1));
        QCOMPARE(inspection.files()[0].action, std::string("warned"));
        QCOMPARE(inspection.directoryName("reports/" + NameValue), std::string("[secret:NAME_TOKEN]"));
        QCOMPARE(inspection.directoryName("reports"), std::string());
        // Under "off" nothing is looked at, names neither.
        Scan::ArtifactInspection off(Policy::ArtifactScan::Off, m_masker, {});
        QCOMPARE(off.directoryName(NameValue), std::string());
    }

    // The default keeps back a key, a token and a secret's value, and warns on the rest.
    void theDefaultKeepsBackHighSeverityFindings_data()
    {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<bool>("keptBack");
        QTest::newRow("cloud key") << QByteArray("aws_access_key_id = AKIAQ3EXAMPLE7JX2KPL\n") << true;
        QTest::newRow("private key") << QByteArray("-----BEGIN OPENSSH PRIVATE KEY-----\nb3Bl\n") << true;
        QTest::newRow("service token")
            << QByteArray("GH=ghp_R2d2C3poExampleTokenValue0123456789ab\n") << true;
        QTest::newRow("secret's value") << QByteArray::fromStdString("t=" + SecretValue + "\n") << true;
        QTest::newRow("private address") << QByteArray("db at 10.0.0.12\n") << false;
        QTest::newRow("metadata address") << QByteArray("curl http://169.254.169.254/latest/\n") << false;
        QTest::newRow("cookie") << QByteArray("Cookie: sid=8f14e45fceea167a5a\n") << false;
        QTest::newRow("generic assignment") << QByteArray("DB_PASSWORD=Xk9mQ2vL7pR4nZ8w\n") << false;
    }

    void theDefaultKeepsBackHighSeverityFindings()
    {
        QFETCH(QByteArray, content);
        QFETCH(bool, keptBack);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        Scan::ArtifactInspection inspection(Policy::ArtifactScan::Default, m_masker, {});
        const int fd = pendingCopy(dir, content.toStdString());
        const Files::Inspection verdict = inspection.inspect(fd, "out.txt");
        QCOMPARE(verdict.refusalCode, std::string(keptBack ? "files.blocked" : ""));
        QCOMPARE(inspection.files().at(0).action, std::string(keptBack ? "blocked" : "warned"));
        // A reason saves it, as before.
        Scan::ArtifactInspection overriding(Policy::ArtifactScan::Default, m_masker, "on purpose");
        QCOMPARE(overriding.inspect(fd, "out.txt").refusalCode, std::string());
        QCOMPARE(overriding.files().at(0).action, std::string(keptBack ? "overridden" : "warned"));
        ::close(fd);
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
