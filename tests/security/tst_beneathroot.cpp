// SPDX-License-Identifier: MIT
// How cordon-init finds and makes the mount plan's targets (sandbox/init/beneathroot.h), against trees with
// planted symlinks and "..": nothing outside the root is created, opened or written, whichever way the path
// is attacked, and a directory opened before a mount is never used after it (files would land under the
// mount, hidden). Every test runs with openat2(2) and with the O_NOFOLLOW walk that kernels before 5.6 take.
#include "childreport.h"
#include "sandbox/init/beneathroot.h"
#include "testutil.h"

#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

#include <cerrno>
#include <cstdint>
#include <fcntl.h>
#include <string>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

using ChildReport::say;
using Cordon::Isolation::BeneathRoot;
using Cordon::Isolation::normalizedPath;

namespace {

int openRoot(const std::string &path)
{
    return ::open(path.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
}

std::uint32_t modeOf(const QString &path)
{
    struct stat info
    {
    };
    return ::lstat(QFile::encodeName(path).constData(), &info) == 0 ? info.st_mode & 07777 : 0xffffffff;
}

} // namespace

class TestBeneathRoot final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase_data()
    {
        QTest::addColumn<bool>("walk");
        QTest::newRow("openat2") << false;
        QTest::newRow("openat-walk") << true;
    }

    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        const auto probe = ChildReport::run([](int) {}, {true, true});
        if (probe.contains(QStringLiteral("error")))
            SKIP_UNLESS_MUST_WORK("no user namespaces or seccomp here");
    }

    void normalisedPathsNameOneDirectory()
    {
        QCOMPARE(normalizedPath("//etc///ssl/"), std::string("/etc/ssl"));
        QCOMPARE(normalizedPath("etc"), std::string("/etc"));
        QCOMPARE(normalizedPath("/"), std::string("/"));
        QCOMPARE(normalizedPath(""), std::string("/"));
    }

    void makesWhatIsMissingWithTheModesAsked()
    {
        QFETCH_GLOBAL(bool, walk);
        const std::string root = freshRoot("make");
        const auto report = ChildReport::run(
            [&](int out) {
                ::umask(0);
                BeneathRoot tree(openRoot(root));
                const int deep = tree.directory("/a/b/c", true, 0750);
                say(out, "deep", deep >= 0 ? 0 : -deep);
                say(out, "sameFd", tree.directory("//a//b/c/", false, 0) == deep);
                const int file = tree.file("/a/b/c/f", true, 0600);
                say(out, "file", file >= 0 ? 0 : -file);
                say(out, "missing", -tree.directory("/a/none", false, 0));
                say(out, "missingFile", -tree.file("/a/none", false, 0));
                say(out, "reopenIsNew", tree.reopen("/a/b/c", true) != deep);
            },
            {false, walk});
        QVERIFY2(!report.contains(QStringLiteral("error")),
                 qPrintable(report.value(QStringLiteral("error"))));
        QCOMPARE(report.value(QStringLiteral("deep")).toInt(), 0);
        QCOMPARE(report.value(QStringLiteral("file")).toInt(), 0);
        QCOMPARE(report.value(QStringLiteral("sameFd")).toInt(), 1);
        QCOMPARE(report.value(QStringLiteral("reopenIsNew")).toInt(), 1);
        QCOMPARE(report.value(QStringLiteral("missing")).toInt(), ENOENT);
        QCOMPARE(report.value(QStringLiteral("missingFile")).toInt(), ENOENT);
        const QString base = QString::fromStdString(root);
        QCOMPARE(modeOf(base + QStringLiteral("/a")), 0750U); // missing parents take the mode asked
        QCOMPARE(modeOf(base + QStringLiteral("/a/b/c")), 0750U);
        QCOMPARE(modeOf(base + QStringLiteral("/a/b/c/f")), 0600U);
    }

    void plantedLinksAndDotsGoNowhere_data()
    {
        QTest::addColumn<QString>("attack");
        QTest::newRow("symlink as a parent") << QStringLiteral("parent");
        QTest::newRow("symlink in a directory target's place") << QStringLiteral("dir");
        QTest::newRow("symlink in a file target's place") << QStringLiteral("file");
        QTest::newRow("dot-dot out of the root") << QStringLiteral("dotdot");
        QTest::newRow("dot-dot to a directory below") << QStringLiteral("dotdot-file");
    }

    void plantedLinksAndDotsGoNowhere()
    {
        QFETCH_GLOBAL(bool, walk);
        QFETCH(QString, attack);
        const std::string root = freshRoot(attack.toStdString());
        const std::string outside = root + "-outside";
        QVERIFY(::mkdir(outside.c_str(), 0755) == 0);
        QFile secret(QString::fromStdString(outside + "/secret"));
        QVERIFY(secret.open(QIODevice::WriteOnly));
        QVERIFY(secret.write("kept") == 4);
        secret.close();
        QVERIFY(::mkdir((root + "/d").c_str(), 0755) == 0);
        QVERIFY(::symlink(outside.c_str(), (root + "/link").c_str()) == 0);
        QVERIFY(::symlink(outside.c_str(), (root + "/d/t").c_str()) == 0);
        QVERIFY(::symlink((outside + "/secret").c_str(), (root + "/d/hosts").c_str()) == 0);

        const auto report = ChildReport::run(
            [&](int out) {
                BeneathRoot tree(openRoot(root));
                // Every lookup of the directory that holds the planted entries comes from the cache too.
                say(out, "parentOpen", tree.directory("/d", true, 0755) >= 0);
                int result = 0;
                if (attack == QLatin1String("parent"))
                    result = tree.directory("/link/new", true, 0755);
                else if (attack == QLatin1String("dir"))
                    result = tree.directory("/d/t", true, 0755);
                else if (attack == QLatin1String("file"))
                    result = tree.file("/d/hosts", true, 0644);
                else if (attack == QLatin1String("dotdot"))
                    result = tree.directory("/d/../../" + outside.substr(outside.rfind('/') + 1) + "/new",
                                            true, 0755);
                else
                    result = tree.file("/d/../d/f", true, 0644);
                say(out, "result", result);
            },
            {false, walk});
        QVERIFY2(!report.contains(QStringLiteral("error")),
                 qPrintable(report.value(QStringLiteral("error"))));
        QCOMPARE(report.value(QStringLiteral("parentOpen")).toInt(), 1);
        const int result = report.value(QStringLiteral("result")).toInt();
        QVERIFY2(result < 0, qPrintable(QStringLiteral("the attack got a descriptor: %1").arg(result)));
        QVERIFY2(result == -ELOOP || result == -ENOTDIR || result == -EINVAL || result == -EXDEV,
                 qPrintable(QStringLiteral("unexpected errno %1").arg(-result)));
        // Nothing was made or changed outside, nor beside the planted entries.
        QVERIFY(!QFileInfo::exists(QString::fromStdString(outside + "/new")));
        QVERIFY(!QFileInfo::exists(QString::fromStdString(root + "/d/f")));
        QVERIFY(secret.open(QIODevice::ReadOnly));
        QCOMPARE(secret.readAll(), QByteArray("kept"));
        QVERIFY(QFileInfo(QString::fromStdString(root + "/d/t")).isSymLink());
    }

    void aMountHidesWhatWasOpenedAtOrBelowIt()
    {
        QFETCH_GLOBAL(bool, walk);
        const std::string root = freshRoot("mounts");
        const auto report = ChildReport::run(
            [&](int out) {
                BeneathRoot tree(openRoot(root));
                const int sibling = tree.directory("/mm", true, 0755);
                tree.directory("/m/below", true, 0755);
                say(out, "mount", ::mount("tmpfs", (root + "/m").c_str(), "tmpfs", 0, "size=1m"));
                tree.mountedAt("/m/");
                const int fresh = tree.file("/m/after", true, 0644);
                say(out, "after", fresh >= 0);
                say(out, "belowGone", tree.directory("/m/below", false, 0) == -ENOENT);
                say(out, "siblingKept", tree.directory("/mm", false, 0) == sibling);

                // Not reported, the directory opened before the mount is what a lookup gets: a file made
                // there lands under the mount, out of the container's sight. This is what mountedAt() is for.
                BeneathRoot unaware(openRoot(root));
                unaware.directory("/n", true, 0755);
                ::mount("tmpfs", (root + "/n").c_str(), "tmpfs", 0, "size=1m");
                say(out, "unaware", unaware.file("/n/hidden", true, 0644) >= 0);

                say(out, "umount",
                    ::umount2((root + "/m").c_str(), MNT_DETACH) |
                        ::umount2((root + "/n").c_str(), MNT_DETACH));
                say(out, "afterOnMount", ::access((root + "/m/after").c_str(), F_OK) != 0);
                say(out, "hiddenBelow", ::access((root + "/n/hidden").c_str(), F_OK) == 0);
            },
            {true, walk});
        QVERIFY2(!report.contains(QStringLiteral("error")),
                 qPrintable(report.value(QStringLiteral("error"))));
        QCOMPARE(report.value(QStringLiteral("mount")).toInt(), 0);
        QCOMPARE(report.value(QStringLiteral("after")).toInt(), 1);
        QCOMPARE(report.value(QStringLiteral("belowGone")).toInt(), 1);
        QCOMPARE(report.value(QStringLiteral("siblingKept")).toInt(), 1);
        QCOMPARE(report.value(QStringLiteral("unaware")).toInt(), 1);
        QCOMPARE(report.value(QStringLiteral("umount")).toInt(), 0);
        QCOMPARE(report.value(QStringLiteral("afterOnMount")).toInt(), 1);
        QCOMPARE(report.value(QStringLiteral("hiddenBelow")).toInt(), 1);
    }

private:
    std::string freshRoot(const std::string &name)
    {
        QFETCH_GLOBAL(bool, walk);
        const std::string path = m_dir.path().toStdString() + '/' + name + (walk ? "-walk" : "-openat2");
        return ::mkdir(path.c_str(), 0755) == 0 ? path : std::string();
    }

    QTemporaryDir m_dir;
};

QTEST_GUILESS_MAIN(TestBeneathRoot)
#include "tst_beneathroot.moc"
