// SPDX-License-Identifier: MIT
#include "sandbox/mountplan.h"

#include "sandbox/files/filenames.h"
#include "sandbox/weakening.h"
#include "sandbox/workspace.h"

#include <algorithm>
#include <climits>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

namespace Cordon::Isolation {

namespace {

// System directories shared read-only with every container. On a merged-/usr host /bin, /lib ... are symlinks
// into /usr and are recreated as the same symlinks.
const char *const SystemDirs[] = {"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"};

// The few /etc entries programs need to start and to do TLS; no secrets (shadow, ssh keys, machine-id).
const char *const EtcEntries[] = {
    "/etc/ld.so.cache",     "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives", "/etc/ssl",
    "/etc/ca-certificates", "/etc/protocols",  "/etc/services",     "/etc/mime.types",   "/etc/localtime",
    "/etc/timezone",        "/etc/python3",    "/etc/python3.11"};

const char *const DeviceNodes[] = {"null", "zero", "full", "random", "urandom", "tty"};

// /proc entries that expose the host kernel or let a process poke at it (same list as OCI runtimes mask).
const char *const MaskedProcFiles[] = {"/proc/kcore",    "/proc/sysrq-trigger", "/proc/timer_list",
                                       "/proc/keys",     "/proc/latency_stats", "/proc/sched_debug",
                                       "/proc/kallsyms", "/proc/kmsg",          "/proc/config.gz"};
const char *const MaskedProcDirs[] = {"/proc/acpi", "/proc/scsi", "/proc/asound", "/proc/driver"};
const char *const ReadOnlyProcDirs[] = {"/proc/sys", "/proc/bus", "/proc/fs", "/proc/irq"};

constexpr std::uint64_t ReadOnlyBind = MS_RDONLY | MS_NOSUID | MS_NODEV;

class PlanBuilder
{
public:
    explicit PlanBuilder(SetupRequest &setup) : m_setup(setup) {}

    void dir(std::string target, std::uint32_t mode = 0755)
    {
        add({MountOpKind::Dir, std::move(target), {}, 0, mode, -1, false});
    }
    void file(std::string target, std::string contents, std::uint32_t mode = 0644)
    {
        add({MountOpKind::File, std::move(target), std::move(contents), 0, mode, -1, false});
    }
    void symlink(std::string target, std::string value)
    {
        add({MountOpKind::Symlink, std::move(target), std::move(value), 0, 0, -1, false});
    }
    void tmpfs(std::string target, std::string options, std::uint64_t flags)
    {
        add({MountOpKind::Tmpfs, std::move(target), std::move(options), flags, 0, -1, false});
    }
    void bind(const std::string &host, std::string target, std::uint64_t flags)
    {
        add({MountOpKind::BindFd, std::move(target), {}, flags, 0, sourceIndex(host), false});
    }
    // The host's whole tree at `host`, its submounts included: only what a test build that removes the pid
    // namespace's /proc asks for (sandbox/weakening.h).
    void recursiveBind(const std::string &host, std::string target, std::uint64_t flags)
    {
        add({MountOpKind::BindFd, std::move(target), {}, flags, 0, sourceIndex(host), true});
    }
    void simple(MountOpKind kind, std::string target) { add({kind, std::move(target), {}, 0, 0, -1, false}); }
    void selfBind(std::string target, std::uint64_t flags)
    {
        add({MountOpKind::SelfBind, std::move(target), {}, flags, 0, -1, false});
    }
    void restore(const std::string &host, std::string target)
    {
        add({MountOpKind::Restore, std::move(target), {}, 0, 0, sourceIndex(host), false});
    }
    void maskFile(std::string target)
    {
        add({MountOpKind::MaskFile, std::move(target), {}, 0, 0, sourceIndex("/dev/null"), false});
    }

private:
    void add(MountOp op) { m_setup.mounts.push_back(std::move(op)); }
    int sourceIndex(const std::string &host)
    {
        auto &sources = m_setup.bindSources;
        const auto existing = std::find(sources.begin(), sources.end(), host);
        if (existing != sources.end())
            return static_cast<int>(existing - sources.begin());
        sources.push_back(host);
        return static_cast<int>(sources.size() - 1);
    }

    SetupRequest &m_setup;
};

// `path` (absolute) on the host that is planned against: the real root, or a test's fake tree.
std::string hostPath(const std::string &hostRoot, const char *path)
{
    std::string root = hostRoot;
    while (!root.empty() && root.back() == '/')
        root.pop_back();
    return root + path;
}

// Shares a host entry at the same path: a symlink is recreated as a symlink (never followed to a place the
// plan did not name), anything else is bound read-only. Missing entries are skipped.
void shareReadOnly(PlanBuilder &plan, const std::string &hostRoot, const char *path)
{
    const std::string host = hostPath(hostRoot, path);
    struct stat info
    {
    };
    if (::lstat(host.c_str(), &info) != 0)
        return;
    if (S_ISLNK(info.st_mode)) {
        char value[PATH_MAX];
        const ssize_t length = ::readlink(host.c_str(), value, sizeof value);
        if (length > 0)
            plan.symlink(path, std::string(value, static_cast<std::size_t>(length)));
        return;
    }
    plan.bind(host, path, ReadOnlyBind);
}

std::string passwdFile(std::uint32_t uid, std::uint32_t gid)
{
    return "root:x:0:0:root:/root:/usr/sbin/nologin\n"
           "sandbox:x:" +
           std::to_string(uid) + ':' + std::to_string(gid) +
           ":Cordon sandbox:/mnt/data:/bin/sh\n"
           "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n";
}

std::string groupFile(std::uint32_t gid)
{
    return "root:x:0:\nsandbox:x:" + std::to_string(gid) + ":\nnogroup:x:65534:\n";
}

} // namespace

namespace {

std::string resolvedOrAsIs(const std::string &path)
{
    char resolved[PATH_MAX];
    return ::realpath(path.c_str(), resolved) ? std::string(resolved) : path;
}

bool isBelow(const std::string &path, const std::string &directory)
{
    return path == directory ||
           (path.starts_with(directory) && (directory.ends_with('/') || path[directory.size()] == '/'));
}

// A policy's mount may not show Cordon's data folder, or a folder inside it: it holds every container's saved
// files, its code and the sockets on which a container's PID 1 waits for the next daemon, which a process of
// another container must never reach.
Result<> checkOutsideDataDirectory(const std::vector<ExtraMount> &mounts)
{
    const std::string data = resolvedOrAsIs(Containers::dataDirectory());
    for (const ExtraMount &mount : mounts) {
        const std::string host = resolvedOrAsIs(mount.host);
        if (isBelow(data, host) || isBelow(host, data))
            return fail("policy.mount_data_dir", "the mount of `" + Files::escapeForDisplay(mount.host) +
                                                     "` would show Cordon's data folder `" +
                                                     Files::escapeForDisplay(data) +
                                                     "` (every container's files and control sockets) inside "
                                                     "the container: mount a folder outside it");
    }
    return {};
}

} // namespace

Result<SetupRequest> buildMountPlan(const MountPlanInput &input)
{
    CORDON_TRY(checkOutsideDataDirectory(input.mounts));
    const WorkspaceDirs &workspace = input.workspace;
    for (const std::string *path : {&workspace.work, &workspace.inputs, &workspace.outputs}) {
        if (path->empty() || path->front() != '/')
            return fail("sandbox.invalid_workspace", "workspace path is not absolute: " + *path);
    }

    SetupRequest setup;
    // A container of the host's network (a test build's, sandbox/weakening.h) may not touch its loopback.
    setup.loopbackUp = !weakened(Guarantee::NetworkNamespace);
    setup.insideUid = input.insideUid;
    setup.insideGid = input.insideGid;
    setup.hostname = "sandbox";
    // Nor open the proxy's port on the host's loopback, where another container may have it.
    setup.proxyListener = input.proxyListener && !weakened(Guarantee::NetworkNamespace);
    PlanBuilder plan(setup);

    for (const char *dir : SystemDirs)
        shareReadOnly(plan, input.hostRoot, dir);

    plan.dir("/etc");
    for (const char *entry : EtcEntries)
        shareReadOnly(plan, input.hostRoot, entry);
    plan.file("/etc/passwd", passwdFile(input.insideUid, input.insideGid));
    plan.file("/etc/group", groupFile(input.insideGid));
    plan.file("/etc/hostname", "sandbox\n");
    plan.file("/etc/hosts", "127.0.0.1\tlocalhost sandbox\n::1\tlocalhost ip6-localhost\n");
    // No nameserver: names are resolved only by the egress proxy, after its allowlist check.
    plan.file("/etc/resolv.conf", "# Cordon: no resolver inside the sandbox\noptions attempts:1 timeout:1\n");
    plan.file("/etc/nsswitch.conf", "passwd: files\ngroup: files\nhosts: files\n");

    plan.tmpfs("/dev", "mode=0755,size=64k", MS_NOSUID | MS_NOEXEC);
    for (const char *node : DeviceNodes) {
        const std::string host = hostPath(input.hostRoot, "/dev") + '/' + node;
        if (::access(host.c_str(), F_OK) == 0)
            plan.bind(host, std::string("/dev/") + node, MS_NOSUID | MS_NOEXEC);
    }
    plan.simple(MountOpKind::Devpts, "/dev/pts");
    plan.symlink("/dev/ptmx", "pts/ptmx");
    plan.tmpfs("/dev/shm", "mode=1777,size=64m", MS_NOSUID | MS_NODEV | MS_NOEXEC);
    plan.symlink("/dev/fd", "/proc/self/fd");
    plan.symlink("/dev/stdin", "/proc/self/fd/0");
    plan.symlink("/dev/stdout", "/proc/self/fd/1");
    plan.symlink("/dev/stderr", "/proc/self/fd/2");
    plan.simple(MountOpKind::ReadOnly, "/dev");

    if (weakened(Guarantee::PidNamespaceProc))
        plan.recursiveBind(hostPath(input.hostRoot, "/proc"), "/proc", MS_NOSUID | MS_NODEV | MS_NOEXEC);
    else
        plan.simple(MountOpKind::Proc, "/proc");
    for (const char *path : MaskedProcFiles)
        plan.maskFile(path);
    for (const char *path : MaskedProcDirs)
        plan.simple(MountOpKind::MaskDir, path);
    for (const char *path : ReadOnlyProcDirs)
        plan.simple(MountOpKind::ReadOnly, path);

    plan.tmpfs("/tmp", "mode=1777,size=" + std::to_string(input.tmpMb) + "m", MS_NOSUID | MS_NODEV);

    // The workspace is a tmpfs of workspace_mb inside the container, so the kernel ends a write past the
    // quota with ENOSPC, rootless too; its pages are charged to the container's memory cgroup. What the
    // container saved on the host when it last stopped is restored into it first; outputs/ is the same tmpfs,
    // bound again without exec; inputs/ stays a read-only bind of the host directory uploads go to.
    plan.dir("/mnt");
    plan.tmpfs(InsideWorkDir,
               weakened(Guarantee::WorkspaceQuota) ? std::string("mode=0755")
                                                   : workspaceTmpfsOptions(input.workspaceMb),
               MS_NOSUID | MS_NODEV);
    if (input.restoreSaved) {
        plan.restore(workspace.work, InsideWorkDir);
        plan.restore(workspace.outputs, InsideOutputsDir);
    }
    plan.selfBind(InsideOutputsDir, MS_NOSUID | MS_NODEV | MS_NOEXEC);
    plan.bind(workspace.inputs, InsideInputsDir, ReadOnlyBind);
    setup.handBack = {InsideWorkDir, InsideOutputsDir};

    // Source files of code runs live outside the workspace on a read-only mount: the engine writes them on
    // the host, and the sandbox cannot swap them (or plant a symlink for the engine to follow) in between.
    if (!workspace.code.empty())
        plan.bind(workspace.code, InsideCodeDir, ReadOnlyBind | MS_NOEXEC);

    if (!input.trustBundle.empty())
        plan.bind(input.trustBundle, InsideTrustBundle, ReadOnlyBind | MS_NOEXEC);

    for (const ExtraMount &mount : input.mounts) {
        const std::uint64_t flags = MS_NOSUID | MS_NODEV | (mount.readOnly ? MS_RDONLY : 0);
        plan.bind(mount.host, mount.target, flags);
    }
    return setup;
}

std::string workspaceTmpfsOptions(int workspaceMb)
{
    return "mode=0755,size=" + std::to_string(workspaceMb) +
           "m,nr_inodes=" + std::to_string(workspaceInodes(workspaceMb));
}

std::int64_t workspaceInodes(int workspaceMb)
{
    return std::max<std::int64_t>(std::int64_t(workspaceMb) * 256, 8192);
}

void addTrustBundleVariables(std::vector<std::string> &env)
{
    for (const char *name : {"SSL_CERT_FILE", "CURL_CA_BUNDLE", "REQUESTS_CA_BUNDLE", "PIP_CERT",
                             "GIT_SSL_CAINFO", "AWS_CA_BUNDLE", "NODE_EXTRA_CA_CERTS"}) {
        const std::string prefix = std::string(name) + '=';
        std::erase_if(env, [&](const std::string &entry) { return entry.starts_with(prefix); });
        env.push_back(prefix + InsideTrustBundle);
    }
}

std::vector<std::string> runEnvironment(bool proxyListener,
                                        const std::map<std::string, std::string> &policyEnv)
{
    std::map<std::string, std::string> env{
        {"PATH", InsidePath}, {"HOME", InsideWorkDir}, {"LANG", "C.UTF-8"}, {"TERM", "dumb"},
        {"USER", "sandbox"},  {"LOGNAME", "sandbox"},  {"TMPDIR", "/tmp"}};
    // With an allowlist, the only way out is the proxy listening inside the container; programs that honour
    // the usual variables find it, and programs that ignore them have no route at all.
    if (proxyListener) {
        const std::string proxy = "http://127.0.0.1:" + std::to_string(ProxyPort);
        for (const char *name :
             {"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"})
            env[name] = proxy;
    }
    for (const auto &[name, value] : policyEnv)
        env[name] = value;
    std::vector<std::string> entries;
    entries.reserve(env.size());
    for (const auto &[name, value] : env)
        entries.push_back(name + '=' + value);
    return entries;
}

} // namespace Cordon::Isolation
