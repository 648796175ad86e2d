// SPDX-License-Identifier: MIT
// The systemd user units (packaging/systemd/) and the AppArmor profile template
// (packaging/apparmor/cordon.in), as packaging/CMakeLists.txt configures them for /usr. Each names paths and
// settings that must agree with the code, so each is checked against the code's own answer, and against
// systemd-analyze and apparmor_parser where this host has them.
#include "daemon/lite/socketpath.h"
#include "sandbox/cgroup/cgroupbackend.h"

#include <QFile>
#include <QMap>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <utility>

namespace {

QString sourceFile(const QString &relative)
{
    // Relative to this file (QFINDTESTDATA also looks beside __FILE__): tests/unit/ -> the source root.
    return QFINDTESTDATA(QStringLiteral("../../") + relative);
}

QByteArray readAll(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// The @NAME@ placeholders of a configure_file() template.
QSet<QString> placeholdersOf(const QByteArray &text)
{
    QSet<QString> names;
    const QRegularExpression placeholder(QStringLiteral("@([A-Za-z_]+)@"));
    for (auto it = placeholder.globalMatch(QString::fromUtf8(text)); it.hasNext();)
        names.insert(it.next().captured(1));
    return names;
}

// A template filled in as packaging/CMakeLists.txt does for the /usr prefix.
QByteArray configured(QByteArray text)
{
    return text.replace("@CORDON_INSTALLED_BINDIR@", "/usr/bin")
        .replace("@CORDON_INSTALLED_LIBEXECDIR@", "/usr/libexec");
}

QByteArray serviceUnit()
{
    return readAll(sourceFile(QStringLiteral("packaging/systemd/cordond.service.in")));
}

// A unit file as "Section/Key" -> values in order (a key may repeat); comments and blank lines dropped.
QMap<QString, QStringList> parseUnit(const QByteArray &text)
{
    QMap<QString, QStringList> settings;
    QString section;
    for (const QByteArray &raw : text.split('\n')) {
        const QString line = QString::fromUtf8(raw).trimmed();
        if (line.isEmpty() || line.startsWith(QLatin1Char('#')) || line.startsWith(QLatin1Char(';')))
            continue;
        if (line.startsWith(QLatin1Char('[')) && line.endsWith(QLatin1Char(']'))) {
            section = line.mid(1, line.size() - 2);
            continue;
        }
        const qsizetype equals = line.indexOf(QLatin1Char('='));
        if (equals > 0)
            settings[section + QLatin1Char('/') + line.left(equals).trimmed()].append(
                line.mid(equals + 1).trimmed());
    }
    return settings;
}

// Restores an environment variable when the test is done with it.
class ScopedEnv
{
public:
    ScopedEnv(const char *name, const QByteArray &value, bool set = true)
        : m_name(name), m_had(qEnvironmentVariableIsSet(name)), m_old(qgetenv(name))
    {
        if (set)
            qputenv(name, value);
        else
            qunsetenv(name);
    }
    ~ScopedEnv()
    {
        if (m_had)
            qputenv(m_name, m_old);
        else
            qunsetenv(m_name);
    }

private:
    const char *m_name;
    bool m_had;
    QByteArray m_old;
};

QString parserPath()
{
    return QStandardPaths::findExecutable(QStringLiteral("apparmor_parser"),
                                          {QStringLiteral("/usr/sbin"), QStringLiteral("/sbin")});
}

} // namespace

class TestPackaging final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void socketUnitListensWhereClientsLook()
    {
        const auto socket =
            parseUnit(readAll(sourceFile(QStringLiteral("packaging/systemd/cordond.socket"))));
        QCOMPARE(socket.value(QStringLiteral("Socket/ListenStream")),
                 QStringList{QStringLiteral("%t/cordon/cordond.sock")});
        QCOMPARE(socket.value(QStringLiteral("Socket/SocketMode")), QStringList{QStringLiteral("0600")});
        QCOMPARE(socket.value(QStringLiteral("Socket/DirectoryMode")), QStringList{QStringLiteral("0700")});

        // %t is the user manager's XDG_RUNTIME_DIR: the client library must compute the same path from it.
        QTemporaryDir runtime; // mode 0700 and ours, as /run/user/UID is
        QVERIFY(runtime.isValid());
        ScopedEnv runtimeEnv("XDG_RUNTIME_DIR", QFile::encodeName(runtime.path()));
        ScopedEnv noOverride("CORDON_SOCKET", {}, false);
        QString expected = socket.value(QStringLiteral("Socket/ListenStream")).constFirst();
        expected.replace(QLatin1String("%t"), runtime.path());
        QCOMPARE(QString::fromStdString(Cordon::Lite::socketPath()), expected);
    }

    void serviceRunsTheDaemonWithItsOwnCgroup()
    {
        const QByteArray text = serviceUnit();
        QVERIFY(!text.isEmpty());
        QCOMPARE(placeholdersOf(text), QSet<QString>{QStringLiteral("CORDON_INSTALLED_BINDIR")});
        const auto service = parseUnit(configured(text));
        // Foreground, no flag: the daemon finds the passed socket by itself.
        QCOMPARE(service.value(QStringLiteral("Service/ExecStart")),
                 QStringList{QStringLiteral("/usr/bin/cordond")});
        const QStringList type = service.value(QStringLiteral("Service/Type"));
        QVERIFY(type.isEmpty() || type == QStringList{QStringLiteral("simple")});
        QCOMPARE(service.value(QStringLiteral("Service/Delegate")), QStringList{QStringLiteral("yes")});
        // The variable the cgroup code reads, spelt as the code spells it.
        QCOMPARE(
            service.value(QStringLiteral("Service/Environment")),
            QStringList{QString::fromLatin1(Cordon::Cgroup::SelfDelegatedVariable) + QStringLiteral("=1")});
        // Containers outlive the daemon: systemd must signal cordond alone, or a crash ends them all.
        QCOMPARE(service.value(QStringLiteral("Service/KillMode")), QStringList{QStringLiteral("process")});
        QCOMPARE(service.value(QStringLiteral("Service/Restart")),
                 QStringList{QStringLiteral("on-abnormal")});
        QCOMPARE(service.value(QStringLiteral("Unit/Requires")),
                 QStringList{QStringLiteral("cordond.socket")});
        // With Delegate=yes these would run in a `.control` group inside the cgroup cordond manages.
        for (const char *key : {"ExecStartPost", "ExecReload", "ExecStop", "ExecStopPost"})
            QVERIFY2(!service.contains(QStringLiteral("Service/") + QLatin1String(key)), key);
    }

    void unitsPassSystemdAnalyze()
    {
        const QString analyze = QStandardPaths::findExecutable(QStringLiteral("systemd-analyze"));
        if (analyze.isEmpty())
            QSKIP("systemd-analyze is not installed");
        // verify insists that ExecStart's program exists, and /usr/bin/cordond does only once installed: the
        // copy checked starts /bin/true, everything else as written.
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QByteArray service = configured(serviceUnit());
        QVERIFY(service.contains("\nExecStart=/usr/bin/cordond\n"));
        service.replace("\nExecStart=/usr/bin/cordond\n", "\nExecStart=/bin/true\n");
        for (const auto &[name, text] :
             {std::pair{QStringLiteral("cordond.service"), service},
              std::pair{QStringLiteral("cordond.socket"),
                        readAll(sourceFile(QStringLiteral("packaging/systemd/cordond.socket")))}}) {
            QFile file(dir.filePath(name));
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(text);
        }
        QTemporaryDir runtime; // a user manager needs XDG_RUNTIME_DIR even to verify
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("XDG_RUNTIME_DIR"), runtime.path());
        QProcess verify;
        verify.setProcessEnvironment(environment);
        verify.setProcessChannelMode(QProcess::MergedChannels);
        // --man=no: the manual pages are installed with the package, not on a build host.
        verify.start(analyze, {QStringLiteral("verify"), QStringLiteral("--user"), QStringLiteral("--man=no"),
                               dir.filePath(QStringLiteral("cordond.socket")),
                               dir.filePath(QStringLiteral("cordond.service"))});
        QVERIFY(verify.waitForFinished(60000));
        const QByteArray output = verify.readAll();
        QVERIFY2(verify.exitStatus() == QProcess::NormalExit && verify.exitCode() == 0, output.constData());
        QVERIFY2(output.trimmed().isEmpty(), output.constData());
    }

    void apparmorTemplateGrantsUsernsToTheRightPrograms()
    {
        const QByteArray text = readAll(sourceFile(QStringLiteral("packaging/apparmor/cordon.in")));
        QVERIFY(!text.isEmpty());
        // Exactly the two placeholders packaging/CMakeLists.txt fills in.
        QCOMPARE(placeholdersOf(text), (QSet<QString>{QStringLiteral("CORDON_INSTALLED_BINDIR"),
                                                      QStringLiteral("CORDON_INSTALLED_LIBEXECDIR")}));
        QByteArray profile = configured(text);
        QStringList rules;
        for (const QByteArray &raw : profile.split('\n')) {
            const QString line = QString::fromUtf8(raw).trimmed();
            if (!line.isEmpty() && !line.startsWith(QLatin1Char('#')))
                rules.append(line);
        }
        // Ubuntu's documented form for a program that needs user namespaces, with the programs that create
        // them: the launcher (`cordon run`), cordon-cli (doctor, demo) and cordond.
        QCOMPARE(rules, (QStringList{
                            QStringLiteral("abi <abi/4.0>,"),
                            QStringLiteral("include <tunables/global>"),
                            QStringLiteral("@{cordon_programs} = /usr/bin/cordon /usr/bin/cordond "
                                           "/usr/libexec/cordon/cordon-cli"),
                            QStringLiteral("profile cordon @{cordon_programs} flags=(unconfined) {"),
                            QStringLiteral("userns,"),
                            QStringLiteral("include if exists <local/cordon>"),
                            QStringLiteral("}"),
                        }));

        const QString parser = parserPath();
        if (parser.isEmpty())
            QSKIP("no apparmor_parser on this host");
        // A parser before AppArmor 4.0 (Debian 12 has 3.0.8) knows neither abi 4.0 nor `userns`: it checks
        // the rest, the variable in the attachment and the flags included.
        const bool abi4 = QFile::exists(QStringLiteral("/etc/apparmor.d/abi/4.0"));
        if (!abi4)
            profile.replace("abi <abi/4.0>,", "abi <abi/3.0>,").replace("  userns,\n", "");
        QTemporaryDir dir;
        QFile file(dir.filePath(QStringLiteral("cordon")));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(profile);
        file.close();
        QProcess check;
        check.setProcessChannelMode(QProcess::MergedChannels);
        // -D rule-exprs prints the attachment as the kernel will match it.
        check.start(parser, {QStringLiteral("-Q"), QStringLiteral("-K"), QStringLiteral("-D"),
                             QStringLiteral("rule-exprs"), file.fileName()});
        QVERIFY(check.waitForFinished(30000));
        const QByteArray output = check.readAll();
        QVERIFY2(check.exitCode() == 0, output.constData());
        QVERIFY2(output.contains("(/usr/bin/cordon|/usr/bin/cordond|/usr/libexec/cordon/cordon-cli)"),
                 output.constData());
        if (!abi4)
            qInfo(
                "apparmor_parser here predates AppArmor 4.0: checked without `abi <abi/4.0>` and `userns,`");
    }
};

QTEST_GUILESS_MAIN(TestPackaging)
#include "tst_packaging.moc"
