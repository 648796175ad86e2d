// SPDX-License-Identifier: MIT
// The artifact scan on the way out (docs/artifact-scan.md), as a user meets it: a real cordond, the real CLI,
// real containers whose runs write a secret's value (raw, base64, inside a tar.gz and a nested zip), a cloud
// key, a private key and clean files into outputs/. Under each `artifact_scan` mode `cordon cp` saves,
// redacts or keeps back exactly what the mode says, exits 3 when it kept something back, lists the findings
// masked, and records an artifact.finding event tied to the run that wrote the file; an override saves the
// file and records the reason; bad input is a clear error and the daemon stays up.
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

// What every container's run writes into outputs/.
const char WriteOutputs[] =
    "import base64, io, os, tarfile, zipfile\n"
    "os.chdir('/mnt/data/outputs')\n"
    "token = os.environ['TOKEN']\n"
    "open('clean.txt', 'w').write('rows: 42\\n')\n"
    "open('leak.txt', 'w').write('debug: token=' + token + '\\n')\n"
    "open('leak.b64', 'w').write(base64.b64encode(token.encode()).decode() + '\\n')\n"
    "open('warn.txt', 'w').write('line one\\naws_access_key_id = AKIAQ3EXAMPLE7JX2KPL\\n')\n"
    "open('hosts.txt', 'w').write('db at 10.0.0.12\\n')\n"
    "data = ('secret=' + token + '\\n').encode()\n"
    "with tarfile.open('bundle.tar.gz', 'w:gz') as t:\n"
    "    info = tarfile.TarInfo('logs/run.log'); info.size = len(data); t.addfile(info, io.BytesIO(data))\n"
    "inner = io.BytesIO()\n"
    "with zipfile.ZipFile(inner, 'w', zipfile.ZIP_DEFLATED) as z:\n"
    "    z.writestr('id_ed25519', '-----BEGIN OPENSSH PRIVATE KEY-----\\nb3BlbnNzaA==\\n')\n"
    "with zipfile.ZipFile('keys.zip', 'w', zipfile.ZIP_DEFLATED) as z:\n"
    "    z.writestr('inner.zip', inner.getvalue())\n";

} // namespace

class TestArtifactDownload final : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir{QDir::tempPath() + QStringLiteral("/cart-XXXXXX")};
    QProcess m_daemon;
    QString m_dataDir;

    QString writePolicy(const QString &name, const QByteArray &json)
    {
        return writePolicyFile(m_dir.path(), name, json);
    }

    // A container named `name` under `mode` ("" for none) whose one run wrote the outputs; its id.
    QString containerWithOutputs(const QString &name, const QString &mode)
    {
        QByteArray policy = "{\"name\": \"" + name.toUtf8() +
                            "\", \"secrets\": [{\"name\": \"API_TOKEN\", \"env\": \"TOKEN\"}]";
        if (!mode.isEmpty())
            policy += ", \"artifact_scan\": \"" + mode.toUtf8() + "\"";
        policy += "}";
        const CliResult created =
            cordon({QStringLiteral("create"), QStringLiteral("--policy"), writePolicy(name, policy)});
        if (created.status != 0)
            return {};
        const CliResult run =
            cordon({QStringLiteral("exec"), name, QStringLiteral("--"), QStringLiteral("python3"),
                    QStringLiteral("-c"), QString::fromLatin1(WriteOutputs)});
        if (run.status != 0) {
            qWarning("%s", run.describe().constData());
            return {};
        }
        return QString::fromUtf8(created.out).trimmed();
    }

    QString downloadDir(const QString &name) const { return m_dir.filePath(QStringLiteral("dl-") + name); }

    QByteArray saved(const QString &name, const QString &file) const
    {
        QFile in(downloadDir(name) + QLatin1Char('/') + file);
        return in.open(QIODevice::ReadOnly) ? in.readAll() : QByteArray();
    }

    bool exists(const QString &name, const QString &file) const
    {
        return QFile::exists(downloadDir(name) + QLatin1Char('/') + file);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_dataDir = qEnvironmentVariable("CORDON_DATA_DIR");
        // The organisation counts its build farm's domain as internal (an administrator's file stands in).
        const QString org =
            writePolicy(QStringLiteral("org-policy"),
                        R"({"allowed_domains": [], "internal_suffixes": ["build.acme-corp.example"]})");
        qputenv("CORDON_SYSTEM_ORG_POLICY", QFile::encodeName(org));
        const CliResult status = startPrivateDaemon(m_daemon, m_dir.path());
        QVERIFY2(status.status == 0, status.describe());
        QCOMPARE(cordon(args({"secret", "set", "API_TOKEN"}), Secret).status, 0);
    }

    void cleanupTestCase() { stopPrivateDaemon(m_daemon); }

    // The default: a high-severity finding is kept back wherever it is (raw, base64, inside archives): a
    // secret's value, a cloud key, a private key; the rest (a private address) warns.
    void byDefaultASecretsValueNeverLeaves()
    {
        const QString id = containerWithOutputs(QStringLiteral("plain"), {});
        QVERIFY(!id.isEmpty());
        const CliResult copied =
            cordon({QStringLiteral("cp"), QStringLiteral("plain:"), downloadDir(QStringLiteral("plain"))});
        QCOMPARE(copied.status, 3);
        for (const char *kept : {"leak.txt", "leak.b64", "bundle.tar.gz", "warn.txt", "keys.zip"})
            QVERIFY2(!exists(QStringLiteral("plain"), QString::fromLatin1(kept)), kept);
        for (const char *savedFile : {"clean.txt", "hosts.txt"})
            QVERIFY2(exists(QStringLiteral("plain"), QString::fromLatin1(savedFile)), savedFile);
        QVERIFY2(copied.err.contains("hosts.txt:1  address.private_ip (low)"), copied.err.constData());
        // The findings say where, and show no value.
        QVERIFY2(copied.err.contains("bundle.tar.gz!logs/run.log:1  secret.value (high)  [secret:API_TOKEN]"),
                 copied.err.constData());
        QVERIFY2(copied.err.contains("warn.txt:2  aws.access_key_id (high)  AKIA**************PL"),
                 copied.err.constData());
        QVERIFY2(copied.err.contains("keys.zip!inner.zip!id_ed25519:1  private_key.openssh"),
                 copied.err.constData());
        QVERIFY(!copied.err.contains(Secret) && !copied.out.contains(Secret));
        QVERIFY(!copied.err.contains("AKIAQ3EXAMPLE7JX2KPL"));

        // Each file with findings is an event of the run that wrote it.
        const QJsonArray events = eventsOfKind(QStringLiteral("plain"), QStringLiteral("artifact."));
        QCOMPARE(events.size(), 6);
        const CliResult history = cordon({QStringLiteral("history"), QStringLiteral("--json"),
                                          QStringLiteral("--container"), QStringLiteral("plain")});
        for (const QJsonValue &value : events) {
            const QJsonObject event = value.toObject();
            QCOMPARE(event.value(QStringLiteral("kind")).toString(), QStringLiteral("artifact.finding"));
            const QString runId = event.value(QStringLiteral("run_id")).toString();
            QVERIFY2(!runId.isEmpty() && history.out.contains(runId.toUtf8()), history.describe());
        }
        QVERIFY(!historyFileBytes(m_dataDir).contains(Secret));
    }

    void anOverrideSavesTheFileAndKeepsTheReason()
    {
        const CliResult copied = cordon(
            {QStringLiteral("cp"), QStringLiteral("--override-scan"), QStringLiteral("test token, revoked"),
             QStringLiteral("plain:outputs/leak.txt"), downloadDir(QStringLiteral("override"))});
        QVERIFY2(copied.status == 0, copied.describe());
        QVERIFY(saved(QStringLiteral("override"), QStringLiteral("leak.txt")).contains(Secret));
        bool recorded = false;
        for (const QJsonValue &value : eventsOfKind(QStringLiteral("plain"), QStringLiteral("artifact."))) {
            const QJsonObject event = value.toObject();
            recorded |=
                event.value(QStringLiteral("kind")).toString() == QLatin1String("artifact.override") &&
                event.value(QStringLiteral("detail")).toObject().value(QStringLiteral("reason")).toString() ==
                    QLatin1String("test token, revoked");
        }
        QVERIFY(recorded);
    }

    void blockKeepsBackEveryFinding()
    {
        QVERIFY(!containerWithOutputs(QStringLiteral("strict"), QStringLiteral("block")).isEmpty());
        const CliResult copied = cordon({QStringLiteral("cp"), QStringLiteral("--json"),
                                         QStringLiteral("strict:"), downloadDir(QStringLiteral("strict"))});
        QCOMPARE(copied.status, 3);
        const QJsonObject answer = QJsonDocument::fromJson(copied.out).object();
        QCOMPARE(answer.value(QStringLiteral("copied")).toArray().size(), 1); // clean.txt
        QCOMPARE(answer.value(QStringLiteral("scanned")).toArray().size(), 6);
        QVERIFY(exists(QStringLiteral("strict"), QStringLiteral("clean.txt")));
        QVERIFY(!exists(QStringLiteral("strict"), QStringLiteral("warn.txt")));
    }

    void redactReplacesWhatItFoundAndKeepsBackArchives()
    {
        QVERIFY(!containerWithOutputs(QStringLiteral("redacting"), QStringLiteral("redact")).isEmpty());
        const CliResult copied = cordon(
            {QStringLiteral("cp"), QStringLiteral("redacting:"), downloadDir(QStringLiteral("redacting"))});
        QCOMPARE(copied.status, 3); // the archives
        QCOMPARE(saved(QStringLiteral("redacting"), QStringLiteral("leak.txt")),
                 QByteArray("debug: token=[secret:API_TOKEN]\n"));
        QCOMPARE(saved(QStringLiteral("redacting"), QStringLiteral("warn.txt")),
                 QByteArray("line one\naws_access_key_id = [redacted:aws.access_key_id]\n"));
        QVERIFY(!saved(QStringLiteral("redacting"), QStringLiteral("leak.b64"))
                     .contains(Secret.toBase64().left(20)));
        QVERIFY(!exists(QStringLiteral("redacting"), QStringLiteral("bundle.tar.gz")));
        QVERIFY(!exists(QStringLiteral("redacting"), QStringLiteral("keys.zip")));
        QVERIFY2(copied.err.contains("an archive cannot be redacted"), copied.err.constData());
    }

    // `cordon files --scan` says, before anything is downloaded, what a download would do with each file,
    // and records nothing: only what leaves is evidence.
    void aListingScanShowsWhatADownloadWouldDo()
    {
        QVERIFY(!containerWithOutputs(QStringLiteral("lookfirst"), {}).isEmpty());
        const CliResult listed =
            cordon({QStringLiteral("files"), QStringLiteral("--scan"), QStringLiteral("lookfirst")});
        QVERIFY2(listed.status == 0, listed.describe());
        QVERIFY2(
            listed.err.contains("cordon: scan outputs/leak.txt: a download would keep it back, 1 finding"),
            listed.err.constData());
        QVERIFY2(
            listed.err.contains("cordon: scan outputs/hosts.txt: a download would save it with a warning"),
            listed.err.constData());
        QVERIFY2(listed.err.contains("bundle.tar.gz!logs/run.log:1  secret.value (high)  [secret:API_TOKEN]"),
                 listed.err.constData());
        QVERIFY(!listed.err.contains(Secret) && !listed.out.contains(Secret));
        QVERIFY(eventsOfKind(QStringLiteral("lookfirst"), QStringLiteral("artifact.")).isEmpty());

        // The actions are the ones the download then takes.
        const CliResult json =
            cordon({QStringLiteral("files"), QStringLiteral("--scan"), QStringLiteral("--json"),
                    QStringLiteral("--scope"), QStringLiteral("outputs"), QStringLiteral("lookfirst")});
        QVERIFY2(json.status == 0, json.describe());
        QStringList wouldKeep;
        for (const QJsonValue &entry :
             QJsonDocument::fromJson(json.out).object().value(QStringLiteral("scanned")).toArray()) {
            if (entry[QStringLiteral("action")].toString() == QLatin1String("blocked"))
                wouldKeep.append(entry[QStringLiteral("path")].toString());
        }
        wouldKeep.sort();
        QCOMPARE(wouldKeep, QStringList({QStringLiteral("bundle.tar.gz"), QStringLiteral("keys.zip"),
                                         QStringLiteral("leak.b64"), QStringLiteral("leak.txt"),
                                         QStringLiteral("warn.txt")}));
        const CliResult copied =
            cordon({QStringLiteral("cp"), QStringLiteral("--json"), QStringLiteral("lookfirst:"),
                    downloadDir(QStringLiteral("lookfirst"))});
        QCOMPARE(copied.status, 3);
        QStringList kept;
        for (const QJsonValue &entry :
             QJsonDocument::fromJson(copied.out).object().value(QStringLiteral("refused")).toArray())
            kept.append(entry[QStringLiteral("path")].toString());
        kept.sort();
        QCOMPARE(kept, wouldKeep);

        // Under "redact" a listing says which files a download would redact and which it keeps back.
        const CliResult redacting =
            cordon({QStringLiteral("files"), QStringLiteral("--scan"), QStringLiteral("--scope"),
                    QStringLiteral("outputs"), QStringLiteral("redacting")});
        QVERIFY2(redacting.err.contains("outputs/leak.txt: a download would redact it") &&
                     redacting.err.contains("outputs/bundle.tar.gz: a download would keep it back"),
                 redacting.err.constData());
    }

    // A file named after a secret's value is shown masked in every report; asked for by that name, the
    // daemon finds the file the mask stands for, scans it, and keeps it back or saves it on a reason, without
    // the value in any answer.
    void aFileNamedAfterASecretIsAskedForByItsMask()
    {
        const QByteArray value = QByteArrayLiteral("nametok-4c1d9e7a2b55");
        QCOMPARE(cordon(args({"secret", "set", "NAME_TOKEN"}), value).status, 0);
        const QString policy =
            writePolicy(QStringLiteral("named"),
                        R"({"name": "named", "secrets": [{"name": "NAME_TOKEN", "env": "TOKEN"}]})");
        QCOMPARE(cordon({QStringLiteral("create"), QStringLiteral("--policy"), policy}).status, 0);
        const CliResult run =
            cordon({QStringLiteral("exec"), QStringLiteral("named"), QStringLiteral("--"),
                    QStringLiteral("sh"), QStringLiteral("-c"),
                    QStringLiteral("cd /mnt/data/outputs; echo \"t=$TOKEN\" > \"$TOKEN.txt\"; echo fine > "
                                   "\"clean-$TOKEN.txt\"")});
        QVERIFY2(run.status == 0, run.describe());

        const CliResult kept =
            cordon({QStringLiteral("cp"), QStringLiteral("named:outputs/[secret:NAME_TOKEN].txt"),
                    downloadDir(QStringLiteral("named"))});
        QCOMPARE(kept.status, 3);
        QVERIFY2(kept.err.contains("[secret:NAME_TOKEN].txt") && kept.err.contains("secret.value"),
                 kept.describe());
        QVERIFY2(!kept.err.contains(value) && !kept.out.contains(value), kept.describe());
        QVERIFY(QDir(downloadDir(QStringLiteral("named"))).isEmpty());

        const CliResult clean =
            cordon({QStringLiteral("cp"), QStringLiteral("named:outputs/clean-[secret:NAME_TOKEN].txt"),
                    downloadDir(QStringLiteral("named"))});
        QVERIFY2(clean.status == 0, clean.describe());
        // Saved under the name asked for: the value is not in the folder, the answer or the output.
        QCOMPARE(saved(QStringLiteral("named"), QStringLiteral("clean-[secret:NAME_TOKEN].txt")),
                 QByteArray("fine\n"));
        QVERIFY2(!clean.out.contains(value) && !clean.err.contains(value), clean.describe());

        // A whole scope: the name is read by the scan too, and saved masked; the value is in no name in the
        // user's folder and not on the cp line (it was in both).
        const QString whole = downloadDir(QStringLiteral("named-whole"));
        const CliResult scope = cordon({QStringLiteral("cp"), QStringLiteral("named:outputs"), whole});
        QVERIFY2(scope.status == 3, scope.describe()); // "$TOKEN.txt" holds the value
        QVERIFY2(!scope.out.contains(value) && !scope.err.contains(value), scope.describe());
        QVERIFY2(scope.err.contains("name.secret_value"), scope.describe());
        QCOMPARE(QDir(whole).entryList(QDir::Files | QDir::NoDotAndDotDot),
                 QStringList{QStringLiteral("clean-[secret:NAME_TOKEN].txt")});

        const CliResult overridden = cordon(
            {QStringLiteral("cp"), QStringLiteral("--override-scan"), QStringLiteral("named so on purpose"),
             QStringLiteral("named:outputs/[secret:NAME_TOKEN].txt"), downloadDir(QStringLiteral("named"))});
        QVERIFY2(overridden.status == 0, overridden.describe());
        QCOMPARE(saved(QStringLiteral("named"), QStringLiteral("[secret:NAME_TOKEN].txt")),
                 QByteArray("t=" + value + "\n"));
        QVERIFY2(!overridden.out.contains(value) && !overridden.err.contains(value), overridden.describe());
        const CliResult json =
            cordon({QStringLiteral("cp"), QStringLiteral("--json"), QStringLiteral("--force"),
                    QStringLiteral("named:outputs/clean-[secret:NAME_TOKEN].txt"),
                    downloadDir(QStringLiteral("named"))});
        QVERIFY2(json.status == 0 && !json.out.contains(value), json.describe());

        // Any error names the path masked: here the file, taken for a folder.
        const CliResult notFolder =
            cordon({QStringLiteral("cp"), QStringLiteral("named:outputs/[secret:NAME_TOKEN].txt/x"),
                    downloadDir(QStringLiteral("named"))});
        QVERIFY2(notFolder.status == 1 && !notFolder.err.contains(value), notFolder.describe());

        // A path of many markers is refused at once, and costs the daemon nothing.
        QString many;
        for (int i = 0; i < 3000; ++i)
            many += QStringLiteral("[secret:NAME_TOKEN]/");
        const CliResult flood =
            cordon({QStringLiteral("cp"), QStringLiteral("named:outputs/") + many + QStringLiteral("x"),
                    downloadDir(QStringLiteral("named"))});
        QVERIFY2(flood.status == 1 || flood.status == 2, flood.describe());
        QCOMPARE(cordon(args({"daemon", "status"})).status, 0);

        // A mask that stands for no file is a clear error, still masked.
        const CliResult missing =
            cordon({QStringLiteral("cp"), QStringLiteral("named:outputs/x-[secret:NAME_TOKEN]"),
                    downloadDir(QStringLiteral("named"))});
        QVERIFY2(missing.status == 1 && missing.err.contains("x-[secret:NAME_TOKEN]"), missing.describe());
        QVERIFY(!missing.err.contains(value));
        QVERIFY(!historyFileBytes(m_dataDir).contains(value));

        // A decoy named like the mask: the mask now stands for two files, and neither is taken.
        QCOMPARE(cordon({QStringLiteral("exec"), QStringLiteral("named"), QStringLiteral("--"),
                         QStringLiteral("sh"), QStringLiteral("-c"),
                         QStringLiteral("echo decoy > '/mnt/data/outputs/[secret:NAME_TOKEN].txt'")})
                     .status,
                 0);
        const CliResult ambiguous = cordon({QStringLiteral("cp"), QStringLiteral("--override-scan"),
                                            QStringLiteral("named so on purpose"), QStringLiteral("--force"),
                                            QStringLiteral("named:outputs/[secret:NAME_TOKEN].txt"),
                                            downloadDir(QStringLiteral("named"))});
        QVERIFY2(ambiguous.status == 1 && ambiguous.err.contains("more than one entry"),
                 ambiguous.describe());
        QVERIFY(!ambiguous.err.contains(value));
        QCOMPARE(saved(QStringLiteral("named"), QStringLiteral("[secret:NAME_TOKEN].txt")),
                 QByteArray("t=" + value + "\n"));
    }

    void offCopiesEverything()
    {
        QVERIFY(!containerWithOutputs(QStringLiteral("unscanned"), QStringLiteral("off")).isEmpty());
        const CliResult copied = cordon(
            {QStringLiteral("cp"), QStringLiteral("unscanned:"), downloadDir(QStringLiteral("unscanned"))});
        QVERIFY2(copied.status == 0, copied.describe());
        QVERIFY(saved(QStringLiteral("unscanned"), QStringLiteral("leak.txt")).contains(Secret));
        QVERIFY(eventsOfKind(QStringLiteral("unscanned"), QStringLiteral("artifact.")).isEmpty());
    }

    // The organisation's own internal domains are findings too, beside the usual suffixes.
    void theOrganisationsInternalDomainsAreFound()
    {
        const CliResult created =
            cordon({QStringLiteral("create"), QStringLiteral("--name"), QStringLiteral("org")});
        QVERIFY2(created.status == 0, created.describe());
        const CliResult run =
            cordon({QStringLiteral("exec"), QStringLiteral("org"), QStringLiteral("--"), QStringLiteral("sh"),
                    QStringLiteral("-c"),
                    QStringLiteral("echo 'artifacts: https://ci7.build.acme-corp.example/job/42' "
                                   "> /mnt/data/outputs/links.txt; echo 'see acme-corp.example' > "
                                   "/mnt/data/outputs/public.txt")});
        QVERIFY2(run.status == 0, run.describe());
        const CliResult copied =
            cordon({QStringLiteral("cp"), QStringLiteral("org:"), downloadDir(QStringLiteral("org"))});
        QVERIFY2(copied.status == 0, copied.describe()); // a pattern warns by default
        QVERIFY2(copied.err.contains("links.txt:1  address.internal_host"), copied.err.constData());
        QVERIFY2(!copied.err.contains("public.txt"), copied.err.constData());
        QVERIFY(exists(QStringLiteral("org"), QStringLiteral("links.txt")));
    }

    void badInputIsAClearErrorAndTheDaemonStaysUp()
    {
        const CliResult empty =
            cordon({QStringLiteral("cp"), QStringLiteral("--override-scan"), QStringLiteral(" "),
                    QStringLiteral("plain:"), downloadDir(QStringLiteral("bad"))});
        QVERIFY2(empty.status == 2 && empty.err.contains("--override-scan needs a reason"), empty.describe());
        const QString policy = writePolicy(QStringLiteral("badmode"), R"({"artifact_scan": "sometimes"})");
        const CliResult created = cordon({QStringLiteral("create"), QStringLiteral("--policy"), policy});
        QVERIFY2(created.status != 0 && created.err.contains("artifact_scan: must be"), created.describe());
        QVERIFY(cordon(args({"daemon", "status"})).status == 0);
    }
};

CORDON_SANDBOX_TEST_MAIN(TestArtifactDownload)
#include "tst_artifactdownload.moc"
