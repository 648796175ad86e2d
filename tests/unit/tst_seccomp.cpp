// SPDX-License-Identifier: MIT
// The seccomp allowlist, compiled by the engine and installed the way cordon-init installs it, against one
// probe per syscall that must stay out of reach and per syscall that workloads need. Every outcome is exact:
// an errno, 0, or the signal that killed the probe.
#include "sandbox/init/seccompinstall.h"
#include "sandbox/seccomp/seccompprofile.h"
#include "sandbox/seccompfilters.h"
#include "testutil.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <vector>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace Cordon::Isolation;

namespace {

// Exit codes of the forked child when it fails before exec, outside the errno range a probe can return,
// so a launcher failure can never pass for a probe's answer.
constexpr int ExitInstallFailed = 250;
constexpr int ExitExecFailed = 251;

struct Outcome
{
    bool exited = false;
    int code = -1;  // exit code when exited
    int signal = 0; // terminating signal otherwise
    QByteArray out; // captured stdout, when asked for

    QString describe() const
    {
        if (!exited)
            return QStringLiteral("killed by signal %1 (%2)")
                .arg(signal)
                .arg(QString::fromLocal8Bit(sigabbrev_np(signal) ? sigabbrev_np(signal) : "?"));
        const char *name = code == 0 ? "ok" : strerrorname_np(code);
        return QStringLiteral("exited %1 (%2)").arg(code).arg(QString::fromLocal8Bit(name ? name : "?"));
    }
};

// Forks, installs filter (unless it is null) exactly as cordon-init does, and execs argv[0]; waits for the
// end.
// The profile compiled now with libseccomp; empty (and the test failed) when the compile failed.
QByteArray compiledFilter(const SeccompOptions &options)
{
    const auto program = compileSeccompFilter(options);
    if (!program) {
        QTest::qFail(
            qPrintable(QString::fromStdString(program.error().code() + ": " + program.error().message())),
            __FILE__, __LINE__);
        return {};
    }
    return QByteArray::fromStdString(*program);
}

Outcome runChild(const QStringList &arguments, const QByteArray *filter, bool captureStdout = false)
{
    // Everything the child touches is prepared before fork: after fork only async-signal-safe calls.
    std::vector<QByteArray> argStorage;
    for (const QString &argument : arguments)
        argStorage.push_back(argument.toLocal8Bit());
    std::vector<char *> argv;
    for (QByteArray &argument : argStorage)
        argv.push_back(argument.data());
    argv.push_back(nullptr);

    int pipeFds[2] = {-1, -1};
    if (captureStdout && pipe2(pipeFds, O_CLOEXEC) != 0)
        qFatal("pipe2: %s", strerror(errno));

    const pid_t pid = fork();
    if (pid < 0)
        qFatal("fork: %s", strerror(errno));
    if (pid == 0) {
        if (captureStdout && dup2(pipeFds[1], STDOUT_FILENO) < 0)
            _exit(ExitExecFailed);
        // A probe killed by SIGSYS should not leave a core file behind.
        const rlimit noCore{0, 0};
        setrlimit(RLIMIT_CORE, &noCore);
        if (filter != nullptr && installSeccompFilter(filter->constData(), std::size_t(filter->size())) != 0)
            _exit(ExitInstallFailed);
        execv(argv[0], argv.data());
        _exit(ExitExecFailed);
    }

    Outcome outcome;
    if (captureStdout) {
        close(pipeFds[1]);
        char buffer[4096];
        for (;;) {
            const ssize_t n = read(pipeFds[0], buffer, sizeof buffer);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                break;
            outcome.out.append(buffer, n);
        }
        close(pipeFds[0]);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR)
            qFatal("waitpid: %s", strerror(errno));
    }
    outcome.exited = WIFEXITED(status);
    outcome.code = outcome.exited ? WEXITSTATUS(status) : -1;
    outcome.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    return outcome;
}

struct Expectation
{
    const char *probe;
    int exitCode; // the errno the probe must exit with, 0 for success; ignored when signal is set
    int signal;   // the signal that must kill the probe, 0 for a normal exit
};

// What every probe must do under the default filter, whatever the privileges of the caller: the filter
// answers before the kernel's own permission checks.
const Expectation FilteredOutcomes[] = {
    // Namespaces.
    {"unshare-user", EPERM, 0},
    {"unshare-net", EPERM, 0},
    {"clone-newuser", EPERM, 0},
    {"clone3", ENOSYS, 0},
    {"setns", EPERM, 0},
    // Mount family.
    {"mount", EPERM, 0},
    {"umount2", EPERM, 0},
    {"pivot_root", EPERM, 0},
    {"chroot", EPERM, 0},
    {"fsopen", EPERM, 0},
    {"fsconfig", EPERM, 0},
    {"fsmount", EPERM, 0},
    {"fspick", EPERM, 0},
    {"open_tree", EPERM, 0},
    {"move_mount", EPERM, 0},
    {"mount_setattr", EPERM, 0},
    // Process inspection.
    {"ptrace-traceme", EPERM, 0},
    {"ptrace-attach-1", EPERM, 0},
    {"process_vm_readv", EPERM, 0},
    {"process_vm_writev", EPERM, 0},
    {"kcmp", EPERM, 0},
    {"pidfd_getfd", EPERM, 0},
    {"process_madvise", EPERM, 0},
    // Exploited kernel surfaces.
    {"bpf", EPERM, 0},
    {"perf_event_open", EPERM, 0},
    {"userfaultfd", EPERM, 0},
    {"io_uring_setup", EPERM, 0},
    {"io_uring_enter", EPERM, 0},
    {"io_uring_register", EPERM, 0},
    // Keyrings.
    {"keyctl", EPERM, 0},
    {"add_key", EPERM, 0},
    {"request_key", EPERM, 0},
    // Modules, kexec, reboot.
    {"init_module", EPERM, 0},
    {"finit_module", EPERM, 0},
    {"delete_module", EPERM, 0},
    {"kexec_load", EPERM, 0},
    {"kexec_file_load", EPERM, 0},
    {"reboot", EPERM, 0},
    // Host administration.
    {"acct", EPERM, 0},
    {"swapon", EPERM, 0},
    {"swapoff", EPERM, 0},
    {"quotactl", EPERM, 0},
    {"settimeofday", EPERM, 0},
    {"clock_settime", EPERM, 0},
    {"clock_adjtime", EPERM, 0},
    {"adjtimex", EPERM, 0},
    {"syslog", EPERM, 0},
    {"sethostname", EPERM, 0},
    {"setdomainname", EPERM, 0},
    {"iopl", EPERM, 0},
    {"ioperm", EPERM, 0},
    // NUMA placement.
    {"mbind", EPERM, 0},
    {"set_mempolicy", EPERM, 0},
    {"migrate_pages", EPERM, 0},
    {"move_pages", EPERM, 0},
    // File handles, fanotify.
    {"open_by_handle_at", EPERM, 0},
    {"name_to_handle_at", EPERM, 0},
    {"fanotify_init", EPERM, 0},
    // personality, LDT.
    {"personality-addr-no-randomize", EPERM, 0},
    {"personality-query", 0, 0},
    {"modify_ldt", EPERM, 0},
    // Sockets.
    {"socket-packet", EPERM, 0},
    {"socket-alg", EPERM, 0},
    {"socket-vsock", EPERM, 0},
    {"socket-raw-inet", EPERM, 0},
    {"socket-raw-inet6", EPERM, 0},
    {"socket-netlink-audit", EPERM, 0},
    {"socket-unix", 0, 0},
    {"socket-inet-stream", 0, 0},
    {"socket-inet6-dgram", 0, 0},
    {"socket-inet-highbit", 0, 0},
    {"socket-netlink-route", 0, 0},
    {"socketpair-unix", 0, 0},
    // Terminal ioctls: refused by request number; allowed ones reach /dev/null, which is no terminal.
    {"ioctl-tiocsti", EPERM, 0},
    {"ioctl-tiocsti-highbit", EPERM, 0},
    {"ioctl-tioclinux", EPERM, 0},
    {"ioctl-tiocsetd", EPERM, 0},
    {"ioctl-tiocgwinsz", ENOTTY, 0},
    {"ioctl-fionread", 0, 0},
    // Device nodes.
    {"mknod-char", EPERM, 0},
    {"mknodat-block", EPERM, 0},
    {"mknod-fifo", 0, 0},
    // Set-id bits: refused wherever a mode is given; other modes, and stray mode bits without O_CREAT, pass.
    {"chmod-setuid", EPERM, 0},
    {"chmod-setgid", EPERM, 0},
    {"chmod-plain", 0, 0},
    {"fchmod-setuid", EPERM, 0},
    {"fchmodat-setgid", EPERM, 0},
    {"fchmodat2-setuid", EPERM, 0},
    {"open-creat-setuid", EPERM, 0},
    {"openat-creat-setgid", EPERM, 0},
    {"creat-setuid", EPERM, 0},
    {"openat-tmpfile-setuid", EPERM, 0},
    {"mknod-regular-setuid", EPERM, 0},
    {"open-stray-mode", 0, 0},
    {"open-creat-plain", 0, 0},
    // openat2's mode is behind a pointer: ENOSYS sends callers to openat, as clone3 to clone.
    {"openat2", ENOSYS, 0},
    // Other ABIs: the bad-architecture action kills.
    {"x32-getpid", 0, SIGSYS},
    {"i386-int80", 0, SIGSYS},
    // What every workload needs.
    {"fork", 0, 0},
    {"vfork", 0, 0},
    {"thread", 0, 0},
    {"memfd_create", 0, 0},
};

// Without a filter the same probes reach the kernel and get a different answer, for root and for an
// unprivileged user alike (arguments are invalid before any permission check): proof that the filtered EPERM
// comes from the filter and that a test cannot pass by accident.
const Expectation UnfilteredOutcomes[] = {
    {"personality-addr-no-randomize", 0, 0},
    {"clone3", EINVAL, 0},
    {"setns", EBADF, 0},
    {"mount", EFAULT, 0},
    {"umount2", EINVAL, 0},
    {"chroot", EFAULT, 0},
    {"open_tree", EBADF, 0},
    {"mount_setattr", EINVAL, 0},
    {"process_vm_readv", EINVAL, 0},
    {"pidfd_getfd", EBADF, 0},
    {"keyctl", EOPNOTSUPP, 0},
    {"add_key", EFAULT, 0},
    {"request_key", EFAULT, 0},
    {"swapon", EINVAL, 0},
    {"settimeofday", EFAULT, 0},
    {"clock_settime", EFAULT, 0},
    {"clock_adjtime", EFAULT, 0},
    {"adjtimex", EFAULT, 0},
    {"move_pages", EINVAL, 0},
    {"ioctl-tiocsti", ENOTTY, 0},
    {"ioctl-tiocsti-highbit", ENOTTY, 0},
    {"ioctl-tioclinux", ENOTTY, 0},
    {"ioctl-tiocsetd", ENOTTY, 0},
    {"socket-unix", 0, 0},
    {"mknod-fifo", 0, 0},
    {"chmod-setuid", 0, 0},
    {"chmod-setgid", 0, 0},
    {"fchmod-setuid", 0, 0},
    {"fchmodat-setgid", 0, 0},
    {"open-creat-setuid", 0, 0},
    {"openat-creat-setgid", 0, 0},
    {"creat-setuid", 0, 0},
    {"mknod-regular-setuid", 0, 0},
    {"openat2", 0, 0},
    {"thread", 0, 0},
};

void addRows(const Expectation *begin, const Expectation *end)
{
    QTest::addColumn<QString>("probe");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<int>("signal");
    for (const Expectation *row = begin; row != end; ++row)
        QTest::newRow(row->probe) << QString::fromLatin1(row->probe) << row->exitCode << row->signal;
}

} // namespace

class TestSeccomp final : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();

    void compilesToBpfProgram();
    void installRejectsMalformedProgram();
    void everyProbeHasAnExpectation();
    void unknownProbeIsReported();

    void filteredProbe_data();
    void filteredProbe();
    void unfilteredProbe_data();
    void unfilteredProbe();

    void statusShowsFilterAndNoNewPrivs();
    void python3Runs();
    void shellPipelineRuns();
    void allowPtraceLetsTracemeThrough();

private:
    void verifyOutcome(const Outcome &outcome, int exitCode, int signal);

    QString m_probe;
    QByteArray m_filter;
    QTemporaryDir m_probeDir;
};

void TestSeccomp::initTestCase()
{
    m_probe = QCoreApplication::applicationDirPath() + QStringLiteral("/cordon-probe");
    QVERIFY2(QFileInfo(m_probe).isExecutable(), qPrintable(m_probe + QStringLiteral(" is missing")));
    QVERIFY(m_probeDir.isValid());
    // mknod-fifo creates its FIFO here rather than in a shared /tmp.
    qputenv("PROBE_DIR", QFile::encodeName(m_probeDir.path()));

    // The program that containers get: the one compiled at build time.
    const std::string_view prebuilt = prebuiltSeccompFilter(false);
    m_filter = QByteArray(prebuilt.data(), static_cast<qsizetype>(prebuilt.size()));
}

void TestSeccomp::verifyOutcome(const Outcome &outcome, int exitCode, int signal)
{
    QVERIFY2(!(outcome.exited && outcome.code == ExitInstallFailed),
             "installSeccompFilter failed in the child");
    QVERIFY2(!(outcome.exited && outcome.code == ExitExecFailed), "exec of the probe failed");
    const Outcome expected{signal == 0, signal == 0 ? exitCode : -1, signal, {}};
    QCOMPARE(outcome.describe(), expected.describe());
}

void TestSeccomp::compilesToBpfProgram()
{
    constexpr qsizetype InstructionSize = 8; // struct sock_filter
    QVERIFY(m_filter.size() > 0);
    QCOMPARE(m_filter.size() % InstructionSize, 0);
    QVERIFY2(m_filter.size() / InstructionSize <= 4096, "longer than BPF_MAXINSNS");

    // Compiled now, the profile gives the program that was compiled at build time, byte for byte, for each
    // set of options; and allowPtrace changes it.
    const QByteArray again = compiledFilter(SeccompOptions{});
    QCOMPARE(again, m_filter);
    const QByteArray withPtrace = compiledFilter(SeccompOptions{.allowPtrace = true});
    const std::string_view prebuiltWithPtrace = prebuiltSeccompFilter(true);
    QCOMPARE(withPtrace,
             QByteArray(prebuiltWithPtrace.data(), static_cast<qsizetype>(prebuiltWithPtrace.size())));
    QVERIFY(withPtrace != m_filter);
}

void TestSeccomp::installRejectsMalformedProgram()
{
    // Rejected before PR_SET_NO_NEW_PRIVS, so calling it here leaves the test process unchanged.
    QCOMPARE(installSeccompFilter(nullptr, 8), EINVAL);
    QCOMPARE(installSeccompFilter(m_filter.constData(), 0), EINVAL);
    QCOMPARE(installSeccompFilter(m_filter.constData(), 7), EINVAL);
    QCOMPARE(installSeccompFilter(m_filter.constData(), std::size_t(65536) * 8), EINVAL);
}

void TestSeccomp::everyProbeHasAnExpectation()
{
    const Outcome listed = runChild({m_probe, QStringLiteral("--list")}, nullptr, true);
    verifyOutcome(listed, 0, 0);
    QStringList probes = QString::fromLatin1(listed.out).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QStringList expected;
    for (const Expectation &row : FilteredOutcomes)
        expected << QString::fromLatin1(row.probe);
    probes.sort();
    expected.sort();
    QCOMPARE(probes, expected);
}

void TestSeccomp::unknownProbeIsReported()
{
    verifyOutcome(runChild({m_probe, QStringLiteral("no-such-probe")}, &m_filter), 200, 0);
}

void TestSeccomp::filteredProbe_data()
{
    addRows(std::begin(FilteredOutcomes), std::end(FilteredOutcomes));
}

void TestSeccomp::filteredProbe()
{
    QFETCH(QString, probe);
    QFETCH(int, exitCode);
    QFETCH(int, signal);
    // Some hosts have no i386 entry at all (IA32 emulation off, or a hypervisor that faults `int $0x80`):
    // there the instruction dies with SIGSEGV before any system call, filter or not, so the ABI is closed
    // one step earlier. The filtered probe must then die the same way; it may never reach getpid.
    if (probe == QLatin1String("i386-int80")) {
        const Outcome unfiltered = runChild({m_probe, probe}, nullptr);
        if (!unfiltered.exited && unfiltered.signal == SIGSEGV) {
            qInfo("this host has no i386 system call entry: int $0x80 faults without a filter too");
            signal = SIGSEGV;
        }
    }
    verifyOutcome(runChild({m_probe, probe}, &m_filter), exitCode, signal);
}

void TestSeccomp::unfilteredProbe_data()
{
    addRows(std::begin(UnfilteredOutcomes), std::end(UnfilteredOutcomes));
}

void TestSeccomp::unfilteredProbe()
{
    QFETCH(QString, probe);
    QFETCH(int, exitCode);
    QFETCH(int, signal);
    verifyOutcome(runChild({m_probe, probe}, nullptr), exitCode, signal);
}

void TestSeccomp::statusShowsFilterAndNoNewPrivs()
{
    const Outcome grep =
        runChild({QStringLiteral("/bin/grep"), QStringLiteral("-E"), QStringLiteral("^(Seccomp|NoNewPrivs):"),
                  QStringLiteral("/proc/self/status")},
                 &m_filter, true);
    verifyOutcome(grep, 0, 0);
    const QStringList lines = QString::fromLatin1(grep.out).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QStringList fields;
    for (const QString &line : lines)
        fields << line.simplified();
    QVERIFY2(fields.contains(QStringLiteral("Seccomp: 2")), grep.out.constData());
    QVERIFY2(fields.contains(QStringLiteral("NoNewPrivs: 1")), grep.out.constData());
}

void TestSeccomp::python3Runs()
{
    const QString python = QStringLiteral("/usr/bin/python3");
    if (!QFileInfo(python).isExecutable())
        SKIP_UNLESS_MUST_WORK("/usr/bin/python3 is not installed");
    const Outcome run =
        runChild({python, QStringLiteral("-c"),
                  QStringLiteral("import json, threading, subprocess\n"
                                 "t = threading.Thread(target=lambda: None); t.start(); t.join()\n"
                                 "subprocess.run(['true'], check=True)\n"
                                 "print(json.dumps({'ok': True}))")},
                 &m_filter, true);
    verifyOutcome(run, 0, 0);
    QCOMPARE(run.out, QByteArray("{\"ok\": true}\n"));
}

void TestSeccomp::shellPipelineRuns()
{
    const Outcome run = runChild(
        {QStringLiteral("/bin/sh"), QStringLiteral("-c"), QStringLiteral("echo hi | cat")}, &m_filter, true);
    verifyOutcome(run, 0, 0);
    QCOMPARE(run.out, QByteArray("hi\n"));
}

void TestSeccomp::allowPtraceLetsTracemeThrough()
{
    const QByteArray compiled = compiledFilter(SeccompOptions{.allowPtrace = true});
    QVERIFY(!compiled.isEmpty());
    const QByteArray *filter = &compiled;
    verifyOutcome(runChild({m_probe, QStringLiteral("ptrace-traceme")}, filter), 0, 0);
    // The call now reaches the kernel, which rejects the invalid PTRACE_SEIZE option.
    verifyOutcome(runChild({m_probe, QStringLiteral("ptrace-attach-1")}, filter), EIO, 0);
    // Only ptrace: the other ways into another process stay closed.
    verifyOutcome(runChild({m_probe, QStringLiteral("process_vm_readv")}, filter), EPERM, 0);
    verifyOutcome(runChild({m_probe, QStringLiteral("pidfd_getfd")}, filter), EPERM, 0);
}

QTEST_GUILESS_MAIN(TestSeccomp)

#include "tst_seccomp.moc"
