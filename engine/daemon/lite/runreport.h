// SPDX-License-Identifier: MIT
// What a client tells a person about runs and errors, in one place for every client: the Qt CLI (app/cordon)
// and the Qt-free `cordon` launcher (app/cordon-launcher) print these same strings. The outcome rules they
// word are the sandbox's (sandbox/outcome.h). Plain C++ so that the launcher needs no Qt.
#pragma once

#include "sandbox/json.h"
#include "sandbox/outcome.h"
#include "sandbox/scanreport.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace Cordon::Lite {

// What `cordon run` prints on stderr after a one-shot run (class, status, times, memory, cuts, artifacts,
// refused artifacts, note).
std::string summarizeOneShot(const OneShotSummary &run);
// The artifact scan's findings (docs/artifact-scan.md), a file a line ("cordon: scan outputs/x.txt: warned,
// 1 finding") and then a finding a line: "  x.txt:2  aws.access_key_id (high)  AKIA****PL", @offset in a
// binary, file!member inside archives. `scope` is the folder the paths are relative to ("outputs").
// `beforeDownload`: the scan of a listing (`cordon files --scan`), whose actions say what a download would do
// ("a download would keep it back").
std::string scanFindingsText(std::string_view scope, const std::vector<Scan::InspectedFile> &files,
                             bool beforeDownload = false);
// `cordon cp` and `cordon run --output-dir` when the artifact scan kept a file back: not the 1 of other
// refusals, so that a script can tell "a secret was about to leave" from "a symlink was skipped".
constexpr int ScanBlockedStatus = 3;
// Whether the artifact scan kept any of a one-shot run's outputs back (a files.blocked refusal).
bool outputsKeptBack(const OneShotSummary &run);

// What a run tried on the network ("cordon: network: 1 allowed, 2 denied by policy, 0 errors upstream
// (`LIST` lists them)"), or nothing when it tried nothing. listCommand is the command that lists them.
std::string networkLine(std::int64_t allowed, std::int64_t denied, std::int64_t errors,
                        std::string_view listCommand);
// For a run that did not succeed: a hint when its command names a file that exists here on the host but was
// not given with --input ("python3 script.py"), since the sandbox cannot see the host's files; or, when it
// was an input, where it is inside. inputNames are the file names the inputs have in /mnt/data/inputs. Empty
// when no argument is a host file.
std::string hostFileHint(const std::vector<std::string> &command, const std::vector<std::string> &inputNames);

// The exit status `cordon exec` and `cordon logs` mirror for the daemon's `run` object: shellStatus(), or 125
// when the outcome is unknown (interrupted, or a class this client does not know).
int runExitStatus(const Json &run);
// The lines printed after a run (class, status, times, memory, cuts, artifacts, note), from the daemon's
// `run` object. `container` (may be undefined) supplies the memory limit and whether limits were enforced.
std::string summarizeRun(const Json &run, const Json &container);

// "512 B", "1.5 KiB", "12 MiB": one decimal below 10, rounded half up (as Qt's fixed notation does).
std::string formatBytes(std::int64_t bytes);
// Local time, "2024-05-01 14:03:12"; "-" for 0 or less.
std::string formatTime(std::int64_t msSinceEpoch);
// Text that code in a sandbox chose may carry control characters, escape sequences or direction overrides
// that spoof the terminal: those become \xNN or \u{NNNN}. Backslashes are left alone, so names the daemon
// already escaped pass through unchanged. Bytes that are not UTF-8 become \xNN too.
std::string escapeName(std::string_view utf8);

// `cordon exec` around a run.
std::string execFooter(std::string_view runId);
std::string execCancelling();
std::string execStoppedWaiting(std::string_view runId);
// The message of the `daemon.disconnected` error when the daemon goes away during an exec; `runId` is empty
// before run.exec answered.
std::string execDisconnected(std::string_view runId);

// "cordon: error: <message>" and, when `hint` is not empty, "cordon: hint: <hint>", each on its own line.
std::string errorReport(std::string_view message, std::string_view hint);
// Advice for errors only someone at the command line meets (an unknown container, no daemon, a stopped
// container); empty for other codes. Matched by exact code, or by prefix for entries ending in '.'.
std::string_view cliHint(std::string_view code);
// The error codes after which a command that talks to cordond exits 125: no daemon could be talked to.
bool isUnreachableCode(std::string_view code);

} // namespace Cordon::Lite
