// SPDX-License-Identifier: MIT
#include "isolation/sandboxspec.h"

#include <QDir>
#include <QFileInfo>

#include <sys/mount.h>
#include <unistd.h>

namespace Cordon::Isolation {

namespace {

constexpr quint32 NobodyId = 65534;

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
    explicit PlanBuilder(SandboxSpec &spec) : m_spec(spec) {}

    void dir(const char *target, std::uint32_t mode = 0755)
    {
        add({MountOpKind::Dir, target, {}, 0, mode, -1, false});
    }
    void file(const char *target, const QString &contents, std::uint32_t mode = 0644)
    {
        add({MountOpKind::File, target, contents.toStdString(), 0, mode, -1, false});
    }
    void symlink(const QString &target, const QString &value)
    {
        add({MountOpKind::Symlink, target.toStdString(), value.toStdString(), 0, 0, -1, false});
    }
    void tmpfs(const char *target, const QString &options, std::uint64_t flags)
    {
        add({MountOpKind::Tmpfs, target, options.toStdString(), flags, 0, -1, false});
    }
    void bind(const QString &host, const QString &target, std::uint64_t flags)
    {
        add({MountOpKind::BindFd, target.toStdString(), {}, flags, 0, sourceIndex(host), false});
    }
    void simple(MountOpKind kind, const char *target) { add({kind, target, {}, 0, 0, -1, false}); }
    void maskFile(const char *target)
    {
        add({MountOpKind::MaskFile, target, {}, 0, 0, sourceIndex(QStringLiteral("/dev/null")), false});
    }

private:
    void add(MountOp op) { m_spec.setup.mounts.push_back(std::move(op)); }
    int sourceIndex(const QString &host)
    {
        const qsizetype existing = m_spec.bindSources.indexOf(host);
        if (existing >= 0)
            return static_cast<int>(existing);
        m_spec.bindSources.append(host);
        return static_cast<int>(m_spec.bindSources.size() - 1);
    }

    SandboxSpec &m_spec;
};

QString hostPath(const QString &hostRoot, const char *path)
{
    return QDir::cleanPath(hostRoot + QLatin1Char('/') + QLatin1String(path));
}

// Shares a host entry at the same path: a symlink is recreated as a symlink (never followed to a place the
// plan did not name), anything else is bound read-only. Missing entries are skipped.
QString readLinkValue(const QString &path)
{
    char buffer[4096];
    const QByteArray encoded = QFile::encodeName(path);
    const ssize_t length = ::readlink(encoded.constData(), buffer, sizeof buffer);
    return length > 0 ? QFile::decodeName(QByteArray(buffer, static_cast<int>(length))) : QString();
}

void shareReadOnly(PlanBuilder &plan, const QString &hostRoot, const char *path)
{
    const QFileInfo info(hostPath(hostRoot, path));
    if (info.isSymLink()) {
        const QString value = readLinkValue(info.filePath());
        if (!value.isEmpty())
            plan.symlink(QLatin1String(path), value);
        return;
    }
    if (info.exists())
        plan.bind(info.filePath(), QLatin1String(path), ReadOnlyBind);
}

QString passwdFile(const IdMapping &ids)
{
    return QStringLiteral("root:x:0:0:root:/root:/usr/sbin/nologin\n"
                          "sandbox:x:%1:%2:Cordon sandbox:/mnt/data:/bin/sh\n"
                          "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n")
        .arg(ids.insideUid)
        .arg(ids.insideGid);
}

QString groupFile(const IdMapping &ids)
{
    return QStringLiteral("root:x:0:\nsandbox:x:%1:\nnogroup:x:65534:\n").arg(ids.insideGid);
}

} // namespace

IdMapping idMappingFor(quint32 callerUid, quint32 callerGid)
{
    IdMapping ids;
    ids.hostUid = callerUid == 0 ? NobodyId : callerUid;
    ids.hostGid = callerUid == 0 ? NobodyId : callerGid;
    return ids;
}

Result<SandboxSpec> buildSandboxSpec(const Policy::ContainerPolicy &policy, const WorkspacePaths &workspace,
                                     const IdMapping &ids, const QString &hostRoot)
{
    for (const QString *path : {&workspace.work, &workspace.inputs, &workspace.outputs}) {
        if (!QDir::isAbsolutePath(*path))
            return fail(QStringLiteral("sandbox.invalid_workspace"),
                        QStringLiteral("workspace path is not absolute: %1").arg(*path));
    }

    SandboxSpec spec;
    spec.ids = ids;
    spec.setup.insideUid = ids.insideUid;
    spec.setup.insideGid = ids.insideGid;
    spec.setup.hostname = "sandbox";
    spec.setup.proxyListener = policy.network.type == Policy::NetworkPolicy::Type::Allowlist;
    PlanBuilder plan(spec);

    for (const char *dir : SystemDirs)
        shareReadOnly(plan, hostRoot, dir);

    plan.dir("/etc");
    for (const char *entry : EtcEntries)
        shareReadOnly(plan, hostRoot, entry);
    plan.file("/etc/passwd", passwdFile(ids));
    plan.file("/etc/group", groupFile(ids));
    plan.file("/etc/hostname", QStringLiteral("sandbox\n"));
    plan.file("/etc/hosts", QStringLiteral("127.0.0.1\tlocalhost sandbox\n::1\tlocalhost ip6-localhost\n"));
    // No nameserver: names are resolved only by the egress proxy, after its allowlist check.
    plan.file("/etc/resolv.conf",
              QStringLiteral("# Cordon: no resolver inside the sandbox\noptions attempts:1 timeout:1\n"));
    plan.file("/etc/nsswitch.conf", QStringLiteral("passwd: files\ngroup: files\nhosts: files\n"));

    plan.tmpfs("/dev", QStringLiteral("mode=0755,size=64k"), MS_NOSUID | MS_NOEXEC);
    for (const char *node : DeviceNodes) {
        const QString host = hostPath(hostRoot, "/dev") + QLatin1Char('/') + QLatin1String(node);
        if (QFileInfo::exists(host))
            plan.bind(host, QStringLiteral("/dev/") + QLatin1String(node), MS_NOSUID | MS_NOEXEC);
    }
    plan.simple(MountOpKind::Devpts, "/dev/pts");
    plan.symlink(QStringLiteral("/dev/ptmx"), QStringLiteral("pts/ptmx"));
    plan.tmpfs("/dev/shm", QStringLiteral("mode=1777,size=64m"), MS_NOSUID | MS_NODEV | MS_NOEXEC);
    plan.symlink(QStringLiteral("/dev/fd"), QStringLiteral("/proc/self/fd"));
    plan.symlink(QStringLiteral("/dev/stdin"), QStringLiteral("/proc/self/fd/0"));
    plan.symlink(QStringLiteral("/dev/stdout"), QStringLiteral("/proc/self/fd/1"));
    plan.symlink(QStringLiteral("/dev/stderr"), QStringLiteral("/proc/self/fd/2"));
    plan.simple(MountOpKind::ReadOnly, "/dev");

    plan.simple(MountOpKind::Proc, "/proc");
    for (const char *path : MaskedProcFiles)
        plan.maskFile(path);
    for (const char *path : MaskedProcDirs)
        plan.simple(MountOpKind::MaskDir, path);
    for (const char *path : ReadOnlyProcDirs)
        plan.simple(MountOpKind::ReadOnly, path);

    plan.tmpfs("/tmp", QStringLiteral("mode=1777,size=%1m").arg(policy.limits.tmpMb), MS_NOSUID | MS_NODEV);

    plan.dir("/mnt");
    plan.bind(workspace.work, QLatin1String(InsideWorkDir), MS_NOSUID | MS_NODEV);
    plan.bind(workspace.inputs, QStringLiteral("/mnt/data/inputs"), ReadOnlyBind);
    plan.bind(workspace.outputs, QStringLiteral("/mnt/data/outputs"), MS_NOSUID | MS_NODEV | MS_NOEXEC);

    // Source files of code runs live outside the workspace on a read-only mount: the engine writes them on
    // the host, and the sandbox cannot swap them (or plant a symlink for the engine to follow) in between.
    if (!workspace.code.isEmpty())
        plan.bind(workspace.code, QLatin1String(InsideCodeDir), ReadOnlyBind | MS_NOEXEC);

    for (const Policy::Mount &mount : policy.mounts) {
        const std::uint64_t flags = MS_NOSUID | MS_NODEV | (mount.readOnly ? MS_RDONLY : 0);
        plan.bind(mount.host, mount.target, flags);
    }
    return spec;
}

QStringList runEnvironment(const Policy::ContainerPolicy &policy)
{
    QMap<QString, QString> env{{QStringLiteral("PATH"), QLatin1String(InsidePath)},
                               {QStringLiteral("HOME"), QLatin1String(InsideWorkDir)},
                               {QStringLiteral("LANG"), QStringLiteral("C.UTF-8")},
                               {QStringLiteral("TERM"), QStringLiteral("dumb")},
                               {QStringLiteral("USER"), QStringLiteral("sandbox")},
                               {QStringLiteral("LOGNAME"), QStringLiteral("sandbox")},
                               {QStringLiteral("TMPDIR"), QStringLiteral("/tmp")}};
    // With an allowlist, the only way out is the proxy listening inside the container; programs that honour
    // the usual variables find it, and programs that ignore them have no route at all.
    if (policy.network.type == Policy::NetworkPolicy::Type::Allowlist) {
        const QString proxy = QStringLiteral("http://127.0.0.1:%1").arg(ProxyPort);
        for (const char *name :
             {"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"})
            env.insert(QLatin1String(name), proxy);
    }
    for (auto it = policy.env.cbegin(); it != policy.env.cend(); ++it)
        env.insert(it.key(), it.value());
    QStringList entries;
    for (auto it = env.cbegin(); it != env.cend(); ++it)
        entries.append(it.key() + QLatin1Char('=') + it.value());
    return entries;
}

} // namespace Cordon::Isolation
