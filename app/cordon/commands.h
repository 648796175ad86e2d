// SPDX-License-Identifier: MIT
// One function per `cordon` subcommand; each returns the process exit status.
#pragma once

#include <QStringList>

namespace Cordon::Cli {

// Exit statuses of the CLI itself (a run's own status is mirrored otherwise).
constexpr int UsageError = 2;
constexpr int SetupFailure = 125;

int runCommand(const QStringList &arguments);
int doctorCommand(const QStringList &arguments);
int demoCommand(const QStringList &arguments);
int cgroupDelegateCommand(const QStringList &arguments);

} // namespace Cordon::Cli
