// SPDX-License-Identifier: MIT
// The two routes of mountcalls.h, each in a user and mount namespace of its own: a read-only bind must not be
// writable, flags must land on the mount they are meant for (only the top of a recursive bind), and a new
// filesystem gets its options and flags. The same checks run on both routes, so the route that kernels
// before 5.12 take is proven here even though this kernel would never choose it.
#include "childreport.h"
#include "sandbox/init/mountcalls.h"
#include "testutil.h"

#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cerrno>
#include <fcntl.h>
#include <linux/magic.h>
#include <sched.h>
#include <string>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

using ChildReport::say;
using Cordon::Isolation::MountCalls;

namespace {

int openPath(const std::string &path)
{
    return ::open(path.c_str(), O_PATH | O_CLOEXEC);
}

// errno of creating a file in `dir` (0 when it could be created).
int createError(const std::string &dir)
{
    const int fd = ::open((dir + "/probe").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        return errno;
    ::close(fd);
    return 0;
}

int countMounts()
{
    const int fd = ::open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int lines = 0;
    char buffer[4096];
    for (ssize_t n; (n = ::read(fd, buffer, sizeof buffer)) > 0;)
        lines += static_cast<int>(std::count(buffer, buffer + n, '\n'));
    ::close(fd);
    return lines;
}

long long mountFlags(const std::string &path)
{
    struct statvfs info
    {
    };
    return ::statvfs(path.c_str(), &info) == 0 ? static_cast<long long>(info.f_flag) : -1;
}

} // namespace

class TestMountCalls final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        const auto probe = ChildReport::run([](int) {});
        if (probe.contains(QStringLiteral("error")))
            SKIP_UNLESS_MUST_WORK("no user namespaces here");
    }

    void readOnlyBind_data()
    {
        QTest::addColumn<bool>("classic");
        QTest::newRow("file-descriptor API") << false;
        QTest::newRow("mount(2) on /proc/self/fd") << true;
    }

    void readOnlyBind()
    {
        QFETCH(bool, classic);
        const std::string root = m_dir.path().toStdString() + (classic ? "/bind-classic" : "/bind-fd");
        for (const char *sub : {"", "/source", "/source/nested", "/target"})
            QVERIFY(::mkdir((root + sub).c_str(), 0755) == 0);

        const auto report = ChildReport::run([&](int out) {
            // A writable submount below the source: a recursive bind carries it, with its own flags.
            ::mount("tmpfs", (root + "/source/nested").c_str(), "tmpfs", 0, "size=1m");
            MountCalls calls(classic);
            const int source = openPath(root + "/source");
            const int target = openPath(root + "/target");
            say(out, "bind", calls.bind(source, target, true, MS_RDONLY | MS_NOSUID | MS_NODEV, [&] {
                return openPath(root + "/target");
            }));
            say(out, "classic", calls.classic());
            say(out, "targetCreate", createError(root + "/target"));
            say(out, "sourceCreate", createError(root + "/source"));
            say(out, "nestedCreate", createError(root + "/target/nested"));
            say(out, "targetFlags", mountFlags(root + "/target"));
            say(out, "nestedFlags", mountFlags(root + "/target/nested"));
        });
        QVERIFY2(!report.contains(QStringLiteral("error")),
                 qPrintable(report.value(QStringLiteral("error"))));
        QCOMPARE(report.value(QStringLiteral("bind")), QStringLiteral("0"));
        // The route asked for is the route taken: no silent fallback on a kernel that has the new API.
        QCOMPARE(report.value(QStringLiteral("classic")),
                 classic ? QStringLiteral("1") : QStringLiteral("0"));
        QCOMPARE(report.value(QStringLiteral("targetCreate")).toInt(), EROFS);
        QCOMPARE(report.value(QStringLiteral("sourceCreate")).toInt(), 0);
        QCOMPARE(report.value(QStringLiteral("nestedCreate")).toInt(), 0);
        const long long flags = report.value(QStringLiteral("targetFlags")).toLongLong();
        QVERIFY(flags >= 0);
        QVERIFY(flags & ST_RDONLY);
        QVERIFY(flags & ST_NOSUID);
        QVERIFY(flags & ST_NODEV);
        QVERIFY(!(report.value(QStringLiteral("nestedFlags")).toLongLong() & ST_RDONLY));
    }

    void restrictInPlace_data() { readOnlyBind_data(); }

    void restrictInPlace()
    {
        QFETCH(bool, classic);
        const std::string root =
            m_dir.path().toStdString() + (classic ? "/restrict-classic" : "/restrict-fd");
        QVERIFY(::mkdir(root.c_str(), 0755) == 0);

        const auto report = ChildReport::run([&](int out) {
            ::mount("tmpfs", root.c_str(), "tmpfs", 0, "size=1m");
            ::mkdir((root + "/below").c_str(), 0755);
            ::mount("tmpfs", (root + "/below").c_str(), "tmpfs", 0, "size=1m");
            const int mounts = countMounts();
            MountCalls calls(classic);
            const int target = openPath(root);
            say(out, "restrict", calls.restrictInPlace(target, MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC));
            say(out, "classic", calls.classic());
            say(out, "newMounts", countMounts() - mounts);
            say(out, "rootCreate", createError(root));
            say(out, "belowCreate", createError(root + "/below"));
            say(out, "rootFlags", mountFlags(root));
        });
        QVERIFY2(!report.contains(QStringLiteral("error")),
                 qPrintable(report.value(QStringLiteral("error"))));
        QCOMPARE(report.value(QStringLiteral("restrict")), QStringLiteral("0"));
        QCOMPARE(report.value(QStringLiteral("classic")),
                 classic ? QStringLiteral("1") : QStringLiteral("0"));
        // In place: no mount added, the one below untouched.
        QCOMPARE(report.value(QStringLiteral("newMounts")).toInt(), 0);
        QCOMPARE(report.value(QStringLiteral("rootCreate")).toInt(), EROFS);
        QCOMPARE(report.value(QStringLiteral("belowCreate")).toInt(), 0);
        const long long flags = report.value(QStringLiteral("rootFlags")).toLongLong();
        QVERIFY(flags & ST_RDONLY);
        QVERIFY(flags & ST_NOSUID);
        QVERIFY(flags & ST_NODEV);
        QVERIFY(flags & ST_NOEXEC);
    }

    void newFilesystem_data() { readOnlyBind_data(); }

    void newFilesystem()
    {
        QFETCH(bool, classic);
        const std::string root = m_dir.path().toStdString() + (classic ? "/fs-classic" : "/fs-fd");
        for (const char *sub : {"", "/scratch", "/masked"})
            QVERIFY(::mkdir((root + sub).c_str(), 0755) == 0);

        const auto report = ChildReport::run([&](int out) {
            MountCalls calls(classic);
            const int scratch = openPath(root + "/scratch");
            const int masked = openPath(root + "/masked");
            say(out, "scratch",
                calls.newFilesystem(scratch, "tmpfs", "mode=0700,size=1m", MS_NOSUID | MS_NOEXEC));
            say(out, "masked",
                calls.newFilesystem(masked, "tmpfs", "size=0,mode=0555",
                                    MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC));
            say(out, "classic", calls.classic());
            struct statfs fs
            {
            };
            ::statfs((root + "/scratch").c_str(), &fs);
            say(out, "type", static_cast<long long>(fs.f_type));
            say(out, "bytes", static_cast<long long>(fs.f_blocks) * fs.f_bsize);
            struct stat info
            {
            };
            ::stat((root + "/scratch").c_str(), &info);
            say(out, "mode", info.st_mode & 07777);
            say(out, "scratchFlags", mountFlags(root + "/scratch"));
            say(out, "scratchCreate", createError(root + "/scratch"));
            say(out, "maskedCreate", createError(root + "/masked"));
            // An option the filesystem does not know is an error, on both routes.
            say(out, "badOption", calls.newFilesystem(scratch, "tmpfs", "no-such-option=1", 0));
        });
        QVERIFY2(!report.contains(QStringLiteral("error")),
                 qPrintable(report.value(QStringLiteral("error"))));
        QCOMPARE(report.value(QStringLiteral("scratch")), QStringLiteral("0"));
        QCOMPARE(report.value(QStringLiteral("masked")), QStringLiteral("0"));
        QCOMPARE(report.value(QStringLiteral("classic")),
                 classic ? QStringLiteral("1") : QStringLiteral("0"));
        QCOMPARE(report.value(QStringLiteral("type")).toLongLong(), static_cast<long long>(TMPFS_MAGIC));
        QCOMPARE(report.value(QStringLiteral("bytes")).toLongLong(), 1024LL * 1024);
        QCOMPARE(report.value(QStringLiteral("mode")).toInt(), 0700);
        const long long flags = report.value(QStringLiteral("scratchFlags")).toLongLong();
        QVERIFY(flags & ST_NOSUID);
        QVERIFY(flags & ST_NOEXEC);
        QVERIFY(!(flags & ST_RDONLY));
        QCOMPARE(report.value(QStringLiteral("scratchCreate")).toInt(), 0);
        QCOMPARE(report.value(QStringLiteral("maskedCreate")).toInt(), EROFS);
        QCOMPARE(report.value(QStringLiteral("badOption")).toInt(), EINVAL);
    }

private:
    QTemporaryDir m_dir;
};

QTEST_GUILESS_MAIN(TestMountCalls)
#include "tst_mountcalls.moc"
