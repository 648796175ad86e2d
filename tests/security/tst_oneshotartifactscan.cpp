// SPDX-License-Identifier: MIT
// The artifact scan on a one-shot run's way out (docs/artifact-scan.md): `cordon run --output-dir` copies the
// outputs through cordon-artifact-export, which the static launcher runs for the scan it cannot do itself.
// Real runs write a secret's value (raw, base64, inside a tar.gz), a cloud key and clean files into
// outputs/; under each `artifact_scan` mode exactly what the mode says is saved, redacted or kept back, the
// status is 3 when a successful run's outputs were kept back, the findings are listed without a value, and
// the organisation's internal suffixes count. Without the helper, or with an unreadable organisation file,
// nothing leaves (the scan fails closed).
#include "cliprocess.h"
#include "sandboxtest.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>

using namespace CordonTest;

namespace {

const QByteArray Secret = QByteArrayLiteral("tok-9f8e/7d6c+5b4a=0123456789");
// A value that fits in a file name (Secret holds a '/').
const QByteArray NameValue = QByteArrayLiteral("nametok-4c1d9e7a2b55");

// What every run writes into outputs/.
const char WriteOutputs[] =
    "import base64, io, os, tarfile\n"
    "os.chdir('/mnt/data/outputs')\n"
    "token = os.environ['TOKEN']\n"
    "open('clean.txt', 'w').write('rows: 42\\n')\n"
    "open('leak.txt', 'w').write('debug: token=' + token + '\\n')\n"
    "open('leak.b64', 'w').write(base64.b64encode(token.encode()).decode() + '\\n')\n"
    "open('warn.txt', 'w').write('line one\\naws_access_key_id = AKIAQ3EXAMPLE7JX2KPL\\n')\n"
    "open('farm.txt', 'w').write('see http://ci7.build.acme-corp.example/job\\n')\n"
    "data = ('secret=' + token + '\\n').encode()\n"
    "with tarfile.open('bundle.tar.gz', 'w:gz') as t:\n"
    "    info = tarfile.TarInfo('logs/run.log'); info.size = len(data); t.addfile(info, io.BytesIO(data))\n";

} // namespace

class TestOneShotArtifactScan final : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir{QDir::tempPath() + QStringLiteral("/cosc-XXXXXX")};
    QProcess m_daemon;
    QString m_orgFile;

    QString outputDir(const QString &name) const { return m_dir.filePath(QStringLiteral("out-") + name); }

    bool saved(const QString &name, const char *file) const
    {
        return QFile::exists(outputDir(name) + QLatin1Char('/') + QString::fromLatin1(file));
    }

    QByteArray contents(const QString &name, const char *file) const
    {
        QFile in(outputDir(name) + QLatin1Char('/') + QString::fromLatin1(file));
        return in.open(QIODevice::ReadOnly) ? in.readAll() : QByteArray();
    }

    // `cordon run --output-dir` under `mode` ("" for none) writing the outputs, with `program` as cordon.
    CliResult runUnder(const QString &name, const QString &mode, bool json = false,
                       const QString &program = builtProgram(QStringLiteral("cordon")))
    {
        QByteArray policy = R"({"secrets": [{"name": "API_TOKEN", "env": "TOKEN"}])";
        if (!mode.isEmpty())
            policy += ", \"artifact_scan\": \"" + mode.toUtf8() + "\"";
        policy += "}";
        QStringList arguments{QStringLiteral("run"), QStringLiteral("--policy"),
                              writePolicyFile(m_dir.path(), QStringLiteral("policy-") + name, policy),
                              QStringLiteral("--output-dir"), outputDir(name)};
        if (json)
            arguments.append(QStringLiteral("--json"));
        arguments += {QStringLiteral("--"), QStringLiteral("python3"), QStringLiteral("-c"),
                      QString::fromLatin1(WriteOutputs)};
        return runProgram(program, arguments);
    }

    static void verifyNoValue(const CliResult &result)
    {
        QVERIFY2(!result.out.contains(Secret) && !result.err.contains(Secret), result.describe().constData());
        QVERIFY2(!result.out.contains(Secret.toBase64()) && !result.err.contains(Secret.toBase64()),
                 result.describe().constData());
        QVERIFY2(!result.err.contains("AKIAQ3EXAMPLE7JX2KPL") && !result.out.contains("AKIAQ3EXAMPLE7JX2KPL"),
                 result.describe().constData());
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        // The organisation counts its build farm's domain as internal (an administrator's file stands in).
        m_orgFile =
            writePolicyFile(m_dir.path(), QStringLiteral("org-policy"),
                            R"({"allowed_domains": [], "internal_suffixes": ["build.acme-corp.example"]})");
        qputenv("CORDON_SYSTEM_ORG_POLICY", QFile::encodeName(m_orgFile));
        const CliResult status = startPrivateDaemon(m_daemon, m_dir.path());
        QVERIFY2(status.status == 0, status.describe());
        QCOMPARE(cordon(args({"secret", "set", "API_TOKEN"}), Secret).status, 0);
        QCOMPARE(cordon(args({"secret", "set", "NAME_TOKEN"}), NameValue).status, 0);
        // The runs below need no daemon: they read the store themselves.
        stopPrivateDaemon(m_daemon);
    }

    // The default: a high-severity finding is kept back wherever it is (a secret's value raw, base64, inside
    // a tar.gz; a cloud key); the organisation's internal hosts warn; the status says outputs were kept back.
    void byDefaultASecretsValueNeverLeaves()
    {
        const CliResult run = runUnder(QStringLiteral("default"), {});
        QCOMPARE(run.status, 3);
        for (const char *kept : {"leak.txt", "leak.b64", "bundle.tar.gz", "warn.txt"})
            QVERIFY2(!saved(QStringLiteral("default"), kept), kept);
        for (const char *file : {"clean.txt", "farm.txt"})
            QVERIFY2(saved(QStringLiteral("default"), file), file);
        QCOMPARE(contents(QStringLiteral("default"), "clean.txt"), QByteArrayLiteral("rows: 42\n"));
        // Nothing else is in the folder: no pending copy was left behind.
        QCOMPARE(QDir(outputDir(QStringLiteral("default")))
                     .entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden | QDir::System)
                     .size(),
                 2);
        QVERIFY2(run.err.contains("cordon: scan outputs/leak.txt: blocked, 1 finding"), run.err.constData());
        QVERIFY2(run.err.contains("bundle.tar.gz!logs/run.log:1  secret.value (high)  [secret:API_TOKEN]"),
                 run.err.constData());
        QVERIFY2(run.err.contains("warn.txt:2  aws.access_key_id (high)  AKIA**************PL"),
                 run.err.constData());
        QVERIFY2(run.err.contains("farm.txt:1  address.internal_host (low)"), run.err.constData());
        QVERIFY2(run.err.contains("cordon: refused artifact leak.b64: the artifact scan found secret.value"),
                 run.err.constData());
        QVERIFY2(run.err.contains("the artifact scan kept outputs back"), run.err.constData());
        verifyNoValue(run);
    }

    // A file and a folder named after a secret's value are saved under their names masked: the value is in
    // no name in the user's folder and in nothing printed (the saved names were the raw value).
    void aNameHoldingASecretIsSavedMasked()
    {
        const QByteArray policy = R"({"secrets": [{"name": "NAME_TOKEN", "env": "TOKEN"}]})";
        const CliResult run = cordon(
            {QStringLiteral("run"), QStringLiteral("--policy"),
             writePolicyFile(m_dir.path(), QStringLiteral("policy-names"), policy),
             QStringLiteral("--output-dir"), outputDir(QStringLiteral("names")), QStringLiteral("--json"),
             QStringLiteral("--"), QStringLiteral("sh"), QStringLiteral("-c"),
             QStringLiteral("cd /mnt/data/outputs; echo fine > \"clean-$TOKEN.txt\"; mkdir \"dir-$TOKEN\"; "
                            "echo ok > \"dir-$TOKEN/a.txt\"")});
        QVERIFY2(run.status == 0, run.describe().constData());
        QVERIFY2(!run.out.contains(NameValue) && !run.err.contains(NameValue), run.describe().constData());
        QCOMPARE(contents(QStringLiteral("names"), "clean-[secret:NAME_TOKEN].txt"),
                 QByteArrayLiteral("fine\n"));
        QCOMPARE(contents(QStringLiteral("names"), "dir-[secret:NAME_TOKEN]/a.txt"),
                 QByteArrayLiteral("ok\n"));
        QCOMPARE(QDir(outputDir(QStringLiteral("names")))
                     .entryList(QDir::AllEntries | QDir::NoDotAndDotDot)
                     .size(),
                 2);
    }

    // --json carries the same: the refusals with files.blocked and every scanned file's findings.
    void jsonListsTheFindings()
    {
        const CliResult run = runUnder(QStringLiteral("json"), {}, true);
        QCOMPARE(run.status, 3);
        const QJsonObject outcome = QJsonDocument::fromJson(run.out).object();
        QCOMPARE(outcome.value(QStringLiteral("error_class")).toString(), QStringLiteral("ok"));
        QStringList blocked;
        for (const QJsonValue &entry : outcome.value(QStringLiteral("refused_artifacts")).toArray()) {
            QCOMPARE(entry[QStringLiteral("code")].toString(), QStringLiteral("files.blocked"));
            blocked.append(entry[QStringLiteral("path")].toString());
        }
        blocked.sort();
        QCOMPARE(blocked, QStringList({QStringLiteral("bundle.tar.gz"), QStringLiteral("leak.b64"),
                                       QStringLiteral("leak.txt"), QStringLiteral("warn.txt")}));
        QMap<QString, QString> actions;
        for (const QJsonValue &file : outcome.value(QStringLiteral("scanned_artifacts")).toArray())
            actions.insert(file[QStringLiteral("path")].toString(),
                           file[QStringLiteral("action")].toString());
        QCOMPARE(actions.value(QStringLiteral("leak.txt")), QStringLiteral("blocked"));
        QCOMPARE(actions.value(QStringLiteral("warn.txt")), QStringLiteral("blocked"));
        QCOMPARE(actions.value(QStringLiteral("farm.txt")), QStringLiteral("warned"));
        QVERIFY(!actions.contains(QStringLiteral("clean.txt")));
        verifyNoValue(run);
    }

    // A run that failed keeps its own status; its outputs are still scanned.
    void aFailedRunKeepsItsStatus()
    {
        QByteArray policy = R"({"secrets": [{"name": "API_TOKEN", "env": "TOKEN"}]})";
        const CliResult run =
            cordon({QStringLiteral("run"), QStringLiteral("--policy"),
                    writePolicyFile(m_dir.path(), QStringLiteral("policy-failed"), policy),
                    QStringLiteral("--output-dir"), outputDir(QStringLiteral("failed")), QStringLiteral("--"),
                    QStringLiteral("sh"), QStringLiteral("-c"),
                    QStringLiteral("echo \"$TOKEN\" > /mnt/data/outputs/leak.txt; exit 7")});
        QCOMPARE(run.status, 7);
        QVERIFY(!saved(QStringLiteral("failed"), "leak.txt"));
        QVERIFY2(run.err.contains("leak.txt:1  secret.value (high)  [secret:API_TOKEN]"),
                 run.err.constData());
        verifyNoValue(run);
    }

    void blockKeepsBackEveryFileWithFindings()
    {
        const CliResult run = runUnder(QStringLiteral("block"), QStringLiteral("block"));
        QCOMPARE(run.status, 3);
        QVERIFY(saved(QStringLiteral("block"), "clean.txt"));
        for (const char *kept : {"leak.txt", "leak.b64", "bundle.tar.gz", "warn.txt", "farm.txt"})
            QVERIFY2(!saved(QStringLiteral("block"), kept), kept);
        verifyNoValue(run);
    }

    void warnSavesEverythingAndSaysWhat()
    {
        const CliResult run = runUnder(QStringLiteral("warn"), QStringLiteral("warn"));
        QCOMPARE(run.status, 0);
        for (const char *file : {"clean.txt", "leak.txt", "leak.b64", "bundle.tar.gz", "warn.txt"})
            QVERIFY2(saved(QStringLiteral("warn"), file), file);
        QVERIFY2(run.err.contains("cordon: scan outputs/leak.txt: warned, 1 finding"), run.err.constData());
        // What the user asked to keep is theirs; what is printed still shows no value.
        QVERIFY(contents(QStringLiteral("warn"), "leak.txt").contains(Secret));
        verifyNoValue(run);
    }

    void redactReplacesTheMatches()
    {
        const CliResult run = runUnder(QStringLiteral("redact"), QStringLiteral("redact"));
        QCOMPARE(run.status, 3); // the archive cannot be rewritten: kept back
        QCOMPARE(contents(QStringLiteral("redact"), "leak.txt"),
                 QByteArrayLiteral("debug: token=[secret:API_TOKEN]\n"));
        QCOMPARE(contents(QStringLiteral("redact"), "warn.txt"),
                 QByteArrayLiteral("line one\naws_access_key_id = [redacted:aws.access_key_id]\n"));
        QVERIFY(!contents(QStringLiteral("redact"), "leak.b64").contains(Secret.toBase64()));
        QVERIFY(saved(QStringLiteral("redact"), "leak.b64"));
        QVERIFY(!saved(QStringLiteral("redact"), "bundle.tar.gz"));
        QVERIFY2(run.err.contains("an archive cannot be redacted"), run.err.constData());
        verifyNoValue(run);
    }

    void offCopiesWithoutAScan()
    {
        const CliResult run = runUnder(QStringLiteral("off"), QStringLiteral("off"));
        QCOMPARE(run.status, 0);
        for (const char *file : {"clean.txt", "leak.txt", "bundle.tar.gz", "warn.txt"})
            QVERIFY2(saved(QStringLiteral("off"), file), file);
        QVERIFY2(!run.err.contains("cordon: scan "), run.err.constData());
    }

    // An organisation file that cannot be read: the scan cannot run, and nothing leaves.
    void anUnreadableOrganisationFileKeepsEverythingBack()
    {
        const QString broken = writePolicyFile(m_dir.path(), QStringLiteral("org-broken"),
                                               R"({"allowed_domains": [], "internal_suffixes": "corp"})");
        qputenv("CORDON_SYSTEM_ORG_POLICY", QFile::encodeName(broken));
        const CliResult run = runUnder(QStringLiteral("org-broken"), {});
        qputenv("CORDON_SYSTEM_ORG_POLICY", QFile::encodeName(m_orgFile));
        QCOMPARE(run.status, 3);
        QVERIFY(QDir(outputDir(QStringLiteral("org-broken"))).isEmpty());
        QVERIFY2(run.err.contains("the artifact scan cannot run") && run.err.contains("internal_suffixes"),
                 run.err.constData());
        verifyNoValue(run);
    }

    // A launcher installed without its helper copies nothing out, and says why.
    void withoutTheHelperNothingLeaves()
    {
        const QString lonely = m_dir.filePath(QStringLiteral("lonely"));
        QVERIFY(QDir().mkpath(lonely));
        for (const char *program : {"cordon", "cordon-init"})
            QVERIFY(QFile::copy(builtProgram(QString::fromLatin1(program)),
                                lonely + QLatin1Char('/') + QString::fromLatin1(program)));
        const CliResult run =
            runUnder(QStringLiteral("lonely"), {}, false, lonely + QStringLiteral("/cordon"));
        QCOMPARE(run.status, 3);
        QVERIFY(QDir(outputDir(QStringLiteral("lonely"))).isEmpty());
        QVERIFY2(run.err.contains("cordon-artifact-export is not installed beside cordon"),
                 run.err.constData());
        verifyNoValue(run);
        // A run that wrote no outputs has nothing to scan, and needs no helper.
        const CliResult nothing = runProgram(lonely + QStringLiteral("/cordon"),
                                             {QStringLiteral("run"), QStringLiteral("--output-dir"),
                                              outputDir(QStringLiteral("lonely-empty")), QStringLiteral("--"),
                                              QStringLiteral("/bin/true")});
        QVERIFY2(nothing.status == 0, nothing.describe().constData());
        QVERIFY(QDir(outputDir(QStringLiteral("lonely-empty"))).isEmpty());
    }

    // The helper is not a tool to run by hand: it refuses a terminal and bad requests, clearly.
    void theHelperRefusesBadRequests()
    {
        const CliResult bare = runProgram(builtProgram(QStringLiteral("cordon-artifact-export")), {}, "{}");
        QCOMPARE(bare.status, 1);
        QVERIFY2(bare.out.contains("scan.bad_request"), bare.describe().constData());
        const CliResult garbage =
            runProgram(builtProgram(QStringLiteral("cordon-artifact-export")), {}, "nonsense");
        QCOMPARE(garbage.status, 1);
        QVERIFY2(garbage.out.contains("\"error\""), garbage.describe().constData());
    }
};

CORDON_SANDBOX_TEST_MAIN(TestOneShotArtifactScan)
#include "tst_oneshotartifactscan.moc"
