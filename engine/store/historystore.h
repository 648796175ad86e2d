// SPDX-License-Identifier: MIT
// The history database (docs/history.md): containers, the policy versions they ran under, runs with their
// code, inputs, outcome and output, file transfers and events. One SQLite file in WAL mode with foreign keys,
// migrated by PRAGMA user_version at open. Survives kill -9 at any point: a run that was in flight is marked
// interrupted at the next start-up.
//
// Used from one thread (the daemon's event loop). Every method is one transaction.
#pragma once

#include "core/result.h"
#include "store/database.h"
#include "store/historyrecords.h"
#include "store/transaction.h"

#include <QHash>

#include <memory>
#include <optional>

namespace Cordon::Store {

class HistoryStore final
{
public:
    // Creates the file (0600) and its missing parent directories (0700), sets the connection up and
    // migrates. Errors: store.open (cannot create or open), store.corrupt (not a database, or damaged),
    // store.migration (written by a newer Cordon, or a migration failed), store.busy.
    static Result<std::unique_ptr<HistoryStore>> open(const QString &path);

    ~HistoryStore() = default;
    Q_DISABLE_COPY_MOVE(HistoryStore)

    // Stores the canonical policy JSON under its sha256 (lower-case hex). Idempotent. A hash that does not
    // match the bytes is refused (store.constraint): runs are attributed by it.
    Result<> recordPolicyVersion(const QString &sha256, const QByteArray &canonicalJson);
    Result<QByteArray> policyJson(const QString &sha256) const; // store.not_found when absent

    // Several writes made one: they reach the file together or not at all, and one commit costs a third of
    // three (each commit locks, appends to the write-ahead log and unlocks). Holds the write lock until
    // committed or destroyed, so only for writes that follow each other at once; the writes inside may not
    // begin a transaction of their own (purgeOlderThan).
    Result<Transaction> beginWrites(const QString &purpose);

    // Insert or update by id. Its policy version, when set, must have been recorded first.
    Result<> saveContainer(const ContainerRecord &record);
    Result<ContainerRecord> container(const QString &id) const; // store.not_found when absent
    // Newest first; without includeEnded only containers whose endedAt is 0.
    Result<QList<ContainerRecord>> containers(bool includeEnded) const;

    // Its container (and policy version, when set) must exist. An empty state is stored as running.
    // A second run with the same non-empty idempotency key in one container is store.constraint.
    Result<> insertRun(const RunRecord &run);
    // Stores the outcome fields, endedAt and the state (finished unless run.state says interrupted) of a run
    // that is still running: store.not_found for an unknown id, store.constraint when it already ended.
    Result<> finishRun(const RunRecord &run);
    Result<RunRecord> run(const QString &id) const; // store.not_found when absent
    Result<std::optional<RunRecord>> runByIdempotencyKey(const QString &containerId,
                                                         const QString &key) const;
    // Newest first (started_at, then insertion order). Without withOutput, stdout, stderr and code are empty.
    Result<Page<RunRecord>> runs(const RunFilter &filter, bool withOutput = false) const;
    // At daemon start-up: every run still 'running' was cut off by a crash or kill; it becomes 'interrupted'
    // with endedAt = now. Returns how many.
    Result<int> markRunningAsInterrupted(qint64 now);

    // Returns the new row id.
    Result<qint64> recordFile(const FileRecord &file);
    // Oldest first; with runId only that run's files.
    Result<QList<FileRecord>> files(const QString &containerId, const QString &runId = {}) const;

    Result<qint64> recordEvent(const EventRecord &event);

    // Audits (historyaudits.cpp): saved again whole when signed; listed newest first without the document.
    Result<> saveAudit(const AuditRecord &audit);
    Result<AuditRecord> audit(const QString &id) const; // store.not_found when absent
    Result<Page<AuditRecord>> audits(int limit, int offset) const;
    Result<Page<EventRecord>> events(const EventFilter &filter) const; // newest first
    // Number of events per kind whose kind starts with kindPrefix, for one container (all when empty):
    // "network.denied: 5". A row whose detail has an integer `count` counts that many (the network ledger
    // writes one row for many decisions).
    // A container's network decisions grouped by kind, host, unparsed target and suppression, each with its
    // exact count (row weights summed), latest time and latest reason.
    Result<QList<DecisionGroup>> networkDecisions(const QString &containerId) const;
    // Per secret and host, the requests that carried its value or were refused for its placeholder (row
    // weights summed); by secret, then host, sent before refused.
    Result<QList<SecretDelivery>> secretDeliveries(const QString &containerId) const;
    Result<QHash<QString, qint64>> eventCounts(const QString &containerId, const QString &kindPrefix,
                                               const QString &runId = {}) const;

    // Retention, in one transaction: runs that ended before the cutoff (never running ones), events and
    // files from before it, containers that ended before it with everything that refers to them, and policy
    // versions recorded before it that nothing refers to any more.
    Result<PurgeResult> purgeOlderThan(qint64 cutoffMs);

    Result<bool> integrityCheck() const; // PRAGMA integrity_check == "ok"
    int schemaVersion() const;           // PRAGMA user_version, -1 if it cannot be read

    // The connection, for diagnostics (cordon doctor) and tests that query pragmas.
    const Database &database() const { return m_db; }

private:
    explicit HistoryStore(Database db) : m_db(std::move(db)) {}

    Database m_db;
};

} // namespace Cordon::Store
