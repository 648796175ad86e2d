// SPDX-License-Identifier: MIT
// The outcome rules every run follows, whoever started it (a container's run in the daemon, a one-shot run in
// the launcher): the classes a run can end in, how an ended run is classified, the process status a CLI
// mirrors, and what a one-shot run's summary holds. Clients word them (daemon/lite/runreport.h).
#pragma once

#include "sandbox/scanreport.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace Cordon {

// A CLI's own statuses: the program did not run (or its outcome is unknown), and the user stopped
// waiting for it with a second Ctrl-C.
inline constexpr int SetupFailureStatus = 125;
inline constexpr int InterruptedStatus = 130;

// The outcome classes, in the order of Containers::ErrorClass (engine/containers/runoutcome.h).
inline constexpr std::string_view ErrorClassNames[] = {"ok",      "nonzero_exit", "oom",
                                                       "timeout", "killed",       "setup_failed"};
// A sentence for people, by class name; empty for a name that is not a class.
std::string_view describeErrorClass(std::string_view className);
bool isErrorClass(std::string_view className);
// The process status a CLI mirrors: the exit code, 128+signal, 137 for an OOM or timeout kill without one,
// 125 when the program did not run.
int shellStatus(std::string_view className, int exitCode, int signal);

// The class of a run that ended (it exited, was killed, or its stdout and stderr closed), by the rules every
// run follows: a timeout, then an OOM kill in its container during the run, then a signal (or no exit code),
// then a non-zero exit code. A run whose setup failed, or that its container's end abandoned, keeps the class
// it was given then.
std::string_view classifyEndedRun(bool timedOut, std::int64_t oomKills, int signal, int exitCode);

// What a one-shot run ended with, as its summary shows it.
struct OneShotArtifact
{
    std::string path;
    std::int64_t size = 0;
    std::string sha256;
};
struct OneShotRefusal
{
    std::string path;
    std::string reason;
    std::string code; // files.symlink, files.too_large, ... (sandbox/files/safecopy.h)
};
struct OneShotSummary
{
    std::string_view className = "setup_failed";
    int exitCode = -1;
    int signal = 0;
    std::int64_t wallMs = 0;
    std::int64_t cpuMs = 0;
    std::int64_t peakMemoryBytes = 0;
    std::int64_t memoryLimitBytes = 0;
    std::int64_t pidsLimit = 0;     // limits.pids the run ran under; 0 when unknown or not enforced
    std::int64_t pidsLimitHits = 0; // forks and clones the process limit refused during the run
    bool degraded = false;
    bool stdoutTruncated = false;
    bool stderrTruncated = false;
    std::int64_t stdoutKept = 0; // bytes captured, at most the cap
    std::int64_t stderrKept = 0;
    std::int64_t stdoutBytes = 0; // bytes the run wrote
    std::int64_t stderrBytes = 0;
    std::vector<OneShotArtifact> artifacts;
    std::vector<OneShotRefusal> refused;
    std::vector<Scan::InspectedFile> scanned; // outputs with artifact-scan findings
    std::string message;                      // for setup_failed the status; otherwise a note
};

} // namespace Cordon
