// SPDX-License-Identifier: MIT
// The rows of the history as values: what a container, a run, a file transfer and an event looked like, and
// their protocol form (docs/protocol.md). Times are milliseconds since the Unix epoch, 0 for "not yet".
#pragma once

#include <QByteArray>
#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace Cordon::Store {

struct ContainerRecord
{
    QString id;
    QString name;
    QString
        state; // running, stopped, expired, deleted; one-shot: a `cordon run` whose network the daemon served
    QString policyVersion;
    qint64 memoryLimit = 0;
    double timeScale = 1;
    bool demo = false; // follows the demo clock (daemon.set_time_scale); every other container keeps its time
    qint64 createdAt = 0;
    qint64 lastActiveAt = 0;
    qint64 expiresAt = 0;
    qint64 endedAt = 0; // when it expired or was deleted; retention counts from here
    // Who made it: empty for the user's own, `audit:<id>` for a container of a Go/No-Go audit.
    QString origin;
};

struct RunRecord
{
    QString id;
    QString containerId;
    QString state; // running, finished, interrupted
    QString policyVersion;
    QString language;
    QStringList command;
    QString codeSha256;
    QString code;
    QJsonArray inputs; // [{path, sha256, size}]
    QString idempotencyKey;
    qint64 startedAt = 0;
    qint64 endedAt = 0;
    QString errorClass;
    int exitCode = -1;
    int signal = 0;
    qint64 wallMs = 0;
    qint64 cpuMs = 0;
    qint64 peakMemoryBytes = 0;
    qint64 pidsLimitHits = 0; // forks the container's process limit refused while the run ran
    QByteArray stdoutData;    // as captured, already capped by the caller
    QByteArray stderrData;
    bool stdoutTruncated = false;
    bool stderrTruncated = false;
    QString message;
    QJsonArray artifacts; // [{path, size, sha256}]
    QJsonArray secrets;   // [{name, env, fingerprint}]: what the run received, never a value
    // Read with the run, never written by insertRun(): the beginning of the code (RunCodeHeadBytes, also in
    // lists, where `code` is empty), and its container's name and origin.
    QString codeHead;
    QString containerName;
    QString containerOrigin;
};

struct FileRecord
{
    qint64 id = 0;
    QString containerId;
    QString runId;     // empty when no run was involved (an upload)
    QString direction; // upload, download, artifact, delete
    QString scope;     // inputs, outputs, workspace
    QString path;
    QString sha256;
    qint64 size = 0;
    qint64 at = 0;
    // What was done to it on its way: {"pseudonymized": {...}} for a pseudonymised upload (docs/history.md).
    QJsonObject detail;
};

struct EventRecord
{
    qint64 id = 0;
    qint64 at = 0;
    QString containerId; // empty for daemon-wide events
    QString runId;
    QString kind; // dotted: network.denied, run.killed, container.expired
    QJsonObject detail;
    QString containerName; // read with the event from its container's row; not written by recordEvent()
};

// HistoryStore::networkDecisions(): one group of a container's network decisions.
struct DecisionGroup
{
    QString kind;   // network.allowed, network.denied, network.error
    QString host;   // empty for requests that could not be parsed, and for suppressed rows
    QString target; // with an empty host: the request line as recorded
    bool suppressed = false;
    qint64 count = 0;
    qint64 lastAt = 0;
    QString lastReason;
};

// Where a container's domain secrets went, from its network decisions: a secret and a host, with how many
// requests carried the value there (`secrets_sent`) or were refused for carrying its placeholder
// (`secret_refused`).
struct SecretDelivery
{
    QString secret;
    QString host;
    bool refused = false;
    qint64 count = 0;
    qint64 lastAt = 0;
};

// Whose rows a list holds, by the origin of their container (ContainerRecord::origin): every row (unset),
// only the user's own (an empty string: daemon-wide events too), or only those of one origin ("audit:<id>").
using OriginFilter = std::optional<QString>;

// Empty strings and zero times do not filter. since is inclusive, until exclusive; both compare started_at.
// limit < 0 means no limit; limit 0 returns only the total.
struct RunFilter
{
    QString containerId;
    QString errorClass;
    QString state;
    OriginFilter origin;
    // Runs whose code, command, id or container name holds this text (ASCII letters in any case).
    QString text;
    qint64 since = 0;
    qint64 until = 0;
    int limit = 50;
    int offset = 0;
};

// As RunFilter, over the event time. kind matches exactly, kindPrefix by prefix ("network.").
struct EventFilter
{
    QString containerId;
    QString runId;
    OriginFilter origin;
    QString kind;
    QString kindPrefix;
    qint64 since = 0;
    qint64 until = 0;
    int limit = 100;
    int offset = 0;
};

// A Go/No-Go audit's report (docs/audit.md): `report` is the JSON document as stored, signature included.
struct AuditRecord
{
    QString id;
    qint64 createdAt = 0; // ms since the epoch
    QString policyVersion;
    QString verdict; // go, no_go
    int rows = 0;
    int goRows = 0;
    QString keyId; // the signing key's id; empty while unsigned
    QByteArray report;
    int rowsApplied = 0; // read from the report: rows whose verdict is not not_applicable
};

template<typename T> struct Page
{
    QList<T> items;
    qint64 total = 0; // rows matching the filter, ignoring limit and offset
};

struct PurgeResult
{
    qint64 runs = 0;
    qint64 events = 0;
    qint64 files = 0;
    qint64 containers = 0;
    qint64 policyVersions = 0;
};

} // namespace Cordon::Store
