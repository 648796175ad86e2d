// SPDX-License-Identifier: MIT
#include "store/historystore.h"
#include "store/migrations.h"
#include "store/pagequery.h"
#include "store/rowcodec.h"
#include "store/transaction.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QDir>
#include <QFileInfo>

#include <cerrno>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace Cordon::Store {

namespace {

constexpr qint64 BusyTimeoutMs = 5000;

// Creates the missing directories above the database with mode 0700; existing ones are left as they are
// (~/.local/share belongs to the user's own choices). The history holds code and output: private.
Result<> ensurePrivateParent(const QString &filePath)
{
    QStringList missing;
    QString dir = QFileInfo(filePath).absolutePath();
    while (!QFileInfo::exists(dir)) {
        missing.prepend(dir);
        const QString parent = QFileInfo(dir).absolutePath();
        if (parent == dir)
            break;
        dir = parent;
    }
    for (const QString &path : std::as_const(missing)) {
        if (::mkdir(QFile::encodeName(path).constData(), 0700) != 0 && errno != EEXIST)
            return failErrno(QStringLiteral("store.open"), QStringLiteral("create directory `%1`").arg(path),
                             errno);
    }
    return {};
}

// SQLite would create the file 0644 (less the umask); creating it first, 0600 and without following a
// symlink, keeps it private. The -wal and -shm files inherit the database file's mode.
Result<> createPrivateFile(const QString &path)
{
    const int fd =
        ::open(QFile::encodeName(path).constData(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0)
        return failErrno(QStringLiteral("store.open"), QStringLiteral("open history database `%1`").arg(path),
                         errno);
    ::close(fd);
    return {};
}

Result<> configureConnection(const Database &db)
{
    // A second process (cordon doctor, a test) may hold the write lock briefly; waiting beats failing.
    CORDON_TRY(db.exec("PRAGMA busy_timeout = " + QByteArray::number(BusyTimeoutMs),
                       QStringLiteral("set busy_timeout")));
    // Off by default in SQLite, per connection, and a no-op inside a transaction: set it first.
    CORDON_TRY(db.exec("PRAGMA foreign_keys = ON", QStringLiteral("enable foreign keys")));
    auto foreignKeys = db.queryInt("PRAGMA foreign_keys", QStringLiteral("check foreign keys"));
    if (!foreignKeys)
        return fail(foreignKeys.error());
    if (*foreignKeys != 1)
        return fail(QStringLiteral("store.open"), QStringLiteral("this SQLite cannot enforce foreign keys"));
    return {};
}

Result<> enableWal(const Database &db)
{
    // WAL: readers never block the writer, and a commit is one append to the log, so a kill -9 at any
    // moment leaves either the whole transaction or none of it.
    auto mode = db.queryText("PRAGMA journal_mode = WAL", QStringLiteral("switch to WAL mode"));
    if (!mode)
        return fail(mode.error());
    if (mode->compare(QLatin1String("wal"), Qt::CaseInsensitive) != 0)
        return fail(QStringLiteral("store.open"),
                    QStringLiteral("switch to WAL mode: SQLite stayed in `%1` mode (is the file on a network "
                                   "file system?)")
                        .arg(*mode));
    // NORMAL in WAL mode syncs at checkpoints, not at every commit. A process crash (kill -9, OOM) loses
    // nothing that was committed, because the log is in the kernel's page cache; only a power loss or
    // kernel crash can lose the last few transactions, and even then the database stays consistent. FULL
    // would add an fsync to every recorded event, which the history is not worth.
    CORDON_TRY(db.exec("PRAGMA synchronous = NORMAL", QStringLiteral("set synchronous")));
    // Large outputs can grow the log far past its usual size; truncate it back after a checkpoint.
    CORDON_TRY(db.exec("PRAGMA journal_size_limit = 67108864", QStringLiteral("set journal_size_limit")));
    return {};
}

} // namespace

Result<std::unique_ptr<HistoryStore>> HistoryStore::open(const QString &path)
{
    CORDON_TRY(ensurePrivateParent(path));
    CORDON_TRY(createPrivateFile(path));
    auto db = Database::open(path);
    if (!db)
        return fail(db.error());
    CORDON_TRY(configureConnection(*db));

    // Before anything is written to the file: the switch to WAL is a write. This first read is also where
    // a file that is not a database is noticed (store.corrupt).
    CORDON_TRY(checkSchemaVersion(*db));

    CORDON_TRY(enableWal(*db));
    CORDON_TRY(migrate(*db));
    return std::unique_ptr<HistoryStore>(new HistoryStore(std::move(*db)));
}

Result<> HistoryStore::recordPolicyVersion(const QString &sha256, const QByteArray &canonicalJson)
{
    const QString actual =
        QString::fromLatin1(QCryptographicHash::hash(canonicalJson, QCryptographicHash::Sha256).toHex());
    if (sha256 != actual)
        return fail(
            QStringLiteral("store.constraint"),
            QStringLiteral("record policy version %1: the policy JSON hashes to %2").arg(sha256, actual));
    auto stmt =
        m_db.prepare("INSERT INTO policy_versions (sha256, canonical_json, recorded_at) VALUES (?1, ?2, ?3) "
                     "ON CONFLICT (sha256) DO NOTHING",
                     QStringLiteral("record policy version %1").arg(sha256));
    if (!stmt)
        return fail(stmt.error());
    stmt->bind(1, sha256).bind(2, canonicalJson).bind(3, QDateTime::currentMSecsSinceEpoch());
    return stmt->execute();
}

Result<QByteArray> HistoryStore::policyJson(const QString &sha256) const
{
    const QString purpose = QStringLiteral("read policy version %1").arg(sha256);
    auto stmt = m_db.prepare("SELECT canonical_json FROM policy_versions WHERE sha256 = ?1", purpose);
    if (!stmt)
        return fail(stmt.error());
    stmt->bind(1, sha256);
    auto row = stmt->step();
    if (!row)
        return fail(row.error());
    if (!*row)
        return fail(QStringLiteral("store.not_found"), purpose + QStringLiteral(": no such policy version"));
    return stmt->columnBlob(0);
}

Result<Transaction> HistoryStore::beginWrites(const QString &purpose)
{
    return Transaction::begin(m_db, Transaction::Mode::Write, purpose);
}

Result<> HistoryStore::saveContainer(const ContainerRecord &record)
{
    // An upsert, never INSERT OR REPLACE: REPLACE deletes the old row first, and ON DELETE CASCADE would
    // take the container's runs, files and events with it.
    auto stmt = m_db.prepare(
        "INSERT INTO containers (id, name, state, policy_version, memory_limit, time_scale, created_at, "
        "last_active_at, expires_at, ended_at, demo, origin) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, "
        "?11, ?12) "
        "ON CONFLICT (id) DO UPDATE SET name = excluded.name, state = excluded.state, "
        "policy_version = excluded.policy_version, memory_limit = excluded.memory_limit, "
        "time_scale = excluded.time_scale, created_at = excluded.created_at, "
        "last_active_at = excluded.last_active_at, expires_at = excluded.expires_at, ended_at = "
        "excluded.ended_at, demo = excluded.demo, origin = excluded.origin",
        QStringLiteral("save container %1").arg(record.id));
    if (!stmt)
        return fail(stmt.error());
    stmt->bind(1, record.id)
        .bind(2, record.name)
        .bind(3, record.state)
        .bindOptional(4, record.policyVersion)
        .bind(5, record.memoryLimit)
        .bind(6, record.timeScale)
        .bind(7, record.createdAt)
        .bind(8, record.lastActiveAt)
        .bind(9, record.expiresAt)
        .bind(10, record.endedAt)
        .bind(11, record.demo)
        .bind(12, record.origin);
    return stmt->execute();
}

Result<ContainerRecord> HistoryStore::container(const QString &id) const
{
    return readById<ContainerRecord>(m_db, "containers", QByteArray(ContainerColumns), id,
                                     QStringLiteral("read container %1").arg(id), QStringLiteral("container"),
                                     containerFromRow);
}

Result<QList<ContainerRecord>> HistoryStore::containers(bool includeEnded) const
{
    const QByteArray sql = "SELECT " + QByteArray(ContainerColumns) + " FROM containers" +
                           (includeEnded ? QByteArray() : QByteArray(" WHERE ended_at = 0")) +
                           " ORDER BY created_at DESC, rowid DESC";
    auto stmt = m_db.prepare(sql, QStringLiteral("list containers"));
    if (!stmt)
        return fail(stmt.error());
    QList<ContainerRecord> result;
    for (;;) {
        auto row = stmt->step();
        if (!row)
            return fail(row.error());
        if (!*row)
            return result;
        result.append(containerFromRow(*stmt));
    }
}

Result<PurgeResult> HistoryStore::purgeOlderThan(qint64 cutoffMs)
{
    const QString purpose = QStringLiteral("purge history older than %1").arg(cutoffMs);
    auto transaction = Transaction::begin(m_db, Transaction::Mode::Write, purpose);
    if (!transaction)
        return fail(transaction.error());

    // Children first, each with an explicit condition that includes what the cascades would remove, so the
    // counts are exact (sqlite3_changes() does not count cascaded rows) and the cascades find nothing left.
    constexpr char EndedContainers[] = "(SELECT id FROM containers WHERE ended_at > 0 AND ended_at < ?1)";
    constexpr char OldRuns[] =
        "(SELECT id FROM runs WHERE (state <> 'running' AND ended_at < ?1) OR container_id "
        "IN (SELECT id FROM containers WHERE ended_at > 0 AND ended_at < ?1))";
    const QByteArray deleteEvents = "DELETE FROM events WHERE at < ?1 OR run_id IN " + QByteArray(OldRuns) +
                                    " OR container_id IN " + QByteArray(EndedContainers);
    const QByteArray deleteFiles = "DELETE FROM files WHERE at < ?1 OR run_id IN " + QByteArray(OldRuns) +
                                   " OR container_id IN " + QByteArray(EndedContainers);
    const QByteArray deleteRuns = "DELETE FROM runs WHERE id IN " + QByteArray(OldRuns);
    const QByteArray deleteContainers = "DELETE FROM containers WHERE id IN " + QByteArray(EndedContainers);
    // Only policy versions recorded before the cutoff: one recorded a moment ago is about to be referenced by
    // the container being created.
    const QByteArray deletePolicies =
        "DELETE FROM policy_versions WHERE recorded_at < ?1 "
        "AND NOT EXISTS (SELECT 1 FROM containers WHERE containers.policy_version = policy_versions.sha256) "
        "AND NOT EXISTS (SELECT 1 FROM runs WHERE runs.policy_version = policy_versions.sha256)";

    PurgeResult result;
    const std::pair<const QByteArray *, qint64 *> steps[] = {{&deleteEvents, &result.events},
                                                             {&deleteFiles, &result.files},
                                                             {&deleteRuns, &result.runs},
                                                             {&deleteContainers, &result.containers},
                                                             {&deletePolicies, &result.policyVersions}};
    for (const auto &[sql, count] : steps) {
        auto stmt = m_db.prepare(*sql, purpose);
        if (!stmt)
            return fail(stmt.error());
        stmt->bind(1, cutoffMs);
        CORDON_TRY(stmt->execute());
        *count = m_db.changes();
    }
    CORDON_TRY(transaction->commit());
    return result;
}

Result<bool> HistoryStore::integrityCheck() const
{
    auto stmt = m_db.prepare("PRAGMA integrity_check", QStringLiteral("check the history's integrity"));
    if (!stmt)
        return fail(stmt.error());
    auto row = stmt->step();
    if (!row)
        return fail(row.error());
    // One row "ok" when sound; otherwise one row per problem found.
    return *row && stmt->columnText(0) == QLatin1String("ok");
}

int HistoryStore::schemaVersion() const
{
    auto version = m_db.queryInt("PRAGMA user_version", QStringLiteral("read the history schema version"));
    return version ? int(*version) : -1;
}

} // namespace Cordon::Store
