// SPDX-License-Identifier: MIT
// The cgroup parsers on literal kernel output from v1, hybrid and v2 hosts, and on garbage. These are the
// only tests of the v2 formats on a machine without a v2 memory controller. They test the sandbox library's
// parsers (engine/sandbox/cgroup), the only ones there are.
#include "sandbox/cgroup/cgroupbackend.h"
#include "sandbox/cgroup/cgroupfs.h"
#include "sandbox/cgroup/cgroupparsers.h"
#include "sandbox/cgroup/migrationtuning.h"
#include "testutil.h"

#include <QTemporaryFile>
#include <QTest>

#include <algorithm>
#include <cerrno>

using namespace Cordon;
using namespace Cordon::Cgroup;

namespace {

// "id|controllers|path" per entry, so expectations read like the kernel's lines.
QStringList describeEntries(const std::vector<ProcCgroupEntry> &entries)
{
    QStringList out;
    for (const ProcCgroupEntry &e : entries) {
        std::string controllers;
        for (const std::string &c : e.controllers)
            controllers += (controllers.empty() ? "" : ",") + c;
        out.append(QString::fromStdString(std::to_string(e.hierarchyId) + '|' + controllers + '|' + e.path));
    }
    return out;
}

// "mountpoint|root|v1 or v2|controllers|options" per mount.
QStringList describeMounts(const std::vector<MountEntry> &mounts)
{
    auto join = [](const std::vector<std::string> &parts) {
        std::string text;
        for (const std::string &part : parts)
            text += (text.empty() ? "" : ",") + part;
        return text;
    };
    QStringList out;
    for (const MountEntry &m : mounts)
        out.append(QString::fromStdString(m.mountPoint + '|' + m.root + '|' + (m.unified ? "v2" : "v1") +
                                          '|' + join(m.controllers) + '|' + join(m.options)));
    return out;
}

std::string_view bytes(const QByteArray &data)
{
    return std::string_view(data.constData(), size_t(data.size()));
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
        const auto entries = parseProcSelfCgroup(bytes(input));
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
                                   << QStringLiteral("line 1 \"hello\": expected `id:controllers:/path`");
        QTest::newRow("two fields") << QByteArray("0::/\n4:memory\n")
                                    << QStringLiteral("line 2 \"4:memory\": expected `id:controllers:/path`");
        QTest::newRow("id not a number")
            << QByteArray("x:memory:/a\n")
            << QStringLiteral("line 1 \"x:memory:/a\": hierarchy id is not a number");
        QTest::newRow("negative id") << QByteArray("-1::/\n")
                                     << QStringLiteral("line 1 \"-1::/\": hierarchy id is not a number");
        QTest::newRow("relative path") << QByteArray("4:memory:a/b\n")
                                       << QStringLiteral("line 1 \"4:memory:a/b\": path is not absolute");
        QTest::newRow("empty path") << QByteArray("0::\n")
                                    << QStringLiteral("line 1 \"0::\": path is not absolute");
        // Control characters and bytes that are not UTF-8 are escaped, never passed to a terminal.
        QTest::newRow("binary") << QByteArray("\x01\x02\xff", 3)
                                << QStringLiteral(
                                       "line 1 \"\\u0001\\u0002\\xff\": expected `id:controllers:/path`");
    }

    void procSelfCgroupGarbage()
    {
        QFETCH(QByteArray, input);
        QFETCH(QString, message);
        // The message holds the line quoted with quoteUntrusted(): escaped, never raw bytes.
        const auto entries = parseProcSelfCgroup(bytes(input));
        QVERIFY(!entries);
        QCOMPARE(entries.error().code(), std::string("cgroup.io"));
        QCOMPARE(QString::fromStdString(entries.error().message()), message);
        QCOMPARE(entries.error().sysErrno(), 0);
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
        QCOMPARE(describeMounts(parseCgroupMounts(bytes(input))), expected);
    }

    void migrationTuning()
    {
        // A hybrid host: the cgroup2 mount is found, not favoured yet; the remount keeps what it has.
        const std::vector<MountEntry> hybrid = parseCgroupMounts(bytes(HybridMountinfo));
        MigrationTuning tuning = inspectMigrationTuning(hybrid);
        QCOMPARE(tuning.unifiedMountPoint, std::string("/sys/fs/cgroup/unified"));
        QVERIFY(!tuning.favoured);

        const std::vector<MountEntry> systemd = parseCgroupMounts(
            "25 21 0:22 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot\n");
        QCOMPARE(favourDynmodsOptions(systemd.front()),
                 std::string("nsdelegate,memory_recursiveprot,favordynmods"));
        tuning = inspectMigrationTuning(systemd);
        QCOMPARE(tuning.unifiedMountPoint, std::string("/sys/fs/cgroup"));
        QVERIFY(!tuning.favoured);
        const std::vector<MountEntry> favoured = parseCgroupMounts(
            "25 21 0:22 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw,favordynmods,nsdelegate\n");
        tuning = inspectMigrationTuning(favoured);
        QVERIFY(tuning.favoured);
        QCOMPARE(favourDynmodsOptions(favoured.front()), std::string("nsdelegate,favordynmods"));

        // A container's view of a subtree is not the host's hierarchy; pure v1 has none.
        tuning = inspectMigrationTuning(parseCgroupMounts(
            "1021 1013 0:27 /../../.. /sys/fs/cgroup ro - cgroup2 cgroup2 rw,nsdelegate\n"));
        QVERIFY(tuning.unifiedMountPoint.empty());
        QVERIFY(inspectMigrationTuning({}).unifiedMountPoint.empty());
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
        QStringList actual;
        for (const auto &[key, value] : parseFlatKeyed(bytes(input)))
            actual.append(QString::fromStdString(key + '=' + std::to_string(value)));
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
        const auto value = parseLimitValue(bytes(input));
        QVERIFY_RESULT(value);
        QCOMPARE(qint64(*value), expected);
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
        const auto value = parseLimitValue(bytes(input));
        QVERIFY(!value);
        QCOMPARE(value.error().code(), std::string("cgroup.io"));
        QVERIFY(!value.error().message().empty());
    }

    void limitValueMessages()
    {
        QCOMPARE(parseLimitValue("12abc\n").error().message(),
                 std::string("\"12abc\" is neither `max` nor a non-negative integer"));
        QCOMPARE(parseLimitValue("99999999999999999999\n").error().message(),
                 std::string("\"99999999999999999999\" is out of range"));
        QCOMPARE(parseLimitValue("unlimited").error().message(),
                 std::string("\"unlimited\" is neither `max` nor a non-negative integer"));
    }

    void integers_data()
    {
        QTest::addColumn<QByteArray>("input");
        QTest::addColumn<bool>("valid");
        QTest::addColumn<qint64>("expected");
        QTest::newRow("digits") << QByteArray("12") << true << qint64(12);
        QTest::newRow("plus") << QByteArray("+12") << true << qint64(12);
        QTest::newRow("minus") << QByteArray("-12") << true << qint64(-12);
        QTest::newRow("LLONG_MAX") << QByteArray("9223372036854775807") << true
                                   << qint64(9223372036854775807LL);
        QTest::newRow("overflow") << QByteArray("9223372036854775808") << false << qint64(0);
        QTest::newRow("empty") << QByteArray() << false << qint64(0);
        QTest::newRow("sign only") << QByteArray("+") << false << qint64(0);
        QTest::newRow("two signs") << QByteArray("+-1") << false << qint64(0);
        QTest::newRow("trailing letter") << QByteArray("7x") << false << qint64(0);
        QTest::newRow("space") << QByteArray(" 7") << false << qint64(0);
    }

    void integers()
    {
        QFETCH(QByteArray, input);
        QFETCH(bool, valid);
        QFETCH(qint64, expected);
        const auto value = parseInteger(bytes(input));
        QCOMPARE(value.has_value(), valid);
        if (valid)
            QCOMPARE(qint64(*value), expected);
    }

    void controllerList()
    {
        QCOMPARE(
            parseControllerList("cpuset cpu io memory hugetlb pids rdma misc\n"),
            (std::vector<std::string>{"cpuset", "cpu", "io", "memory", "hugetlb", "pids", "rdma", "misc"}));
        QVERIFY(parseControllerList("\n").empty());
        QCOMPARE(parseControllerList("hugetlb\n"), std::vector<std::string>{"hugetlb"});
        QCOMPARE(parseControllerList(" memory\tpids \n"), (std::vector<std::string>{"memory", "pids"}));
        QVERIFY(parseControllerList("").empty());
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
        const auto result = validateGroupName(name.toStdString());
        QCOMPARE(bool(result), valid);
        if (!valid)
            QCOMPARE(result.error().code(), std::string("cgroup.invalid_name"));
    }

    void groupNameMessages_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("message");
        const QString length = QStringLiteral("cgroup name `%1` must be 1 to 64 characters long");
        const QString characters =
            QStringLiteral("cgroup name `%1` may only contain A-Z, a-z, 0-9, `_` and `-`");
        QTest::newRow("empty") << QString() << length.arg(QString());
        QTest::newRow("65 chars") << QString(65, QLatin1Char('a'))
                                  << length.arg(QString(65, QLatin1Char('a')));
        QTest::newRow("slash") << QStringLiteral("a/b") << characters.arg(QStringLiteral("a/b"));
        // Length counts characters as the user sees them (UTF-16 units), not UTF-8 bytes: 64 two-byte
        // characters are not too long, only invalid.
        const QString e64(64, QChar(0xe9));
        QTest::newRow("64 two-byte chars") << e64 << characters.arg(e64);
        const QString e65(65, QChar(0xe9));
        QTest::newRow("65 two-byte chars") << e65 << length.arg(e65);
        QString emoji;
        for (int i = 0; i < 33; ++i)
            emoji += QString::fromUtf8("\xf0\x9f\x98\x80"); // 2 UTF-16 units each: 66
        QTest::newRow("33 four-byte chars") << emoji << length.arg(emoji);
    }

    void groupNameMessages()
    {
        QFETCH(QString, name);
        QFETCH(QString, message);
        const auto result = validateGroupName(name.toStdString());
        QVERIFY(!result);
        QCOMPARE(result.error().code(), std::string("cgroup.invalid_name"));
        QCOMPARE(QString::fromStdString(result.error().message()), message);
        QCOMPARE(result.error().sysErrno(), 0);
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
        mount.mountPoint = mountPoint.toStdString();
        mount.root = root.toStdString();
        mount.unified = true;
        QCOMPARE(QString::fromStdString(Fs::fsPathOf(mount, procPath.toStdString())), expected);
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
        QCOMPARE(QString::fromStdString(Fs::commonAncestor(a.toStdString(), b.toStdString())), expected);
        QCOMPARE(QString::fromStdString(Fs::commonAncestor(b.toStdString(), a.toStdString())), expected);
    }

    // Which cgroup a user's engine takes as delegated on a systemd v2 host. `owned` lists what the user owns,
    // as systemd leaves it: user@UID.service (delegated by the system manager) and everything below it.
    void systemdDelegationRoot_data()
    {
        QTest::addColumn<QString>("self");
        QTest::addColumn<bool>("selfDelegated");
        QTest::addColumn<QString>("owned");
        QTest::addColumn<QString>("expected");
        const QString user = QStringLiteral("/sys/fs/cgroup/user.slice/user-1000.slice/user@1000.service");
        const QString service = user + QStringLiteral("/app.slice/cordond.service");
        QTest::newRow("desktop app: the user manager's whole tree")
            << user + QStringLiteral("/app.slice/app-org.cordon.workbench-1234.scope") << false << user
            << user;
        // Without the unit's word the engine cannot tell a Delegate=yes service from any other unit.
        QTest::newRow("service without the variable: still the topmost") << service << false << user << user;
        QTest::newRow("the unit's Delegate=yes cgroup, not the user manager's")
            << service << true << user << service;
        QTest::newRow("ssh session: nothing owned")
            << QStringLiteral("/sys/fs/cgroup/user.slice/user-1000.slice/session-3.scope") << false << user
            << QString();
        QTest::newRow("variable set in a session scope: refused, not widened")
            << QStringLiteral("/sys/fs/cgroup/user.slice/user-1000.slice/session-3.scope") << true << user
            << QString();
        QTest::newRow("the mount itself is never a delegation")
            << QStringLiteral("/sys/fs/cgroup") << true << QStringLiteral("/sys/fs/cgroup") << QString();
        QTest::newRow("outside the mount")
            << QStringLiteral("/elsewhere/x") << false << QStringLiteral("/elsewhere") << QString();
    }

    void systemdDelegationRoot()
    {
        QFETCH(QString, self);
        QFETCH(bool, selfDelegated);
        QFETCH(QString, owned);
        QFETCH(QString, expected);
        const std::string ownedRoot = owned.toStdString();
        const auto isOwned = [&ownedRoot](const std::string &dir) {
            return dir == ownedRoot || dir.starts_with(ownedRoot + '/');
        };
        QCOMPARE(QString::fromStdString(Cgroup::systemdDelegationRoot("/sys/fs/cgroup", self.toStdString(),
                                                                      selfDelegated, isOwned)),
                 expected);
    }

    void pathHelpers()
    {
        QCOMPARE(Fs::joinPath("/sys/fs/cgroup", "cordon"), std::string("/sys/fs/cgroup/cordon"));
        QCOMPARE(Fs::joinPath("/", "cordon"), std::string("/cordon"));
        QCOMPARE(Fs::parentOf("/sys/fs/cgroup/cordon/uid-0"), std::string("/sys/fs/cgroup/cordon"));
        QCOMPARE(Fs::parentOf("/sys"), std::string("/"));
        QCOMPARE(Fs::parentOf("relative"), std::string("/"));
        QCOMPARE(Fs::commonAncestor("//a//b/", "/a/b/c"), std::string("/a/b"));
        QCOMPARE(Fs::ticked("/x y"), std::string("`/x y`"));
    }

    void nonAsciiPathsKeepTheirBytes()
    {
        // The kernel's bytes are UTF-8 here: the parser keeps them, octal escapes decoded, and a path under
        // the mount (fsPathOf) keeps them too.
        const QByteArray mountinfo(
            "88 30 0:27 /caf\\303\\251 /mnt/\\303\\274ber\\040cg rw - cgroup2 none rw\n");
        const auto mounts = parseCgroupMounts(bytes(mountinfo));
        QCOMPARE(mounts.size(), size_t(1));
        QCOMPARE(mounts.front().mountPoint, std::string("/mnt/\xc3\xbc"
                                                        "ber cg"));
        QCOMPARE(mounts.front().root, std::string("/caf\xc3\xa9"));
        QCOMPARE(Fs::fsPathOf(mounts.front(), "/caf\xc3\xa9/d\xc3\xa9j\xc3\xa0"),
                 std::string("/mnt/\xc3\xbc"
                             "ber cg/d\xc3\xa9j\xc3\xa0"));
    }

    void readFileKeepsEveryByte()
    {
        QTemporaryFile file;
        QVERIFY(file.open());
        QByteArray content("a\0b\n", 4);
        content.append(QByteArray(10000, 'x')); // longer than one read(2)
        QCOMPARE(file.write(content), content.size());
        file.close();
        const auto read = Fs::readFile(file.fileName().toStdString());
        QVERIFY_RESULT(read);
        QCOMPARE(QByteArray::fromStdString(*read), content);
    }

    void fsErrorsKeepCodeErrnoAndMessage()
    {
        const QString missing = QStringLiteral("/nonexistent-cordon-test/memory.max");
        const auto read = Fs::readFile(missing.toStdString());
        QVERIFY(!read);
        QCOMPARE(read.error().code(), std::string("cgroup.io"));
        QCOMPARE(read.error().sysErrno(), ENOENT);
        QCOMPARE(read.error().message(), "read `" + missing.toStdString() + "`: No such file or directory");
        const auto value = Fs::readValue(missing.toStdString());
        QVERIFY(!value);
        QCOMPARE(value.error().sysErrno(), ENOENT);
        QCOMPARE(value.error().message(), read.error().message());
        const auto written = Fs::writeFile(missing.toStdString(), "1");
        QVERIFY(!written);
        QCOMPARE(written.error().message(),
                 "write `" + missing.toStdString() + "`: No such file or directory");
    }

    void readPidsParsesAndRejects()
    {
        QTemporaryFile a, b;
        QVERIFY(a.open());
        QVERIFY(b.open());
        a.write("12\n7\n12\n");
        b.write(" 3 \n\n7\n");
        a.flush();
        b.flush();
        const auto pids = Fs::readPids({a.fileName().toStdString(), b.fileName().toStdString()});
        QVERIFY(pids.has_value());
        QCOMPARE(*pids, (std::vector<pid_t>{3, 7, 12}));

        QTemporaryFile bad;
        QVERIFY(bad.open());
        bad.write("5\n-1\n");
        bad.flush();
        const auto rejected = Fs::readPids({bad.fileName().toStdString()});
        QVERIFY(!rejected);
        QCOMPARE(rejected.error().code(), std::string("cgroup.io"));
        QCOMPARE(rejected.error().message(),
                 "parse `" + bad.fileName().toStdString() + "`: `-1` is not a pid");
    }
};

QTEST_GUILESS_MAIN(TestCgroupParsers)
#include "tst_cgroupparsers.moc"
