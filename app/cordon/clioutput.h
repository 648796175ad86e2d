// SPDX-License-Identifier: MIT
#pragma once

#include "containers/runoutcome.h"
#include "core/result.h"

#include <QString>

namespace Cordon::Cli {

void printOut(const QString &text);
void printErr(const QString &text);
// "cordon: error: <message>" plus the hint line, on stderr.
void printError(const Error &error);
QString formatBytes(qint64 bytes);
// The human summary of a run printed after its output: class, status, times, memory, cuts, artifacts.
QString summarize(const Containers::RunOutcome &outcome);

} // namespace Cordon::Cli
