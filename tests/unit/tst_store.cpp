// SPDX-License-Identifier: MIT
// The history database on real SQLite files: migrations and their refusal of a newer schema, every record
// round-tripping (hostile bytes included), filters and paging, idempotency keys, interrupted runs, retention
// with intact foreign keys, the connection settings, and a file that is not a database.
#include "daemon/api/wireforms.h"
#include "store/historystore.h"
#include "store/migrations.h"
#include "store/rowcodec.h"
#include "store/transaction.h"

#include "testutil.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QObject>
#include <QTemporaryDir>

#include <memory>

#include <sys/stat.h>

using namespace Cordon::Store;

namespace {

QString sha256Hex(const QByteArray &data)
{
    return QString::fromLatin1(QCryptographicHash::hash(data, QCryptographicHash::Sha256).toHex());
}

const QByteArray PolicyJson = R"({"memory_limit":1073741824,"name":"demo"})";
const QString PolicySha = sha256Hex(PolicyJson);

// Bytes no text codec would keep: NUL, a lone continuation byte, an overlong encoding, a truncated sequence.
const QByteArray HostileBytes = QByteArray("out\0put\x80\xc0\xaf\xe2\x82", 12) + QByteArray(1, '\0');

std::unique_ptr<HistoryStore> openOrFail(const QString &path, Cordon::Error *error = nullptr)
{
    auto store = HistoryStore::open(path);
    if (!store) {
        if (error)
            *error = store.error();
        else
            qWarning("open %s: %s", qPrintable(path), store.error().message().c_str());
        return nullptr;
    }
    return std::move(*store);
}

ContainerRecord makeContainer(const QString &id, qint64 createdAt = 1000, qint64 endedAt = 0)
{
    ContainerRecord record;
    record.id = id;
    record.name = QStringLiteral("box ") + id;
    record.state = endedAt ? QStringLiteral("deleted") : QStringLiteral("running");
    record.policyVersion = PolicySha;
    record.memoryLimit = 1LL << 30;
    record.timeScale = 60;
    record.createdAt = createdAt;
    record.lastActiveAt = createdAt + 5;
    record.expiresAt = createdAt + 3600000;
    record.endedAt = endedAt;
    return record;
}

RunRecord makeRun(const QString &id, const QString &containerId, qint64 startedAt,
                  const QString &errorClass = QStringLiteral("ok"))
{
    RunRecord run;
    run.id = id;
    run.containerId = containerId;
    run.state = QStringLiteral("running");
    run.policyVersion = PolicySha;
    run.language = QStringLiteral("python");
    run.command = {QStringLiteral("python3"), QStringLiteral("-c"), QStringLiteral("print(1)")};
    run.code = QStringLiteral("print(1)");
    run.codeSha256 = sha256Hex(run.code.toUtf8());
    run.startedAt = startedAt;
    run.errorClass = errorClass;
    return run;
}

// Finished in the same step, for tests that need a history rather than a life cycle.
RunRecord finished(RunRecord run, qint64 endedAt)
{
    run.state = QStringLiteral("finished");
    run.endedAt = endedAt;
    run.exitCode = run.errorClass == QLatin1String("ok") ? 0 : 1;
    return run;
}

EventRecord makeEvent(qint64 at, const QString &containerId, const QString &kind, const QString &runId = {})
{
    EventRecord record;
    record.at = at;
    record.containerId = containerId;
    record.runId = runId;
    record.kind = kind;
    record.detail = QJsonObject{{QStringLiteral("host"), QStringLiteral("example.com")}};
    return record;
}

FileRecord makeFile(qint64 at, const QString &containerId, const QString &path, const QString &runId = {})
{
    FileRecord record;
    record.containerId = containerId;
    record.runId = runId;
    record.direction = runId.isEmpty() ? QStringLiteral("upload") : QStringLiteral("artifact");
    record.scope = runId.isEmpty() ? QStringLiteral("inputs") : QStringLiteral("outputs");
    record.path = path;
    record.sha256 = sha256Hex(path.toUtf8());
    record.size = 123;
    record.at = at;
    return record;
}

QStringList ids(const QList<RunRecord> &runs)
{
    QStringList list;
    for (const RunRecord &run : runs)
        list.append(run.id);
    return list;
}

QString pragma(const HistoryStore &store, const char *name)
{
    auto value = store.database().queryText(QByteArray("PRAGMA ") + name, QStringLiteral("test pragma"));
    return value ? *value : QStringLiteral("<%1>").arg(Cordon::toQt(value.error().message()));
}

} // namespace

class TestStore final : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::unique_ptr<HistoryStore> m_store;
    QString m_path;

    // A fresh store with the policy and two live containers, "a" and "b".
    bool seed()
    {
        m_path = m_dir.filePath(
            QStringLiteral("seed-%1.db").arg(QString::fromLatin1(QTest::currentTestFunction())));
        QFile::remove(m_path);
        m_store = openOrFail(m_path);
        return m_store && m_store->recordPolicyVersion(PolicySha, PolicyJson) &&
               m_store->saveContainer(makeContainer(QStringLiteral("a"))) &&
               m_store->saveContainer(makeContainer(QStringLiteral("b")));
    }

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_dir.isValid()); }
    void cleanup() { m_store.reset(); }

    void migratesFromEmpty()
    {
        const QString path = m_dir.filePath(QStringLiteral("new/deeper/history.db"));
        auto store = openOrFail(path);
        QVERIFY(store);
        QCOMPARE(store->schemaVersion(), latestSchemaVersion());
        QCOMPARE(latestSchemaVersion(), 7);
        QVERIFY(!migrations().empty());

        // Private: the history holds code and output.
        struct stat st
        {
        };
        QCOMPARE(::stat(QFile::encodeName(path).constData(), &st), 0);
        QCOMPARE(st.st_mode & 0777, 0600u);
        QCOMPARE(::stat(QFile::encodeName(m_dir.filePath(QStringLiteral("new/deeper"))).constData(), &st), 0);
        QCOMPARE(st.st_mode & 0777, 0700u);
        QCOMPARE(::stat(QFile::encodeName(m_dir.filePath(QStringLiteral("new"))).constData(), &st), 0);
        QCOMPARE(st.st_mode & 0777, 0700u);

        auto tables = store->database().prepare(
            "SELECT group_concat(name, ',') FROM (SELECT name FROM sqlite_schema WHERE type = 'table' "
            "AND name NOT LIKE 'sqlite_%' ORDER BY name)",
            QStringLiteral("list tables"));
        QVERIFY_RESULT(tables);
        auto row = tables->step();
        QVERIFY_RESULT(row);
        QCOMPARE(tables->columnText(0),
                 QStringLiteral("audits,containers,events,files,policy_versions,runs"));
    }

    void connectionSettings()
    {
        QVERIFY(seed());
        QCOMPARE(pragma(*m_store, "journal_mode"), QStringLiteral("wal"));
        QCOMPARE(pragma(*m_store, "foreign_keys"), QStringLiteral("1"));
        QCOMPARE(pragma(*m_store, "busy_timeout"), QStringLiteral("5000"));
        QCOMPARE(pragma(*m_store, "synchronous"), QStringLiteral("1")); // NORMAL
        QCOMPARE(pragma(*m_store, "user_version"), QString::number(latestSchemaVersion()));
        auto ok = m_store->integrityCheck();
        QVERIFY_RESULT(ok);
        QVERIFY(*ok);
    }

    void reopenKeepsDataAndVersion()
    {
        QVERIFY(seed());
        QVERIFY_RESULT(m_store->insertRun(makeRun(QStringLiteral("r1"), QStringLiteral("a"), 2000)));
        m_store.reset();

        auto reopened = openOrFail(m_path);
        QVERIFY(reopened);
        QCOMPARE(reopened->schemaVersion(), latestSchemaVersion());
        auto loaded = reopened->run(QStringLiteral("r1"));
        QVERIFY_RESULT(loaded);
        QCOMPARE(loaded->containerId, QStringLiteral("a"));
        auto policy = reopened->policyJson(PolicySha);
        QVERIFY_RESULT(policy);
        QCOMPARE(*policy, PolicyJson);
    }

    void newerSchemaIsRefused()
    {
        const QString path = m_dir.filePath(QStringLiteral("newer.db"));
        const int newer = latestSchemaVersion() + 1;
        QVERIFY(openOrFail(path));
        {
            auto db = Database::open(path);
            QVERIFY_RESULT(db);
            QVERIFY_RESULT(db->exec("PRAGMA user_version = " + QByteArray::number(newer),
                                    QStringLiteral("pretend a newer Cordon")));
        }
        Cordon::Error error;
        QVERIFY(!openOrFail(path, &error));
        QCOMPARE(error.code(), "store.migration");
        QVERIFY2(Cordon::toQt(error.message())
                     .contains(QStringLiteral("schema version %1, newer than the %2")
                                   .arg(newer)
                                   .arg(latestSchemaVersion())),
                 error.message().c_str());

        // Left as it was: still the newer version, with the older tables intact.
        auto db = Database::open(path);
        QVERIFY_RESULT(db);
        auto version = db->queryInt("PRAGMA user_version", QStringLiteral("read version"));
        QVERIFY_RESULT(version);
        QCOMPARE(*version, newer);
    }

    // Audits: stored whole, listed newest first without the document, saved again when signed.
    void auditsAreKeptAndReplacedWhenSigned()
    {
        QVERIFY(seed());
        AuditRecord first{QStringLiteral("au-1"),
                          1000,
                          QStringLiteral("v1"),
                          QStringLiteral("no_go"),
                          21,
                          20,
                          {},
                          QByteArrayLiteral("{\"id\":\"au-1\"}")};
        AuditRecord second{QStringLiteral("au-2"),
                           2000,
                           QStringLiteral("v2"),
                           QStringLiteral("go"),
                           21,
                           21,
                           {},
                           QByteArrayLiteral("{\"id\":\"au-2\"}")};
        QVERIFY_RESULT(m_store->saveAudit(first));
        QVERIFY_RESULT(m_store->saveAudit(second));
        auto page = m_store->audits(10, 0);
        QVERIFY_RESULT(page);
        QCOMPARE(page->total, 2);
        QCOMPARE(page->items.at(0).id, QStringLiteral("au-2"));
        QVERIFY(page->items.at(0).report.isEmpty());
        // A report made before not-applicable rows has every row applied.
        QCOMPARE(page->items.at(0).rowsApplied, 21);
        second.keyId = QStringLiteral("ak-0123456789abcdef");
        second.report = QByteArrayLiteral("{\"id\":\"au-2\",\"signature\":{}}");
        QVERIFY_RESULT(m_store->saveAudit(second));
        auto read = m_store->audit(QStringLiteral("au-2"));
        QVERIFY_RESULT(read);
        QCOMPARE(read->keyId, second.keyId);
        second.report = QByteArrayLiteral("{\"id\":\"au-2\",\"rows_applied\":18}");
        QVERIFY_RESULT(m_store->saveAudit(second));
        QCOMPARE(m_store->audits(10, 0)->items.at(0).rowsApplied, 18);
        QCOMPARE(m_store->audit(QStringLiteral("au-2"))->rowsApplied, 18);
        second.report = QByteArrayLiteral("{\"id\":\"au-2\",\"signature\":{}}");
        QVERIFY_RESULT(m_store->saveAudit(second));
        read = m_store->audit(QStringLiteral("au-2"));
        QVERIFY_RESULT(read);
        QCOMPARE(read->report, second.report);
        QCOMPARE(m_store->audits(10, 0)->total, 2);
        auto missing = m_store->audit(QStringLiteral("au-none"));
        QVERIFY(!missing);
        QCOMPARE(missing.error().code(), "store.not_found");
    }

    // A history written by the first release: opened by this one, it gains the column and keeps its runs.
    void version1HistoryIsMigrated()
    {
        const QString path = m_dir.filePath(QStringLiteral("v1.db"));
        {
            auto db = Database::open(path);
            QVERIFY_RESULT(db);
            QVERIFY_RESULT(db->exec(migrations()[0].sql, QStringLiteral("the first schema")));
            QVERIFY_RESULT(
                db->exec("PRAGMA user_version = 1; "
                         "INSERT INTO containers (id, state, created_at) VALUES ('c1', 'running', 1); "
                         "INSERT INTO runs (id, container_id, state, started_at, error_class, exit_code) "
                         "VALUES ('old', 'c1', 'finished', 2, 'ok', 0);",
                         QStringLiteral("a version-1 history")));
        }
        auto store = openOrFail(path);
        QVERIFY(store);
        QCOMPARE(store->schemaVersion(), latestSchemaVersion());
        auto old = store->run(QStringLiteral("old"));
        QVERIFY_RESULT(old);
        QCOMPARE(old->errorClass, QStringLiteral("ok"));
        QCOMPARE(old->pidsLimitHits, 0);
        QVERIFY(old->secrets.isEmpty());
        // And records it for new runs.
        RunRecord run = makeRun(QStringLiteral("new"), QStringLiteral("c1"), 3);
        run.policyVersion.clear(); // the old history has no policies recorded
        run.secrets =
            QJsonArray{QJsonObject{{QStringLiteral("name"), QStringLiteral("API_TOKEN")},
                                   {QStringLiteral("env"), QStringLiteral("TOKEN")},
                                   {QStringLiteral("fingerprint"), QStringLiteral("hmac-sha256:00")}}};
        QVERIFY_RESULT(store->insertRun(run));
        run.state = QStringLiteral("finished");
        run.errorClass = QStringLiteral("nonzero_exit");
        run.pidsLimitHits = 7;
        QVERIFY_RESULT(store->finishRun(run));
        QCOMPARE(store->run(QStringLiteral("new"))->pidsLimitHits, 7);
        QCOMPARE(store->run(QStringLiteral("new"))->secrets, run.secrets);
        QCOMPARE(Cordon::Api::runRecordToJson(*store->run(QStringLiteral("new")), false)
                     .value(QStringLiteral("pids_limit_hits"))
                     .toInteger(),
                 7);
    }

    // Version 6 marks the demo clock's containers: one on a faster clock was put there as a demo, and only
    // demos follow the clock from now on. The mark is saved and read back with the container.
    void containersOnAFasterClockBecomeDemos()
    {
        const QString path = m_dir.filePath(QStringLiteral("v5.db"));
        {
            auto db = Database::open(path);
            QVERIFY_RESULT(db);
            for (const Migration &migration : migrations().first(5))
                QVERIFY_RESULT(db->exec(migration.sql, QStringLiteral("schema %1").arg(migration.version)));
            QVERIFY_RESULT(db->exec("PRAGMA user_version = 5; "
                                    "INSERT INTO containers (id, state, time_scale, created_at) VALUES "
                                    "('fast', 'running', 60, 1), ('real', 'running', 1, 1);",
                                    QStringLiteral("a version-5 history")));
        }
        auto store = openOrFail(path);
        QVERIFY(store);
        QCOMPARE(store->container(QStringLiteral("fast"))->demo, true);
        QCOMPARE(store->container(QStringLiteral("real"))->demo, false);
        ContainerRecord real = *store->container(QStringLiteral("real"));
        real.demo = true;
        QVERIFY_RESULT(store->saveContainer(real));
        QCOMPARE(store->container(QStringLiteral("real"))->demo, true);
        real.demo = false;
        QVERIFY_RESULT(store->saveContainer(real));
        QCOMPARE(store->container(QStringLiteral("real"))->demo, false);
    }

    void notADatabase()
    {
        const QString path = m_dir.filePath(QStringLiteral("garbage.db"));
        QFile garbage(path);
        QVERIFY(garbage.open(QIODevice::WriteOnly));
        QByteArray noise;
        for (int i = 0; i < 8192; ++i)
            noise.append(char((i * 7919 + 13) & 0xff));
        garbage.write(noise);
        garbage.close();

        Cordon::Error error;
        QVERIFY(!openOrFail(path, &error));
        QCOMPARE(error.code(), "store.corrupt");
        QVERIFY2(Cordon::toQt(error.message()).contains(QStringLiteral("not a database")),
                 error.message().c_str());
        // Nothing was written over it.
        QVERIFY(garbage.open(QIODevice::ReadOnly));
        QCOMPARE(garbage.readAll(), noise);

        // A directory where the file should be.
        const QString dirPath = m_dir.filePath(QStringLiteral("adir.db"));
        QVERIFY(QDir(m_dir.path()).mkdir(QStringLiteral("adir.db")));
        QVERIFY(!openOrFail(dirPath, &error));
        QCOMPARE(error.code(), "store.open");
        QVERIFY2(Cordon::toQt(error.message()).contains(dirPath), error.message().c_str());
    }

    void symlinkIsRefused()
    {
        const QString target = m_dir.filePath(QStringLiteral("elsewhere.db"));
        const QString link = m_dir.filePath(QStringLiteral("link.db"));
        QVERIFY(QFile::link(target, link));
        Cordon::Error error;
        QVERIFY(!openOrFail(link, &error));
        QCOMPARE(error.code(), "store.open");
        QVERIFY(!QFileInfo::exists(target));
    }

    void transactionRollsBackUnlessCommitted()
    {
        QVERIFY(seed());
        const Database &db = m_store->database();
        {
            auto transaction = Transaction::begin(db, Transaction::Mode::Write, QStringLiteral("test"));
            QVERIFY_RESULT(transaction);
            QVERIFY_RESULT(m_store->saveContainer(makeContainer(QStringLiteral("gone"))));
        }
        QCOMPARE(m_store->container(QStringLiteral("gone")).error().code(), "store.not_found");
        {
            auto transaction = Transaction::begin(db, Transaction::Mode::Write, QStringLiteral("test"));
            QVERIFY_RESULT(transaction);
            QVERIFY_RESULT(m_store->saveContainer(makeContainer(QStringLiteral("kept"))));
            QVERIFY_RESULT(transaction->commit());
            QCOMPARE(transaction->commit().error().code(), "store.io");
        }
        QVERIFY_RESULT(m_store->container(QStringLiteral("kept")));
    }

    void aReusedStatementCarriesNothingOfItsLastUse()
    {
        // Statements are compiled once per SQL text and kept: the next use must find neither the values
        // bound last time nor the lock a half-read result held.
        const QString path = m_dir.filePath(QStringLiteral("reuse.db"));
        QFile::remove(path);
        auto db = Database::open(path); // no pragmas: a rollback journal, where a reader blocks a writer
        QVERIFY_RESULT(db);
        QVERIFY_RESULT(
            db->exec("CREATE TABLE t (v INTEGER); INSERT INTO t VALUES (1), (2)", QStringLiteral("t")));
        {
            auto stmt = db->prepare("SELECT ?1", QStringLiteral("bound"));
            QVERIFY_RESULT(stmt);
            stmt->bind(1, qint64(42));
            QCOMPARE(stmt->step().value_or(false), true);
            QCOMPARE(stmt->columnInt64(0), qint64(42));
        }
        {
            auto again = db->prepare("SELECT ?1", QStringLiteral("unbound"));
            QVERIFY_RESULT(again);
            QCOMPARE(again->step().value_or(false), true);
            QVERIFY(again->isNull(0));
        }
        {
            auto reading = db->prepare("SELECT v FROM t", QStringLiteral("half read"));
            QVERIFY_RESULT(reading);
            QCOMPARE(reading->step().value_or(false), true); // one row of two: the read lock is held
            auto other = Database::open(path);
            QVERIFY_RESULT(other);
            QCOMPARE(other->exec("INSERT INTO t VALUES (3)", QStringLiteral("write")).error().code(),
                     "store.busy");
        }
        auto other = Database::open(path);
        QVERIFY_RESULT(other);
        QVERIFY_RESULT(other->exec("INSERT INTO t VALUES (3)", QStringLiteral("write after the reader")));
        auto count = db->queryInt("SELECT count(*) FROM t", QStringLiteral("count"));
        QVERIFY_RESULT(count);
        QCOMPARE(*count, qint64(3));
    }

    void writesInABatchCommitTogetherOrNotAtAll()
    {
        QVERIFY(seed());
        RunRecord run = makeRun(QStringLiteral("r1"), QStringLiteral("a"), 1000);
        {
            auto writes = m_store->beginWrites(QStringLiteral("a run's start"));
            QVERIFY_RESULT(writes);
            QVERIFY_RESULT(m_store->insertRun(run));
            QVERIFY_RESULT(m_store->recordEvent(
                makeEvent(1000, QStringLiteral("a"), QStringLiteral("run.started"), QStringLiteral("r1"))));
            // A batch is one transaction: another cannot begin inside it.
            QVERIFY(!m_store->beginWrites(QStringLiteral("nested")));
        } // not committed
        QCOMPARE(m_store->run(QStringLiteral("r1")).error().code(), "store.not_found");
        QCOMPARE(m_store->eventCounts(QStringLiteral("a"), {}, {}).value_or(QHash<QString, qint64>()).size(),
                 0);
        {
            auto writes = m_store->beginWrites(QStringLiteral("a run's start"));
            QVERIFY_RESULT(writes);
            QVERIFY_RESULT(m_store->insertRun(run));
            QVERIFY_RESULT(m_store->recordEvent(
                makeEvent(1000, QStringLiteral("a"), QStringLiteral("run.started"), QStringLiteral("r1"))));
            QVERIFY_RESULT(writes->commit());
        }
        QVERIFY_RESULT(m_store->run(QStringLiteral("r1")));
        QCOMPARE(m_store->eventCounts(QStringLiteral("a"), {}, {})
                     .value_or(QHash<QString, qint64>())
                     .value(QStringLiteral("run.started")),
                 qint64(1));
    }

    void statementErrorsNameTheirPurpose()
    {
        QVERIFY(seed());
        auto bad = m_store->database().prepare("SELECT nope FROM runs", QStringLiteral("look for nope"));
        QVERIFY(!bad);
        QCOMPARE(bad.error().code(), "store.io");
        QCOMPARE(Cordon::toQt(bad.error().message()), QStringLiteral("look for nope: no such column: nope"));

        auto stmt = m_store->database().prepare("SELECT ?1", QStringLiteral("bind out of range"));
        QVERIFY_RESULT(stmt);
        stmt->bind(7, qint64(1));
        auto stepped = stmt->step();
        QVERIFY(!stepped);
        QVERIFY2(Cordon::toQt(stepped.error().message())
                     .startsWith(QStringLiteral("bind out of range (binding a value): ")),
                 stepped.error().message().c_str());
    }

    void policyVersions()
    {
        QVERIFY(seed());
        // Idempotent.
        QVERIFY_RESULT(m_store->recordPolicyVersion(PolicySha, PolicyJson));
        auto json = m_store->policyJson(PolicySha);
        QVERIFY_RESULT(json);
        QCOMPARE(*json, PolicyJson);

        auto mismatch = m_store->recordPolicyVersion(PolicySha, PolicyJson + ' ');
        QVERIFY(!mismatch);
        QCOMPARE(mismatch.error().code(), "store.constraint");

        auto missing = m_store->policyJson(sha256Hex("{}"));
        QVERIFY(!missing);
        QCOMPARE(missing.error().code(), "store.not_found");
    }

    void containerRoundTrip()
    {
        QVERIFY(seed());
        ContainerRecord record = makeContainer(QStringLiteral("c1"), 5000);
        QVERIFY_RESULT(m_store->saveContainer(record));
        auto loaded = m_store->container(QStringLiteral("c1"));
        QVERIFY_RESULT(loaded);
        QCOMPARE(loaded->id, record.id);
        QCOMPARE(loaded->name, record.name);
        QCOMPARE(loaded->state, record.state);
        QCOMPARE(loaded->policyVersion, record.policyVersion);
        QCOMPARE(loaded->memoryLimit, record.memoryLimit);
        QCOMPARE(loaded->timeScale, record.timeScale);
        QCOMPARE(loaded->createdAt, record.createdAt);
        QCOMPARE(loaded->lastActiveAt, record.lastActiveAt);
        QCOMPARE(loaded->expiresAt, record.expiresAt);
        QCOMPARE(loaded->endedAt, 0);

        // Saving again updates in place and keeps the container's runs (no REPLACE-and-cascade).
        QVERIFY_RESULT(m_store->insertRun(makeRun(QStringLiteral("r"), QStringLiteral("c1"), 6000)));
        record.state = QStringLiteral("deleted");
        record.endedAt = 9000;
        QVERIFY_RESULT(m_store->saveContainer(record));
        loaded = m_store->container(QStringLiteral("c1"));
        QVERIFY_RESULT(loaded);
        QCOMPARE(loaded->state, QStringLiteral("deleted"));
        QCOMPARE(loaded->endedAt, 9000);
        QVERIFY_RESULT(m_store->run(QStringLiteral("r")));

        auto live = m_store->containers(false);
        QVERIFY_RESULT(live);
        QCOMPARE(live->size(), 2);
        auto all = m_store->containers(true);
        QVERIFY_RESULT(all);
        QCOMPARE(all->size(), 3);
        QCOMPARE(all->first().id, QStringLiteral("c1")); // newest first

        QCOMPARE(m_store->container(QStringLiteral("nope")).error().code(), "store.not_found");

        // A policy version nobody recorded is refused: every container must be attributable.
        ContainerRecord unknownPolicy = makeContainer(QStringLiteral("c2"));
        unknownPolicy.policyVersion = sha256Hex("other");
        QCOMPARE(m_store->saveContainer(unknownPolicy).error().code(), "store.constraint");
    }

    // Schema version 7: a container's origin. The audit's rows are left out of a list of the user's own
    // (origin ""), listed alone by their origin, and every row of either keeps its container's name, which
    // outlives the container itself.
    void originsAndContainerNames()
    {
        QVERIFY(seed());
        ContainerRecord audit = makeContainer(QStringLiteral("au1"), 3000);
        audit.name = QStringLiteral("audit-probe");
        audit.origin = QStringLiteral("audit:au-0123");
        QVERIFY_RESULT(m_store->saveContainer(audit));
        QCOMPARE(m_store->container(QStringLiteral("au1"))->origin, QStringLiteral("audit:au-0123"));
        QCOMPARE(m_store->container(QStringLiteral("a"))->origin, QString());
        QVERIFY_RESULT(m_store->insertRun(makeRun(QStringLiteral("mine"), QStringLiteral("a"), 4000)));
        RunRecord probe = makeRun(QStringLiteral("probe"), QStringLiteral("au1"), 5000);
        probe.code = QStringLiteral("# Probe the network\nimport socket\n") + QString(3000, QLatin1Char('x'));
        QVERIFY_RESULT(m_store->insertRun(probe));
        QVERIFY_RESULT(
            m_store->recordEvent(makeEvent(4100, QStringLiteral("a"), QStringLiteral("run.started"))));
        QVERIFY_RESULT(m_store->recordEvent(
            makeEvent(5100, QStringLiteral("au1"), QStringLiteral("artifact.override"))));
        QVERIFY_RESULT(m_store->recordEvent(makeEvent(5200, {}, QStringLiteral("audit.saved"))));

        RunFilter runs;
        auto every = m_store->runs(runs);
        QVERIFY_RESULT(every);
        QCOMPARE(every->total, 2);
        runs.origin = QString();
        auto own = m_store->runs(runs);
        QVERIFY_RESULT(own);
        QCOMPARE(own->total, 1);
        QCOMPARE(own->items.first().id, QStringLiteral("mine"));
        QCOMPARE(own->items.first().containerOrigin, QString());
        runs.origin = QStringLiteral("audit:au-0123");
        auto audits = m_store->runs(runs);
        QVERIFY_RESULT(audits);
        QCOMPARE(audits->total, 1);
        const RunRecord &listed = audits->items.first();
        QCOMPARE(listed.containerName, QStringLiteral("audit-probe"));
        QCOMPARE(listed.containerOrigin, QStringLiteral("audit:au-0123"));
        // A list has no code, but its beginning, for what it says ran.
        QVERIFY(listed.code.isEmpty());
        QCOMPARE(listed.codeHead.size(), RunCodeHeadBytes);
        QVERIFY(listed.codeHead.startsWith(QStringLiteral("# Probe the network\n")));

        EventFilter events;
        events.origin = QString();
        auto ownEvents = m_store->events(events);
        QVERIFY_RESULT(ownEvents);
        QStringList kinds;
        for (const EventRecord &event : ownEvents->items)
            kinds.append(event.kind);
        // The daemon's own events are the user's; the audit container's override is not.
        QCOMPARE(kinds, QStringList({QStringLiteral("audit.saved"), QStringLiteral("run.started")}));
        events.origin = QStringLiteral("audit:au-0123");
        auto auditEvents = m_store->events(events);
        QVERIFY_RESULT(auditEvents);
        QCOMPARE(auditEvents->total, 1);
        QCOMPARE(auditEvents->items.first().kind, QStringLiteral("artifact.override"));
        QCOMPARE(auditEvents->items.first().containerName, QStringLiteral("audit-probe"));

        // Deleted, the container keeps its name on its runs.
        audit.state = QStringLiteral("deleted");
        audit.endedAt = 6000;
        QVERIFY_RESULT(m_store->saveContainer(audit));
        QCOMPARE(m_store->run(QStringLiteral("probe"))->containerName, QStringLiteral("audit-probe"));
        QCOMPARE(m_store->container(QStringLiteral("au1"))->origin, QStringLiteral("audit:au-0123"));
    }

    // The History's search: code, command, run id and container name, letters in either case, `%` and `_`
    // literally.
    void runsAreSearchedByText()
    {
        QVERIFY(seed());
        RunRecord fetch = makeRun(QStringLiteral("r-fetch"), QStringLiteral("a"), 1000);
        fetch.code = QStringLiteral("import urllib.request\nurllib.request.urlopen('https://PyPI.org')\n");
        RunRecord percent = makeRun(QStringLiteral("r-percent"), QStringLiteral("b"), 2000);
        percent.code = QStringLiteral("print('100%_done')\n");
        RunRecord command = makeRun(QStringLiteral("r-cmd"), QStringLiteral("b"), 3000);
        command.language.clear();
        command.code.clear();
        command.command = {QStringLiteral("/bin/ls"), QStringLiteral("-la")};
        for (const RunRecord &run : {fetch, percent, command})
            QVERIFY_RESULT(m_store->insertRun(run));
        const auto found = [this](const QString &text) {
            RunFilter filter;
            filter.text = text;
            QStringList ids;
            if (auto page = m_store->runs(filter))
                for (const RunRecord &run : page->items)
                    ids.append(run.id);
            return ids;
        };
        QCOMPARE(found(QStringLiteral("pypi.ORG")), QStringList{QStringLiteral("r-fetch")});
        QCOMPARE(found(QStringLiteral("%_")), QStringList{QStringLiteral("r-percent")});
        QCOMPARE(found(QStringLiteral("/bin/ls")), QStringList{QStringLiteral("r-cmd")});
        QCOMPARE(found(QStringLiteral("r-perc")), QStringList{QStringLiteral("r-percent")});
        // makeContainer names a container "box <id>".
        QCOMPARE(found(makeContainer(QStringLiteral("b")).name),
                 (QStringList{QStringLiteral("r-cmd"), QStringLiteral("r-percent")}));
        QVERIFY(found(QStringLiteral("nowhere")).isEmpty());
    }

    void runRoundTripWithHostileOutput()
    {
        QVERIFY(seed());
        RunRecord original = makeRun(QStringLiteral("run-1"), QStringLiteral("a"), 10000);
        original.command = {QStringLiteral("bash"), QStringLiteral("-c"),
                            QStringLiteral("echo \"ü\" '; DROP TABLE runs;")};
        original.code = QStringLiteral("print('\u00e9')\n") + QChar(0) + QStringLiteral("tail");
        original.codeSha256 = sha256Hex(original.code.toUtf8());
        original.inputs = QJsonArray{QJsonObject{{QStringLiteral("path"), QStringLiteral("numbers.csv")},
                                                 {QStringLiteral("sha256"), sha256Hex("3\n4\n")},
                                                 {QStringLiteral("size"), 4}}};
        original.idempotencyKey = QStringLiteral("key-1");
        QVERIFY_RESULT(m_store->insertRun(original));

        auto running = m_store->run(original.id);
        QVERIFY_RESULT(running);
        QCOMPARE(running->state, QStringLiteral("running"));
        QCOMPARE(running->endedAt, 0);

        RunRecord outcome = original;
        outcome.state = QStringLiteral("finished");
        outcome.endedAt = 12345;
        outcome.errorClass = QStringLiteral("nonzero_exit");
        outcome.exitCode = 3;
        outcome.signal = 0;
        outcome.wallMs = 2345;
        outcome.cpuMs = 1200;
        outcome.peakMemoryBytes = 50 << 20;
        // A few MiB of hostile bytes, as the caller's cap allows.
        outcome.stdoutData = HostileBytes.repeated(3 * 1024 * 1024 / HostileBytes.size());
        outcome.stderrData = HostileBytes;
        outcome.stdoutTruncated = true;
        outcome.stderrTruncated = false;
        outcome.message = QStringLiteral("exit status 3");
        outcome.artifacts = QJsonArray{QJsonObject{{QStringLiteral("path"), QStringLiteral("out/plot.png")},
                                                   {QStringLiteral("size"), 2048},
                                                   {QStringLiteral("sha256"), sha256Hex("png")}}};
        QVERIFY_RESULT(m_store->finishRun(outcome));

        auto loaded = m_store->run(original.id);
        QVERIFY_RESULT(loaded);
        QCOMPARE(loaded->id, original.id);
        QCOMPARE(loaded->containerId, original.containerId);
        QCOMPARE(loaded->state, QStringLiteral("finished"));
        QCOMPARE(loaded->policyVersion, PolicySha);
        QCOMPARE(loaded->language, original.language);
        QCOMPARE(loaded->command, original.command);
        QCOMPARE(loaded->code, original.code);
        QCOMPARE(loaded->code.size(), original.code.size());
        QCOMPARE(loaded->codeSha256, original.codeSha256);
        QCOMPARE(loaded->inputs, original.inputs);
        QCOMPARE(loaded->idempotencyKey, original.idempotencyKey);
        QCOMPARE(loaded->startedAt, original.startedAt);
        QCOMPARE(loaded->endedAt, 12345);
        QCOMPARE(loaded->errorClass, QStringLiteral("nonzero_exit"));
        QCOMPARE(loaded->exitCode, 3);
        QCOMPARE(loaded->signal, 0);
        QCOMPARE(loaded->wallMs, 2345);
        QCOMPARE(loaded->cpuMs, 1200);
        QCOMPARE(loaded->peakMemoryBytes, qint64(50) << 20);
        QVERIFY(loaded->stdoutData == outcome.stdoutData); // QCOMPARE would print megabytes
        QCOMPARE(loaded->stdoutData.size(), outcome.stdoutData.size());
        QCOMPARE(loaded->stderrData, HostileBytes);
        QVERIFY(loaded->stdoutTruncated);
        QVERIFY(!loaded->stderrTruncated);
        QCOMPARE(loaded->message, outcome.message);
        QCOMPARE(loaded->artifacts, outcome.artifacts);

        // The protocol form: valid JSON text with invalid bytes replaced and NUL kept.
        const QJsonObject json = Cordon::Api::runRecordToJson(*loaded, true);
        QCOMPARE(json.value(QStringLiteral("container")).toString(), QStringLiteral("a"));
        QCOMPARE(json.value(QStringLiteral("exit_code")).toInt(), 3);
        QCOMPARE(json.value(QStringLiteral("error_class")).toString(), QStringLiteral("nonzero_exit"));
        QCOMPARE(json.value(QStringLiteral("policy_version")).toString(), PolicySha);
        const QString stderrText = json.value(QStringLiteral("stderr")).toString();
        QVERIFY(stderrText.startsWith(QStringLiteral("out") + QChar(0) + QStringLiteral("put\uFFFD")));
        const QJsonObject reparsed =
            QJsonDocument::fromJson(QJsonDocument(json).toJson(QJsonDocument::Compact)).object();
        QCOMPARE(reparsed.value(QStringLiteral("stderr")).toString(), stderrText);
        const QJsonObject brief = Cordon::Api::runRecordToJson(*loaded, false);
        QVERIFY(!brief.contains(QStringLiteral("stdout")));
        QVERIFY(!brief.contains(QStringLiteral("code")));
        QVERIFY(brief.contains(QStringLiteral("wall_ms")));
        QVERIFY(!Cordon::Api::runRecordToJson(*running, true).contains(QStringLiteral("error_class")));

        // A second outcome for the same run is refused, as is an outcome for an unknown run.
        QCOMPARE(m_store->finishRun(outcome).error().code(), "store.constraint");
        RunRecord unknown = outcome;
        unknown.id = QStringLiteral("nope");
        QCOMPARE(m_store->finishRun(unknown).error().code(), "store.not_found");
        QCOMPARE(m_store->run(QStringLiteral("nope")).error().code(), "store.not_found");
    }

    void runReferencesAreEnforced()
    {
        QVERIFY(seed());
        auto orphan =
            m_store->insertRun(makeRun(QStringLiteral("r"), QStringLiteral("no-such-container"), 1));
        QVERIFY(!orphan);
        QCOMPARE(orphan.error().code(), "store.constraint");
        QVERIFY2(Cordon::toQt(orphan.error().message()).contains(QStringLiteral("FOREIGN KEY")),
                 orphan.error().message().c_str());

        RunRecord badState = makeRun(QStringLiteral("r"), QStringLiteral("a"), 1);
        badState.state = QStringLiteral("sleeping");
        QCOMPARE(m_store->insertRun(badState).error().code(), "store.constraint");

        QVERIFY_RESULT(m_store->insertRun(makeRun(QStringLiteral("r"), QStringLiteral("a"), 1)));
        QCOMPARE(m_store->insertRun(makeRun(QStringLiteral("r"), QStringLiteral("b"), 1)).error().code(),
                 "store.constraint");
    }

    void runFiltersAndPaging()
    {
        QVERIFY(seed());
        // 30 runs: even ones in "a", odd in "b"; every third one timed out; started at 1000, 2000, ...
        for (int i = 0; i < 30; ++i) {
            const QString errorClass = i % 3 == 0 ? QStringLiteral("timeout") : QStringLiteral("ok");
            RunRecord record = finished(makeRun(QStringLiteral("r%1").arg(i, 2, 10, QLatin1Char('0')),
                                                i % 2 ? QStringLiteral("b") : QStringLiteral("a"),
                                                1000 * (i + 1), errorClass),
                                        1000 * (i + 1) + 500);
            record.stdoutData = "output of " + record.id.toUtf8();
            QVERIFY_RESULT(m_store->insertRun(record));
        }
        // One still running, started last.
        QVERIFY_RESULT(m_store->insertRun(makeRun(QStringLiteral("r30"), QStringLiteral("a"), 31000)));

        RunFilter filter;
        auto page = m_store->runs(filter);
        QVERIFY_RESULT(page);
        QCOMPARE(page->total, 31);
        QCOMPARE(page->items.size(), 31);
        QCOMPARE(page->items.first().id, QStringLiteral("r30"));
        QCOMPARE(page->items.last().id, QStringLiteral("r00"));
        QVERIFY(page->items.first().stdoutData.isEmpty()); // without output
        QVERIFY(page->items.first().code.isEmpty());

        filter.limit = 5;
        filter.offset = 10;
        page = m_store->runs(filter, true);
        QVERIFY_RESULT(page);
        QCOMPARE(page->total, 31);
        QCOMPARE(ids(page->items),
                 (QStringList{QStringLiteral("r20"), QStringLiteral("r19"), QStringLiteral("r18"),
                              QStringLiteral("r17"), QStringLiteral("r16")}));
        QCOMPARE(page->items.first().stdoutData, QByteArray("output of r20"));
        QCOMPARE(page->items.first().code, QStringLiteral("print(1)"));

        filter.offset = 29;
        page = m_store->runs(filter);
        QVERIFY_RESULT(page);
        QCOMPARE(ids(page->items), (QStringList{QStringLiteral("r01"), QStringLiteral("r00")}));

        filter.limit = 0;
        filter.offset = 0;
        page = m_store->runs(filter);
        QVERIFY_RESULT(page);
        QCOMPARE(page->total, 31);
        QVERIFY(page->items.isEmpty());

        filter = RunFilter();
        filter.containerId = QStringLiteral("b");
        page = m_store->runs(filter);
        QVERIFY_RESULT(page);
        QCOMPARE(page->total, 15);
        for (const RunRecord &record : page->items)
            QCOMPARE(record.containerId, QStringLiteral("b"));

        filter.errorClass = QStringLiteral("timeout");
        page = m_store->runs(filter);
        QVERIFY_RESULT(page);
        // Odd multiples of 3 below 30: 3, 9, 15, 21, 27.
        QCOMPARE(ids(page->items),
                 (QStringList{QStringLiteral("r27"), QStringLiteral("r21"), QStringLiteral("r15"),
                              QStringLiteral("r09"), QStringLiteral("r03")}));

        filter = RunFilter();
        filter.since = 5000; // inclusive: r04 started at 5000
        filter.until = 9000; // exclusive: r08 started at 9000
        page = m_store->runs(filter);
        QVERIFY_RESULT(page);
        QCOMPARE(ids(page->items), (QStringList{QStringLiteral("r07"), QStringLiteral("r06"),
                                                QStringLiteral("r05"), QStringLiteral("r04")}));
        QCOMPARE(page->total, 4);

        filter = RunFilter();
        filter.state = QStringLiteral("running");
        page = m_store->runs(filter);
        QVERIFY_RESULT(page);
        QCOMPARE(ids(page->items), QStringList{QStringLiteral("r30")});

        // Same start time: insertion order breaks the tie, newest first.
        QVERIFY_RESULT(m_store->insertRun(makeRun(QStringLiteral("tie-1"), QStringLiteral("a"), 50000)));
        QVERIFY_RESULT(m_store->insertRun(makeRun(QStringLiteral("tie-2"), QStringLiteral("a"), 50000)));
        filter = RunFilter();
        filter.limit = 2;
        page = m_store->runs(filter);
        QVERIFY_RESULT(page);
        QCOMPARE(ids(page->items), (QStringList{QStringLiteral("tie-2"), QStringLiteral("tie-1")}));
    }

    void idempotencyKeys()
    {
        QVERIFY(seed());
        RunRecord first = makeRun(QStringLiteral("first"), QStringLiteral("a"), 100);
        first.idempotencyKey = QStringLiteral("k");
        QVERIFY_RESULT(m_store->insertRun(first));

        auto found = m_store->runByIdempotencyKey(QStringLiteral("a"), QStringLiteral("k"));
        QVERIFY_RESULT(found);
        QVERIFY(found->has_value());
        QCOMPARE((*found)->id, QStringLiteral("first"));

        auto absent = m_store->runByIdempotencyKey(QStringLiteral("b"), QStringLiteral("k"));
        QVERIFY_RESULT(absent);
        QVERIFY(!absent->has_value());
        auto empty = m_store->runByIdempotencyKey(QStringLiteral("a"), QString());
        QVERIFY_RESULT(empty);
        QVERIFY(!empty->has_value());

        RunRecord duplicate = makeRun(QStringLiteral("second"), QStringLiteral("a"), 200);
        duplicate.idempotencyKey = QStringLiteral("k");
        auto refused = m_store->insertRun(duplicate);
        QVERIFY(!refused);
        QCOMPARE(refused.error().code(), "store.constraint");
        QVERIFY2(Cordon::toQt(refused.error().message()).contains(QStringLiteral("idempotency_key")),
                 refused.error().message().c_str());

        // The same key in another container is another request; runs without a key are unconstrained.
        duplicate.containerId = QStringLiteral("b");
        QVERIFY_RESULT(m_store->insertRun(duplicate));
        QVERIFY_RESULT(m_store->insertRun(makeRun(QStringLiteral("nokey-1"), QStringLiteral("a"), 300)));
        QVERIFY_RESULT(m_store->insertRun(makeRun(QStringLiteral("nokey-2"), QStringLiteral("a"), 300)));
    }

    void markRunningAsInterrupted()
    {
        QVERIFY(seed());
        for (int i = 0; i < 3; ++i)
            QVERIFY_RESULT(
                m_store->insertRun(makeRun(QStringLiteral("live-%1").arg(i), QStringLiteral("a"), 100 + i)));
        QVERIFY_RESULT(
            m_store->insertRun(finished(makeRun(QStringLiteral("done"), QStringLiteral("b"), 50), 60)));

        auto marked = m_store->markRunningAsInterrupted(777);
        QVERIFY_RESULT(marked);
        QCOMPARE(*marked, 3);
        for (int i = 0; i < 3; ++i) {
            auto loaded = m_store->run(QStringLiteral("live-%1").arg(i));
            QVERIFY_RESULT(loaded);
            QCOMPARE(loaded->state, QStringLiteral("interrupted"));
            QCOMPARE(loaded->endedAt, 777);
            QVERIFY(!loaded->message.isEmpty());
        }
        auto done = m_store->run(QStringLiteral("done"));
        QVERIFY_RESULT(done);
        QCOMPARE(done->state, QStringLiteral("finished"));
        QCOMPARE(done->endedAt, 60);

        marked = m_store->markRunningAsInterrupted(888);
        QVERIFY_RESULT(marked);
        QCOMPARE(*marked, 0);
    }

    void filesRoundTrip()
    {
        QVERIFY(seed());
        QVERIFY_RESULT(m_store->insertRun(makeRun(QStringLiteral("r"), QStringLiteral("a"), 10)));
        FileRecord pseudonymized = makeFile(20, QStringLiteral("a"), QStringLiteral("inputs/data.csv"));
        const QJsonObject transform{
            {QStringLiteral("pseudonymized"),
             QJsonObject{{QStringLiteral("columns"), QJsonArray{QStringLiteral("email")}},
                         {QStringLiteral("key_id"), QStringLiteral("pk-0123456789abcdef")}}}};
        pseudonymized.detail = transform;
        auto uploadId = m_store->recordFile(pseudonymized);
        QVERIFY_RESULT(uploadId);
        auto artifactId = m_store->recordFile(
            makeFile(30, QStringLiteral("a"), QStringLiteral("plot \u00e9.png"), QStringLiteral("r")));
        QVERIFY_RESULT(artifactId);
        QVERIFY(*artifactId > *uploadId);
        QVERIFY_RESULT(m_store->recordFile(makeFile(25, QStringLiteral("b"), QStringLiteral("other"))));

        auto all = m_store->files(QStringLiteral("a"));
        QVERIFY_RESULT(all);
        QCOMPARE(all->size(), 2);
        const FileRecord &upload = all->at(0);
        QCOMPARE(upload.id, *uploadId);
        QCOMPARE(upload.containerId, QStringLiteral("a"));
        QVERIFY(upload.runId.isEmpty());
        QCOMPARE(upload.direction, QStringLiteral("upload"));
        QCOMPARE(upload.scope, QStringLiteral("inputs"));
        QCOMPARE(upload.path, QStringLiteral("inputs/data.csv"));
        QCOMPARE(upload.sha256, sha256Hex("inputs/data.csv"));
        QCOMPARE(upload.size, 123);
        QCOMPARE(upload.at, 20);
        QCOMPARE(upload.detail, transform);
        QVERIFY(all->at(1).detail.isEmpty());

        auto ofRun = m_store->files(QStringLiteral("a"), QStringLiteral("r"));
        QVERIFY_RESULT(ofRun);
        QCOMPARE(ofRun->size(), 1);
        QCOMPARE(ofRun->first().path, QStringLiteral("plot \u00e9.png"));
        QCOMPARE(ofRun->first().runId, QStringLiteral("r"));

        FileRecord sideways = makeFile(40, QStringLiteral("a"), QStringLiteral("x"));
        sideways.direction = QStringLiteral("sideways");
        QCOMPARE(m_store->recordFile(sideways).error().code(), "store.constraint");
        QCOMPARE(
            m_store
                ->recordFile(makeFile(40, QStringLiteral("a"), QStringLiteral("x"), QStringLiteral("no-run")))
                .error()
                .code(),
            "store.constraint");
    }

    void eventsFiltersAndCounts()
    {
        QVERIFY(seed());
        QVERIFY_RESULT(m_store->insertRun(makeRun(QStringLiteral("r"), QStringLiteral("a"), 10)));
        for (int i = 0; i < 5; ++i)
            QVERIFY_RESULT(m_store->recordEvent(
                makeEvent(100 + i, QStringLiteral("a"), QStringLiteral("network.denied"))));
        QVERIFY_RESULT(
            m_store->recordEvent(makeEvent(200, QStringLiteral("a"), QStringLiteral("network.allowed"))));
        QVERIFY_RESULT(m_store->recordEvent(
            makeEvent(210, QStringLiteral("a"), QStringLiteral("run.killed"), QStringLiteral("r"))));
        QVERIFY_RESULT(
            m_store->recordEvent(makeEvent(220, QStringLiteral("b"), QStringLiteral("network.denied"))));
        // Wildcard characters in a kind are literal for the prefix match.
        QVERIFY_RESULT(
            m_store->recordEvent(makeEvent(230, QStringLiteral("a"), QStringLiteral("networkXdenied"))));
        QVERIFY_RESULT(m_store->recordEvent(makeEvent(240, QString(), QStringLiteral("daemon.started"))));

        EventFilter filter;
        auto page = m_store->events(filter);
        QVERIFY_RESULT(page);
        QCOMPARE(page->total, 10);
        QCOMPARE(page->items.first().kind, QStringLiteral("daemon.started"));
        QVERIFY(page->items.first().containerId.isEmpty());
        QVERIFY(!Cordon::Api::eventToJson(page->items.first()).contains(QStringLiteral("container")));
        QCOMPARE(page->items.last().at, 100);

        filter.containerId = QStringLiteral("a");
        filter.kind = QStringLiteral("network.denied");
        filter.limit = 2;
        filter.offset = 1;
        page = m_store->events(filter);
        QVERIFY_RESULT(page);
        QCOMPARE(page->total, 5);
        QCOMPARE(page->items.size(), 2);
        QCOMPARE(page->items.at(0).at, 103);
        QCOMPARE(page->items.at(1).at, 102);
        QCOMPARE(page->items.at(0).detail.value(QStringLiteral("host")).toString(),
                 QStringLiteral("example.com"));

        filter = EventFilter();
        filter.runId = QStringLiteral("r");
        page = m_store->events(filter);
        QVERIFY_RESULT(page);
        QCOMPARE(page->total, 1);
        QCOMPARE(page->items.first().kind, QStringLiteral("run.killed"));
        QCOMPARE(Cordon::Api::eventToJson(page->items.first()).value(QStringLiteral("run_id")).toString(),
                 QStringLiteral("r"));

        filter = EventFilter();
        filter.kindPrefix = QStringLiteral("network.");
        filter.since = 104;
        filter.until = 220;
        page = m_store->events(filter);
        QVERIFY_RESULT(page);
        QCOMPARE(page->total, 2); // 104 denied, 200 allowed; 220 is excluded

        auto counts = m_store->eventCounts(QStringLiteral("a"), QStringLiteral("network."));
        QVERIFY_RESULT(counts);
        QCOMPARE(counts->size(), 2);
        QCOMPARE(counts->value(QStringLiteral("network.denied")), 5);
        QCOMPARE(counts->value(QStringLiteral("network.allowed")), 1);

        auto percent = m_store->eventCounts(QString(), QStringLiteral("network%"));
        QVERIFY_RESULT(percent);
        QVERIFY(percent->isEmpty());
        auto everywhere = m_store->eventCounts(QString(), QStringLiteral("network.denied"));
        QVERIFY_RESULT(everywhere);
        QCOMPARE(everywhere->value(QStringLiteral("network.denied")), 6);

        EventRecord orphan = makeEvent(300, QStringLiteral("no-such-container"), QStringLiteral("x"));
        QCOMPARE(m_store->recordEvent(orphan).error().code(), "store.constraint");
    }

    void purgeRemovesExactlyWhatItShould()
    {
        QVERIFY(seed());
        const QByteArray oldPolicy = R"({"name":"old"})";
        const QByteArray unusedPolicy = R"({"name":"unused"})";
        QVERIFY_RESULT(m_store->recordPolicyVersion(sha256Hex(oldPolicy), oldPolicy));
        QVERIFY_RESULT(m_store->recordPolicyVersion(sha256Hex(unusedPolicy), unusedPolicy));

        // "gone": ended at 500, before the cutoff of 1000: it goes with everything of its own, even newer
        // rows.
        ContainerRecord gone = makeContainer(QStringLiteral("gone"), 100, 500);
        gone.policyVersion = sha256Hex(oldPolicy);
        QVERIFY_RESULT(m_store->saveContainer(gone));
        RunRecord goneRun = finished(makeRun(QStringLiteral("gone-run"), QStringLiteral("gone"), 200), 300);
        goneRun.policyVersion = sha256Hex(oldPolicy);
        QVERIFY_RESULT(m_store->insertRun(goneRun));
        QVERIFY_RESULT(
            m_store->recordFile(makeFile(250, QStringLiteral("gone"), QStringLiteral("g"), goneRun.id)));
        QVERIFY_RESULT(m_store->recordEvent(makeEvent(1500, QStringLiteral("gone"), QStringLiteral("late"))));

        // "a" lives on: its old finished run goes (with that run's newer event), its old running run stays.
        QVERIFY_RESULT(
            m_store->insertRun(finished(makeRun(QStringLiteral("old"), QStringLiteral("a"), 100), 900)));
        QVERIFY_RESULT(m_store->recordEvent(
            makeEvent(1200, QStringLiteral("a"), QStringLiteral("x"), QStringLiteral("old"))));
        QVERIFY_RESULT(m_store->recordFile(
            makeFile(1300, QStringLiteral("a"), QStringLiteral("o"), QStringLiteral("old"))));
        QVERIFY_RESULT(m_store->insertRun(makeRun(QStringLiteral("still-running"), QStringLiteral("a"), 50)));
        QVERIFY_RESULT(
            m_store->insertRun(finished(makeRun(QStringLiteral("new"), QStringLiteral("a"), 800), 1100)));
        QVERIFY_RESULT(
            m_store->recordEvent(makeEvent(400, QStringLiteral("a"), QStringLiteral("old-event"))));
        QVERIFY_RESULT(m_store->recordEvent(
            makeEvent(1400, QStringLiteral("a"), QStringLiteral("new-event"), QStringLiteral("new"))));
        QVERIFY_RESULT(m_store->recordFile(makeFile(600, QStringLiteral("a"), QStringLiteral("old-upload"))));
        QVERIFY_RESULT(
            m_store->recordFile(makeFile(1600, QStringLiteral("a"), QStringLiteral("new-upload"))));
        // "b" ended after the cutoff: kept.
        QVERIFY_RESULT(m_store->saveContainer(makeContainer(QStringLiteral("late-end"), 100, 2000)));

        // Policy versions were recorded "now", long after 1000: this purge keeps every one of them.
        auto purged = m_store->purgeOlderThan(1000);
        QVERIFY_RESULT(purged);
        QCOMPARE(purged->containers, 1);     // gone
        QCOMPARE(purged->runs, 2);           // gone-run, old
        QCOMPARE(purged->events, 3);         // late (of gone), x (of old), old-event
        QCOMPARE(purged->files, 3);          // g (of gone-run), o (of old), old-upload
        QCOMPARE(purged->policyVersions, 0); // recorded after 1000 (they were recorded just now)

        QCOMPARE(m_store->container(QStringLiteral("gone")).error().code(), "store.not_found");
        QVERIFY_RESULT(m_store->container(QStringLiteral("a")));
        QVERIFY_RESULT(m_store->container(QStringLiteral("late-end")));
        auto remaining = m_store->runs(RunFilter());
        QVERIFY_RESULT(remaining);
        QCOMPARE(ids(remaining->items),
                 (QStringList{QStringLiteral("new"), QStringLiteral("still-running")}));
        auto events = m_store->events(EventFilter());
        QVERIFY_RESULT(events);
        QCOMPARE(events->total, 1);
        QCOMPARE(events->items.first().kind, QStringLiteral("new-event"));
        auto files = m_store->files(QStringLiteral("a"));
        QVERIFY_RESULT(files);
        QCOMPARE(files->size(), 1);
        QCOMPARE(files->first().path, QStringLiteral("new-upload"));

        // A later cutoff: the unreferenced policies now count as old; the one "a" uses stays.
        const qint64 future = QDateTime::currentMSecsSinceEpoch() + 1000;
        purged = m_store->purgeOlderThan(future);
        QVERIFY_RESULT(purged);
        QCOMPARE(purged->policyVersions, 2); // old (its container is gone) and unused
        QCOMPARE(purged->containers, 1);     // late-end
        QCOMPARE(purged->runs, 1);           // new; still-running is never purged
        QVERIFY_RESULT(m_store->policyJson(PolicySha));
        QCOMPARE(m_store->policyJson(sha256Hex(oldPolicy)).error().code(), "store.not_found");
        QVERIFY_RESULT(m_store->run(QStringLiteral("still-running")));

        auto check =
            m_store->database().prepare("PRAGMA foreign_key_check", QStringLiteral("foreign key check"));
        QVERIFY_RESULT(check);
        auto violation = check->step();
        QVERIFY_RESULT(violation);
        QVERIFY2(!*violation, qPrintable(check->columnText(0)));
        auto ok = m_store->integrityCheck();
        QVERIFY_RESULT(ok);
        QVERIFY(*ok);
    }
};

QTEST_GUILESS_MAIN(TestStore)
#include "tst_store.moc"
