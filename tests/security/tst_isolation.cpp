// SPDX-License-Identifier: MIT
// Attacks from inside a real sandbox, one per isolation property. Each must fail in exactly the way the
// kernel enforcement says it does; a script signals "contained" with a sentinel exit code so that a launcher
// failure can never pass for a blocked attack.
#include "sandboxtest.h"
#include "testutil.h"

#include <QFile>
#include <QFileInfo>
#include <QTcpServer>
#include <QTemporaryDir>

#include <cerrno>
#include <csignal>
#include <fcntl.h>
#include <initializer_list>
#include <unistd.h>

using namespace CordonTest;
using Cordon::Containers::ErrorClass;

namespace {

// The paths of `paths` that exist here: what the mount plan masks depends on the host's kernel.
QStringList onThisHost(std::initializer_list<const char *> paths)
{
    QStringList present;
    for (const char *path : paths) {
        if (QFileInfo::exists(QLatin1String(path)))
            present.append(QLatin1String(path));
    }
    return present;
}

} // namespace

class TestIsolation final : public QObject
{
    Q_OBJECT

private:
    static void expectContained(const QStringList &command)
    {
        const auto outcome = run(command);
        QVERIFY2(outcome.errorClass != ErrorClass::SetupFailed, describe(outcome));
        QVERIFY2(outcome.exitCode == Contained, describe(outcome));
    }

    // Python snippet: run `attempt`; exit Contained only when it raised OSError with errno `expected`.
    static QStringList pythonExpectErrno(const QString &attempt, int expected)
    {
        return python(QStringLiteral("import os, socket, errno, sys\n"
                                     "try:\n"
                                     "    %1\n"
                                     "except OSError as e:\n"
                                     "    sys.exit(%2 if e.errno == %3 else (print('errno', e.errno) or 1))\n"
                                     "print('attack succeeded')\n"
                                     "sys.exit(1)\n")
                          .arg(attempt)
                          .arg(Contained)
                          .arg(expected));
    }

private Q_SLOTS:
    void probeDeniedSyscalls_data()
    {
        QTest::addColumn<QString>("probe");
        QTest::addColumn<int>("expectedErrno");
        QTest::newRow("mount") << QStringLiteral("mount") << EPERM;
        QTest::newRow("unshare a user namespace") << QStringLiteral("unshare-user") << EPERM;
        QTest::newRow("clone a user namespace") << QStringLiteral("clone-newuser") << EPERM;
        QTest::newRow("clone3 answers ENOSYS") << QStringLiteral("clone3") << ENOSYS;
        QTest::newRow("setns") << QStringLiteral("setns") << EPERM;
        QTest::newRow("ptrace PID 1") << QStringLiteral("ptrace-attach-1") << EPERM;
        QTest::newRow("process_vm_readv") << QStringLiteral("process_vm_readv") << EPERM;
        QTest::newRow("keyctl") << QStringLiteral("keyctl") << EPERM;
        QTest::newRow("add_key") << QStringLiteral("add_key") << EPERM;
        QTest::newRow("bpf") << QStringLiteral("bpf") << EPERM;
        QTest::newRow("perf_event_open") << QStringLiteral("perf_event_open") << EPERM;
        QTest::newRow("userfaultfd") << QStringLiteral("userfaultfd") << EPERM;
        QTest::newRow("io_uring") << QStringLiteral("io_uring_setup") << EPERM;
        QTest::newRow("TIOCSTI") << QStringLiteral("ioctl-tiocsti") << EPERM;
        QTest::newRow("TIOCSTI with bit 32 set") << QStringLiteral("ioctl-tiocsti-highbit") << EPERM;
        QTest::newRow("TIOCLINUX") << QStringLiteral("ioctl-tioclinux") << EPERM;
        QTest::newRow("raw socket") << QStringLiteral("socket-raw-inet") << EPERM;
        QTest::newRow("AF_PACKET") << QStringLiteral("socket-packet") << EPERM;
        QTest::newRow("AF_ALG") << QStringLiteral("socket-alg") << EPERM;
        QTest::newRow("AF_VSOCK") << QStringLiteral("socket-vsock") << EPERM;
        QTest::newRow("netlink audit") << QStringLiteral("socket-netlink-audit") << EPERM;
        QTest::newRow("character device node") << QStringLiteral("mknod-char") << EPERM;
        QTest::newRow("kernel module") << QStringLiteral("init_module") << EPERM;
        QTest::newRow("kexec") << QStringLiteral("kexec_load") << EPERM;
        QTest::newRow("pivot_root") << QStringLiteral("pivot_root") << EPERM;
        QTest::newRow("open_by_handle_at") << QStringLiteral("open_by_handle_at") << EPERM;
        QTest::newRow("personality ADDR_NO_RANDOMIZE")
            << QStringLiteral("personality-addr-no-randomize") << EPERM;
        QTest::newRow("sethostname") << QStringLiteral("sethostname") << EPERM;
        // Set-id bits would stay on the host with the workspace's files.
        QTest::newRow("chmod u+s") << QStringLiteral("chmod-setuid") << EPERM;
        QTest::newRow("fchmodat g+s") << QStringLiteral("fchmodat-setgid") << EPERM;
        QTest::newRow("open O_CREAT 04755") << QStringLiteral("open-creat-setuid") << EPERM;
        QTest::newRow("mknod S_IFREG|04755") << QStringLiteral("mknod-regular-setuid") << EPERM;
        QTest::newRow("openat2 answers ENOSYS") << QStringLiteral("openat2") << ENOSYS;
        // Allowed calls still work inside: the filter is an allowlist, not a wall.
        QTest::newRow("unix socket allowed") << QStringLiteral("socket-unix") << 0;
        QTest::newRow("fork allowed") << QStringLiteral("fork") << 0;
        QTest::newRow("threads allowed") << QStringLiteral("thread") << 0;
    }

    void probeDeniedSyscalls()
    {
        QFETCH(QString, probe);
        QFETCH(int, expectedErrno);
        const auto outcome = run(CordonTest::probe(probe));
        QVERIFY2(outcome.errorClass != ErrorClass::SetupFailed, describe(outcome));
        QVERIFY2(outcome.signal == 0, describe(outcome));
        QVERIFY2(outcome.exitCode == expectedErrno, describe(outcome));
    }

    void otherAbisAreKilled_data()
    {
        QTest::addColumn<QString>("probe");
        QTest::newRow("i386 int 0x80") << QStringLiteral("i386-int80");
        QTest::newRow("x32 syscall") << QStringLiteral("x32-getpid");
    }

    void otherAbisAreKilled()
    {
        QFETCH(QString, probe);
        const auto outcome = run(CordonTest::probe(probe));
        QVERIFY2(outcome.errorClass != ErrorClass::SetupFailed, describe(outcome));
        // Either the bad-arch action kills the process (SIGSYS), or the syscall is refused; never executed.
        QVERIFY2(outcome.signal == SIGSYS || (outcome.exitCode != 0 && outcome.exitCode != 200),
                 describe(outcome));
    }

    void hostSecretsAreInvisible()
    {
        QTemporaryDir hostDir;
        QFile secret(hostDir.filePath(QStringLiteral("secret.txt")));
        QVERIFY(secret.open(QIODevice::WriteOnly));
        secret.write("top secret");
        secret.close();
        expectContained(pythonExpectErrno(QStringLiteral("open('/etc/shadow')"), ENOENT));
        expectContained(pythonExpectErrno(QStringLiteral("open('%1')").arg(secret.fileName()), ENOENT));
        expectContained(pythonExpectErrno(QStringLiteral("os.listdir('/root')"), ENOENT));
        expectContained(pythonExpectErrno(QStringLiteral("os.listdir('/home')"), ENOENT));
        expectContained(pythonExpectErrno(QStringLiteral("os.listdir('/work')"), ENOENT));
        const auto listing = run({QStringLiteral("/bin/ls"), QStringLiteral("/")});
        QCOMPARE(listing.stdoutData,
                 QByteArray("bin\ndev\netc\nlib\nlib32\nlib64\nmnt\nopt\nproc\nsbin\ntmp\nusr\n"));
    }

    void systemIsReadOnly()
    {
        expectContained(pythonExpectErrno(QStringLiteral("open('/usr/bin/cordon-evil', 'w')"), EROFS));
        expectContained(pythonExpectErrno(QStringLiteral("open('/etc/passwd', 'a')"), EROFS));
        expectContained(pythonExpectErrno(QStringLiteral("open('/new-file', 'w')"), EROFS));
        expectContained(pythonExpectErrno(QStringLiteral("open('/mnt/data/inputs/x', 'w')"), EROFS));
        expectContained(pythonExpectErrno(QStringLiteral("open('/dev/evil', 'w')"), EROFS));
    }

    void procSysIsReadOnlyAndKernelFilesMasked()
    {
        expectContained(
            pythonExpectErrno(QStringLiteral("open('/proc/sys/kernel/hostname', 'w').write('x')"), EROFS));
        // Every kernel file the plan masks reads as empty inside, wherever this host's kernel has it.
        const QStringList present =
            onThisHost({"/proc/kcore", "/proc/sysrq-trigger", "/proc/timer_list", "/proc/keys",
                        "/proc/kallsyms", "/proc/sched_debug", "/proc/kmsg", "/proc/config.gz"});
        QVERIFY(!present.isEmpty());
        const auto masked = run(
            python(QStringLiteral(
                "import os, sys\n"
                "for p in sys.argv[1:]:\n"
                "    st = os.stat(p)\n"
                "    print(p, os.major(st.st_rdev), os.minor(st.st_rdev), len(open(p, 'rb').read()))\n")) +
            present);
        QVERIFY2(masked.errorClass == ErrorClass::Ok, describe(masked));
        QString expected;
        for (const QString &path : present)
            expected += path + QStringLiteral(" 1 3 0\n"); // the /dev/null device, empty
        QCOMPARE(QString::fromUtf8(masked.stdoutData), expected);

        // The masked directories read as empty and take nothing, wherever this host's kernel has them.
        const QStringList dirs = onThisHost({"/proc/acpi", "/proc/scsi", "/proc/asound", "/proc/driver"});
        if (dirs.isEmpty())
            return;
        const auto emptied = run(python(QStringLiteral("import errno, os, sys\n"
                                                       "for p in sys.argv[1:]:\n"
                                                       "    try:\n"
                                                       "        open(p + '/x', 'w')\n"
                                                       "        made = 'made'\n"
                                                       "    except OSError as e:\n"
                                                       "        made = errno.errorcode[e.errno]\n"
                                                       "    print(p, len(os.listdir(p)), made)\n")) +
                                 dirs);
        QVERIFY2(emptied.errorClass == ErrorClass::Ok, describe(emptied));
        QString emptyDirs;
        for (const QString &path : dirs)
            emptyDirs += path + QStringLiteral(" 0 EROFS\n");
        QCOMPARE(QString::fromUtf8(emptied.stdoutData), emptyDirs);
    }

    void theCgroupNamespaceIsRootedAtTheContainersCgroup()
    {
        // cordon-init roots its cgroup namespace only once the engine has moved it into the container's
        // cgroup (it applies the mount plan meanwhile): inside, every controller that limits the container
        // reads as "/". Rooted any earlier, the container's own group would show as a path below the root.
        const auto outcome = run({QStringLiteral("cat"), QStringLiteral("/proc/self/cgroup")});
        QVERIFY2(outcome.errorClass == ErrorClass::Ok, describe(outcome));
        if (outcome.degraded)
            SKIP_UNLESS_MUST_WORK("no cgroup on this host");
        int limiting = 0;
        for (const QByteArray &line : outcome.stdoutData.split('\n')) {
            const QList<QByteArray> fields = line.split(':'); // id:controllers:path
            if (fields.size() != 3)
                continue;
            const QList<QByteArray> controllers = fields[1].split(',');
            if (fields[0] == "0" || controllers.contains("memory") || controllers.contains("pids")) {
                QVERIFY2(fields[2] == "/", line);
                ++limiting;
            }
        }
        QVERIFY2(limiting > 0, outcome.stdoutData);
    }

    void hostLoopbackIsUnreachable()
    {
        QTcpServer server;
        QVERIFY(server.listen(QHostAddress::LocalHost));
        expectContained(pythonExpectErrno(
            QStringLiteral("socket.create_connection(('127.0.0.1', %1), timeout=5)").arg(server.serverPort()),
            ECONNREFUSED));
        QVERIFY(!server.waitForNewConnection(200));
    }

    void outsideAddressesHaveNoRoute()
    {
        expectContained(pythonExpectErrno(
            QStringLiteral("socket.create_connection(('198.51.100.7', 443), timeout=5)"), ENETUNREACH));
        const auto interfaces = run({QStringLiteral("/bin/cat"), QStringLiteral("/proc/net/dev")});
        QVERIFY(interfaces.stdoutData.contains("lo:"));
        QCOMPARE(interfaces.stdoutData.count(':'), 1); // the only interface is lo
    }

    void dnsDoesNotWork()
    {
        const auto outcome =
            run(python(QStringLiteral("import socket, sys\n"
                                      "try:\n"
                                      "    socket.getaddrinfo('example.com', 443)\n"
                                      "except socket.gaierror:\n"
                                      "    pass\n"
                                      "else:\n"
                                      "    sys.exit(1)\n"
                                      "s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
                                      "try:\n"
                                      "    "
                                      "s.sendto(b'"
                                      "\\x12\\x34\\x01\\x00\\x00\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00"
                                      "\\x01\\x00\\x01', ('8.8.8.8', 53))\n"
                                      "except OSError as e:\n"
                                      "    sys.exit(42 if e.errno == 101 else 1)\n"
                                      "sys.exit(1)\n")));
        QVERIFY2(outcome.exitCode == Contained, describe(outcome));
    }

    void hostProcessesAreInvisible()
    {
        const auto outcome = run(sh(QStringLiteral("for p in /proc/[0-9]*; do cat $p/comm; done")));
        QVERIFY2(outcome.errorClass == ErrorClass::Ok, describe(outcome));
        const QList<QByteArray> names = outcome.stdoutData.trimmed().split('\n');
        QVERIFY2(names.size() <= 4, outcome.stdoutData);
        QCOMPARE(names.first(), QByteArray("cordon-init"));
        QVERIFY(!outcome.stdoutData.contains("tst_isolation"));
    }

    void inheritedDescriptorsDoNotLeak()
    {
        // A descriptor without O_CLOEXEC in the engine process must not reach the sandbox.
        const int leaked = ::open("/etc/hostname", O_RDONLY);
        QVERIFY(leaked >= 0);
        const auto outcome = run(
            python(QStringLiteral("import os; print(sorted(int(f) for f in os.listdir('/proc/self/fd')))")));
        ::close(leaked);
        QVERIFY2(outcome.errorClass == ErrorClass::Ok, describe(outcome));
        QCOMPARE(outcome.stdoutData, QByteArray("[0, 1, 2, 3]\n"));
    }

    void noPrivilegesRemain()
    {
        const auto outcome = run(sh(QStringLiteral(
            "grep -E '^(CapInh|CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs|Seccomp):' /proc/self/status")));
        QVERIFY2(outcome.errorClass == ErrorClass::Ok, describe(outcome));
        QCOMPARE(outcome.stdoutData, QByteArray("CapInh:\t0000000000000000\nCapPrm:\t0000000000000000\n"
                                                "CapEff:\t0000000000000000\nCapBnd:\t0000000000000000\n"
                                                "CapAmb:\t0000000000000000\nNoNewPrivs:\t1\nSeccomp:\t2\n"));
    }

    void insideUserIsNeverHostRoot()
    {
        const auto outcome = run(sh(QStringLiteral("id -u; cat /proc/self/uid_map; hostname")));
        QVERIFY2(outcome.errorClass == ErrorClass::Ok, describe(outcome));
        const QList<QByteArray> lines = outcome.stdoutData.split('\n');
        QCOMPARE(lines[0], QByteArray("1000"));
        const QList<QByteArray> map = lines[1].simplified().split(' ');
        QCOMPARE(map.size(), 3);
        QCOMPARE(map[0], QByteArray("1000"));
        QVERIFY2(map[1] != "0", lines[1]);
        QCOMPARE(map[1].toUInt(), ::geteuid() == 0 ? 65534u : ::geteuid());
        QCOMPARE(map[2], QByteArray("1"));
        QCOMPARE(lines[2], QByteArray("sandbox"));
    }

    void filesWrittenInsideAreNotOwnedByHostRoot()
    {
        QTemporaryDir host;
        Cordon::Containers::OneShotRequest request;
        request.policy = testPolicy();
        request.outputDirectory = host.filePath(QStringLiteral("out"));
        request.command = sh(QStringLiteral(
            "echo x > /mnt/data/outputs/f; chmod 4755 /mnt/data/outputs/f; ls -ln /mnt/data/outputs/f"));
        const auto outcome = Cordon::Containers::runToCompletion(std::move(request));
        QVERIFY2(outcome.errorClass == ErrorClass::Ok, describe(outcome));
        // Exported artifacts never carry setuid bits.
        QFile exported(host.filePath(QStringLiteral("out/f")));
        QVERIFY(exported.exists());
        QVERIFY(!(exported.permissions() & QFileDevice::ExeOwner));
    }

    // The whole workspace, not only exports: no file the sandbox leaves in /mnt/data carries a set-id bit on
    // the host, whichever way it tried (chmod, install -m, python's os.open with a mode).
    void workspaceFilesNeverCarrySetIdBits()
    {
        QTemporaryDir host;
        Cordon::Containers::OneShotRequest request;
        request.policy = testPolicy();
        request.outputDirectory = host.filePath(QStringLiteral("out"));
        request.command = sh(QStringLiteral(
            "cd /mnt/data/outputs && echo x > a && chmod 4755 a; chmod g+s a; install -m 6755 a b; "
            "python3 -c \"import os; os.close(os.open('c', os.O_CREAT | os.O_WRONLY, 0o4755))\"; "
            "stat -c '%n %a' a b c 2>&1; ls"));
        const auto outcome = Cordon::Containers::runToCompletion(std::move(request));
        QVERIFY2(outcome.errorClass == ErrorClass::Ok, describe(outcome));
        // Each attempt failed: every file that exists has a mode of three octal digits (stat's %a shows a
        // fourth, leading one for set-id and sticky bits). The inode is the host's, so this is its mode
        // there.
        int modesSeen = 0;
        for (const QByteArray &line : outcome.stdoutData.split('\n')) {
            const QList<QByteArray> fields = line.split(' ');
            if (fields.size() != 2 || fields[0].size() != 1)
                continue;
            ++modesSeen;
            QVERIFY2(fields[1].size() == 3, describe(outcome));
        }
        QVERIFY2(modesSeen >= 1, describe(outcome));
        QVERIFY2(outcome.stderrData.contains("Operation not permitted"), describe(outcome));
    }

    // The writable places that are not the workspace are tmpfs mounts with a size: filling them ends in
    // ENOSPC at their size, never in the host's memory or disk (the memory cgroup bounds them as well).
    void tmpAndShmAreBounded()
    {
        Cordon::Policy::ContainerPolicy policy = testPolicy();
        policy.limits.tmpMb = 8;
        const auto outcome = run(
            sh(QStringLiteral("dd if=/dev/zero of=/tmp/fill bs=1M count=64 2>&1 | grep -c 'No space'; "
                              "stat -c %s /tmp/fill; "
                              "dd if=/dev/zero of=/dev/shm/fill bs=1M count=128 2>&1 | grep -c 'No space'; "
                              "stat -c %s /dev/shm/fill")),
            policy);
        QVERIFY2(outcome.errorClass == ErrorClass::Ok, describe(outcome));
        const QList<QByteArray> lines = outcome.stdoutData.trimmed().split('\n');
        QCOMPARE(lines.size(), 4);
        QCOMPARE(lines[0], QByteArray("1"));
        QVERIFY2(lines[1].toLongLong() <= 8LL * 1024 * 1024, describe(outcome));
        QCOMPARE(lines[2], QByteArray("1"));
        QVERIFY2(lines[3].toLongLong() <= 64LL * 1024 * 1024, describe(outcome));
    }

    // The attack of the hardening review: a run wrote 301 MiB into a 64 MiB workspace on the host's disk.
    // The workspace is now a tmpfs of workspace_mb inside the container: the kernel ends a write past it with
    // ENOSPC wherever in /mnt/data it lands (outputs/ is the same file system), caps the number of files too,
    // and takes writes again once files are deleted.
    void workspaceQuotaIsEnforcedByTheKernel()
    {
        Cordon::Policy::ContainerPolicy policy = testPolicy();
        policy.limits.workspaceMb = 16;
        const auto outcome =
            run(sh(QStringLiteral(
                    "stat -f -c %T /mnt/data /mnt/data/outputs; "
                    "dd if=/dev/zero of=/mnt/data/a bs=1M count=10 2>&1 | grep -c 'No space'; "
                    "dd if=/dev/zero of=/mnt/data/outputs/b bs=1M count=10 2>&1 | grep -c 'No space'; "
                    "python3 -c \"import os\ntry:\n  fd = os.open('/mnt/data/c', os.O_WRONLY | os.O_CREAT)\n"
                    "  os.write(fd, bytes(1 << 20))\nexcept OSError as e:\n  print(e.errno)\n\"; "
                    "du -sk /mnt/data | cut -f1; "
                    "rm /mnt/data/a /mnt/data/c; "
                    "dd if=/dev/zero of=/mnt/data/d bs=1M count=4 2>&1 | grep -c 'No space'; "
                    "rm -f /mnt/data/d /mnt/data/outputs/b; mkdir /mnt/data/many; cd /mnt/data/many; "
                    "i=0; while [ $i -lt 9000 ] && true 2>/dev/null > f$i; do i=$((i+1)); done; echo $i")),
                policy);
        QVERIFY2(outcome.errorClass == ErrorClass::Ok, describe(outcome));
        const QList<QByteArray> lines = outcome.stdoutData.trimmed().split('\n');
        QCOMPARE(lines.size(), 8);
        QCOMPARE(lines[0], QByteArray("tmpfs"));
        QCOMPARE(lines[1], QByteArray("tmpfs"));
        QCOMPARE(lines[2], QByteArray("0"));  // 10 MiB fit
        QCOMPARE(lines[3], QByteArray("1"));  // the next 10 MiB, in outputs/, do not
        QCOMPARE(lines[4], QByteArray("28")); // ENOSPC, as a program sees it
        QVERIFY2(lines[5].toLongLong() <= 16 * 1024 + 16, describe(outcome)); // du adds the directories
        QCOMPARE(lines[6], QByteArray("0"));                                  // room again after the deletes
        // 8192 inodes for a workspace this small, the directories and files above included.
        QVERIFY2(lines[7].toInt() > 8000 && lines[7].toInt() < 8192, describe(outcome));
    }

    void plantedLinksAreNotFollowedOnExport()
    {
        QTemporaryDir host;
        Cordon::Containers::OneShotRequest request;
        request.policy = testPolicy();
        request.outputDirectory = host.filePath(QStringLiteral("out"));
        request.command =
            sh(QStringLiteral("cd /mnt/data/outputs && ln -s /etc/passwd passwd && ln -s .. up && "
                              "mkfifo pipe && echo fine > ok.txt && "
                              "echo twice > a.txt && ln a.txt b.txt"));
        const auto outcome = Cordon::Containers::runToCompletion(std::move(request));
        QVERIFY2(outcome.errorClass == ErrorClass::Ok, describe(outcome));
        QVERIFY(QFile::exists(host.filePath(QStringLiteral("out/ok.txt"))));
        QVERIFY(!QFileInfo::exists(host.filePath(QStringLiteral("out/passwd"))));
        QVERIFY(!QFileInfo::exists(host.filePath(QStringLiteral("out/up"))));
        QVERIFY(!QFileInfo::exists(host.filePath(QStringLiteral("out/pipe"))));
        QStringList refusedCodes;
        for (const auto &refused : outcome.refusedArtifacts)
            refusedCodes.append(refused.code);
        QVERIFY2(refusedCodes.count(QStringLiteral("files.symlink")) == 2,
                 qPrintable(refusedCodes.join(u',')));
        QVERIFY2(refusedCodes.contains(QStringLiteral("files.fifo")), qPrintable(refusedCodes.join(u',')));
        // A file with a second hard link may be a link to something the sandbox must not hand out: refused.
        QVERIFY2(refusedCodes.count(QStringLiteral("files.hardlink")) == 2,
                 qPrintable(refusedCodes.join(u',')));
        QVERIFY(!QFileInfo::exists(host.filePath(QStringLiteral("out/a.txt"))));
    }

    void hardlinkFromInputsCrossesNoMount()
    {
        // inputs/ is a separate read-only mount, so a hardlink from it into outputs/ cannot be made (EXDEV).
        QTemporaryDir host;
        const QString input = host.filePath(QStringLiteral("in.txt"));
        QFile file(input);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("input");
        file.close();
        Cordon::Containers::OneShotRequest request;
        request.policy = testPolicy();
        request.inputs = {input};
        request.command = pythonExpectErrno(
            QStringLiteral("os.link('/mnt/data/inputs/in.txt', '/mnt/data/outputs/l')"), EXDEV);
        const auto outcome = Cordon::Containers::runToCompletion(std::move(request));
        QVERIFY2(outcome.exitCode == Contained, describe(outcome));
    }

    void deviceNodesCannotBeCreatedOrOpenedFromTmp()
    {
        expectContained(pythonExpectErrno(
            QStringLiteral("os.mknod('/tmp/mem', 0o600 | 0o020000, os.makedev(1, 1))"), EPERM));
    }

    void noControllingTerminal()
    {
        expectContained(pythonExpectErrno(QStringLiteral("open('/dev/tty')"), ENXIO));
    }
};

CORDON_SANDBOX_TEST_MAIN(TestIsolation)
#include "tst_isolation.moc"
