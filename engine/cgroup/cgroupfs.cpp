// SPDX-License-Identifier: MIT
#include "cgroup/cgroupfs.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <thread>
#include <unistd.h>

namespace Cordon::Cgroup::Fs {

namespace {

using namespace std::chrono_literals;

QString ticked(const QString &path)
{
    return QStringLiteral("`") + path + QStringLiteral("`");
}

int closeKeepingErrno(int fd)
{
    const int saved = errno;
    const int rc = ::close(fd);
    errno = saved;
    return rc;
}

int pidfdOpen(pid_t pid)
{
#ifdef SYS_pidfd_open
    return int(::syscall(SYS_pidfd_open, pid, 0));
#else
    errno = ENOSYS;
    return -1;
#endif
}

int pidfdKill(int pidfd)
{
#ifdef SYS_pidfd_send_signal
    return int(::syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, nullptr, 0));
#else
    errno = ENOSYS;
    return -1;
#endif
}

// One round: signals every process that is listed, returns how many were listed.
Result<int> killListed(const QStringList &procsFiles)
{
    auto first = readPids(procsFiles);
    if (!first)
        return tl::unexpected(first.error());
    if (first->isEmpty())
        return 0;

    struct Pinned
    {
        pid_t pid;
        int fd;
    };
    QList<Pinned> pinned;
    bool havePidfd = true;
    for (pid_t pid : std::as_const(*first)) {
        const int fd = pidfdOpen(pid);
        if (fd < 0 && errno == ENOSYS) {
            havePidfd = false;
            break;
        }
        if (fd >= 0)
            pinned.append({pid, fd});
    }
    auto closeAll = [&pinned] {
        for (const Pinned &p : std::as_const(pinned))
            ::close(p.fd);
    };

    // Re-read after pinning: a pid still listed now names the pinned process (pids are unique among the
    // living), and that process is in the group.
    auto second = readPids(procsFiles);
    if (!second) {
        closeAll();
        return tl::unexpected(second.error());
    }
    Result<int> result = int(first->size());
    if (havePidfd) {
        for (const Pinned &p : std::as_const(pinned)) {
            if (!std::binary_search(second->cbegin(), second->cend(), p.pid))
                continue;
            if (pidfdKill(p.fd) != 0 && errno != ESRCH && result) {
                result = tl::unexpected(Error::fromErrno(QStringLiteral("cgroup.io"),
                                                         QStringLiteral("kill pid %1").arg(p.pid), errno));
            }
        }
    } else {
        // Kernels before 5.3: plain kill(2) on pids listed in both reads; the window is the time between
        // them.
        for (pid_t pid : std::as_const(*second)) {
            if (!std::binary_search(first->cbegin(), first->cend(), pid))
                continue;
            if (::kill(pid, SIGKILL) != 0 && errno != ESRCH && result) {
                result = tl::unexpected(Error::fromErrno(QStringLiteral("cgroup.io"),
                                                         QStringLiteral("kill pid %1").arg(pid), errno));
            }
        }
    }
    closeAll();
    return result;
}

} // namespace

Result<QByteArray> readFile(const QString &path)
{
    const QByteArray native = path.toLocal8Bit();
    const int fd = ::open(native.constData(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return failErrno(QStringLiteral("cgroup.io"), QStringLiteral("read ") + ticked(path), errno);
    QByteArray data;
    char buffer[4096];
    for (;;) {
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            const int err = errno;
            ::close(fd);
            return failErrno(QStringLiteral("cgroup.io"), QStringLiteral("read ") + ticked(path), err);
        }
        if (n == 0)
            break;
        data.append(buffer, n);
    }
    ::close(fd);
    return data;
}

Result<> writeFile(const QString &path, QByteArrayView data)
{
    const QByteArray native = path.toLocal8Bit();
    const int fd = ::open(native.constData(), O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return failErrno(QStringLiteral("cgroup.io"), QStringLiteral("write ") + ticked(path), errno);
    // cgroupfs parses each write(2) as one complete value, so the value must go in a single call.
    ssize_t n;
    do {
        n = ::write(fd, data.data(), size_t(data.size()));
    } while (n < 0 && errno == EINTR);
    if (n != ssize_t(data.size())) {
        const int err = n < 0 ? errno : EIO;
        closeKeepingErrno(fd);
        return failErrno(QStringLiteral("cgroup.io"), QStringLiteral("write ") + ticked(path), err);
    }
    if (::close(fd) != 0)
        return failErrno(QStringLiteral("cgroup.io"), QStringLiteral("write ") + ticked(path), errno);
    return {};
}

Result<qint64> readValue(const QString &path)
{
    auto data = readFile(path);
    if (!data)
        return tl::unexpected(data.error());
    auto value = parseLimitValue(*data);
    if (!value)
        return fail(value.error().wrap(QStringLiteral("parse ") + ticked(path)));
    return value;
}

Result<QHash<QByteArray, qint64>> readFlatKeyed(const QString &path)
{
    auto data = readFile(path);
    if (!data)
        return tl::unexpected(data.error());
    return parseFlatKeyed(*data);
}

Result<QStringList> readControllers(const QString &path)
{
    auto data = readFile(path);
    if (!data)
        return tl::unexpected(data.error());
    return parseControllerList(*data);
}

bool exists(const QString &path)
{
    struct stat st;
    return ::stat(path.toLocal8Bit().constData(), &st) == 0;
}

Result<bool> makeDir(const QString &path)
{
    if (::mkdir(path.toLocal8Bit().constData(), 0755) == 0)
        return true;
    if (errno == EEXIST)
        return false;
    return failErrno(QStringLiteral("cgroup.io"), QStringLiteral("mkdir ") + ticked(path), errno);
}

Result<> removeDir(const QString &path)
{
    const QByteArray native = path.toLocal8Bit();
    // A group is busy for a moment after its last process was killed: the task leaves the group late in
    // exit. Two seconds is far longer than that takes on an idle machine.
    auto delay = 5ms;
    const auto deadline = std::chrono::steady_clock::now() + 2s;
    for (;;) {
        if (::rmdir(native.constData()) == 0 || errno == ENOENT)
            return {};
        if (errno != EBUSY || std::chrono::steady_clock::now() >= deadline)
            return failErrno(QStringLiteral("cgroup.io"), QStringLiteral("rmdir ") + ticked(path), errno);
        std::this_thread::sleep_for(delay);
        delay = std::min(delay * 2, std::chrono::milliseconds(100));
    }
}

qint64 ownerOf(const QString &path)
{
    struct stat st;
    if (::stat(path.toLocal8Bit().constData(), &st) != 0)
        return -1;
    return qint64(st.st_uid);
}

bool writable(const QString &path)
{
    return ::access(path.toLocal8Bit().constData(), W_OK) == 0;
}

Result<QList<pid_t>> readPids(const QStringList &procsFiles)
{
    QList<pid_t> pids;
    for (const QString &file : procsFiles) {
        auto data = readFile(file);
        if (!data)
            return tl::unexpected(data.error());
        for (const QByteArray &line : data->split('\n')) {
            if (line.trimmed().isEmpty())
                continue;
            bool ok = false;
            const int pid = line.trimmed().toInt(&ok);
            if (!ok || pid <= 0)
                return fail(QStringLiteral("cgroup.io"), QStringLiteral("parse ") + ticked(file) +
                                                             QStringLiteral(": `") + QString::fromUtf8(line) +
                                                             QStringLiteral("` is not a pid"));
            pids.append(pid_t(pid));
        }
    }
    // v1 documents cgroup.procs as neither sorted nor free of duplicates.
    std::sort(pids.begin(), pids.end());
    pids.erase(std::unique(pids.begin(), pids.end()), pids.end());
    return pids;
}

Result<> killUntilEmpty(const QStringList &procsFiles, std::chrono::milliseconds timeout)
{
    // Without a freezer, a process may fork between our read and our kill; each round kills what is listed,
    // and the children forked meanwhile are listed in the next one. pids.max bounds how many there can be.
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    auto delay = 2ms;
    int lastCount = 0;
    for (;;) {
        auto listed = killListed(procsFiles);
        if (!listed)
            return tl::unexpected(listed.error());
        if (*listed == 0)
            return {};
        lastCount = *listed;
        if (std::chrono::steady_clock::now() >= deadline)
            break;
        std::this_thread::sleep_for(delay);
        delay = std::min(delay * 2, std::chrono::milliseconds(50));
    }
    return fail(QStringLiteral("cgroup.io"),
                QStringLiteral("kill: %1 process(es) still listed in %2 after %3 ms of SIGKILL")
                    .arg(lastCount)
                    .arg(ticked(procsFiles.value(0)))
                    .arg(timeout.count()),
                EBUSY);
}

Result<> waitUntilEmpty(const QStringList &procsFiles, std::chrono::milliseconds timeout)
{
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    auto delay = 1ms;
    for (;;) {
        auto pids = readPids(procsFiles);
        if (!pids)
            return tl::unexpected(pids.error());
        if (pids->isEmpty())
            return {};
        if (std::chrono::steady_clock::now() >= deadline)
            return fail(QStringLiteral("cgroup.io"),
                        QStringLiteral("kill: %1 process(es) still listed in %2 after %3 ms")
                            .arg(pids->size())
                            .arg(ticked(procsFiles.value(0)))
                            .arg(timeout.count()),
                        EBUSY);
        std::this_thread::sleep_for(delay);
        delay = std::min(delay * 2, std::chrono::milliseconds(50));
    }
}

QString fsPathOf(const MountEntry &mount, const QString &procPath)
{
    QString relative;
    if (mount.root == QLatin1String("/"))
        relative = procPath;
    else if (procPath == mount.root || procPath.startsWith(mount.root + QLatin1Char('/')))
        relative = procPath.mid(mount.root.size());
    else
        return {};
    if (relative.isEmpty() || relative == QLatin1String("/"))
        return mount.mountPoint;
    return mount.mountPoint + relative;
}

QString joinPath(const QString &dir, const QString &name)
{
    if (dir.endsWith(QLatin1Char('/')))
        return dir + name;
    return dir + QLatin1Char('/') + name;
}

QString parentOf(const QString &path)
{
    const qsizetype slash = path.lastIndexOf(QLatin1Char('/'));
    return slash <= 0 ? QStringLiteral("/") : path.left(slash);
}

QString commonAncestor(const QString &a, const QString &b)
{
    const QStringList left = a.split(QLatin1Char('/'), Qt::SkipEmptyParts);
    const QStringList right = b.split(QLatin1Char('/'), Qt::SkipEmptyParts);
    QString common;
    for (qsizetype i = 0; i < qMin(left.size(), right.size()) && left[i] == right[i]; ++i)
        common += QLatin1Char('/') + left[i];
    return common.isEmpty() ? QStringLiteral("/") : common;
}

Result<> enableControllers(const QString &dir, const QStringList &controllers)
{
    auto enabled = readControllers(dir + QStringLiteral("/cgroup.subtree_control"));
    if (!enabled)
        return tl::unexpected(enabled.error());
    QByteArray request;
    for (const QString &controller : controllers) {
        if (!enabled->contains(controller))
            request += (request.isEmpty() ? QByteArray("+") : QByteArray(" +")) + controller.toLatin1();
    }
    if (request.isEmpty())
        return {};
    auto available = readControllers(dir + QStringLiteral("/cgroup.controllers"));
    if (!available)
        return tl::unexpected(available.error());
    for (const QString &controller : controllers) {
        if (!available->contains(controller))
            return fail(
                QStringLiteral("cgroup.unavailable"),
                QStringLiteral("the %1 controller is not available in %2: its parent does not pass it down")
                    .arg(controller, ticked(dir)));
    }
    return writeFile(dir + QStringLiteral("/cgroup.subtree_control"), request);
}

} // namespace Cordon::Cgroup::Fs
