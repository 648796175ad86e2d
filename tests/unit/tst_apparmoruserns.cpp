// SPDX-License-Identifier: MIT
// `cordon doctor` on hosts where AppArmor restricts unprivileged user namespaces (Ubuntu 23.10 and later):
// judgeUserNamespaces() on literal facts, since no machine here has the restriction. The fix it prints for a
// build tree is run through the shell and, where an AppArmor parser exists, parsed.
#include "isolation/hostprobe.h"

#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <cerrno>

using namespace Cordon::Isolation;

namespace {

const QString Packaged = QStringLiteral("/usr/share/cordon/apparmor/cordon");
const QString PackagedFix =
    QStringLiteral("sudo install -m 0644 /usr/share/cordon/apparmor/cordon /etc/apparmor.d/cordon && sudo "
                   "apparmor_parser -r /etc/apparmor.d/cordon");
const QString HostWide = QStringLiteral("sudo sysctl kernel.apparmor_restrict_unprivileged_userns=0");

UsernsFacts facts(std::optional<QByteArray> restriction, bool created, bool usable, int error,
                  bool root = false)
{
    UsernsFacts f;
    f.apparmorRestriction = std::move(restriction);
    f.maxUserNamespaces = QStringLiteral("63172");
    f.probe = UsernsProbe{created, usable, error};
    f.root = root;
    f.fix.programs = {QStringLiteral("/src/build/bin/cordon"), QStringLiteral("/src/build/bin/cordond"),
                      QStringLiteral("/src/build/bin/cordon-cli")};
    return f;
}

const HostCheck *find(const QList<HostCheck> &checks, const QString &name)
{
    for (const HostCheck &check : checks) {
        if (check.name == name)
            return &check;
    }
    return nullptr;
}

// The shell command between `printf` and the pipe into sudo, as doctor prints it for a build tree.
QString profileCommand(const QString &detail)
{
    const qsizetype start = detail.indexOf(QLatin1String("printf "));
    const qsizetype end = detail.indexOf(QLatin1String(" | sudo tee"));
    return start >= 0 && end > start ? detail.mid(start, end - start) : QString();
}

} // namespace

class TestAppArmorUserns final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void restrictedAndRefusedAtCloneNamesTheFix()
    {
        const QList<HostCheck> checks = judgeUserNamespaces(facts(QByteArray("1\n"), false, false, EACCES));
        QCOMPARE(checks.size(), 2);
        const HostCheck *userns = find(checks, QStringLiteral("user namespaces"));
        QVERIFY(userns);
        QCOMPARE(userns->status, CheckStatus::Missing);
        // The failed probe is explained by the restriction, not by the generic sysctl advice.
        QVERIFY2(userns->detail.contains(QLatin1String("cannot create one (Permission denied)")),
                 qPrintable(userns->detail));
        QVERIFY2(userns->detail.contains(QLatin1String("AppArmor restricts user namespaces")),
                 qPrintable(userns->detail));
        QVERIFY2(!userns->detail.contains(QLatin1String("unprivileged_userns_clone")),
                 qPrintable(userns->detail));

        const HostCheck *apparmor = find(checks, QStringLiteral("apparmor userns"));
        QVERIFY(apparmor);
        QCOMPARE(apparmor->status, CheckStatus::Missing);
        QVERIFY(apparmor->essential);
        QVERIFY2(
            apparmor->detail.startsWith(QLatin1String("kernel.apparmor_restrict_unprivileged_userns = 1")),
            qPrintable(apparmor->detail));
        // A build tree: its own programs, by path.
        for (const char *program :
             {"/src/build/bin/cordon\"", "/src/build/bin/cordond\"", "/src/build/bin/cordon-cli\""})
            QVERIFY2(apparmor->detail.contains(QLatin1String(program)), program);
        QVERIFY2(apparmor->detail.contains(QLatin1String(
                     "sudo tee /etc/apparmor.d/cordon-local >/dev/null && sudo apparmor_parser -r "
                     "/etc/apparmor.d/cordon-local")),
                 qPrintable(apparmor->detail));
        QVERIFY2(apparmor->detail.endsWith(HostWide), qPrintable(apparmor->detail));
    }

    // Ubuntu 24.04: the clone succeeds into the unprivileged_userns profile, which denies every capability.
    void restrictedAndWithoutCapabilitiesIsTheSameFinding()
    {
        UsernsFacts f = facts(QByteArray("1\n"), true, false, EPERM);
        f.fix.shippedProfile = Packaged;
        const QList<HostCheck> checks = judgeUserNamespaces(f);
        QCOMPARE(checks.size(), 2);
        QVERIFY2(checks[0].detail.contains(
                     QLatin1String("created one, but without the capabilities it should grant (sethostname: "
                                   "Operation not permitted): AppArmor restricts")),
                 qPrintable(checks[0].detail));
        const HostCheck *apparmor = find(checks, QStringLiteral("apparmor userns"));
        QVERIFY(apparmor);
        QCOMPARE(apparmor->status, CheckStatus::Missing);
        // An installed copy: the profile the package ships, not one written by hand.
        QVERIFY2(apparmor->detail.contains(QLatin1String("Fix: ") + PackagedFix +
                                           QLatin1String("; or, for every")),
                 qPrintable(apparmor->detail));
        QVERIFY2(!apparmor->detail.contains(QLatin1String("cordon-local")), qPrintable(apparmor->detail));
    }

    void restrictedButAllowedByALoadedProfile()
    {
        const QList<HostCheck> checks = judgeUserNamespaces(facts(QByteArray("1\n"), true, true, 0));
        QCOMPARE(checks.size(), 2);
        QCOMPARE(checks[0].status, CheckStatus::Ok);
        QCOMPARE(checks[0].detail, QStringLiteral("available (user.max_user_namespaces = 63172)"));
        const HostCheck *apparmor = find(checks, QStringLiteral("apparmor userns"));
        QVERIFY(apparmor);
        QCOMPARE(apparmor->status, CheckStatus::Ok);
        QVERIFY(!apparmor->essential);
        QVERIFY2(apparmor->detail.contains(QLatin1String("an AppArmor profile grants it `userns`")),
                 qPrintable(apparmor->detail));
        QVERIFY2(!apparmor->detail.contains(QLatin1String("sudo")), qPrintable(apparmor->detail));
    }

    // Root is not covered by the restriction: its working probe says nothing about other users.
    void restrictedAndRootWarnsForOtherUsers()
    {
        const QList<HostCheck> checks = judgeUserNamespaces(facts(QByteArray("1"), true, true, 0, true));
        QCOMPARE(checks.size(), 2);
        QCOMPARE(checks[0].status, CheckStatus::Ok);
        QCOMPARE(checks[1].status, CheckStatus::Degraded);
        QVERIFY(!checks[1].essential);
        QVERIFY2(checks[1].detail.contains(QLatin1String("other users only through an AppArmor profile")),
                 qPrintable(checks[1].detail));
        QVERIFY2(checks[1].detail.endsWith(HostWide), qPrintable(checks[1].detail));
    }

    void noRestrictionNoFinding_data()
    {
        QTest::addColumn<std::optional<QByteArray>>("restriction");
        QTest::addColumn<bool>("usable");
        QTest::newRow("sysctl 0, probe ok") << std::optional<QByteArray>(QByteArray("0\n")) << true;
        QTest::newRow("file absent, probe ok") << std::optional<QByteArray>() << true;
        QTest::newRow("file empty, probe ok") << std::optional<QByteArray>(QByteArray()) << true;
        QTest::newRow("sysctl 0, probe failed") << std::optional<QByteArray>(QByteArray("0\n")) << false;
        QTest::newRow("file absent, probe failed") << std::optional<QByteArray>() << false;
    }

    void noRestrictionNoFinding()
    {
        QFETCH(std::optional<QByteArray>, restriction);
        QFETCH(bool, usable);
        const QList<HostCheck> checks =
            judgeUserNamespaces(facts(restriction, usable, usable, usable ? 0 : EPERM));
        QCOMPARE(checks.size(), 1);
        QCOMPARE(checks[0].name, QStringLiteral("user namespaces"));
        QCOMPARE(checks[0].status, usable ? CheckStatus::Ok : CheckStatus::Missing);
        QVERIFY(!checks[0].detail.contains(QLatin1String("AppArmor")));
        if (!usable)
            QVERIFY2(checks[0].detail.contains(QLatin1String("kernel.unprivileged_userns_clone=1")),
                     qPrintable(checks[0].detail));
    }

    // What a user pastes for a build tree must make the profile of packaging/apparmor/cordon.in.
    void buildTreeFixWritesAProfile()
    {
        const QList<HostCheck> checks = judgeUserNamespaces(facts(QByteArray("1\n"), false, false, EACCES));
        const QString command = profileCommand(checks.value(1).detail);
        QVERIFY2(!command.isEmpty(), qPrintable(checks.value(1).detail));
        QProcess shell;
        shell.start(QStringLiteral("/bin/sh"), {QStringLiteral("-c"), command});
        QVERIFY(shell.waitForFinished(10000));
        QCOMPARE(shell.exitCode(), 0);
        const QByteArray profile = shell.readAllStandardOutput();
        QCOMPARE(profile,
                 QByteArray("abi <abi/4.0>,\n"
                            "include <tunables/global>\n"
                            "@{cordon_programs} = \"/src/build/bin/cordon\" \"/src/build/bin/cordond\" "
                            "\"/src/build/bin/cordon-cli\"\n"
                            "profile cordon-local @{cordon_programs} flags=(unconfined) {\n"
                            "  userns,\n"
                            "}\n"));

        // This host's parser may predate AppArmor 4.0 (Debian 12 has 3.0): then everything but the abi and
        // the `userns` rule is checked.
        const QString parser = QStandardPaths::findExecutable(
            QStringLiteral("apparmor_parser"), {QStringLiteral("/usr/sbin"), QStringLiteral("/sbin")});
        if (parser.isEmpty())
            QSKIP("no apparmor_parser on this host");
        const bool abi4 = QFile::exists(QStringLiteral("/etc/apparmor.d/abi/4.0"));
        QByteArray parsed = profile;
        if (!abi4)
            parsed.replace("abi <abi/4.0>,", "abi <abi/3.0>,").replace("  userns,\n", "");
        QTemporaryDir dir;
        QFile file(dir.filePath(QStringLiteral("cordon-local")));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(parsed);
        file.close();
        QProcess check;
        check.start(parser, {QStringLiteral("-Q"), QStringLiteral("-K"), file.fileName()});
        QVERIFY(check.waitForFinished(30000));
        QVERIFY2(check.exitCode() == 0, check.readAllStandardError().constData());
    }
};

QTEST_GUILESS_MAIN(TestAppArmorUserns)
#include "tst_apparmoruserns.moc"
