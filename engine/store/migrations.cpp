// SPDX-License-Identifier: MIT
#include "store/migrations.h"
#include "store/database.h"
#include "store/transaction.h"

namespace Cordon::Store {

namespace {

// Version 1. Conventions:
// - times are integer milliseconds since the Unix epoch, 0 for "not yet";
// - optional references are NULL (never ''), so foreign keys can check them;
// - output and code are BLOBs, stored exactly as given (NUL bytes and invalid UTF-8 included);
// - lists and details are compact JSON text;
// - every foreign key column has an index: SQLite scans the child table on each parent delete otherwise;
// - files and events use AUTOINCREMENT: their ids are shown to clients and must not be handed out again
//   after a purge removed the newest rows.
constexpr char SchemaV1[] = R"sql(
CREATE TABLE policy_versions (
    sha256         TEXT PRIMARY KEY NOT NULL,
    canonical_json BLOB NOT NULL,
    recorded_at    INTEGER NOT NULL
);

CREATE TABLE containers (
    id             TEXT PRIMARY KEY NOT NULL,
    name           TEXT NOT NULL DEFAULT '',
    state          TEXT NOT NULL,
    policy_version TEXT REFERENCES policy_versions(sha256),
    memory_limit   INTEGER NOT NULL DEFAULT 0,
    time_scale     REAL NOT NULL DEFAULT 1,
    created_at     INTEGER NOT NULL,
    last_active_at INTEGER NOT NULL DEFAULT 0,
    expires_at     INTEGER NOT NULL DEFAULT 0,
    ended_at       INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX containers_by_ended ON containers(ended_at);
CREATE INDEX containers_by_policy ON containers(policy_version);

CREATE TABLE runs (
    id                TEXT PRIMARY KEY NOT NULL,
    container_id      TEXT NOT NULL REFERENCES containers(id) ON DELETE CASCADE,
    state             TEXT NOT NULL CHECK (state IN ('running', 'finished', 'interrupted')),
    policy_version    TEXT REFERENCES policy_versions(sha256),
    language          TEXT NOT NULL DEFAULT '',
    command           TEXT NOT NULL DEFAULT '[]',
    code_sha256       TEXT NOT NULL DEFAULT '',
    code              BLOB NOT NULL DEFAULT x'',
    inputs            TEXT NOT NULL DEFAULT '[]',
    idempotency_key   TEXT NOT NULL DEFAULT '',
    started_at        INTEGER NOT NULL,
    ended_at          INTEGER NOT NULL DEFAULT 0,
    error_class       TEXT NOT NULL DEFAULT '',
    exit_code         INTEGER NOT NULL DEFAULT -1,
    signal            INTEGER NOT NULL DEFAULT 0,
    wall_ms           INTEGER NOT NULL DEFAULT 0,
    cpu_ms            INTEGER NOT NULL DEFAULT 0,
    peak_memory_bytes INTEGER NOT NULL DEFAULT 0,
    stdout            BLOB NOT NULL DEFAULT x'',
    stderr            BLOB NOT NULL DEFAULT x'',
    stdout_truncated  INTEGER NOT NULL DEFAULT 0 CHECK (stdout_truncated IN (0, 1)),
    stderr_truncated  INTEGER NOT NULL DEFAULT 0 CHECK (stderr_truncated IN (0, 1)),
    message           TEXT NOT NULL DEFAULT '',
    artifacts         TEXT NOT NULL DEFAULT '[]'
);
CREATE INDEX runs_by_started ON runs(started_at);
CREATE INDEX runs_by_container ON runs(container_id, started_at);
CREATE INDEX runs_by_error_class ON runs(error_class, started_at);
CREATE INDEX runs_by_state ON runs(state);
CREATE INDEX runs_by_ended ON runs(ended_at);
CREATE INDEX runs_by_policy ON runs(policy_version);
-- A repeated run.exec with the same key returns the earlier run; the index makes a duplicate impossible even
-- if two requests race. Runs without a key are not constrained.
CREATE UNIQUE INDEX runs_by_idempotency_key ON runs(container_id, idempotency_key) WHERE idempotency_key <> '';

CREATE TABLE files (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    container_id TEXT NOT NULL REFERENCES containers(id) ON DELETE CASCADE,
    run_id       TEXT REFERENCES runs(id) ON DELETE CASCADE,
    direction    TEXT NOT NULL CHECK (direction IN ('upload', 'download', 'artifact', 'delete')),
    scope        TEXT NOT NULL DEFAULT '',
    path         TEXT NOT NULL,
    sha256       TEXT NOT NULL DEFAULT '',
    size         INTEGER NOT NULL DEFAULT 0,
    at           INTEGER NOT NULL
);
CREATE INDEX files_by_container ON files(container_id, at);
CREATE INDEX files_by_run ON files(run_id);
CREATE INDEX files_by_time ON files(at);

CREATE TABLE events (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    at           INTEGER NOT NULL,
    container_id TEXT REFERENCES containers(id) ON DELETE CASCADE,
    run_id       TEXT REFERENCES runs(id) ON DELETE CASCADE,
    kind         TEXT NOT NULL,
    detail       TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX events_by_time ON events(at);
CREATE INDEX events_by_container ON events(container_id, kind);
CREATE INDEX events_by_run ON events(run_id);
CREATE INDEX events_by_kind ON events(kind, at);
)sql";

// How often a run met its container's process limit: a fork bomb that was contained says so afterwards too.
constexpr char SchemaV2[] = R"sql(
ALTER TABLE runs ADD COLUMN pids_limit_hits INTEGER NOT NULL DEFAULT 0;
)sql";

// Which secrets each run received: names and keyed fingerprints, never values (docs/secrets.md).
constexpr char SchemaV3[] = R"sql(
ALTER TABLE runs ADD COLUMN secrets TEXT NOT NULL DEFAULT '[]';
)sql";

// What was done to a file on its way (docs/pseudonymize.md): an upload's pseudonymised columns, the key's id
// and the sha256 before; JSON like events' details.
constexpr char SchemaV4[] = R"sql(
ALTER TABLE files ADD COLUMN detail TEXT NOT NULL DEFAULT '{}';
)sql";

// The Go/No-Go audit's reports (docs/audit.md): the document as stored (what a signature covers) with what a
// list shows. Not tied to containers: a report outlives the containers it created, and is evidence of its own.
constexpr char SchemaV5[] = R"sql(
CREATE TABLE audits (
    id             TEXT PRIMARY KEY,
    created_at     INTEGER NOT NULL,
    policy_version TEXT NOT NULL,
    verdict        TEXT NOT NULL,
    rows           INTEGER NOT NULL,
    go_rows        INTEGER NOT NULL,
    key_id         TEXT NOT NULL DEFAULT '',
    report         TEXT NOT NULL
);
CREATE INDEX audits_by_time ON audits(created_at);
)sql";

// Which containers follow the demo clock (a trainer's fast idle clock): only those made or marked as demos,
// so that switching the clock on cannot expire a user's other containers. Those already on a faster clock
// were put there as demos.
constexpr char SchemaV6[] = R"sql(
ALTER TABLE containers ADD COLUMN demo INTEGER NOT NULL DEFAULT 0;
UPDATE containers SET demo = 1 WHERE time_scale > 1;
)sql";

// Where a container came from: empty for the user's own, `audit:<id>` for one a Go/No-Go audit made
// (docs/audit.md). History lists leave those out by default, so that an audit's dozens of runs and events do
// not bury the user's own; they stay attributable to the audit.
constexpr char SchemaV7[] = R"sql(
ALTER TABLE containers ADD COLUMN origin TEXT NOT NULL DEFAULT '';
CREATE INDEX containers_by_origin ON containers(origin);
)sql";

constexpr Migration Migrations[] = {
    {1, "create the history tables", SchemaV1},
    {2, "count process-limit hits per run", SchemaV2},
    {3, "record the secrets a run received", SchemaV3},
    {4, "record how a file was transformed", SchemaV4},
    {5, "keep the Go/No-Go audits' reports", SchemaV5},
    {6, "mark the demo clock's containers", SchemaV6},
    {7, "record where each container came from", SchemaV7},
};

} // namespace

std::span<const Migration> migrations()
{
    return Migrations;
}

int latestSchemaVersion()
{
    return Migrations[std::size(Migrations) - 1].version;
}

Result<> checkSchemaVersion(const Database &db)
{
    auto current = db.queryInt("PRAGMA user_version", QStringLiteral("read the history schema version"));
    if (!current)
        return fail(current.error());
    if (*current > latestSchemaVersion())
        return fail(
            QStringLiteral("store.migration"),
            QStringLiteral("the history database has schema version %1, newer than the %2 this version of "
                           "Cordon understands; it was left unchanged (use a newer Cordon, or move the "
                           "file aside to start a new history)")
                .arg(*current)
                .arg(latestSchemaVersion()));
    return {};
}

Result<int> migrate(const Database &db)
{
    const QString readPurpose = QStringLiteral("read the history schema version");
    CORDON_TRY(checkSchemaVersion(db));
    auto current = db.queryInt("PRAGMA user_version", readPurpose);
    if (!current)
        return fail(current.error());
    for (const Migration &migration : Migrations) {
        // Applied ones are skipped without taking the write lock: the daemon and the CLI open the history
        // often.
        if (*current >= migration.version)
            continue;
        const QString purpose = QStringLiteral("migrate the history to version %1 (%2)")
                                    .arg(migration.version)
                                    .arg(QString::fromUtf8(migration.purpose));
        // The version is read again inside the write transaction: another process opening the same file
        // may have migrated it between our first read and our lock.
        auto transaction = Transaction::begin(db, Transaction::Mode::Write, purpose);
        if (!transaction)
            return fail(transaction.error());
        auto version = db.queryInt("PRAGMA user_version", readPurpose);
        if (!version)
            return fail(version.error());
        if (*version >= migration.version)
            continue;
        // user_version lives in the database header, which is written by the same transaction: the schema
        // change and the version number commit together or not at all.
        const QByteArray setVersion = "PRAGMA user_version = " + QByteArray::number(migration.version);
        auto applied = db.exec(migration.sql, purpose);
        if (applied)
            applied = db.exec(setVersion, purpose);
        if (!applied) {
            // A busy or corrupt database keeps its own code (the cure is elsewhere); anything else, a full
            // disk as much as a statement the schema refuses, means this migration did not happen.
            const Error &error = applied.error();
            if (error.code() == "store.busy" || error.code() == "store.corrupt")
                return fail(error);
            return fail(
                makeError(QStringLiteral("store.migration"), toQt(error.message()), error.sysErrno()));
        }
        CORDON_TRY(transaction->commit());
    }
    return db.queryInt("PRAGMA user_version", readPurpose).map([](qint64 v) { return int(v); });
}

} // namespace Cordon::Store
