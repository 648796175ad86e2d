// SPDX-License-Identifier: MIT
// The cgroup parsers on literal kernel output from v1, hybrid and v2 hosts, and on garbage. These are the
// only tests of the v2 formats on a machine without a v2 memory controller.
#include "cgroup/cgroupbackend.h"
#include "cgroup/cgroupfs.h"
#include "cgroup/cgroupparsers.h"
#include "cgroup/migrationtuning.h"
#include "testutil.h"

#include <QTest>

using namespace Cordon;
using namespace Cordon::Cgroup;

namespace {

// "id|controllers|path" per entry, so expectations read like the kernel's lines.
QStringList describeEntries(const QList<ProcCgroupEntry> &entries)
{
    QStringList out;
    for (const ProcCgroupEntry &e : entries)
        out.append(QString::number(e.hierarchyId) + QLatin1Char('|') + e.controllers.join(QLatin1Char(',')) +
                   QLatin1Char('|') + e.path);
    return out;
}

// "mountpoint|root|v1 or v2|controllers|options" per mount.
QStringList describeMounts(const QList<MountEntry> &mounts)
{
    QStringList out;
    for (const MountEntry &m : mounts)
        out.append(m.mountPoint + QLatin1Char('|') + m.root + QLatin1Char('|') +
                   (m.unified ? QStringLiteral("v2") : QStringLiteral("v1")) + QLatin1Char('|') +
                   m.controllers.join(QLatin1Char(',')) + QLatin1Char('|') +
                   m.options.join(QLatin1Char(',')));
    return out;
}

const QByteArray HybridMountinfo =
    "22 27 0:20 / /proc rw,nosuid,nodev,noexec,relatime - proc proc rw\n"
    "27 1 254:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw,errors=remount-ro\n"
    "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
    "32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct\n"
    "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
    "39 31 0:36 / /sys/fs/cgroup/pids rw,nosuid shared:9 - cgroup cgroup rw,pids\n"
    "40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup "
    "rw,xattr,name=systemd\n"
    "34 31 0:31 / /sys/fs/cgroup/cpuset rw,relatime - cgroup cgroup "
    "rw,clone_children,cpuset\n"
    "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";

} // namespace

class TestCgroupParsers : public QObject
{
    Q_OBJECT

private slots:
    void procSelfCgroup_data()
    {
        QTest::addColumn<QByteArray>("input");
        QTest::addColumn<QStringList>("expected");

        QTest::newRow("v1 hybrid") << QByteArray(
                                          "9:name=systemd:/\n8:pids:/\n4:memory:/process_api/ab2e0b0c\n"
                                          "1:cpu,cpuacct:/\n0::/\n")
                                   << QStringList{QStringLiteral("9|name=systemd|/"),
                                                  QStringLiteral("8|pids|/"),
                                                  QStringLiteral("4|memory|/process_api/ab2e0b0c"),
                                                  QStringLiteral("1|cpu,cpuacct|/"), QStringLiteral("0||/")};
        QTest::newRow("pure v2 desktop")
            << QByteArray(
                   "0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-org.gnome.Terminal.slice/"
                   "vte-spawn-3f2a.scope\n")
            << QStringList{QStringLiteral("0||/user.slice/user-1000.slice/user@1000.service/app.slice/"
                                          "app-org.gnome.Terminal.slice/vte-spawn-3f2a.scope")};
        QTest::newRow("no trailing newline")
            << QByteArray("0::/system.slice/cordond.service")
            << QStringList{QStringLiteral("0||/system.slice/cordond.service")};
        QTest::newRow("colon in path")
            << QByteArray("0::/a:b/c\n") << QStringList{QStringLiteral("0||/a:b/c")};
        QTest::newRow("deleted group")
            << QByteArray("0::/gone (deleted)\n") << QStringList{QStringLiteral("0||/gone (deleted)")};
        QTest::newRow("empty") << QByteArray() << QStringList{};
        QTest::newRow("blank lines") << QByteArray("\n\n0::/\n\n") << QStringList{QStringLiteral("0||/")};
    }

    void procSelfCgroup()
    {
        QFETCH(QByteArray, input);
        QFETCH(QStringList, expected);
        const auto entries = parseProcSelfCgroup(input);
        QVERIFY_RESULT(entries);
        QCOMPARE(describeEntries(*entries), expected);
    }

    void procSelfCgroupUnified()
    {
        const auto entries = parseProcSelfCgroup("4:memory:/a\n0::/b\n");
        QVERIFY_RESULT(entries);
        QVERIFY(!entries->at(0).isUnified());
        QVERIFY(entries->at(1).isUnified());
    }

    void procSelfCgroupGarbage_data()
    {
        QTest::addColumn<QByteArray>("input");
        QTest::addColumn<QString>("message");
        QTest::newRow("one field") << QByteArray("hello\n")
                                   << QStringLiteral("line 1 `hello`: expected `id:controllers:/path`");
        QTest::newRow("two fields") << QByteArray("0::/\n4:memory\n")
                                    << QStringLiteral("line 2 `4:memory`: expected `id:controllers:/path`");
        QTest::newRow("id not a number")
            << QByteArray("x:memory:/a\n")
            << QStringLiteral("line 1 `x:memory:/a`: hierarchy id is not a number");
        QTest::newRow("negative id") << QByteArray("-1::/\n")
                                     << QStringLiteral("line 1 `-1::/`: hierarchy id is not a number");
        QTest::newRow("relative path")
            << QByteArray("4:memory:a/b\n") << QStringLiteral("line 1 `4:memory:a/b`: path is not absolute");
        QTest::newRow("empty path") << QByteArray("0::\n")
                                    << QStringLiteral("line 1 `0::`: path is not absolute");
        QTest::newRow("binary") << QByteArray("\x01\x02\xff", 3)
                                << QStringLiteral("line 1 `\x01\x02\uFFFD`: expected `id:controllers:/path`");
    }

    void procSelfCgroupGarbage()
    {
        QFETCH(QByteArray, input);
        QFETCH(QString, message);
        const auto entries = parseProcSelfCgroup(input);
        QVERIFY(!entries);
        QCOMPARE(entries.error().code(), QStringLiteral("cgroup.io"));
        QCOMPARE(entries.error().message(), message);
    }

    void mounts_data()
    {
        QTest::addColumn<QByteArray>("input");
        QTest::addColumn<QStringList>("expected");

        QTest::newRow("v1 hybrid")
            << HybridMountinfo
            << QStringList{QStringLiteral("/sys/fs/cgroup/cpu,cpuacct|/|v1|cpu,cpuacct|rw,cpu,cpuacct"),
                           QStringLiteral("/sys/fs/cgroup/memory|/|v1|memory|rw,memory"),
                           QStringLiteral("/sys/fs/cgroup/pids|/|v1|pids|rw,pids"),
                           QStringLiteral("/sys/fs/cgroup/systemd|/|v1||rw,xattr,name=systemd"),
                           QStringLiteral("/sys/fs/cgroup/cpuset|/|v1|cpuset|rw,clone_children,cpuset"),
                           QStringLiteral("/sys/fs/cgroup/unified|/|v2||rw")};
        QTest::newRow("pure v2 systemd")
            << QByteArray(
                   "25 21 0:22 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 "
                   "rw,nsdelegate,memory_recursiveprot\n"
                   "26 21 0:23 / /sys/fs/pstore rw,nosuid,nodev,noexec,relatime shared:5 - pstore pstore "
                   "rw\n")
            << QStringList{QStringLiteral("/sys/fs/cgroup|/|v2||rw,nsdelegate,memory_recursiveprot")};
        QTest::newRow("v2 nsdelegate in a container")
            << QByteArray("1021 1013 0:27 /../../.. /sys/fs/cgroup ro,nosuid,nodev,noexec,relatime master:9 "
                          "shared:12 - cgroup2 cgroup2 rw,nsdelegate\n")
            << QStringList{QStringLiteral("/sys/fs/cgroup|/../../..|v2||rw,nsdelegate")};
        QTest::newRow("v2 bind-mounted subtree with a space")
            << QByteArray(
                   "88 30 0:27 /user.slice/user-1000.slice /mnt/my\\040cgroups rw,relatime - cgroup2 none "
                   "rw,nsdelegate\n")
            << QStringList{QStringLiteral("/mnt/my cgroups|/user.slice/user-1000.slice|v2||rw,nsdelegate")};
        QByteArray garbage("not a mountinfo line\n\n1 2 3\n1 2 0:1 / /x rw - cgroup\n"
                           "1 2 0:1 / /x rw no-separator cgroup cgroup rw,memory\n");
        garbage.append("\x00\xff\n", 3);
        QTest::newRow("garbage") << garbage << QStringList{};
        QTest::newRow("empty") << QByteArray() << QStringList{};
    }

    void mounts()
    {
        QFETCH(QByteArray, input);
        QFETCH(QStringList, expected);
        QCOMPARE(describeMounts(parseCgroupMounts(input)), expected);
    }

    void migrationTuning()
    {
        // A hybrid host: the cgroup2 mount is found, not favoured yet; the remount keeps what it has.
        const QList<MountEntry> hybrid = parseCgroupMounts(HybridMountinfo);
        MigrationTuning tuning = inspectMigrationTuning(hybrid);
        QCOMPARE(tuning.unifiedMountPoint, QStringLiteral("/sys/fs/cgroup/unified"));
        QVERIFY(!tuning.favoured);

        const QList<MountEntry> systemd = parseCgroupMounts(
            "25 21 0:22 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot\n");
        QCOMPARE(favourDynmodsOptions(systemd.first()),
                 QStringLiteral("nsdelegate,memory_recursiveprot,favordynmods"));
        const QList<MountEntry> favoured = parseCgroupMounts(
            "25 21 0:22 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw,favordynmods,nsdelegate\n");
        tuning = inspectMigrationTuning(favoured);
        QVERIFY(tuning.favoured);
        QCOMPARE(favourDynmodsOptions(favoured.first()), QStringLiteral("nsdelegate,favordynmods"));

        // A container's view of a subtree is not the host's hierarchy; pure v1 has none.
        tuning = inspectMigrationTuning(parseCgroupMounts(
            "1021 1013 0:27 /../../.. /sys/fs/cgroup ro - cgroup2 cgroup2 rw,nsdelegate\n"));
        QVERIFY(tuning.unifiedMountPoint.isEmpty());
        QVERIFY(inspectMigrationTuning({}).unifiedMountPoint.isEmpty());
    }

    void flatKeyed_data()
    {
        QTest::addColumn<QByteArray>("input");
        QTest::addColumn<QStringList>("expected"); // sorted "key=value"

        QTest::newRow("v2 memory.events")
            << QByteArray("low 0\nhigh 0\nmax 12\noom 1\noom_kill 2\noom_group_kill 1\n")
            << QStringList{QStringLiteral("high=0"),           QStringLiteral("low=0"),
                           QStringLiteral("max=12"),           QStringLiteral("oom=1"),
                           QStringLiteral("oom_group_kill=1"), QStringLiteral("oom_kill=2")};
        QTest::newRow("v1 memory.oom_control")
            << QByteArray("oom_kill_disable 0\nunder_oom 0\noom_kill 3\n")
            << QStringList{QStringLiteral("oom_kill=3"), QStringLiteral("oom_kill_disable=0"),
                           QStringLiteral("under_oom=0")};
        QTest::newRow("memory.stat excerpt")
            << QByteArray("anon 67043328\nfile 4096\nkernel 3219456\npgfault 16741\n")
            << QStringList{QStringLiteral("anon=67043328"), QStringLiteral("file=4096"),
                           QStringLiteral("kernel=3219456"), QStringLiteral("pgfault=16741")};
        QTest::newRow("garbage lines skipped")
            << QByteArray("oom 1\njunk\noom_kill x\n a  b c\n\n max   7 \n")
            << QStringList{QStringLiteral("max=7"), QStringLiteral("oom=1")};
        QTest::newRow("empty") << QByteArray() << QStringList{};
    }

    void flatKeyed()
    {
        QFETCH(QByteArray, input);
        QFETCH(QStringList, expected);
        const QHash<QByteArray, qint64> values = parseFlatKeyed(input);
        QStringList actual;
        for (auto it = values.cbegin(); it != values.cend(); ++it)
            actual.append(QString::fromLatin1(it.key()) + QLatin1Char('=') + QString::number(it.value()));
        actual.sort();
        QCOMPARE(actual, expected);
    }

    void limitValue_data()
    {
        QTest::addColumn<QByteArray>("input");
        QTest::addColumn<qint64>("expected");
        QTest::newRow("v2 max") << QByteArray("max\n") << qint64(-1);
        QTest::newRow("max without newline") << QByteArray("max") << qint64(-1);
        QTest::newRow("v1 unlimited, 4 KiB pages") << QByteArray("9223372036854771712\n") << qint64(-1);
        QTest::newRow("v1 unlimited, 64 KiB pages") << QByteArray("9223372036854710272\n") << qint64(-1);
        QTest::newRow("LLONG_MAX") << QByteArray("9223372036854775807") << qint64(-1);
        QTest::newRow("minus one") << QByteArray("-1\n") << qint64(-1);
        QTest::newRow("64 MiB") << QByteArray("67108864\n") << qint64(67108864);
        QTest::newRow("zero") << QByteArray("0\n") << qint64(0);
        QTest::newRow("spaces") << QByteArray("  16 \n") << qint64(16);
        QTest::newRow("large but limited") << QByteArray("1099511627776\n") << qint64(1099511627776);
    }

    void limitValue()
    {
        QFETCH(QByteArray, input);
        QFETCH(qint64, expected);
        const auto value = parseLimitValue(input);
        QVERIFY_RESULT(value);
        QCOMPARE(*value, expected);
    }

    void limitValueGarbage_data()
    {
        QTest::addColumn<QByteArray>("input");
        QTest::newRow("empty") << QByteArray();
        QTest::newRow("newline only") << QByteArray("\n");
        QTest::newRow("word") << QByteArray("unlimited\n");
        QTest::newRow("trailing letters") << QByteArray("12abc\n");
        QTest::newRow("negative") << QByteArray("-5\n");
        QTest::newRow("overflow") << QByteArray("99999999999999999999\n");
        QTest::newRow("cpu.max pair") << QByteArray("max 100000\n");
        QTest::newRow("fraction") << QByteArray("1.5\n");
        QTest::newRow("binary") << QByteArray("\x00\x01", 2);
    }

    void limitValueGarbage()
    {
        QFETCH(QByteArray, input);
        const auto value = parseLimitValue(input);
        QVERIFY(!value);
        QCOMPARE(value.error().code(), QStringLiteral("cgroup.io"));
    }

    void controllerList()
    {
        QCOMPARE(parseControllerList("cpuset cpu io memory hugetlb pids rdma misc\n"),
                 (QStringList{QStringLiteral("cpuset"), QStringLiteral("cpu"), QStringLiteral("io"),
                              QStringLiteral("memory"), QStringLiteral("hugetlb"), QStringLiteral("pids"),
                              QStringLiteral("rdma"), QStringLiteral("misc")}));
        QCOMPARE(parseControllerList("\n"), QStringList{});
        QCOMPARE(parseControllerList("hugetlb\n"), QStringList{QStringLiteral("hugetlb")});
    }

    void groupName_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<bool>("valid");
        QTest::newRow("plain") << QStringLiteral("c-1a2b_X") << true;
        QTest::newRow("64 chars") << QString(64, QLatin1Char('a')) << true;
        QTest::newRow("65 chars") << QString(65, QLatin1Char('a')) << false;
        QTest::newRow("empty") << QString() << false;
        QTest::newRow("slash") << QStringLiteral("a/b") << false;
        QTest::newRow("dot dot") << QStringLiteral("..") << false;
        QTest::newRow("control file") << QStringLiteral("memory.max") << false;
        QTest::newRow("engine leaf") << QStringLiteral("engine.42") << false;
        QTest::newRow("space") << QStringLiteral("a b") << false;
        QTest::newRow("newline") << QStringLiteral("a\nb") << false;
        QTest::newRow("non-ascii") << QStringLiteral("caf\u00e9") << false;
    }

    void groupName()
    {
        QFETCH(QString, name);
        QFETCH(bool, valid);
        const auto result = validateGroupName(name);
        QCOMPARE(bool(result), valid);
        if (!valid)
            QCOMPARE(result.error().code(), QStringLiteral("cgroup.invalid_name"));
    }

    void fsPathOf_data()
    {
        QTest::addColumn<QString>("mountPoint");
        QTest::addColumn<QString>("root");
        QTest::addColumn<QString>("procPath");
        QTest::addColumn<QString>("expected");
        QTest::newRow("whole hierarchy")
            << QStringLiteral("/sys/fs/cgroup") << QStringLiteral("/")
            << QStringLiteral("/user.slice/x.scope") << QStringLiteral("/sys/fs/cgroup/user.slice/x.scope");
        QTest::newRow("root group") << QStringLiteral("/sys/fs/cgroup/unified") << QStringLiteral("/")
                                    << QStringLiteral("/") << QStringLiteral("/sys/fs/cgroup/unified");
        QTest::newRow("bind-mounted subtree")
            << QStringLiteral("/mnt/cg") << QStringLiteral("/user.slice") << QStringLiteral("/user.slice/a/b")
            << QStringLiteral("/mnt/cg/a/b");
        QTest::newRow("subtree itself") << QStringLiteral("/mnt/cg") << QStringLiteral("/user.slice")
                                        << QStringLiteral("/user.slice") << QStringLiteral("/mnt/cg");
        QTest::newRow("outside the subtree") << QStringLiteral("/mnt/cg") << QStringLiteral("/user.slice")
                                             << QStringLiteral("/system.slice/a") << QString();
        QTest::newRow("prefix is not a parent") << QStringLiteral("/mnt/cg") << QStringLiteral("/user")
                                                << QStringLiteral("/user.slice") << QString();
    }

    void fsPathOf()
    {
        QFETCH(QString, mountPoint);
        QFETCH(QString, root);
        QFETCH(QString, procPath);
        QFETCH(QString, expected);
        MountEntry mount;
        mount.mountPoint = mountPoint;
        mount.root = root;
        mount.unified = true;
        QCOMPARE(Fs::fsPathOf(mount, procPath), expected);
    }

    void commonAncestor_data()
    {
        QTest::addColumn<QString>("a");
        QTest::addColumn<QString>("b");
        QTest::addColumn<QString>("expected");
        QTest::newRow("siblings under the delegated unit")
            << QStringLiteral("/sys/fs/cgroup/user.slice/user-1000.slice/user@1000.service/app.slice/t.scope")
            << QStringLiteral("/sys/fs/cgroup/user.slice/user-1000.slice/user@1000.service/cordon/engine.7")
            << QStringLiteral("/sys/fs/cgroup/user.slice/user-1000.slice/user@1000.service");
        QTest::newRow("session scope outside the delegation")
            << QStringLiteral("/sys/fs/cgroup/user.slice/user-1000.slice/session-2.scope")
            << QStringLiteral("/sys/fs/cgroup/user.slice/user-1000.slice/user@1000.service/cordon")
            << QStringLiteral("/sys/fs/cgroup/user.slice/user-1000.slice");
        QTest::newRow("name prefix is not a common parent")
            << QStringLiteral("/sys/fs/cgroup/ab") << QStringLiteral("/sys/fs/cgroup/abc")
            << QStringLiteral("/sys/fs/cgroup");
        QTest::newRow("one inside the other")
            << QStringLiteral("/a/b") << QStringLiteral("/a/b/c") << QStringLiteral("/a/b");
        QTest::newRow("only the root") << QStringLiteral("/a") << QStringLiteral("/b") << QStringLiteral("/");
    }

    void commonAncestor()
    {
        QFETCH(QString, a);
        QFETCH(QString, b);
        QFETCH(QString, expected);
        QCOMPARE(Fs::commonAncestor(a, b), expected);
    }
};

QTEST_GUILESS_MAIN(TestCgroupParsers)
#include "tst_cgroupparsers.moc"
