// SPDX-License-Identifier: MIT
// The container policy: what a container may use and reach. Read strictly from JSON (unknown keys, wrong
// types, duplicate keys are errors, never ignored), written back in one canonical form, identified by its
// sha256. Every field, with its default and bounds, is documented in docs/policy.md.
#pragma once

#include "core/plainbridge.h"
#include "core/result.h"
#include "policy/domainrule.h"
#include "policy/networkpolicy.h"
#include "sandbox/memorylimit.h"
#include "sandbox/policydefaults.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QJsonObject>
#include <QList>
#include <QMap>
#include <QString>

namespace Cordon::Policy {

constexpr qsizetype MaxNameLength = 64;
constexpr qsizetype MaxMounts = 32;
// PATH_MAX, including the terminating NUL that the kernel counts.
constexpr qsizetype MaxMountPathLength = 4095;
constexpr qsizetype MaxEnvEntries = 128;
constexpr qsizetype MaxEnvNameLength = 256;
constexpr qsizetype MaxEnvValueBytes = 32 * 1024;

struct Limits
{
    int runTimeoutS = Defaults::RunTimeoutS; // run_timeout_s: 1..86400, wall-clock seconds per run
    int pids = Defaults::Pids;   // pids: 1..65536, processes and threads in the container (pids.max)
    int tmpMb = Defaults::TmpMb; // tmp_mb: 1..65536, size of the /tmp tmpfs
    int workspaceMb = Defaults::WorkspaceMb; // workspace_mb: 1..1048576, size of /mnt/data
    int outputMb = Defaults::OutputMb;       // output_mb: 1..4096, captured stdout + stderr per run

    bool operator==(const Limits &other) const = default;
};

struct Mount
{
    QString host;   // absolute, normalised ("//", "." and a trailing "/" removed), no ".."
    QString target; // absolute, strictly under /mnt/ or /opt/, never /mnt/data or beneath it
    bool readOnly = true;

    bool operator==(const Mount &other) const = default;
};

struct ExpiresAfter
{
    QString anchor =
        QStringLiteral("last_active_at"); // the only anchor there is, as in OpenAI's Containers API
    int minutes = 20;                     // 1..10080 (a week)

    bool operator==(const ExpiresAfter &other) const = default;
};

struct ContainerPolicy
{
    QString name = QStringLiteral("sandbox"); // 1..64 characters of [A-Za-z0-9._-], not "." or ".."
    qint64 memoryLimitBytes =
        Defaults::MemoryLimitBytes; // a tier (1, 4, 16, 64 GiB) or a byte count in [64 MiB, 64 GiB]
    ExpiresAfter expiresAfter;
    NetworkPolicy network;
    Limits limits;
    QList<Mount> mounts; // at most 32, unique targets, no target inside another
    QMap<QString, QString>
        env; // at most 128; names [A-Za-z_][A-Za-z0-9_]*; values without NUL, <= 32 KiB UTF-8
    bool allowPtrace = false; // allow_ptrace: lets debuggers inside use ptrace (the seccomp filter allows it)

    // Strict: unknown keys, wrong types, duplicate keys, out-of-range values are errors with stable codes
    // (policy.*) and messages that start with the field path ("limits.pids: must be between 1 and 65536, got
    // 0").
    static Result<ContainerPolicy> fromJson(QByteArrayView json);
    // The same rules for a document that something else already parsed (for example a protocol message). The
    // outer parser decides what happens to duplicate keys and broken text; prefer fromJson on the raw bytes.
    static Result<ContainerPolicy> fromJsonObject(const QJsonObject &object);

    // Every field with its value, network rules in object form; fromJsonObject reads it back to an equal
    // policy.
    QJsonObject toJsonObject() const;
    // toJsonObject() in canonical form (see canonicaljson.h): sorted keys, no whitespace. Two documents that
    // mean the same policy (key order, "1g" or 1073741824, "PYPI.ORG." or "pypi.org") give the same bytes.
    QByteArray canonicalJson() const;
    // Lower-case hex sha256 of canonicalJson(): the policy version that runs record.
    QString version() const;
    // The policy normalised and checked by the same rules as fromJson, for policies built or edited in code
    // (command-line overrides). A policy from fromJson is returned unchanged.
    Result<ContainerPolicy> validated() const;

    bool operator==(const ContainerPolicy &other) const = default;
};

} // namespace Cordon::Policy
