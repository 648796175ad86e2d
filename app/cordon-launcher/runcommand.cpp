// SPDX-License-Identifier: MIT
#include "runcommand.h"

#include "artifactexport.h"
#include "keyringreader.h"
#include "oneshotnetwork.h"

#include "daemon/lite/output.h"
#include "daemon/lite/runreport.h"
#include "daemon/lite/signalpipe.h"
#include "sandbox/duration.h"
#include "sandbox/files/safecopy.h"
#include "sandbox/json.h"
#include "sandbox/policy/memorylimit.h"
#include "sandbox/policy/policyfile.h"
#include "sandbox/readall.h"
#include "sandbox/scanreport.h"
#include "sandbox/uniquefd.h"
#include "sandbox/workspace.h"

#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <optional>
#include <sys/stat.h>
#include <unistd.h>

namespace Cordon::Launcher {

namespace {

constexpr int UsageError = 2;
constexpr std::int64_t MiB = 1024 * 1024;
constexpr std::size_t MaxStdinBytes = 64 * MiB;

const char HelpText[] =
    "usage: cordon run [options] -- CMD [ARGS...]\n"
    "Run a command in a throw-away sandbox: new namespaces, read-only root, no network, seccomp, cgroup\n"
    "limits. Inputs are copied to /mnt/data/inputs (read-only); /mnt/data/outputs is copied out afterwards.\n"
    "The exit status mirrors the run: its exit code, 128+signal, or 125 when the sandbox could not be set "
    "up.\n"
    "\n"
    "Options:\n"
    "  -h, --help            Show this help.\n"
    "  --policy <file>       Container policy JSON file.\n"
    "  --memory <tier>       Memory limit: 1g, 4g, 16g, 64g or bytes.\n"
    "  --timeout <duration>  Wall-time limit in whole seconds, e.g. 30s or 5m (1s to 24h).\n"
    "  --input <path>        Copy a host file into /mnt/data/inputs (repeatable).\n"
    "  --output-dir <dir>    Copy /mnt/data/outputs here after the run; an output whose name is there\n"
    "                        already is not copied, and the run exits 1, unless:\n"
    "  --force               ... the file there is replaced, or\n"
    "  --keep-both           ... the output is saved as NAME (2).EXT.\n"
    "  --json                Print the outcome (with captured output) as JSON.\n"
    "  --stdin               Pass this program's stdin to the run (else /dev/null).\n"
    "  --allow-degraded      Run even when this host cannot enforce memory and pids limits (no cgroups).\n"
    "\n"
    "Arguments:\n"
    "  -- CMD [ARGS...]      The command and its arguments.\n";

int usageError(std::string_view message)
{
    Lite::writeAll(STDERR_FILENO, "cordon run: " + std::string(message) + "\nTry `cordon run --help`.\n");
    return UsageError;
}

int reportError(const Error &error)
{
    Lite::writeAll(STDERR_FILENO, Lite::errorReport(error.message(), error.hint()));
    return UsageError;
}

Result<Policy::ContainerPolicy> loadPolicyFile(const std::string &path)
{
    const Result<Json> document = Policy::readPolicyFile(path);
    if (!document)
        return fail(document.error());
    Result<Policy::ContainerPolicy> policy = Policy::ContainerPolicy::fromJsonValue(*document);
    if (!policy)
        return fail(policy.error().wrap("policy `" + path + "`"));
    return policy;
}

std::string absolutePath(const std::string &path)
{
    if (path.starts_with('/'))
        return path;
    // getcwd(), not std::filesystem: that brings the C++ locale machinery into the launcher's resident set.
    char cwd[4096];
    return ::getcwd(cwd, sizeof cwd) ? std::string(cwd) + "/" + path : path;
}

// The part of `path` that exists, resolved (symlinks and ".."), plus what is still to be made below it.
struct ExistingPrefix
{
    std::string resolved;
    std::string missing;
};

std::optional<ExistingPrefix> existingPrefix(const std::string &path)
{
    std::string existing = path;
    std::string missing;
    for (;;) {
        char resolved[PATH_MAX];
        if (::realpath(existing.c_str(), resolved))
            return ExistingPrefix{resolved, missing};
        if (errno != ENOENT && errno != ENOTDIR) // ENOTDIR: a file stands where a directory would be made
            return std::nullopt;
        const std::size_t slash = existing.find_last_of('/');
        if (slash == std::string::npos || existing == "/")
            return std::nullopt;
        missing = existing.substr(slash) + missing;
        existing = slash == 0 ? "/" : existing.substr(0, slash);
    }
}

bool isWithin(const std::string &path, const std::string &directory)
{
    return path == directory ||
           (path.starts_with(directory) && (directory.ends_with('/') || path[directory.size()] == '/'));
}

// --output-dir checked before the run, so that outputs are never produced with nowhere to go: an existing
// directory we can write to, or a path whose nearest existing parent is one (it is made after the run); never
// a regular file, and never inside Cordon's data folder, where containers' workspaces live (an export there
// could overwrite them). Returns the absolute path, or the usage error to print.
Result<std::string> checkOutputDirectory(const std::string &argument)
{
    const std::string path = absolutePath(argument);
    const std::string quoted = "--output-dir `" + argument + "`";
    const std::optional<ExistingPrefix> prefix = existingPrefix(path);
    if (!prefix)
        return fail("cli.output_dir", quoted + ": " + errnoText(errno));
    struct stat info
    {
    };
    if (::stat(prefix->resolved.c_str(), &info) != 0)
        return fail("cli.output_dir", quoted + ": " + errnoText(errno));
    if (!S_ISDIR(info.st_mode))
        return fail("cli.output_dir", prefix->missing.empty()
                                          ? quoted + " is not a directory"
                                          : quoted + ": `" + prefix->resolved + "` is not a directory");
    if (::access(prefix->resolved.c_str(), W_OK | X_OK) != 0)
        return fail("cli.output_dir",
                    prefix->missing.empty()
                        ? quoted + " is not writable: " + errnoText(errno)
                        : quoted + " cannot be made in `" + prefix->resolved + "`: " + errnoText(errno));
    char data[PATH_MAX];
    if (::realpath(Containers::dataDirectory().c_str(), data) && isWithin(prefix->resolved, data))
        return fail("cli.output_dir", quoted + " is inside Cordon's data folder `" + std::string(data) +
                                          "`, where containers' files live: choose another directory");
    return path;
}

// mkdir -p: each missing directory of `path` in turn (0777 before the umask); exportTree() reports what
// still stands in the way.
void makeDirectories(const std::string &path)
{
    for (std::size_t slash = path.find('/', 1);; slash = path.find('/', slash + 1)) {
        ::mkdir(path.substr(0, slash).c_str(), 0777);
        if (slash == std::string::npos)
            return;
    }
}

std::string baseName(const std::string &path)
{
    return path.substr(path.rfind('/') + 1);
}

// The outcome as `--json` prints it: every field of the run, its output as UTF-8 text, what was copied out.
Json outcomeJson(const Containers::OneShot::PlainRunOutcome &outcome, const std::string &policyVersion)
{
    Json::Array artifacts;
    for (const OneShotArtifact &artifact : outcome.artifacts)
        artifacts.push_back(
            Json::object({{"path", artifact.path}, {"sha256", artifact.sha256}, {"size", artifact.size}}));
    Json::Array refused;
    for (const OneShotRefusal &refusal : outcome.refused)
        refused.push_back(
            Json::object({{"code", refusal.code}, {"path", refusal.path}, {"reason", refusal.reason}}));
    Json json = Json::object({
        {"artifacts", Json(std::move(artifacts))},
        {"cpu_ms", outcome.cpuMs},
        {"degraded", outcome.degraded},
        {"error_class", std::string(outcome.className)},
        {"exit_code", outcome.exitCode},
        {"memory_limit_bytes", outcome.memoryLimitBytes},
        {"oom_kills", outcome.oomKills},
        {"peak_memory_bytes", outcome.peakMemoryBytes},
        {"pids_limit_hits", outcome.pidsLimitHits},
        {"policy_version", policyVersion},
        {"refused_artifacts", Json(std::move(refused))},
        {"scanned_artifacts", Scan::toJson(outcome.scanned)},
        {"signal", outcome.signal},
        {"stderr", toValidUtf8(outcome.stderrData)},
        {"stderr_bytes", outcome.stderrBytes},
        {"stderr_truncated", outcome.stderrTruncated},
        {"stdout", toValidUtf8(outcome.stdoutData)},
        {"stdout_bytes", outcome.stdoutBytes},
        {"stdout_truncated", outcome.stdoutTruncated},
        {"wall_ms", outcome.wallMs},
    });
    if (outcome.className == "setup_failed" || !outcome.message.empty()) {
        json.insert("message", outcome.message);
        json.insert("setup_errno", outcome.setupErrno);
        json.insert("setup_stage", outcome.setupStage);
    }
    return json;
}

} // namespace

std::variant<RunInvocation, int> parseRunArguments(const std::vector<std::string> &arguments)
{
    RunInvocation invocation;
    std::string policyPath;
    std::optional<std::string> memory;
    std::optional<std::string> timeout;
    bool readStdin = false;
    std::vector<Files::ExistingName> existing; // --force, --keep-both
    std::size_t index = 0;
    // "--name value" or "--name=value": the value when the argument at `index` is that option.
    std::optional<std::string> missingValue;
    const auto valueOf = [&](std::string_view name) -> std::optional<std::string> {
        const std::string &argument = arguments[index];
        if (argument == name) {
            if (index + 1 >= arguments.size()) {
                missingValue = std::string(name);
                return std::nullopt;
            }
            return arguments[++index];
        }
        if (argument.size() > name.size() && argument.starts_with(name) && argument[name.size()] == '=')
            return argument.substr(name.size() + 1);
        return std::nullopt;
    };
    // Options come first; the command starts at the first other argument (or after "--"), and everything
    // from there on is its own, options included. The last of a repeated option counts (--input adds up).
    for (; index < arguments.size(); ++index) {
        const std::string &argument = arguments[index];
        if (argument == "--") {
            ++index;
            break;
        }
        if (argument == "-h" || argument == "--help") {
            Lite::writeAll(STDOUT_FILENO, HelpText);
            return 0;
        }
        if (argument == "--json") {
            invocation.json = true;
        } else if (argument == "--stdin") {
            readStdin = true;
        } else if (argument == "--allow-degraded") {
            invocation.allowDegraded = true;
        } else if (argument == "--force") {
            existing.push_back(Files::ExistingName::Replace);
        } else if (argument == "--keep-both") {
            existing.push_back(Files::ExistingName::KeepBoth);
        } else if (auto file = valueOf("--policy")) {
            policyPath = *file;
        } else if (auto tier = valueOf("--memory")) {
            memory = *tier;
        } else if (auto duration = valueOf("--timeout")) {
            timeout = *duration;
        } else if (auto input = valueOf("--input")) {
            invocation.inputs.push_back(*input);
        } else if (auto directory = valueOf("--output-dir")) {
            if (directory->empty())
                return usageError("--output-dir needs a directory (`.` for this one).");
            invocation.outputDirectory = *directory;
        } else if (missingValue) {
            return usageError("missing value after `" + *missingValue + "`.");
        } else if (argument.starts_with('-') && argument != "-") {
            return usageError("unknown option `" + argument + "`.");
        } else {
            break;
        }
        if (missingValue)
            return usageError("missing value after `" + *missingValue + "`.");
    }
    invocation.command.assign(arguments.begin() + static_cast<std::ptrdiff_t>(index), arguments.end());
    if (existing.size() > 1)
        return usageError("--force and --keep-both exclude each other.");
    if (!existing.empty() && invocation.outputDirectory.empty())
        return usageError("--force and --keep-both say what an output meets in --output-dir: give one.");
    if (!existing.empty())
        invocation.existingNames = existing.front();
    if (invocation.command.empty()) {
        Lite::writeAll(STDERR_FILENO,
                       "cordon run: no command given. Example: cordon run -- python3 -c 'print(1)'\n");
        return UsageError;
    }

    if (!policyPath.empty()) {
        Result<Policy::ContainerPolicy> policy = loadPolicyFile(policyPath);
        if (!policy)
            return reportError(policy.error());
        invocation.policy = std::move(*policy);
    }
    if (memory) {
        const Result<std::int64_t> bytes = Policy::parseMemoryLimit(*memory);
        if (!bytes)
            return reportError(bytes.error().wrap("--memory"));
        invocation.policy.setMemoryLimit(*bytes);
    }
    if (timeout) {
        const Result<int> seconds = parseRunTimeoutSeconds(*timeout);
        if (!seconds)
            return reportError(seconds.error().wrap("--timeout"));
        invocation.policy.limits.runTimeoutS = *seconds;
    }
    for (std::string &input : invocation.inputs) {
        struct stat info
        {
        };
        if (::stat(input.c_str(), &info) != 0 || !S_ISREG(info.st_mode) ||
            ::access(input.c_str(), R_OK) != 0) {
            Lite::writeAll(STDERR_FILENO,
                           "cordon run: --input `" + input + "` is not a readable regular file\n");
            return UsageError;
        }
        input = absolutePath(input);
    }
    if (!invocation.outputDirectory.empty()) {
        Result<std::string> directory = checkOutputDirectory(invocation.outputDirectory);
        if (!directory)
            return usageError(directory.error().message());
        invocation.outputDirectory = std::move(*directory);
    }
    if (readStdin) {
        Result<std::string> data =
            readToEnd(STDIN_FILENO, MaxStdinBytes, "stdin", "cli.read", "cli.stdin_too_large");
        if (!data)
            return reportError(data.error());
        invocation.stdinData = std::move(*data);
    }
    return invocation;
}

int runOneShot(RunInvocation invocation)
{
    // Output piped into `head` must end in a write error we ignore, not kill us before the container is
    // removed.
    ::signal(SIGPIPE, SIG_IGN);

    Containers::OneShot::PlainRunRequest request;
    request.command = invocation.command;
    request.policy = invocation.policy;
    request.allowDegraded = invocation.allowDegraded;
    // A stored secret's value pasted into `env` is refused as `cordon create` refuses it. Without a store to
    // compare with (none yet, or one the daemon would not read either), nothing of it can be there.
    if (!invocation.policy.env.empty()) {
        if (Result<Secrets::SecretStore> store =
                Secrets::SecretStore::open(Secrets::SecretStore::defaultPath())) {
            if (Result<> clean = Secrets::checkNoSecretInEnv(*store, invocation.policy); !clean)
                return reportError(clean.error());
        }
    }
    // The policy's secrets, from the user's store (the daemon's file, readable by its owner only).
    if (!invocation.policy.secrets.empty()) {
        KeyringReader keyring; // for a store whose values are in the desktop keyring
        Result<Secrets::SecretStore> store =
            Secrets::SecretStore::open(Secrets::SecretStore::defaultPath(), &keyring);
        Result<std::vector<Secrets::ResolvedSecret>> secrets =
            store ? Secrets::resolveSecrets(*store, invocation.policy.secrets) : fail(store.error());
        if (!secrets) {
            Lite::writeAll(STDERR_FILENO,
                           Lite::errorReport(secrets.error().message(), secrets.error().hint()));
            return Cordon::SetupFailureStatus;
        }
        request.secrets = std::move(*secrets);
    }
    request.stdinData = std::move(invocation.stdinData);
    // Ctrl-C (or SIGTERM, SIGHUP) cancels the run and still removes the container, instead of leaving its
    // workspace and cgroup behind.
    request.interruptFd = Lite::interruptSignalPipe();

    // Inputs go into the workspace before the container is set up.
    std::vector<std::string> inputNames;
    for (const std::string &input : invocation.inputs)
        inputNames.push_back(baseName(input));
    if (!invocation.inputs.empty()) {
        request.prepareWorkspace = [&](const Containers::WorkspacePaths &paths) -> Result<> {
            for (std::size_t i = 0; i < invocation.inputs.size(); ++i) {
                const Result<Files::CopiedFile> imported =
                    Files::importFile(invocation.inputs[i], paths.inputs, inputNames[i]);
                if (!imported)
                    return fail(imported.error().wrap("copy input `" + invocation.inputs[i] + "`"));
            }
            return {};
        };
    }
    // Outputs are copied once every process of the container is gone, through the artifact scan unless the
    // policy turned it off.
    std::vector<OneShotArtifact> artifacts;
    std::vector<OneShotRefusal> refused;
    std::vector<Scan::InspectedFile> scanned;
    std::string exportProblem;
    bool scanFailed = false;
    if (!invocation.outputDirectory.empty()) {
        request.collectOutputs = [&](const Files::SourceRoot &outputs) {
            makeDirectories(invocation.outputDirectory);
            Files::CopyLimits limits;
            limits.maxFileBytes = static_cast<std::int64_t>(invocation.policy.limits.workspaceMb) * MiB;
            limits.maxTotalBytes = limits.maxFileBytes;
            limits.existingNames = invocation.existingNames;
            if (invocation.policy.artifactScan != Policy::ArtifactScan::Off) {
                Result<ScannedExport> exported =
                    exportScanned(outputs, invocation.outputDirectory, limits, invocation.policy.artifactScan,
                                  request.secrets);
                if (!exported) {
                    // Nothing left the container: the scan fails closed.
                    exportProblem = exported.error().wrap("copy outputs").message();
                    scanFailed = true;
                    return;
                }
                artifacts = std::move(exported->copied);
                refused = std::move(exported->refused);
                scanned = std::move(exported->scanned);
                return;
            }
            const Result<Files::CopyReport> report =
                Files::exportTree(outputs, invocation.outputDirectory, limits);
            if (!report) {
                exportProblem = report.error().wrap("copy outputs").message();
                return;
            }
            for (const Files::CopiedFile &file : report->copied)
                artifacts.push_back({file.relativePath, file.size, file.sha256Hex});
            for (const Files::RefusedEntry &entry : report->refused)
                refused.push_back({entry.relativePath, entry.reason, entry.code});
        };
    }

    // An allowlist is served by the daemon's egress proxy: connected (the daemon started if needed) before
    // the container exists, so that a run whose network cannot be served never starts.
    std::optional<OneShotNetwork> network;
    if (invocation.policy.network.type == Policy::NetworkPolicy::Type::Allowlist) {
        network.emplace();
        if (const Result<> connected = network->connect(); !connected) {
            Lite::writeAll(STDERR_FILENO,
                           Lite::errorReport(connected.error().message(), connected.error().hint()));
            return Cordon::SetupFailureStatus;
        }
        request.attachNetwork = [&](const std::string &containerId, UniqueFd listener) {
            return network->attach(containerId, invocation.policy, std::move(listener));
        };
    }

    Containers::OneShot::OutputSink echo;
    if (!invocation.json) {
        echo = [](int stream, std::string_view chunk) {
            Lite::writeAll(stream == 1 ? STDOUT_FILENO : STDERR_FILENO, chunk);
        };
    }
    Containers::OneShot::PlainRunOutcome outcome = Containers::OneShot::runPlain(request, echo);
    // The decisions are counted once the daemon has closed what the run left open.
    OneShotNetwork::Counts tried;
    const bool counted = network && network->detach(tried);
    outcome.artifacts = std::move(artifacts);
    outcome.refused = std::move(refused);
    outcome.scanned = std::move(scanned);
    if (!exportProblem.empty())
        outcome.message = exportProblem;
    // Names the run chose (a file may be named after a value) are shown masked, as its output is; the files
    // in --output-dir keep their names.
    if (!request.secrets.empty()) {
        const Secrets::SecretMasker masker = Secrets::maskerFor(request.secrets);
        for (OneShotArtifact &artifact : outcome.artifacts)
            artifact.path = masker.maskAll(artifact.path);
        for (OneShotRefusal &refusal : outcome.refused) {
            refusal.path = masker.maskAll(refusal.path);
            refusal.reason = masker.maskAll(refusal.reason);
        }
        for (Scan::InspectedFile &file : outcome.scanned) {
            file.path = masker.maskAll(file.path);
            for (Scan::Finding &finding : file.findings) {
                finding.path = masker.maskAll(finding.path);
                finding.excerpt = masker.maskAll(finding.excerpt);
            }
        }
        outcome.message = masker.maskAll(outcome.message);
    }

    if (invocation.json) {
        Json json = outcomeJson(outcome, invocation.policy.version());
        if (counted) {
            json.insert("container_id", network->containerId());
            json.insert("network", Json::object({{"allowed", tried.allowed},
                                                 {"denied", tried.denied},
                                                 {"errors", tried.errors}}));
        }
        Lite::writeAll(STDOUT_FILENO, json.serializeIndented() + "\n");
    } else {
        Lite::writeAll(STDERR_FILENO, Lite::summarizeOneShot(outcome));
        if (counted)
            Lite::writeAll(STDERR_FILENO, Lite::networkLine(tried.allowed, tried.denied, tried.errors,
                                                            "cordon network show " + network->containerId()));
        if (outcome.className != "ok")
            Lite::writeAll(STDERR_FILENO, Lite::hostFileHint(invocation.command, inputNames));
    }
    // A run that succeeded but whose outputs the scan kept back did not deliver what a script expects; nor
    // one whose output met a file of its name (what is there is older, and a script would read that).
    const bool keptBack = scanFailed || Lite::outputsKeptBack(outcome);
    const bool clashed =
        std::any_of(outcome.refused.begin(), outcome.refused.end(),
                    [](const OneShotRefusal &refusal) { return refusal.code == "files.exists"; });
    if (clashed && !invocation.json)
        Lite::writeAll(STDERR_FILENO,
                       "cordon: outputs whose names are in " + invocation.outputDirectory +
                           " already were not copied (the files there are unchanged): --force replaces them, "
                           "--keep-both saves the new ones beside them\n");
    const int status = Cordon::shellStatus(outcome.className, outcome.exitCode, outcome.signal);
    if (status == 0 && keptBack)
        return Lite::ScanBlockedStatus;
    return status == 0 && clashed ? 1 : status;
}

} // namespace Cordon::Launcher
