// SPDX-License-Identifier: MIT
#include "daemon/lite/runreport.h"

#include <algorithm>
#include <sys/stat.h>

#include <ctime>

namespace Cordon::Lite {

namespace {

struct CliHintEntry
{
    std::string_view code;
    std::string_view hint;
};

constexpr CliHintEntry CliHints[] = {
    {"daemon.unreachable", "Start it with `cordon daemon start` (other commands start it when needed); "
                           "CORDON_SOCKET names a different socket."},
    {"daemon.start_failed", "Run `cordond` in a terminal to see why it does not start; CORDON_DAEMON names "
                            "the program to start."},
    {"daemon.timeout", "cordond is busy or stuck: `cordon daemon status` checks it, `cordon daemon stop` "
                       "and `cordon daemon start` restart it."},
    {"daemon.disconnected", "cordond stopped or restarted: `cordon daemon status` checks it; a run it was "
                            "running shows as interrupted in `cordon history`."},
    {"daemon.already_running", "Only one cordond runs per user: `cordon daemon status` shows it."},
    {"protocol.version", "cordon and cordond come from different builds: restart the daemon with `cordon "
                         "daemon stop`, the next command starts the matching one."},
    {"container.not_found", "`cordon ls --all` lists the containers; give an id, a unique prefix of one, or "
                            "the name of a running or stopped container."},
    {"container.gone", "Its files were removed when it expired or was deleted; `cordon create` makes a new "
                       "container."},
    {"container.not_running", "Start it with `cordon start ID`; its files are still there."},
    {"container.limit", "`cordon ls` shows them: stop (`cordon stop ID`) or remove (`cordon rm ID`) one."},
    {"run.limit", "Wait for one of the container's runs to end; `cordon history --container ID` lists them."},
    {"run.not_found", "`cordon history` lists the runs and their ids."},
    {"cli.ambiguous", "Give the full id, or more of it: `cordon ls --all` shows them."},
};

constexpr std::string_view UnreachableCodes[] = {
    "daemon.unreachable",      "daemon.start_failed",  "daemon.timeout",   "daemon.disconnected",
    "daemon.too_many_clients", "daemon.hello_timeout", "protocol.version",
};

std::string hex(unsigned value, int width)
{
    static const char Digits[] = "0123456789abcdef";
    std::string text;
    do {
        text.insert(text.begin(), Digits[value & 0xf]);
        value >>= 4;
    } while (value != 0);
    while (static_cast<int>(text.size()) < width)
        text.insert(text.begin(), '0');
    return text;
}

} // namespace

int runExitStatus(const Json &run)
{
    const std::string &className = run["error_class"].toString();
    if (!isErrorClass(className))
        return SetupFailureStatus; // interrupted, or a class this CLI does not know: the outcome is unknown
    return shellStatus(className, run["exit_code"].toInt(-1), run["signal"].toInt(0));
}

namespace {

bool explainedExit(const OneShotSummary &run)
{
    return run.className == "nonzero_exit" && !run.message.empty();
}

// The first lines of every run's summary: the class with the exit code, the signal or (setup_failed) what
// failed, and for a run that ran, its times and memory.
std::string summaryHead(const OneShotSummary &run)
{
    const bool setupFailed = run.className == "setup_failed";
    const std::string status = setupFailed      ? run.message
                               : run.signal > 0 ? "signal " + std::to_string(run.signal)
                                                : "exit " + std::to_string(run.exitCode);
    std::string text = "cordon: " + std::string(run.className) + " (" + status + "): ";
    // A non-zero exit the engine can explain (the executable was not found) says why instead of the class.
    if (explainedExit(run))
        text += run.message;
    else
        text.append(describeErrorClass(run.className));
    text += '\n';
    if (!setupFailed) {
        text += "cordon: wall " + std::to_string(run.wallMs) + " ms, cpu " + std::to_string(run.cpuMs) +
                " ms, peak memory " + formatBytes(run.peakMemoryBytes);
        if (run.memoryLimitBytes > 0)
            text += " of " + formatBytes(run.memoryLimitBytes);
        if (run.degraded)
            text += " (not enforced: degraded mode)";
        text += '\n';
    }
    // The limit held: say so, or a fork bomb's run reads as an ordinary success or failure.
    if (run.pidsLimitHits > 0)
        text += "cordon: contained: the process limit" +
                (run.pidsLimit > 0 ? " of " + std::to_string(run.pidsLimit) : std::string()) + " refused " +
                std::to_string(run.pidsLimitHits) + (run.pidsLimitHits == 1 ? " fork" : " forks") +
                " (limits.pids)\n";
    return text;
}

// The last line: a note about a run that ran (for setup_failed the message is the status already).
std::string summaryNote(const OneShotSummary &run)
{
    if (run.className == "setup_failed" || run.message.empty() || explainedExit(run))
        return {};
    return "cordon: note: " + run.message + "\n";
}

} // namespace

std::string summarizeRun(const Json &run, const Json &container)
{
    const std::string &state = run["state"].toString();
    if (state == "running")
        return "cordon: run " + run["id"].toString() + " is still running (started " +
               formatTime(run["started_at"].toInteger()) + ")\n";
    const std::string &className = run["error_class"].toString();
    const std::string &message = run["message"].toString();
    if (!isErrorClass(className))
        return "cordon: " + (state.empty() ? std::string("interrupted") : state) +
               ": the run's outcome is unknown (cordond stopped before it ended)\n";

    OneShotSummary head;
    head.className = className;
    head.exitCode = run["exit_code"].toInt(-1);
    head.signal = run["signal"].toInt(0);
    head.wallMs = run["wall_ms"].toInteger();
    head.cpuMs = run["cpu_ms"].toInteger();
    head.peakMemoryBytes = run["peak_memory_bytes"].toInteger();
    head.memoryLimitBytes = container["memory_limit"].toInteger();
    head.pidsLimit = container["policy"]["limits"]["pids"].toInteger();
    head.pidsLimitHits = run["pids_limit_hits"].toInteger();
    head.degraded = !container["limits_enforced"].toBool(true);
    head.message = message;
    std::string text = summaryHead(head);
    for (const std::string_view stream : {"stdout", "stderr"}) {
        if (run[std::string(stream) + "_truncated"].toBool()) {
            text += "cordon: ";
            text.append(stream);
            text += " was cut at the policy's output limit (limits.output_mb)\n";
        }
    }
    // What the run tried on the network, when it tried anything: the proxy's decisions attributed to it.
    const Json &network = run["network"];
    const std::int64_t allowed = network["allowed"].toInteger();
    const std::int64_t denied = network["denied"].toInteger();
    const std::int64_t errors = network["errors"].toInteger();
    text += networkLine(allowed, denied, errors,
                        "cordon events --run " + run["id"].toString() + " --kind network.");
    for (const Json &artifact : run["artifacts"].items()) {
        text += "cordon: artifact " + escapeName(artifact["path"].toString()) + " (" +
                formatBytes(artifact["size"].toInteger()) + ", sha256 " + artifact["sha256"].toString() +
                ")\n";
    }
    return text + summaryNote(head);
}

std::string networkLine(std::int64_t allowed, std::int64_t denied, std::int64_t errors,
                        std::string_view listCommand)
{
    if (allowed + denied + errors == 0)
        return {};
    return "cordon: network: " + std::to_string(allowed) + " allowed, " + std::to_string(denied) +
           " denied by policy, " + std::to_string(errors) + (errors == 1 ? " error" : " errors") +
           " upstream (`" + std::string(listCommand) + "` lists them)\n";
}

std::string summarizeOneShot(const OneShotSummary &run)
{
    std::string text = summaryHead(run);
    if (run.stdoutTruncated)
        text += "cordon: stdout was cut at " + formatBytes(run.stdoutKept) + " (the run wrote " +
                formatBytes(run.stdoutBytes) + ")\n";
    if (run.stderrTruncated)
        text += "cordon: stderr was cut at " + formatBytes(run.stderrKept) + " (the run wrote " +
                formatBytes(run.stderrBytes) + ")\n";
    for (const OneShotArtifact &artifact : run.artifacts)
        text += "cordon: artifact " + artifact.path + " (" + formatBytes(artifact.size) + ", sha256 " +
                artifact.sha256 + ")\n";
    text += scanFindingsText("outputs", run.scanned);
    for (const OneShotRefusal &refused : run.refused)
        text += "cordon: refused artifact " + refused.path + ": " + refused.reason + "\n";
    if (outputsKeptBack(run))
        text +=
            "cordon: the artifact scan kept outputs back (the policy's artifact_scan decides; to take one "
            "out anyway, run in a container and use `cordon cp --override-scan REASON`)\n";
    return text + summaryNote(run);
}

bool outputsKeptBack(const OneShotSummary &run)
{
    return std::any_of(run.refused.begin(), run.refused.end(),
                       [](const OneShotRefusal &refused) { return refused.code == "files.blocked"; });
}

std::string scanFindingsText(std::string_view scope, const std::vector<Scan::InspectedFile> &files,
                             bool beforeDownload)
{
    const auto prospect = [](const std::string &action) -> std::string {
        if (action == "blocked")
            return "a download would keep it back";
        if (action == "redacted")
            return "a download would redact it";
        return "a download would save it with a warning";
    };
    std::string text;
    for (const Scan::InspectedFile &file : files) {
        const std::size_t count = file.findings.size();
        text += "cordon: scan " + std::string(scope) + "/" + escapeName(file.path) + ": " +
                (beforeDownload ? prospect(file.action) : file.action) + ", " + std::to_string(count) +
                (count == 1 ? " finding\n" : " findings\n");
        for (const Scan::Finding &finding : file.findings)
            text += "  " + escapeName(finding.path) +
                    (finding.line > 0 ? ":" + std::to_string(finding.line)
                                      : "@" + std::to_string(finding.offset)) +
                    "  " + finding.rule + " (" + std::string(Scan::severityName(finding.severity)) + ")  " +
                    escapeName(finding.excerpt) + "\n";
    }
    return text;
}

std::string hostFileHint(const std::vector<std::string> &command, const std::vector<std::string> &inputNames)
{
    for (std::size_t i = 1; i < command.size(); ++i) {
        const std::string &argument = command[i];
        // Options, and paths that already point into the sandbox's own tree, are not host files.
        if (argument.empty() || argument.front() == '-' || argument.starts_with("/mnt/") ||
            argument.size() > 4096)
            continue;
        struct stat st = {};
        if (::stat(argument.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        const std::string name = argument.substr(argument.rfind('/') + 1);
        if (std::find(inputNames.begin(), inputNames.end(), name) != inputNames.end())
            return "cordon: hint: `" + escapeName(argument) +
                   "` was passed with --input: inside the sandbox it is " + "/mnt/data/inputs/" +
                   escapeName(name) + "\n";
        return "cordon: hint: `" + escapeName(argument) +
               "` is a file on this host, which the sandbox cannot see; pass it with --input " +
               escapeName(argument) + " and name it /mnt/data/inputs/" + escapeName(name) + "\n";
    }
    return {};
}

std::string formatBytes(std::int64_t bytes)
{
    if (bytes < 1024)
        return std::to_string(bytes) + " B";
    static const char *const Units[] = {"KiB", "MiB", "GiB", "TiB"};
    // Integer arithmetic: bytes / 1024^n is exact, and so is rounding it half up to the shown precision.
    unsigned __int128 divisor = 1;
    int unit = -1;
    while (static_cast<unsigned __int128>(bytes) >= divisor * 1024 && unit < 3) {
        divisor *= 1024;
        ++unit;
    }
    const bool oneDecimal = static_cast<unsigned __int128>(bytes) < divisor * 10;
    const unsigned __int128 scale = oneDecimal ? 10 : 1;
    const auto rounded = static_cast<std::uint64_t>(
        (static_cast<unsigned __int128>(bytes) * scale * 2 + divisor) / (divisor * 2));
    std::string text = oneDecimal ? std::to_string(rounded / 10) + "." + std::to_string(rounded % 10)
                                  : std::to_string(rounded);
    return text + " " + Units[unit];
}

std::string formatTime(std::int64_t msSinceEpoch)
{
    if (msSinceEpoch <= 0)
        return "-";
    const std::time_t seconds = static_cast<std::time_t>(msSinceEpoch / 1000);
    std::tm local = {};
    char buffer[64];
    if (::localtime_r(&seconds, &local) == nullptr ||
        std::strftime(buffer, sizeof buffer, "%Y-%m-%d %H:%M:%S", &local) == 0)
        return "-";
    return buffer;
}

std::string escapeName(std::string_view utf8)
{
    std::string escaped;
    escaped.reserve(utf8.size());
    for (std::size_t pos = 0; pos < utf8.size();) {
        char32_t u = 0;
        const std::size_t length = decodeUtf8(utf8, pos, &u);
        if (length == 0) {
            escaped += "\\x" + hex(static_cast<unsigned char>(utf8[pos]), 2);
            ++pos;
            continue;
        }
        // C0 and C1 controls, DEL, and the bidirectional formatting characters that reorder what follows.
        const bool control = u < 0x20 || (u >= 0x7f && u < 0xa0);
        const bool bidi = (u >= 0x202a && u <= 0x202e) || (u >= 0x2066 && u <= 0x2069) || u == 0x200e ||
                          u == 0x200f || u == 0x061c;
        if (control)
            escaped += "\\x" + hex(u, 2);
        else if (bidi)
            escaped += "\\u{" + hex(u, 4) + "}";
        else
            escaped.append(utf8.substr(pos, length));
        pos += length;
    }
    return escaped;
}

std::string execFooter(std::string_view runId)
{
    const std::string id(runId);
    return "cordon: run " + id + " (`cordon logs " + id + "` shows it again)\n";
}

std::string execCancelling()
{
    return "\ncordon: cancelling the run (Ctrl-C again to stop waiting for it)\n";
}

std::string execStoppedWaiting(std::string_view runId)
{
    return "cordon: stopped waiting; `cordon logs " + std::string(runId) + "` shows how the run ended\n";
}

std::string execDisconnected(std::string_view runId)
{
    if (runId.empty())
        return "cordond closed the connection before the run started";
    return "cordond closed the connection before run " + std::string(runId) + " ended";
}

std::string errorReport(std::string_view message, std::string_view hint)
{
    std::string text = "cordon: error: " + std::string(message) + "\n";
    if (!hint.empty())
        text += "cordon: hint: " + std::string(hint) + "\n";
    return text;
}

std::string_view cliHint(std::string_view code)
{
    for (const CliHintEntry &entry : CliHints) {
        const bool prefix = entry.code.ends_with('.');
        if (prefix ? code.starts_with(entry.code) : code == entry.code)
            return entry.hint;
    }
    return {};
}

bool isUnreachableCode(std::string_view code)
{
    for (const std::string_view unreachable : UnreachableCodes) {
        if (code == unreachable)
            return true;
    }
    return false;
}

} // namespace Cordon::Lite
