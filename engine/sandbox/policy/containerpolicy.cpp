// SPDX-License-Identifier: MIT
#include "sandbox/policy/containerpolicy.h"

#include "sandbox/policy/canonicaljson.h"
#include "sandbox/policy/fields.h"
#include "sandbox/quoteuntrusted.h"
#include "sandbox/secrets/secretrules.h"
#include "sandbox/sha256.h"

#include <algorithm>

namespace Cordon::Policy {

namespace {

using Fields::at;

constexpr int MaxExpiryMinutes = 7 * 24 * 60;

bool isNameCharacter(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '-';
}

bool isEnvName(std::string_view name)
{
    if (name.empty())
        return false;
    for (std::size_t i = 0; i < name.size(); ++i) {
        const char c = name[i];
        const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
        if (!letter && !(i > 0 && c >= '0' && c <= '9'))
            return false;
    }
    return true;
}

Result<std::string> readName(const Json &value)
{
    const std::string_view path = "name";
    Result<std::string> name = Fields::toString(value, path, MaxNameLength);
    if (!name)
        return name;
    if (name->empty())
        return fail("policy.out_of_range", at(path, "must not be empty"));
    if (!std::all_of(name->begin(), name->end(), isNameCharacter))
        return fail(
            "policy.invalid_name",
            at(path, "may only contain A-Z, a-z, 0-9, \".\", \"_\" and \"-\", got " + quoteUntrusted(*name)));
    // The name may end up in a path or a file name; "." and ".." would mean a directory, not a container.
    if (*name == "." || *name == "..")
        return fail("policy.invalid_name", at(path, "must not be \".\" or \"..\""));
    return name;
}

Result<std::int64_t> readMemoryLimit(const Json &value)
{
    const std::string_view path = "memory_limit";
    if (value.isString()) {
        const Result<std::int64_t> bytes = parseMemoryLimit(value.toString());
        if (!bytes)
            return fail(bytes.error().wrap(path));
        return bytes;
    }
    std::int64_t number = 0;
    if (Fields::isIntegral(value, &number)) {
        if (number >= MinMemoryLimitBytes && number <= MaxMemoryLimitBytes)
            return number;
        // 1e300 is integral too; show it as written rather than clamped.
        return fail("policy.invalid_memory_limit",
                    at(path, memoryLimitRule() + ", got " + Fields::numberText(value)));
    }
    return fail(
        "policy.wrong_type",
        at(path, "must be a tier string (\"1g\", \"4g\", \"16g\", \"64g\") or an integer byte count, got " +
                     (value.isNumber() ? Fields::numberText(value) : Fields::typeName(value))));
}

Result<ExpiresAfter> readExpiresAfter(const Json &value)
{
    const std::string_view path = "expires_after";
    CORDON_TRY(Fields::expectObject(value, path));
    CORDON_TRY(Fields::checkKeys(value, path, {"anchor", "minutes"}));
    ExpiresAfter expires;
    if (const Json &anchorValue = value["anchor"]; !anchorValue.isUndefined()) {
        const std::string anchorPath = jsonMemberPath(path, "anchor");
        const Result<std::string> anchor = Fields::toString(anchorValue, anchorPath, 64);
        if (!anchor)
            return fail(anchor.error());
        if (*anchor != expires.anchor)
            return fail("policy.invalid_value",
                        at(anchorPath, "must be \"last_active_at\", got " + quoteUntrusted(*anchor)));
    }
    CORDON_TRY(Fields::readInteger(value, path, "minutes", 1, MaxExpiryMinutes, expires.minutes));
    return expires;
}

// Starts from the defaults for the policy's memory limit, so that a limit left out follows it.
Result<Limits> readLimits(const Json &value, std::int64_t memoryLimitBytes)
{
    const std::string_view path = "limits";
    CORDON_TRY(Fields::expectObject(value, path));
    CORDON_TRY(
        Fields::checkKeys(value, path, {"run_timeout_s", "pids", "tmp_mb", "workspace_mb", "output_mb"}));
    Limits limits;
    limits.tmpMb = Defaults::tmpMbFor(memoryLimitBytes);
    limits.workspaceMb = Defaults::workspaceMbFor(memoryLimitBytes);
    CORDON_TRY(Fields::readInteger(value, path, "run_timeout_s", 1, 86400, limits.runTimeoutS));
    CORDON_TRY(Fields::readInteger(value, path, "pids", 1, 65536, limits.pids));
    CORDON_TRY(Fields::readInteger(value, path, "tmp_mb", 1, 65536, limits.tmpMb));
    CORDON_TRY(Fields::readInteger(value, path, "workspace_mb", 1, 1048576, limits.workspaceMb));
    CORDON_TRY(Fields::readInteger(value, path, "output_mb", 1, 4096, limits.outputMb));
    return limits;
}

// Absolute, without "..", with "//", "." and a trailing "/" removed.
Result<std::string> normaliseMountPath(std::string_view text, std::string_view path)
{
    if (text.empty())
        return fail("policy.invalid_mount", at(path, "must not be empty"));
    // NUL would cut the path short in the kernel; newlines and other controls break mountinfo and logs.
    if (std::any_of(text.begin(), text.end(), [](char c) { return (c >= 0 && c < 0x20) || c == 0x7f; }))
        return fail("policy.invalid_mount", at(path, "contains a control character"));
    if (!text.starts_with('/'))
        return fail("policy.invalid_mount",
                    at(path, "must be an absolute path, got " + quoteUntrusted(text)));
    std::string normalised;
    for (std::size_t start = 1; start <= text.size();) {
        std::size_t end = text.find('/', start);
        if (end == std::string_view::npos)
            end = text.size();
        const std::string_view segment = text.substr(start, end - start);
        start = end + 1;
        // Rejected, not resolved: what ".." means depends on symlinks on the host, which we do not follow
        // here.
        if (segment == "..")
            return fail("policy.invalid_mount",
                        at(path, "must not contain \"..\", got " + quoteUntrusted(text)));
        if (segment.empty() || segment == ".")
            continue;
        normalised += '/';
        normalised += segment;
    }
    return normalised.empty() ? std::string("/") : normalised;
}

bool isBeneath(std::string_view child, std::string_view parent)
{
    return child.size() > parent.size() + 1 && child.starts_with(parent) && child[parent.size()] == '/';
}

Result<Mount> readMount(const Json &value, std::string_view path)
{
    CORDON_TRY(Fields::expectObject(value, path));
    CORDON_TRY(Fields::checkKeys(value, path, {"host", "target", "read_only"}));
    Mount mount;
    for (auto [key, field] : {std::pair{std::string_view("host"), &mount.host},
                              std::pair{std::string_view("target"), &mount.target}}) {
        const std::string fieldPath = jsonMemberPath(path, key);
        CORDON_TRY(Fields::requireKey(value, path, key));
        const Result<std::string> text = Fields::toString(value[key], fieldPath, MaxMountPathLength);
        if (!text)
            return fail(text.error());
        Result<std::string> normalised = normaliseMountPath(*text, fieldPath);
        if (!normalised)
            return fail(normalised.error());
        *field = std::move(*normalised);
    }
    // /mnt/data is the workspace with its own inputs/ and outputs/ mounts; a policy must not cover or enter
    // it.
    const std::string targetPath = jsonMemberPath(path, "target");
    const std::string_view workspace = "/mnt/data";
    if (mount.target == workspace || isBeneath(mount.target, workspace))
        return fail(
            "policy.invalid_mount",
            at(targetPath, "/mnt/data is the workspace; choose another directory under /mnt/ or /opt/, got " +
                               quoteUntrusted(mount.target)));
    if (!isBeneath(mount.target, "/mnt") && !isBeneath(mount.target, "/opt"))
        return fail("policy.invalid_mount", at(targetPath, "must be a directory under /mnt/ or /opt/, got " +
                                                               quoteUntrusted(mount.target)));
    CORDON_TRY(Fields::readBool(value, path, "read_only", mount.readOnly));
    return mount;
}

Result<std::vector<Mount>> readMounts(const Json &value)
{
    const std::string_view path = "mounts";
    CORDON_TRY(Fields::expectArray(value, path, MaxMounts));
    std::vector<Mount> mounts;
    for (std::size_t i = 0; i < value.items().size(); ++i) {
        const std::string itemPath = jsonIndexPath(path, i);
        Result<Mount> mount = readMount(value.items()[i], itemPath);
        if (!mount)
            return fail(mount.error());
        const std::string targetPath = jsonMemberPath(itemPath, "target");
        for (const Mount &earlier : mounts) {
            if (earlier.target == mount->target)
                return fail("policy.invalid_mount",
                            at(targetPath, quoteUntrusted(mount->target) + " is already a mount target"));
            // The inner mount point would have to be created inside the outer mount's host directory, on the
            // host; and the order of the two mounts would decide which one wins.
            if (isBeneath(earlier.target, mount->target) || isBeneath(mount->target, earlier.target))
                return fail("policy.invalid_mount",
                            at(targetPath, quoteUntrusted(mount->target) + " and " +
                                               quoteUntrusted(earlier.target) +
                                               " are nested; mount targets must not contain each other"));
        }
        mounts.push_back(std::move(*mount));
    }
    return mounts;
}

Result<std::map<std::string, std::string>> readEnv(const Json &value)
{
    const std::string_view path = "env";
    CORDON_TRY(Fields::expectObject(value, path));
    if (value.members().size() > MaxEnvEntries)
        return fail("policy.out_of_range",
                    at(path, "must have at most " + std::to_string(MaxEnvEntries) + " variables, got " +
                                 std::to_string(value.members().size())));
    std::map<std::string, std::string> env;
    for (const auto &[name, entry] : value.members()) {
        const std::string itemPath = jsonMemberPath(path, name);
        if (codePointCount(name) > MaxEnvNameLength)
            return fail(
                "policy.out_of_range",
                at(itemPath, "the name must be at most " + std::to_string(MaxEnvNameLength) + " characters"));
        if (!isEnvName(name))
            return fail("policy.invalid_env", at(itemPath, "the name must match [A-Za-z_][A-Za-z0-9_]*"));
        Result<std::string> text = Fields::toString(entry, itemPath, MaxEnvValueBytes);
        if (!text)
            return fail(text.error());
        // execve() takes C strings: a NUL would silently cut the value short.
        if (text->find('\0') != std::string::npos)
            return fail("policy.invalid_env", at(itemPath, "the value contains a NUL character"));
        if (text->size() > MaxEnvValueBytes)
            return fail("policy.out_of_range",
                        at(itemPath, "the value must be at most " + std::to_string(MaxEnvValueBytes) +
                                         " bytes, got " + std::to_string(text->size())));
        env.emplace(name, std::move(*text));
    }
    return env;
}

Result<SecretRef> readSecretRef(const Json &value, std::string_view path)
{
    CORDON_TRY(Fields::expectObject(value, path));
    CORDON_TRY(Fields::checkKeys(value, path, {"name", "env"}));
    SecretRef ref;
    Result<std::string> name = Fields::readSecretName(value, path);
    if (!name)
        return fail(name.error());
    ref.name = std::move(*name);
    ref.env = ref.name;
    if (!value["env"].isUndefined()) {
        const std::string envPath = jsonMemberPath(path, "env");
        Result<std::string> env = Fields::toString(value["env"], envPath, MaxEnvNameLength);
        if (!env)
            return fail(env.error());
        if (!isEnvName(*env))
            return fail("policy.invalid_secret",
                        at(envPath, "must match [A-Za-z_][A-Za-z0-9_]*, got " + quoteUntrusted(*env)));
        ref.env = std::move(*env);
    }
    return ref;
}

Result<std::vector<SecretRef>> readSecrets(const Json &value)
{
    const std::string_view path = "secrets";
    CORDON_TRY(Fields::expectArray(value, path, MaxSecretRefs));
    std::vector<SecretRef> secrets;
    for (std::size_t i = 0; i < value.items().size(); ++i) {
        const std::string itemPath = jsonIndexPath(path, i);
        Result<SecretRef> ref = readSecretRef(value.items()[i], itemPath);
        if (!ref)
            return fail(ref.error());
        for (const SecretRef &earlier : secrets) {
            if (earlier.env == ref->env)
                return fail(
                    "policy.invalid_secret",
                    at(itemPath, "variable " + ref->env + " already receives secret " + earlier.name));
        }
        secrets.push_back(std::move(*ref));
    }
    return secrets;
}

} // namespace

Result<ContainerPolicy> ContainerPolicy::fromJson(std::string_view json)
{
    const Result<Json> document = Fields::readDocument(json);
    if (!document)
        return fail(document.error());
    return fromJsonValue(*document);
}

const char *artifactScanName(ArtifactScan mode)
{
    switch (mode) {
    case ArtifactScan::Block:
        return "block";
    case ArtifactScan::Warn:
        return "warn";
    case ArtifactScan::Redact:
        return "redact";
    case ArtifactScan::Off:
        return "off";
    case ArtifactScan::Default:
        break;
    }
    return "default";
}

std::optional<ArtifactScan> artifactScanFromName(std::string_view name)
{
    for (ArtifactScan mode : {ArtifactScan::Default, ArtifactScan::Block, ArtifactScan::Warn,
                              ArtifactScan::Redact, ArtifactScan::Off}) {
        if (name == artifactScanName(mode))
            return mode;
    }
    return std::nullopt;
}

namespace {

Result<ArtifactScan> readArtifactScan(const Json &value)
{
    const Result<std::string> name = Fields::toString(value, "artifact_scan", 32);
    if (!name)
        return fail(name.error());
    if (const std::optional<ArtifactScan> mode = artifactScanFromName(*name))
        return *mode;
    return fail("policy.invalid_value", at("artifact_scan", "must be \"default\", \"block\", \"warn\", "
                                                            "\"redact\" or \"off\", got " +
                                                                quoteUntrusted(*name)));
}

} // namespace

Result<ContainerPolicy> ContainerPolicy::fromJsonValue(const Json &document)
{
    if (!document.isObject())
        return fail("policy.wrong_type",
                    at({}, "the document must be a JSON object, got " + Fields::typeName(document)));
    CORDON_TRY(Fields::checkKeys(document, {},
                                 {"name", "memory_limit", "expires_after", "network_policy", "limits",
                                  "mounts", "env", "secrets", "allow_ptrace", "artifact_scan"}));
    ContainerPolicy policy;
    // Each optional field: absent keeps the default, present must be valid.
    const auto read = [&document](std::string_view key, auto reader, auto &out) -> Result<> {
        const Json &value = document[key];
        if (value.isUndefined())
            return {};
        auto result = reader(value);
        if (!result)
            return fail(result.error());
        out = std::move(*result);
        return {};
    };
    CORDON_TRY(read("name", readName, policy.name));
    std::int64_t memoryLimitBytes = policy.memoryLimitBytes;
    CORDON_TRY(read("memory_limit", readMemoryLimit, memoryLimitBytes));
    policy.setMemoryLimit(memoryLimitBytes);
    CORDON_TRY(read("expires_after", readExpiresAfter, policy.expiresAfter));
    CORDON_TRY(read(
        "network_policy", [](const Json &value) { return NetworkPolicy::fromJson(value, "network_policy"); },
        policy.network));
    CORDON_TRY(read(
        "limits", [&policy](const Json &value) { return readLimits(value, policy.memoryLimitBytes); },
        policy.limits));
    CORDON_TRY(read("mounts", readMounts, policy.mounts));
    CORDON_TRY(read("env", readEnv, policy.env));
    CORDON_TRY(read("secrets", readSecrets, policy.secrets));
    for (std::size_t i = 0; i < policy.secrets.size(); ++i) {
        if (policy.env.count(policy.secrets[i].env) != 0)
            return fail("policy.invalid_secret", at(jsonIndexPath("secrets", i),
                                                    "variable " + policy.secrets[i].env +
                                                        " is also set in env; a variable has one source"));
    }
    for (std::size_t i = 0; i < policy.network.domainSecrets.size(); ++i) {
        const std::string &variable = policy.network.domainSecrets[i].name;
        const bool injected = std::any_of(policy.secrets.begin(), policy.secrets.end(),
                                          [&](const SecretRef &ref) { return ref.env == variable; });
        if (policy.env.count(variable) != 0 || injected)
            return fail("policy.invalid_secret",
                        at(jsonIndexPath("network_policy.domain_secrets", i),
                           "variable " + variable +
                               " would hold the domain secret's placeholder and is also set in env or "
                               "secrets; a variable has one source"));
    }
    CORDON_TRY(Fields::readBool(document, {}, "allow_ptrace", policy.allowPtrace));
    CORDON_TRY(read("artifact_scan", readArtifactScan, policy.artifactScan));
    return policy;
}

void ContainerPolicy::setMemoryLimit(std::int64_t bytes)
{
    if (limits.workspaceMb == Defaults::workspaceMbFor(memoryLimitBytes))
        limits.workspaceMb = Defaults::workspaceMbFor(bytes);
    if (limits.tmpMb == Defaults::tmpMbFor(memoryLimitBytes))
        limits.tmpMb = Defaults::tmpMbFor(bytes);
    memoryLimitBytes = bytes;
}

Json ContainerPolicy::toJson() const
{
    Json::Array mountArray;
    for (const Mount &mount : mounts)
        mountArray.push_back(
            Json::object({{"host", mount.host}, {"target", mount.target}, {"read_only", mount.readOnly}}));
    Json envObject = Json::object();
    for (const auto &[variable, value] : env)
        envObject.insert(variable, value);
    // A tier is written as its name so that stored policies stay readable; any other size as a byte count.
    const Json memory =
        isMemoryTier(memoryLimitBytes) ? Json(formatMemoryLimit(memoryLimitBytes)) : Json(memoryLimitBytes);
    Json document = Json::object({
        {"name", name},
        {"memory_limit", memory},
        {"expires_after", Json::object({{"anchor", expiresAfter.anchor}, {"minutes", expiresAfter.minutes}})},
        {"network_policy", network.toJson()},
        {"limits", Json::object({{"run_timeout_s", limits.runTimeoutS},
                                 {"pids", limits.pids},
                                 {"tmp_mb", limits.tmpMb},
                                 {"workspace_mb", limits.workspaceMb},
                                 {"output_mb", limits.outputMb}})},
        {"mounts", Json(std::move(mountArray))},
        {"env", std::move(envObject)},
        {"allow_ptrace", allowPtrace},
    });
    // Written only when not the default, so that older policies keep their versions.
    if (artifactScan != ArtifactScan::Default)
        document.insert("artifact_scan", artifactScanName(artifactScan));
    // Written only when there are any, so that a policy without secrets keeps the version it always had.
    if (!secrets.empty()) {
        Json::Array refs;
        for (const SecretRef &ref : secrets)
            refs.push_back(Json::object({{"name", ref.name}, {"env", ref.env}}));
        document.insert("secrets", Json(std::move(refs)));
    }
    return document;
}

std::string ContainerPolicy::canonicalJson() const
{
    return toCanonicalJson(toJson());
}

std::string ContainerPolicy::version() const
{
    return sha256Hex(canonicalJson());
}

Result<ContainerPolicy> ContainerPolicy::validated() const
{
    // One set of rules: the canonical form goes through the same reader as any document.
    return fromJson(canonicalJson());
}

} // namespace Cordon::Policy
