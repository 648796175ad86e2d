// SPDX-License-Identifier: MIT
// One function per `cordon` subcommand; each returns the process exit status.
#pragma once

#include "daemon/lite/runreport.h"

#include <QStringList>

namespace Cordon::Cli {

// Exit statuses of the CLI itself (a run's own status is mirrored otherwise). Commands that talk to cordond
// also return 1 when the daemon refused the operation, and SetupFailure when no daemon could be reached.
constexpr int UsageError = 2;
constexpr int SetupFailure = Cordon::SetupFailureStatus;

int doctorCommand(const QStringList &arguments);
int auditCommand(const QStringList &arguments);
int demoCommand(const QStringList &arguments);
int cgroupDelegateCommand(const QStringList &arguments);

// Backed by the daemon (docs/cli.md, docs/protocol.md).
int createCommand(const QStringList &arguments);
int lsCommand(const QStringList &arguments);
int inspectCommand(const QStringList &arguments);
int execCommand(const QStringList &arguments);
int cpCommand(const QStringList &arguments);
int filesCommand(const QStringList &arguments);
int rmCommand(const QStringList &arguments);
int stopCommand(const QStringList &arguments);
int startCommand(const QStringList &arguments);
int keepaliveCommand(const QStringList &arguments);
int logsCommand(const QStringList &arguments);
int historyCommand(const QStringList &arguments);
int eventsCommand(const QStringList &arguments);
int daemonCommand(const QStringList &arguments);
int networkCommand(const QStringList &arguments);
int secretCommand(const QStringList &arguments);

} // namespace Cordon::Cli
