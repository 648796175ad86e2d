// SPDX-License-Identifier: MIT
// Plan as data: a container policy plus the workspace on the host become a SandboxSpec, the exact mount plan,
// id mapping and run environment that cordon-init will execute. Unit tests check the spec; the child only
// interprets it.
#pragma once

#include "core/result.h"
#include "isolation/core/initprotocol.h"
#include "policy/containerpolicy.h"

#include <QString>
#include <QStringList>

namespace Cordon::Isolation {

struct WorkspacePaths
{
    QString work;    // mounted at /mnt/data, writable
    QString inputs;  // mounted at /mnt/data/inputs, read-only
    QString outputs; // mounted at /mnt/data/outputs, writable, noexec
    QString code; // optional: mounted read-only at /mnt/code, where the engine writes code runs' source files
};

// Who the sandboxed code is inside, and which host ids that maps to.
struct IdMapping
{
    quint32 insideUid = 1000;
    quint32 insideGid = 1000;
    quint32 hostUid = 0;
    quint32 hostGid = 0;
};

// Unprivileged callers map their own uid/gid (the only mapping the kernel allows them). A root caller maps to
// nobody/nogroup, so that code inside is never host root, not even for files on read-only binds.
IdMapping idMappingFor(quint32 callerUid, quint32 callerGid);

struct SandboxSpec
{
    SetupRequest setup;
    QStringList bindSources; // host paths opened O_PATH by the engine; MountOp::fdIndex points into this list
    IdMapping ids;
};

constexpr const char *InsideWorkDir = "/mnt/data";
constexpr const char *InsideCodeDir = "/mnt/code";
constexpr const char *InsidePath = "/usr/local/bin:/usr/bin:/bin";

Result<SandboxSpec> buildSandboxSpec(const Policy::ContainerPolicy &policy, const WorkspacePaths &workspace,
                                     const IdMapping &ids, const QString &hostRoot = QStringLiteral("/"));

// The whole environment of a run: a fixed minimum plus the policy's env. Nothing of the caller's environment.
QStringList runEnvironment(const Policy::ContainerPolicy &policy);

} // namespace Cordon::Isolation
