// SPDX-License-Identifier: MIT
// Runs a check in a forked child that may first enter new user and mount namespaces (to mount without
// privileges) or lose openat2(2) to a seccomp filter (as on kernels before 5.6, and under profiles that
// predate it). The child must not use Qt Test's state: it reports "name=value" lines on a pipe, and the
// parent compares them. A child that could not set itself up reports "error=...".
#pragma once

#include <QHash>
#include <QString>

#include <cerrno>
#include <cstddef>
#include <fcntl.h>
#include <functional>
#include <iterator>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <string>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

namespace ChildReport {

struct Setup
{
    bool namespaces = true; // own user (ids mapped 1:1 to ours) and mount namespaces, "/" made private
    bool noOpenat2 = false; // openat2 answers ENOSYS
};

inline void say(int fd, const std::string &name, long long value)
{
    const std::string line = name + "=" + std::to_string(value) + "\n";
    [[maybe_unused]] auto n = ::write(fd, line.data(), line.size());
}

namespace Detail {

inline bool writeFile(const char *path, const std::string &contents)
{
    const int fd = ::open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    const bool written =
        ::write(fd, contents.data(), contents.size()) == static_cast<ssize_t>(contents.size());
    ::close(fd);
    return written;
}

inline bool enterNamespaces()
{
    const std::string uidMap = "0 " + std::to_string(::geteuid()) + " 1";
    const std::string gidMap = "0 " + std::to_string(::getegid()) + " 1";
    // Our ids mapped, so that files created on the new mounts have an owner the namespace can name.
    return ::unshare(CLONE_NEWUSER | CLONE_NEWNS) == 0 && writeFile("/proc/self/setgroups", "deny") &&
           writeFile("/proc/self/uid_map", uidMap) && writeFile("/proc/self/gid_map", gidMap) &&
           ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) == 0;
}

} // namespace Detail

// What a seccomp profile that predates openat2 does (Docker's did): answer ENOSYS, for this process and its
// children, irrevocably.
inline bool loseOpenat2()
{
    // No architecture check: a test filter that also hits another ABI's syscall of the same number is fine.
    sock_filter filter[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat2, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    sock_fprog program{static_cast<unsigned short>(std::size(filter)), filter};
    return ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 &&
           ::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program, 0, 0) == 0;
}

inline QHash<QString, QString> run(const std::function<void(int)> &body, Setup setup = {})
{
    int pipeFds[2];
    if (::pipe2(pipeFds, O_CLOEXEC) != 0)
        return {{QStringLiteral("error"), QStringLiteral("pipe")}};
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::close(pipeFds[0]);
        const char *failed = nullptr;
        if (setup.namespaces && !Detail::enterNamespaces())
            failed = "unshare";
        else if (setup.noOpenat2 && !loseOpenat2())
            failed = "seccomp";
        if (failed != nullptr) {
            const std::string line = std::string("error=") + failed + ' ' + std::to_string(errno) + '\n';
            [[maybe_unused]] auto n = ::write(pipeFds[1], line.data(), line.size());
            ::_exit(0);
        }
        body(pipeFds[1]);
        ::_exit(0);
    }
    ::close(pipeFds[1]);
    QByteArray output;
    char buffer[4096];
    for (ssize_t n; (n = ::read(pipeFds[0], buffer, sizeof buffer)) > 0;)
        output.append(buffer, n);
    ::close(pipeFds[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    QHash<QString, QString> report;
    for (const QByteArray &line : output.split('\n')) {
        const qsizetype equals = line.indexOf('=');
        if (equals > 0)
            report.insert(QString::fromUtf8(line.left(equals)), QString::fromUtf8(line.mid(equals + 1)));
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        report.insert(QStringLiteral("error"), QStringLiteral("the child did not exit cleanly"));
    return report;
}

} // namespace ChildReport
