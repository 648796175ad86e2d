// SPDX-License-Identifier: MIT
// CSV pseudonymisation on upload (docs/pseudonymize.md), as a user meets it: a real cordond, the real CLI and
// real containers. The chosen columns arrive as keyed pseudonyms and nothing else changes (quoted fields,
// embedded line breaks); the same value gives the same pseudonym in another container; the history keeps the
// columns, the key id and the sha256 before and after; the key is nowhere a sandboxed program can look, and
// no policy can hand it to a run; bad files are clear errors that leave nothing behind and the daemon up.
#include "cliprocess.h"
#include "sandboxtest.h"
#include "testutil.h"

#include "sandbox/secrets/pseudonymkey.h"
#include "sandbox/sha256.h"
#include "store/database.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>

using namespace CordonTest;

namespace {

const QByteArray People = "id,name,email,note\n"
                          "1,Ada Lovelace,ada@example.org,\"first, \"\"programmer\"\"\"\n"
                          "2,Alan Turing,alan@example.org,\"two\nlines\"\n"
                          "3,Grace Hopper,,compilers\n";

// The key bytes as the store file keeps them (the test daemon's store is a file: no keyring here).
QByteArray keyHex(const QString &dataDir, const QString &name)
{
    QFile file(dataDir + QStringLiteral("/secrets.json"));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(file.readAll())
        .object()
        .value(QStringLiteral("pseudonym_keys"))
        .toObject()
        .value(name)
        .toObject()
        .value(QStringLiteral("key"))
        .toString()
        .toLatin1();
}

} // namespace

class TestPseudonymizedUpload final : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir{QDir::tempPath() + QStringLiteral("/cpsn-XXXXXX")};
    QProcess m_daemon;
    QString m_dataDir;

    QString writeFile(const QString &name, const QByteArray &bytes)
    {
        const QString path = m_dir.filePath(name);
        QFile file(path);
        if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size())
            return {};
        return path;
    }

    QString create(const QString &name)
    {
        const CliResult created = cordon({QStringLiteral("create"), QStringLiteral("--name"), name});
        return created.status == 0 ? QString::fromUtf8(created.out).trimmed() : QString();
    }

    QByteArray inside(const QString &container, const QString &shell)
    {
        const CliResult run = cordon({QStringLiteral("exec"), container, QStringLiteral("--"),
                                      QStringLiteral("sh"), QStringLiteral("-c"), shell});
        return run.status == 0 ? run.out : QByteArray("exit ") + QByteArray::number(run.status) + run.err;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_dataDir = qEnvironmentVariable("CORDON_DATA_DIR");
        const CliResult status = startPrivateDaemon(m_daemon, m_dir.path());
        QVERIFY2(status.status == 0, status.describe());
    }

    void cleanupTestCase() { stopPrivateDaemon(m_daemon); }

    void theChosenColumnsArriveAsPseudonyms()
    {
        const QString source = writeFile(QStringLiteral("people.csv"), People);
        QVERIFY(!create(QStringLiteral("first")).isEmpty());
        const CliResult copied = cordon({QStringLiteral("cp"), QStringLiteral("--pseudonymize"),
                                         QStringLiteral("email,name"), source, QStringLiteral("first:")});
        QVERIFY2(copied.status == 0, copied.describe());
        QVERIFY2(
            copied.out.contains("pseudonymised 5 values in 3 rows, columns email, name, with key default"),
            copied.out.constData());
        // Three people: a guesser who can list them reads the columns back (docs/pseudonymize.md).
        QVERIFY2(
            copied.err.contains("warning: column email has only 2 distinct values: whoever can guess them") &&
                copied.err.contains("warning: column name has only 3 distinct values"),
            copied.describe());

        // What the sandboxed program reads: pseudonyms where the values were, everything else as it was.
        const QByteArray key = QByteArray::fromHex(keyHex(m_dataDir, QStringLiteral("default")));
        QCOMPARE(key.size(), qsizetype(Cordon::Secrets::PseudonymKeyBytes));
        const Cordon::Secrets::Pseudonymizer p(key.toStdString());
        const auto psn = [&](const char *value) { return QByteArray::fromStdString(p(value)); };
        const QByteArray expected = "id,name,email,note\n1," + psn("Ada Lovelace") + "," +
                                    psn("ada@example.org") + ",\"first, \"\"programmer\"\"\"\n2," +
                                    psn("Alan Turing") + "," + psn("alan@example.org") +
                                    ",\"two\nlines\"\n3," + psn("Grace Hopper") + ",,compilers\n";
        const QByteArray seen =
            inside(QStringLiteral("first"), QStringLiteral("cat /mnt/data/inputs/people.csv"));
        QCOMPARE(seen, expected);
        for (const char *raw : {"Ada", "ada@example.org", "Turing", "Hopper"})
            QVERIFY2(!seen.contains(raw), raw);

        // The history: which columns, which key, the sha256 before and after.
        const QJsonArray events = eventsOfKind(QStringLiteral("first"), QStringLiteral("file.uploaded"));
        QCOMPARE(events.size(), 1);
        const QJsonObject detail = events.at(0).toObject().value(QStringLiteral("detail")).toObject();
        const QJsonObject done = detail.value(QStringLiteral("pseudonymized")).toObject();
        QCOMPARE(done.value(QStringLiteral("columns")).toArray(),
                 (QJsonArray{QStringLiteral("email"), QStringLiteral("name")}));
        QCOMPARE(done.value(QStringLiteral("key")).toString(), QStringLiteral("default"));
        QCOMPARE(done.value(QStringLiteral("key_id")).toString(),
                 QString::fromStdString(Cordon::Secrets::pseudonymKeyId(key.toStdString())));
        QCOMPARE(done.value(QStringLiteral("source_sha256")).toString(),
                 QString::fromStdString(Cordon::sha256Hex(People.toStdString())));
        QCOMPARE(detail.value(QStringLiteral("sha256")).toString(),
                 QString::fromStdString(Cordon::sha256Hex(expected.toStdString())));
        auto db = Cordon::Store::Database::open(m_dataDir + QStringLiteral("/history.db"));
        QVERIFY_RESULT(db);
        auto recorded =
            db->queryText("SELECT detail FROM files WHERE direction = 'upload' AND path = 'people.csv'",
                          QStringLiteral("read the upload's record"));
        QVERIFY_RESULT(recorded);
        const QJsonObject row = QJsonDocument::fromJson(recorded->toUtf8()).object();
        QCOMPARE(row.value(QStringLiteral("pseudonymized")).toObject(), done);
        // In words too, as `cordon events` and the workbench's history say it.
        const CliResult described =
            cordon({QStringLiteral("events"), QStringLiteral("--container"), QStringLiteral("first"),
                    QStringLiteral("--kind"), QStringLiteral("file.uploaded")});
        QVERIFY2(described.out.contains("Uploaded people.csv") &&
                     described.out.contains("pseudonymised: email, name with key default (pk-"),
                 described.out.constData());
        // No mapping back is kept anywhere: the history holds no raw value of those columns.
        QVERIFY(!historyFileBytes(m_dataDir).contains("ada@example.org"));
    }

    void theSameValueGivesTheSamePseudonymElsewhere()
    {
        const QString orders =
            writeFile(QStringLiteral("orders.tsv"), "customer\ttotal\nada@example.org\t12.50\n");
        QVERIFY(!create(QStringLiteral("second")).isEmpty());
        const CliResult copied = cordon({QStringLiteral("cp"), QStringLiteral("--pseudonymize"),
                                         QStringLiteral("customer"), orders, QStringLiteral("second:")});
        QVERIFY2(copied.status == 0, copied.describe());
        const QByteArray key = QByteArray::fromHex(keyHex(m_dataDir, QStringLiteral("default")));
        const Cordon::Secrets::Pseudonymizer p(key.toStdString());
        QCOMPARE(inside(QStringLiteral("second"), QStringLiteral("cat /mnt/data/inputs/orders.tsv")),
                 "customer\ttotal\n" + QByteArray::fromStdString(p("ada@example.org")) + "\t12.50\n");
        // Another key, other pseudonyms: a project's key keeps its joins to itself.
        const CliResult other =
            cordon({QStringLiteral("cp"), QStringLiteral("--pseudonymize"), QStringLiteral("customer"),
                    QStringLiteral("--pseudonym-key"), QStringLiteral("project_b"), orders,
                    QStringLiteral("second:orders-b.tsv")});
        QVERIFY2(other.status == 0, other.describe());
        const QByteArray seen =
            inside(QStringLiteral("second"), QStringLiteral("cat /mnt/data/inputs/orders-b.tsv"));
        QVERIFY(seen.startsWith("customer\ttotal\npsn_"));
        QVERIFY(!seen.contains(QByteArray::fromStdString(p("ada@example.org"))));
        // Listed by name and id, never by value.
        const CliResult listed = cordon(args({"secret", "ls"}));
        QVERIFY2(listed.out.contains("pseudonym key default (pk-") &&
                     listed.out.contains("pseudonym key project_b"),
                 listed.out.constData());
        QVERIFY(!listed.out.contains(keyHex(m_dataDir, QStringLiteral("default"))));
        // Forgotten, the key's pseudonyms cannot be made again: the next upload gets a new key.
        const QByteArray before = seen;
        const CliResult removed = cordon(args({"secret", "rm", "--pseudonym-key", "project_b"}));
        QVERIFY2(removed.status == 0 && removed.out.contains("pseudonym key project_b removed"),
                 removed.describe());
        QVERIFY(cordon({QStringLiteral("cp"), QStringLiteral("--pseudonymize"), QStringLiteral("customer"),
                        QStringLiteral("--pseudonym-key"), QStringLiteral("project_b"), orders,
                        QStringLiteral("second:orders-c.tsv")})
                    .status == 0);
        const QByteArray after =
            inside(QStringLiteral("second"), QStringLiteral("cat /mnt/data/inputs/orders-c.tsv"));
        QVERIFY(after.startsWith("customer\ttotal\npsn_") && after != before);
    }

    // The attack: a sandboxed program looks for the key everywhere it can read, and a policy asks for it as a
    // secret. Neither gets it.
    void theKeyNeverEntersTheSandbox()
    {
        const QByteArray hexKey = keyHex(m_dataDir, QStringLiteral("default"));
        QVERIFY(!hexKey.isEmpty());
        const QByteArray base64Key = QByteArray::fromHex(hexKey).toBase64();
        const QByteArray found = inside(
            QStringLiteral("first"),
            QStringLiteral(
                "env; cat /proc/self/environ /proc/1/environ 2>/dev/null; "
                "ls -d %1 2>&1; cat %1/secrets.json 2>&1; "
                "grep -rlF -e %2 -e %3 /mnt /tmp /run /etc /home /root 2>/dev/null | sed 's/^/FOUND /'; "
                "echo end")
                .arg(m_dataDir, QString::fromLatin1(hexKey), QString::fromLatin1(base64Key)));
        QVERIFY2(found.endsWith("end\n"), found.constData());
        QVERIFY2(!found.contains(hexKey) && !found.contains(base64Key), found.constData());
        QVERIFY2(!found.contains("FOUND "), found.constData());
        QVERIFY2(found.contains("No such file or directory"), found.constData());
        QVERIFY(!found.contains("pseudonym_keys"));
        // Named as a secret by a policy, the key is not found: keys and secrets are apart.
        const QString policy = writePolicyFile(
            m_dir.path(), QStringLiteral("wants-key"),
            "{\"name\": \"wants-key\", \"secrets\": [{\"name\": \"default\", \"env\": \"KEY\"}]}");
        const CliResult created = cordon({QStringLiteral("create"), QStringLiteral("--policy"), policy});
        const CliResult run =
            created.status == 0
                ? cordon({QStringLiteral("exec"), QStringLiteral("wants-key"), QStringLiteral("--"),
                          QStringLiteral("sh"), QStringLiteral("-c"), QStringLiteral("echo $KEY")})
                : created;
        QVERIFY2(run.status != 0, run.describe());
        QVERIFY2(run.err.contains("secrets.not_found") || run.err.contains("no secret named default"),
                 run.err.constData());
        QVERIFY(!run.out.contains(hexKey));
    }

    void badFilesAreClearErrorsAndLeaveNothing()
    {
        QVERIFY(!create(QStringLiteral("third")).isEmpty());
        const QString latin1 = writeFile(QStringLiteral("latin1.csv"), "name,city\nJos\xe9,Z\xfcrich\n");
        CliResult copied = cordon({QStringLiteral("cp"), QStringLiteral("--pseudonymize"),
                                   QStringLiteral("name"), latin1, QStringLiteral("third:")});
        QVERIFY2(copied.status != 0 && copied.err.contains("not UTF-8"), copied.describe());
        const QString people = writeFile(QStringLiteral("people2.csv"), People);
        copied = cordon({QStringLiteral("cp"), QStringLiteral("--pseudonymize"), QStringLiteral("phone"),
                         people, QStringLiteral("third:")});
        QVERIFY2(copied.status != 0 && copied.err.contains("the columns are id, name, email, note"),
                 copied.describe());
        const QString open = writeFile(QStringLiteral("open.csv"), "a,b\n\"never closed,1\n");
        copied = cordon({QStringLiteral("cp"), QStringLiteral("--pseudonymize"), QStringLiteral("a"), open,
                         QStringLiteral("third:")});
        QVERIFY2(copied.status != 0 && copied.err.contains("quote"), copied.describe());
        copied = cordon({QStringLiteral("cp"), QStringLiteral("--pseudonymize"), QStringLiteral("a"),
                         QStringLiteral("third:outputs/x"), m_dir.filePath(QStringLiteral("dl"))});
        QVERIFY2(copied.status == 2 && copied.err.contains("for uploads"), copied.describe());
        // Nothing reached the container, and the daemon still answers.
        QCOMPARE(inside(QStringLiteral("third"), QStringLiteral("ls -A /mnt/data/inputs | wc -l")), "0\n");
        QCOMPARE(eventsOfKind(QStringLiteral("third"), QStringLiteral("file.uploaded")).size(), 0);
        QCOMPARE(cordon(args({"ls"})).status, 0);
    }
};

CORDON_SANDBOX_TEST_MAIN(TestPseudonymizedUpload)
#include "tst_pseudonymizedupload.moc"
