// SPDX-License-Identifier: MIT
// Plan as data: a container policy plus the workspace on the host become a SandboxSpec, the exact mount plan,
// id mapping and run environment that cordon-init will execute. Unit tests check the spec; the child only
// interprets it. The plan itself is built by the plain C++ buildMountPlan() (isolation/core/mountplan.h),
// which the Qt-free one-shot run uses too; this is the engine's side of it, in Qt types.
#pragma once

#include "core/result.h"
#include "isolation/core/initlaunch.h"
#include "isolation/core/initprotocol.h"
#include "isolation/core/mountplan.h"
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

struct SandboxSpec
{
    SetupRequest setup;
    QStringList bindSources; // setup.bindSources decoded: host paths that MountOp::fdIndex points into
    IdMapping ids;
};

Result<SandboxSpec> buildSandboxSpec(const Policy::ContainerPolicy &policy, const WorkspacePaths &workspace,
                                     const IdMapping &ids, const QString &hostRoot = QStringLiteral("/"));

// The whole environment of a run: a fixed minimum plus the policy's env. Nothing of the caller's environment.
QStringList runEnvironment(const Policy::ContainerPolicy &policy);

} // namespace Cordon::Isolation
