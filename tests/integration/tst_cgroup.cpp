// SPDX-License-Identifier: MIT
// The cgroup backend against this host's real hierarchy: limits are read back from the kernel's files, a
// child that allocates past its memory limit must die of SIGKILL, and a fork loop must stop at pids.max with
// EAGAIN. Skips (77) when this user has no usable backend, unless CORDON_MUST_WORK=1.
#include "core/plainbridge.h"
#include "isolation/hostprobe.h"
#include "sandbox/cgroup/cgroupbackend.h"
#include "sandbox/cgroup/cgroupfs.h"
#include "sandbox/cgroup/cgroupparsers.h"
#include "sandbox/cgroup/migrationtuning.h"
#include "testutil.h"

#include <QCoreApplication>
#include <QDir>
#include <QScopeGuard>
#include <QTest>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace Cordon;
using namespace Cordon::Cgroup;

namespace {

constexpr qint64 MiB = 1024 * 1024;
// Exit code of a child that finished work it should have been stopped in: a launcher failure cannot produce
// it.
constexpr int ChildSurvived = 42;

QByteArray readText(const std::string &path)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return QByteArray("<open failed: ") + std::strerror(errno) + '>';
    QByteArray data;
    char buffer[4096];
    ssize_t n;
    while ((n = ::read(fd, buffer, sizeof buffer)) > 0)
        data.append(buffer, n);
    ::close(fd);
    return data;
}

bool pathExists(const std::string &path)
{
    struct stat st;
    return ::stat(path.c_str(), &st) == 0;
}

qint64 ownerOf(const std::string &path)
{
    struct stat st;
    return ::stat(path.c_str(), &st) == 0 ? qint64(st.st_uid) : -1;
}

std::string parentOf(const std::string &path)
{
    return path.substr(0, path.rfind('/'));
}

bool contains(const std::string &text, const std::string &part)
{
    return text.find(part) != std::string::npos;
}

// A failure's code, message and hint for a test's output.
QString describe(const Error &failure)
{
    return toQt(failure.describe());
}

// Reads exactly size bytes or fails after timeoutMs.
bool readExact(int fd, void *buffer, size_t size, int timeoutMs = 10000)
{
    auto *out = static_cast<char *>(buffer);
    size_t done = 0;
    while (done < size) {
        pollfd pfd{fd, POLLIN, 0};
        if (::poll(&pfd, 1, timeoutMs) <= 0)
            return false;
        const ssize_t n = ::read(fd, out + done, size - done);
        if (n <= 0)
            return false;
        done += size_t(n);
    }
    return true;
}

// A forked child that waits for the parent's go before working, so the parent can move it into a group first.
struct Child
{
    pid_t pid = -1;
    int goFd = -1;
    int reportFd = -1;
};

template<typename Work> Child forkChild(Work work)
{
    int go[2], report[2];
    if (::pipe2(go, O_CLOEXEC) != 0 || ::pipe2(report, O_CLOEXEC) != 0)
        return {};
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::close(go[1]);
        ::close(report[0]);
        char c;
        if (::read(go[0], &c, 1) != 1)
            ::_exit(3);
        work(report[1]);
        ::_exit(0);
    }
    ::close(go[0]);
    ::close(report[1]);
    return {pid, go[1], report[0]};
}

void release(Child &child)
{
    (void)!::write(child.goFd, "g", 1);
    ::close(child.goFd);
    child.goFd = -1;
}

// Waits for a child; one that is still alive after the timeout is killed so that a failing test cannot hang.
int waitFor(pid_t pid, int timeoutMs = 20000)
{
    int status = 0;
    for (int waited = 0; waited < timeoutMs; waited += 10) {
        const pid_t done = ::waitpid(pid, &status, WNOHANG);
        if (done == pid)
            return status;
        if (done < 0)
            return -1;
        ::usleep(10000);
    }
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &status, 0);
    return -1;
}

// Ends a child that waits forever: SIGKILL, reap, and close both of its pipes.
void killChild(const Child &child)
{
    ::kill(child.pid, SIGKILL);
    waitFor(child.pid);
    ::close(child.reportFd);
    ::close(child.goFd);
}

// Reaps the orphans this process inherits as a subreaper: the pids controller counts a zombie until it is
// reaped.
void reapOrphans()
{
    for (int i = 0; i < 500; ++i) {
        int status;
        const pid_t done = ::waitpid(-1, &status, WNOHANG);
        if (done < 0 && errno == ECHILD)
            return;
        if (done == 0)
            ::usleep(10000);
    }
}

bool killedBySigkill(int status)
{
    return status != -1 && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
}

QString describeStatus(int status)
{
    if (status == -1)
        return QStringLiteral("did not exit in time");
    if (WIFEXITED(status))
        return QStringLiteral("exited with %1").arg(WEXITSTATUS(status));
    if (WIFSIGNALED(status))
        return QStringLiteral("killed by signal %1").arg(WTERMSIG(status));
    return QStringLiteral("status %1").arg(status);
}

// Child work: allocate and touch 200 MiB, one page at a time, keeping every block so nothing can be elided.
[[noreturn]] void allocate200MiB(int)
{
    static char *blocks[200];
    for (char *&block : blocks) {
        block = static_cast<char *>(std::malloc(MiB));
        if (!block)
            ::_exit(4);
        for (qint64 offset = 0; offset < MiB; offset += 4096)
            static_cast<volatile char *>(block)[offset] = 1;
    }
    ::_exit(ChildSurvived);
}

// Child work: fork until refused, report {forks that succeeded, errno of the refusal}, then wait to be
// killed.
[[noreturn]] void forkUntilRefused(int reportFd)
{
    int result[2] = {0, 0};
    for (int i = 0; i < 100; ++i) {
        const pid_t pid = ::fork();
        if (pid == 0) {
            for (;;)
                ::pause();
        }
        if (pid < 0) {
            result[1] = errno;
            break;
        }
        ++result[0];
    }
    (void)!::write(reportFd, result, sizeof result);
    for (;;)
        ::pause();
}

// Child work: fork five sleepers, report how many, then wait to be killed.
[[noreturn]] void forkFiveSleepers(int reportFd)
{
    int count = 0;
    for (int i = 0; i < 5; ++i) {
        const pid_t pid = ::fork();
        if (pid == 0) {
            for (;;)
                ::pause();
        }
        if (pid > 0)
            ++count;
    }
    (void)!::write(reportFd, &count, sizeof count);
    for (;;)
        ::pause();
}

[[noreturn]] void waitForever(int)
{
    for (;;)
        ::pause();
}

// The delegated user's side of delegateToUser(): runs in a child that has dropped to uid, returns what went
// wrong or an empty string.
QString runAsDelegatedUser(uid_t uid)
{
    auto denied = delegateToUser(uid, uid);
    if (denied || denied.error().code() != "cgroup.permission")
        return QStringLiteral("delegateToUser as uid %1 must fail with cgroup.permission").arg(uid);
    auto backend = detectBackend(userNameFromNss);
    if (!backend)
        return QStringLiteral("detectBackend as the delegated user: ") + describe(backend.error());
    CgroupBackend &b = **backend;
    if (!contains(b.describe(), "/cordon/uid-" + std::to_string(uid)))
        return QStringLiteral("the backend does not use the delegated base: ") + toQt(b.describe());
    if (auto prepared = b.prepareSelf(); !prepared)
        return QStringLiteral("prepareSelf: ") + toQt(prepared.error().message());
    const std::string name = "delegated-oom";
    if (auto created = b.create(name, {64 * MiB, 16}); !created)
        return QStringLiteral("create: ") + toQt(created.error().message());
    Child child = forkChild(allocate200MiB);
    if (child.pid < 0)
        return QStringLiteral("fork failed");
    auto added = b.addProcess(name, child.pid);
    release(child);
    const int status = waitFor(child.pid);
    ::close(child.reportFd);
    if (!added)
        return QStringLiteral("addProcess: ") + toQt(added.error().message());
    if (!killedBySigkill(status))
        return QStringLiteral("the allocating child was not OOM-killed: ") + describeStatus(status);
    auto stats = b.memoryStats(name);
    if (!stats || stats->oomKills < 1)
        return QStringLiteral("memoryStats shows no OOM kill");
    if (auto destroyed = b.destroy(name); !destroyed)
        return QStringLiteral("destroy: ") + toQt(destroyed.error().message());
    for (const std::string &path : b.groupPaths(name)) {
        if (pathExists(path))
            return QStringLiteral("destroy left ") + toQt(path);
    }
    return {};
}

} // namespace

class TestCgroup : public QObject
{
    Q_OBJECT

public:
    explicit TestCgroup(Result<std::unique_ptr<CgroupBackend>> backend) : m_detected(std::move(backend)) {}

private:
    CgroupBackend &backend() { return **m_detected; }

    std::string group(const char *tag)
    {
        const std::string name = "tst-" + std::to_string(::getpid()) + '-' + tag;
        m_names.push_back(name);
        return name;
    }

    void checkGone(const std::string &name)
    {
        for (const std::string &path : backend().groupPaths(name))
            QVERIFY2(!pathExists(path), (path + " still exists").c_str());
    }

    Result<std::unique_ptr<CgroupBackend>> m_detected;
    std::vector<std::string> m_names;
    std::vector<std::string> m_basesWeMade; // deepest first
    const std::string m_probe = "probe";

private slots:
    void initTestCase()
    {
        if (!m_detected)
            QFAIL(qPrintable(QStringLiteral("no usable cgroup backend: ") + describe(m_detected.error())));
        qInfo("%s", backend().describe().c_str());
        // Orphaned grandchildren come back to us, so they can be reaped and stop counting in pids.current.
        QCOMPARE(::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), 0);
        // The root backends create their base on demand; remember what to take away again.
        for (const std::string &path : backend().groupPaths(m_probe)) {
            const std::string base = parentOf(path);
            if (!pathExists(base))
                m_basesWeMade.push_back(base);
            if (!pathExists(parentOf(base)))
                m_basesWeMade.push_back(parentOf(base));
        }
        QVERIFY_RESULT(backend().prepareSelf());
    }

    void cleanupTestCase()
    {
        if (!m_detected)
            return;
        for (const std::string &name : m_names)
            (void)backend().destroy(name);
        reapOrphans();
        // rmdir only removes empty groups, so a base another test is using at the same time stays.
        for (const std::string &base : m_basesWeMade)
            ::rmdir(base.c_str());
    }

    void describeNamesTheVersion()
    {
        const std::string prefix = backend().version() == Version::V1 ? "cgroup v1: " : "cgroup v2: ";
        QVERIFY2(backend().describe().starts_with(prefix), backend().describe().c_str());
        const std::vector<std::string> paths = backend().groupPaths(m_probe);
        QVERIFY(!paths.empty());
        for (const std::string &path : paths)
            QVERIFY2(contains(backend().describe(), parentOf(path)), path.c_str());
    }

    void inspectHostAgreesWithDetect()
    {
        const HostReport report = inspectHost(userNameFromNss);
        QVERIFY(report.version == backend().version());
        QVERIFY(report.memoryController);
        QVERIFY(report.pidsController);
        QVERIFY(report.writable);
        QCOMPARE(report.base, parentOf(backend().groupPaths(m_probe).front()));
        QVERIFY2(report.explanation.starts_with(backend().describe().substr(0, 11)),
                 report.explanation.c_str());
    }

    void createWritesLimits()
    {
        const std::string name = group("limits");
        QVERIFY_RESULT(backend().create(name, {64 * MiB, 16}));
        const std::vector<std::string> paths = backend().groupPaths(name);
        const std::string memory = paths.front();
        const std::string pids = paths.back();
        if (backend().version() == Version::V1) {
            QCOMPARE(readText(memory + "/memory.limit_in_bytes"), QByteArray("67108864\n"));
            if (pathExists(memory + "/memory.memsw.limit_in_bytes"))
                QCOMPARE(readText(memory + "/memory.memsw.limit_in_bytes"), QByteArray("67108864\n"));
            QCOMPARE(readText(memory + "/memory.swappiness"), QByteArray("0\n"));
        } else {
            QCOMPARE(readText(memory + "/memory.max"), QByteArray("67108864\n"));
            // Not a group kill: a long-lived container must survive its run's OOM kill.
            QCOMPARE(readText(memory + "/memory.oom.group"), QByteArray("0\n"));
            if (pathExists(memory + "/memory.swap.max"))
                QCOMPARE(readText(memory + "/memory.swap.max"), QByteArray("0\n"));
        }
        QCOMPARE(readText(pids + "/pids.max"), QByteArray("16\n"));

        const auto stats = backend().memoryStats(name);
        QVERIFY_RESULT(stats);
        QCOMPARE(stats->limit, 64 * MiB);
        QCOMPARE(stats->oomKills, 0);
        const auto count = backend().pidsCurrent(name);
        QVERIFY_RESULT(count);
        QCOMPARE(*count, 0);
        const auto listed = backend().processes(name);
        QVERIFY_RESULT(listed);
        QVERIFY(listed->empty());

        QVERIFY_RESULT(backend().destroy(name));
        checkGone(name);
    }

    void createWithoutLimits()
    {
        const std::string name = group("nolimits");
        QVERIFY_RESULT(backend().create(name, {}));
        QCOMPARE(readText(backend().groupPaths(name).back() + "/pids.max"), QByteArray("max\n"));
        const auto stats = backend().memoryStats(name);
        QVERIFY_RESULT(stats);
        QCOMPARE(stats->limit, 0);
        QVERIFY_RESULT(backend().destroy(name));
    }

    void createReusesOnlyAnEmptyGroup()
    {
        const std::string name = group("reuse");
        QVERIFY_RESULT(backend().create(name, {32 * MiB, 8}));
        QVERIFY_RESULT(backend().create(name, {64 * MiB, 16}));
        if (backend().version() == Version::V1)
            QCOMPARE(readText(backend().groupPaths(name).front() + "/memory.limit_in_bytes"),
                     QByteArray("67108864\n"));

        Child child = forkChild(waitForever);
        QVERIFY(child.pid > 0);
        auto guard = qScopeGuard([&] { killChild(child); });
        QVERIFY_RESULT(backend().addProcess(name, child.pid));
        const auto again = backend().create(name, {});
        QVERIFY(!again);
        QCOMPARE(again.error().code(), std::string("cgroup.io"));
        QCOMPARE(again.error().sysErrno(), EEXIST);
        QCOMPARE(again.error().message(),
                 "create group `" + name + "`: it already exists and holds 1 process(es)");
        // destroy() kills what is left.
        QVERIFY_RESULT(backend().destroy(name));
        QVERIFY(killedBySigkill(waitFor(child.pid)));
        checkGone(name);
    }

    void errorsNameTheFile()
    {
        const std::string name = group("missing");
        const auto stats = backend().memoryStats(name);
        QVERIFY(!stats);
        QCOMPARE(stats.error().code(), std::string("cgroup.io"));
        QCOMPARE(stats.error().sysErrno(), ENOENT);
        QVERIFY2(stats.error().message().starts_with("read `" + backend().groupPaths(name).front() + '/'),
                 stats.error().message().c_str());
        QVERIFY2(stats.error().message().ends_with("`: No such file or directory"),
                 stats.error().message().c_str());

        const auto added = backend().addProcess(name, ::getpid());
        QVERIFY(!added);
        QCOMPARE(added.error().sysErrno(), ENOENT);
        QVERIFY2(contains(added.error().message(), backend().groupPaths(name).front() + "/cgroup.procs`"),
                 added.error().message().c_str());

        QVERIFY_RESULT(backend().destroy(name)); // already gone is fine
    }

    void badNamesAreRejected_data()
    {
        QTest::addColumn<QString>("qtName");
        QTest::newRow("parent") << QStringLiteral("..");
        QTest::newRow("escape") << QStringLiteral("../escape");
        QTest::newRow("control file") << QStringLiteral("cgroup.procs");
        QTest::newRow("empty") << QString();
    }

    void badNamesAreRejected()
    {
        QFETCH(QString, qtName);
        const std::string name = qtName.toStdString();
        const auto created = backend().create(name, {});
        QVERIFY(!created);
        QCOMPARE(created.error().code(), std::string("cgroup.invalid_name"));
        QCOMPARE(backend().addProcess(name, ::getpid()).error().code(), std::string("cgroup.invalid_name"));
        QCOMPARE(backend().destroy(name).error().code(), std::string("cgroup.invalid_name"));
        QVERIFY(!pathExists(parentOf(backend().groupPaths(m_probe).front()) + "/escape"));
    }

    void memoryLimitOomKills()
    {
        const std::string name = group("oom");
        QVERIFY_RESULT(backend().create(name, {64 * MiB, 16}));
        Child child = forkChild(allocate200MiB);
        QVERIFY(child.pid > 0);
        auto added = backend().addProcess(name, child.pid);
        if (!added)
            ::kill(child.pid, SIGKILL);
        const auto listed = backend().processes(name);
        release(child);
        const int status = waitFor(child.pid);
        ::close(child.reportFd);
        QVERIFY_RESULT(added);
        QVERIFY_RESULT(listed);
        QCOMPARE(*listed, std::vector<pid_t>{child.pid});
        QVERIFY2(killedBySigkill(status), qPrintable(describeStatus(status)));

        const auto stats = backend().memoryStats(name);
        QVERIFY_RESULT(stats);
        QVERIFY2(stats->oomKills >= 1, qPrintable(QString::number(stats->oomKills)));
        QVERIFY2(stats->oomEvents >= 1, qPrintable(QString::number(stats->oomEvents)));
        QCOMPARE(stats->limit, 64 * MiB);
        // It got close to the limit before it was killed, and never past it.
        if (stats->peak != 0 || backend().version() == Version::V1)
            QVERIFY2(stats->peak > 32 * MiB && stats->peak <= 64 * MiB,
                     qPrintable(QString::number(stats->peak)));
        QVERIFY_RESULT(backend().destroy(name));
        checkGone(name);
    }

    void pidsLimitStopsForkLoop()
    {
        const std::string name = group("pids");
        QVERIFY_RESULT(backend().create(name, {0, 16}));
        Child child = forkChild(forkUntilRefused);
        QVERIFY(child.pid > 0);
        auto guard = qScopeGuard([&] {
            ::close(child.reportFd);
            (void)backend().killAll(name);
            waitFor(child.pid);
            reapOrphans();
        });
        auto added = backend().addProcess(name, child.pid);
        if (!added)
            ::kill(child.pid, SIGKILL);
        release(child);
        QVERIFY_RESULT(added);
        int result[2] = {-1, -1};
        QVERIFY2(readExact(child.reportFd, result, sizeof result), "the forking child did not report");
        // The child itself is one of the 16.
        QCOMPARE(result[0], 15);
        QCOMPARE(result[1], EAGAIN);
        const auto count = backend().pidsCurrent(name);
        QVERIFY_RESULT(count);
        QCOMPARE(*count, 16);
        const auto listed = backend().processes(name);
        QVERIFY_RESULT(listed);
        QCOMPARE(listed->size(), size_t(16));
        QVERIFY(std::find(listed->begin(), listed->end(), child.pid) != listed->end());

        QVERIFY_RESULT(backend().killAll(name));
        const auto after = backend().processes(name);
        QVERIFY_RESULT(after);
        QVERIFY(after->empty());
        QVERIFY(killedBySigkill(waitFor(child.pid)));
        reapOrphans();
        const auto reaped = backend().pidsCurrent(name);
        QVERIFY_RESULT(reaped);
        QCOMPARE(*reaped, 0);
        QVERIFY_RESULT(backend().destroy(name));
        checkGone(name);
    }

    void killAllEmptiesTheGroup()
    {
        const std::string name = group("kill");
        QVERIFY_RESULT(backend().create(name, {}));
        QVERIFY_RESULT(backend().killAll(name)); // empty: nothing to do
        Child child = forkChild(forkFiveSleepers);
        QVERIFY(child.pid > 0);
        auto guard = qScopeGuard([&] {
            ::close(child.reportFd);
            (void)backend().killAll(name);
            waitFor(child.pid);
            reapOrphans();
        });
        auto added = backend().addProcess(name, child.pid);
        if (!added)
            ::kill(child.pid, SIGKILL);
        release(child);
        QVERIFY_RESULT(added);
        int forked = -1;
        QVERIFY(readExact(child.reportFd, &forked, sizeof forked));
        QCOMPARE(forked, 5);
        const auto before = backend().processes(name);
        QVERIFY_RESULT(before);
        QCOMPARE(before->size(), size_t(6));

        QVERIFY_RESULT(backend().killAll(name));
        const auto after = backend().processes(name);
        QVERIFY_RESULT(after);
        QVERIFY(after->empty());
        QVERIFY(killedBySigkill(waitFor(child.pid)));
        QVERIFY_RESULT(backend().destroy(name));
        checkGone(name);
        QVERIFY_RESULT(backend().destroy(name));
    }

    void favourDynmodsIsRootsHostWideStep()
    {
        if (::geteuid() != 0) {
            const auto refused = favourDynmods();
            QVERIFY(!refused);
            QCOMPARE(refused.error().code(), std::string("cgroup.permission"));
            return;
        }
        auto mountinfo = Fs::readFile("/proc/self/mountinfo");
        QVERIFY_RESULT(mountinfo);
        if (inspectMigrationTuning(parseCgroupMounts(*mountinfo)).unifiedMountPoint.empty())
            SKIP_UNLESS_MUST_WORK("this host mounts no cgroup2 hierarchy");
        // The documented root step, for real: the kernel takes the option and keeps the others, a second call
        // changes nothing, and the doctor's check turns quick.
        const auto favoured = favourDynmods();
        QVERIFY_RESULT(favoured);
        mountinfo = Fs::readFile("/proc/self/mountinfo");
        QVERIFY_RESULT(mountinfo);
        const MigrationTuning tuning = inspectMigrationTuning(parseCgroupMounts(*mountinfo));
        QVERIFY2(tuning.favoured, favoured->c_str());
        const auto again = favourDynmods();
        QVERIFY_RESULT(again);
        QVERIFY2(contains(*again, "already"), again->c_str());
        const QList<Isolation::HostCheck> checks = Isolation::probeHost();
        const auto moves =
            std::find_if(checks.cbegin(), checks.cend(), [](const Isolation::HostCheck &check) {
                return check.name == QLatin1String("cgroup moves");
            });
        QVERIFY(moves != checks.cend());
        QCOMPARE(moves->status, Isolation::CheckStatus::Ok);
    }

    void delegateToUnprivilegedUser()
    {
        if (::geteuid() != 0)
            QSKIP("delegateToUser() is the one root step; this run is unprivileged");
        uid_t uid = 3917000;
        while (::getpwuid(uid) || ::getgrgid(gid_t(uid)))
            ++uid;
        QStringList userBases;
        for (const std::string &path : backend().groupPaths(m_probe))
            userBases.append(toQt(parentOf(parentOf(path)) + "/uid-" + std::to_string(uid)));
        userBases.removeDuplicates();
        auto cleanup = qScopeGuard([&] {
            for (const QString &base : std::as_const(userBases)) {
                // The delegated engine's v2 leaf outlives it: a process cannot remove the group it is in.
                const QStringList leaves =
                    QDir(base).entryList({QStringLiteral("engine.*")}, QDir::Dirs | QDir::NoDotAndDotDot);
                for (const QString &leaf : leaves)
                    ::rmdir((base + QLatin1Char('/') + leaf).toLocal8Bit().constData());
                ::rmdir(base.toLocal8Bit().constData());
            }
        });

        const auto delegated = delegateToUser(uid, gid_t(uid));
        QVERIFY_RESULT(delegated);
        QVERIFY_RESULT(delegateToUser(uid, gid_t(uid))); // idempotent
        for (const QString &base : std::as_const(userBases)) {
            QVERIFY2(contains(*delegated, base.toStdString()), delegated->c_str());
            QCOMPARE(ownerOf(base.toStdString()), qint64(uid));
            QCOMPARE(ownerOf(base.toStdString() + "/cgroup.procs"), qint64(uid));
            QCOMPARE(ownerOf(parentOf(base.toStdString())), qint64(0));
        }
        // The user must not be able to raise the limits root may set on their base.
        const QString limitFile = backend().version() == Version::V1
                                      ? QStringLiteral("/memory.limit_in_bytes")
                                      : QStringLiteral("/memory.max");
        QCOMPARE(ownerOf(QString(userBases.first() + limitFile).toStdString()), qint64(0));

        int report[2];
        QCOMPARE(::pipe2(report, O_CLOEXEC), 0);
        const bool v2 = backend().version() == Version::V2;
        const pid_t pid = ::fork();
        if (pid == 0) {
            ::close(report[0]);
            QString problem;
            // On v2 an unprivileged engine can only reach a base it already runs in (the common-ancestor
            // rule), so root puts it there first, as a login hook would.
            const QByteArray self = QByteArray::number(::getpid());
            if (v2) {
                const int fd =
                    ::open((userBases.first() + QStringLiteral("/cgroup.procs")).toLocal8Bit().constData(),
                           O_WRONLY | O_CLOEXEC);
                if (fd < 0 || ::write(fd, self.constData(), size_t(self.size())) != self.size())
                    problem = QStringLiteral("root could not place the child in the delegated base");
                if (fd >= 0)
                    ::close(fd);
            }
            if (problem.isEmpty() && (::setgroups(0, nullptr) != 0 || ::setresgid(uid, uid, uid) != 0 ||
                                      ::setresuid(uid, uid, uid) != 0))
                problem = QStringLiteral("could not drop to uid %1: %2")
                              .arg(uid)
                              .arg(QLatin1String(std::strerror(errno)));
            if (problem.isEmpty())
                problem = runAsDelegatedUser(uid);
            const QByteArray text = problem.toUtf8();
            (void)!::write(report[1], text.constData(), size_t(text.size()));
            ::_exit(problem.isEmpty() ? 0 : 1);
        }
        ::close(report[1]);
        QVERIFY(pid > 0);
        QByteArray problem;
        char buffer[512];
        ssize_t n;
        while ((n = ::read(report[0], buffer, sizeof buffer)) > 0)
            problem.append(buffer, n);
        ::close(report[0]);
        const int status = waitFor(pid, 60000);
        reapOrphans();
        QCOMPARE(QString::fromUtf8(problem), QString());
        QVERIFY2(status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0,
                 qPrintable(describeStatus(status)));
    }
};

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    auto backend = detectBackend(userNameFromNss);
    if (!backend && qgetenv("CORDON_MUST_WORK") != "1") {
        std::fprintf(stderr, "SKIP: no usable cgroup backend: %s\n", qPrintable(describe(backend.error())));
        return 77;
    }
    TestCgroup test(std::move(backend));
    return QTest::qExec(&test, argc, argv);
}

#include "tst_cgroup.moc"
