// SPDX-License-Identifier: MIT
// The secret store with its values in a desktop keyring (docs/secrets.md): a private session bus and a real
// GNOME Keyring, unlocked with a test password, a real cordond and the real CLI. A store made while the
// keyring is open keeps its values there and only names, times and fingerprints in secrets.json; runs of the
// daemon and one-shot runs of the static launcher (through cordon-secret-reader) receive the value; a value
// changed outside Cordon, removed, or behind a locked keyring is a clear error and never a prompt; and the
// sandbox cannot reach the bus the keyring answers on.
#include "cliprocess.h"
#include "sandboxtest.h"
#include "testutil.h"

#include "sandbox/secrets/secretstore.h"
#include "secretservice/secretservicevault.h"

#include <QCryptographicHash>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QThread>

using namespace CordonTest;

namespace {

const QByteArray Value = QByteArrayLiteral("kr-token-7Hq2/9Zx+Lm=Pw4");
const QByteArray Password = QByteArrayLiteral("test-keyring-password");

QByteArray sha256Hex(const QByteArray &bytes)
{
    return QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex();
}

} // namespace

class TestSecretKeyring final : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir{QDir::tempPath() + QStringLiteral("/ckr-XXXXXX")};
    QProcess m_bus;
    QProcess m_keyring;
    QProcess m_daemon;
    QString m_busPath;
    QString m_dataDir;

    QString writePolicy(const QString &name, const QByteArray &json)
    {
        return writePolicyFile(m_dir.path(), name, json);
    }

    std::string vaultId() const
    {
        auto store = Cordon::Secrets::SecretStore::open(Cordon::Secrets::SecretStore::defaultPath());
        return store ? store->vaultId() : std::string();
    }

    // `printf %s "$TOKEN" | sha256sum` in a one-shot run under `policy` (or in `container`): the digest of
    // what the run received (the value itself would be masked in the output).
    static CliResult digestOfToken(const QString &policy, const QString &container = {})
    {
        const QStringList where = container.isEmpty()
                                      ? QStringList{QStringLiteral("run"), QStringLiteral("--policy"), policy}
                                      : QStringList{QStringLiteral("exec"), container};
        return cordon(where + QStringList{QStringLiteral("--"), QStringLiteral("sh"), QStringLiteral("-c"),
                                          QStringLiteral("printf %s \"$TOKEN\" | sha256sum")});
    }

    // A one-shot run (the launcher, through cordon-secret-reader) and a container create (the daemon) under
    // `policy` are both refused for `reason`, and neither quotes a value.
    static void verifyRunAndCreateRefused(const QString &policy, const char *reason)
    {
        const CliResult oneShot = digestOfToken(policy);
        QVERIFY2(oneShot.status == 125 && oneShot.err.contains(reason), oneShot.describe());
        const CliResult created = cordon({QStringLiteral("create"), QStringLiteral("--policy"), policy});
        QVERIFY2(created.status != 0 && created.err.contains(reason), created.describe());
        for (const CliResult *result : {&oneShot, &created})
            QVERIFY(!result->err.contains("swapped-value") && !result->err.contains(Value));
    }

private Q_SLOTS:
    void initTestCase()
    {
        const QString dbus = QStandardPaths::findExecutable(QStringLiteral("dbus-daemon"));
        const QString keyring = QStandardPaths::findExecutable(QStringLiteral("gnome-keyring-daemon"));
        if (dbus.isEmpty() || keyring.isEmpty())
            SKIP_UNLESS_MUST_WORK(
                "dbus-daemon and gnome-keyring-daemon are needed (packaging/bootstrap.sh --dev)");
        QVERIFY(m_dir.isValid());
        m_dataDir = qEnvironmentVariable("CORDON_DATA_DIR");
        QVERIFY(!m_dataDir.isEmpty());

        // A session bus of our own, and a keyring on it with a password it is unlocked with.
        m_busPath = m_dir.filePath(QStringLiteral("bus"));
        m_bus.setProgram(dbus);
        // Without service activation: a request before our keyring is up must not start another one.
        const QString busConfig = m_dir.filePath(QStringLiteral("bus.conf"));
        QFile config(busConfig);
        QVERIFY(config.open(QIODevice::WriteOnly));
        config.write("<!DOCTYPE busconfig PUBLIC \"-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN\"\n"
                     " \"http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd\">\n"
                     "<busconfig><type>session</type><listen>unix:path=" +
                     QFile::encodeName(m_busPath) +
                     "</listen><auth>EXTERNAL</auth><policy context=\"default\">"
                     "<allow send_destination=\"*\" eavesdrop=\"true\"/><allow eavesdrop=\"true\"/>"
                     "<allow own=\"*\"/></policy></busconfig>\n");
        config.close();
        m_bus.setArguments({QStringLiteral("--config-file=") + busConfig, QStringLiteral("--nofork"),
                            QStringLiteral("--nopidfile")});
        m_bus.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        m_bus.start();
        QVERIFY(m_bus.waitForStarted(5000));
        QElapsedTimer clock;
        clock.start();
        while (!QFile::exists(m_busPath) && clock.elapsed() < 10000)
            QThread::msleep(20);
        QVERIFY2(QFile::exists(m_busPath), "the session bus did not start");
        qputenv("DBUS_SESSION_BUS_ADDRESS", QByteArray("unix:path=") + QFile::encodeName(m_busPath));

        QVERIFY(QDir(m_dir.path()).mkpath(QStringLiteral("keyring-data")));
        QVERIFY(QDir(m_dir.path()).mkpath(QStringLiteral("keyring-run")));
        QFile::setPermissions(m_dir.filePath(QStringLiteral("keyring-run")),
                              QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("XDG_DATA_HOME"), m_dir.filePath(QStringLiteral("keyring-data")));
        environment.insert(QStringLiteral("XDG_RUNTIME_DIR"), m_dir.filePath(QStringLiteral("keyring-run")));
        m_keyring.setProcessEnvironment(environment);
        m_keyring.setProgram(keyring);
        m_keyring.setArguments({QStringLiteral("--foreground"), QStringLiteral("--unlock"),
                                QStringLiteral("--components=secrets")});
        m_keyring.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        m_keyring.start();
        QVERIFY(m_keyring.waitForStarted(5000));
        m_keyring.write(Password);
        QVERIFY(m_keyring.waitForBytesWritten(5000));
        m_keyring.closeWriteChannel(); // the end of the password
        clock.restart();
        bool usable = false;
        while (!usable && clock.elapsed() < 15000) {
            Cordon::Secrets::SecretServiceVault probe;
            usable = probe.usable();
            if (!usable)
                QThread::msleep(100);
        }
        QVERIFY2(usable, "the test keyring did not come up unlocked");

        qputenv("CORDON_SOCKET", QFile::encodeName(m_dir.filePath(QStringLiteral("d.sock"))));
        qputenv("CORDON_DAEMON", "/nonexistent/cordond");
        m_daemon.setProgram(builtProgram(QStringLiteral("cordond")));
        const CliResult status = startDaemonAndWait(m_daemon);
        QVERIFY2(status.status == 0, status.describe());
    }

    void cleanupTestCase()
    {
        cordon(args({"daemon", "stop"}));
        for (QProcess *process : {&m_daemon, &m_keyring, &m_bus}) {
            if (process->state() == QProcess::NotRunning)
                continue;
            process->terminate();
            if (!process->waitForFinished(15000)) {
                process->kill();
                process->waitForFinished(5000);
            }
        }
    }

    void aNewStoreKeepsItsValuesInTheKeyring()
    {
        const CliResult set = cordon(args({"secret", "set", "API_TOKEN"}), Value + "\n");
        QVERIFY2(set.status == 0, set.describe());
        QFile storeFile(m_dataDir + QStringLiteral("/secrets.json"));
        QVERIFY(storeFile.open(QIODevice::ReadOnly));
        const QByteArray stored = storeFile.readAll();
        QVERIFY2(stored.contains("\"values_in\": \"secret-service\""), stored.constData());
        QVERIFY2(stored.contains("API_TOKEN") && stored.contains("hmac-sha256:"), stored.constData());
        QVERIFY2(!stored.contains(Value) && !stored.contains(Value.toBase64()) &&
                     !stored.contains(Value.toHex()),
                 "the value is in secrets.json");
        // The keyring holds it, under the store's id: what the daemon wrote, read back without Cordon's
        // store.
        Cordon::Secrets::SecretServiceVault vault;
        const auto held = vault.read(vaultId(), "API_TOKEN");
        QVERIFY2(held.has_value(), held ? "" : held.error().message().c_str());
        QCOMPARE(QByteArray::fromStdString(*held), Value);

        const CliResult listed = cordon(args({"secret", "ls"}));
        QVERIFY2(listed.status == 0 && listed.out.contains("API_TOKEN") &&
                     listed.out.contains("desktop keyring (Secret Service)"),
                 listed.describe());
        QVERIFY(!listed.out.contains(Value));
    }

    void daemonAndOneShotRunsReceiveTheKeyringsValue()
    {
        const QString policy =
            writePolicy(QStringLiteral("holder"),
                        R"({"name": "holder", "secrets": [{"name": "API_TOKEN", "env": "TOKEN"}]})");
        const CliResult created = cordon({QStringLiteral("create"), QStringLiteral("--policy"), policy});
        QVERIFY2(created.status == 0, created.describe());
        const CliResult exec = digestOfToken({}, QStringLiteral("holder"));
        QVERIFY2(exec.status == 0 && exec.out.startsWith(sha256Hex(Value)), exec.describe());
        // The static launcher reads it through cordon-secret-reader.
        const CliResult oneShot = digestOfToken(policy);
        QVERIFY2(oneShot.status == 0 && oneShot.out.startsWith(sha256Hex(Value)), oneShot.describe());
        QVERIFY(!oneShot.out.contains(Value) && !oneShot.err.contains(Value));
        QCOMPARE(cordon(args({"rm", "--force", "holder"})).status, 0);
    }

    // Another program of the user's may change the keyring's item: a run must not receive a value other than
    // the one set through Cordon, whose fingerprint the store keeps.
    void aValueChangedOutsideCordonIsRefused()
    {
        Cordon::Secrets::SecretServiceVault vault;
        QVERIFY(vault.write(vaultId(), "API_TOKEN", "swapped-value-0000").has_value());
        const QString policy =
            writePolicy(QStringLiteral("swapped"), R"({"secrets": [{"name": "API_TOKEN", "env": "TOKEN"}]})");
        verifyRunAndCreateRefused(policy, "changed outside Cordon");
        // Set again through Cordon, it is accepted.
        QCOMPARE(cordon(args({"secret", "set", "API_TOKEN"}), Value).status, 0);
        const CliResult again = digestOfToken(policy);
        QVERIFY2(again.status == 0 && again.out.startsWith(sha256Hex(Value)), again.describe());
    }

    // The keyring answers on the user's session bus: the sandbox has no way to it (its own network namespace
    // hides abstract sockets, and no host folder with a bus socket is mounted in).
    void theSandboxCannotReachTheSessionBus()
    {
        const QString script = QStringLiteral("import socket, sys\n"
                                              "for path in sys.argv[1:]:\n"
                                              "    s = socket.socket(socket.AF_UNIX)\n"
                                              "    try:\n"
                                              "        s.connect(path)\n"
                                              "        print('reached', path)\n"
                                              "    except OSError as e:\n"
                                              "        print('refused', path, e.errno)\n");
        const CliResult run = cordon({QStringLiteral("run"), QStringLiteral("--"), QStringLiteral("python3"),
                                      QStringLiteral("-c"), script, m_busPath,
                                      QStringLiteral("/run/user/%1/bus").arg(::getuid())});
        QVERIFY2(run.status == 0, run.describe());
        QVERIFY2(!run.out.contains("reached") && run.out.count("refused") == 2, run.describe());
    }

    void removingASecretRemovesItsValueFromTheKeyring()
    {
        QCOMPARE(cordon(args({"secret", "set", "SPARE"}), "spare-value-1234").status, 0);
        const std::string id = vaultId();
        Cordon::Secrets::SecretServiceVault vault;
        QVERIFY(vault.read(id, "SPARE").has_value());
        const CliResult removed = cordon(args({"secret", "rm", "SPARE"}));
        QVERIFY2(removed.status == 0, removed.describe());
        const auto gone = vault.read(id, "SPARE");
        QVERIFY(!gone);
        QCOMPARE(gone.error().code(), std::string("secrets.keyring_missing"));
    }

    // Last: nothing here can unlock the keyring again (that needs a prompt).
    void aLockedKeyringIsAClearErrorNotAPrompt()
    {
        // Lock, as the screen locker or the user does, over the bus.
        const CliResult locked = runProgram(
            QStandardPaths::findExecutable(QStringLiteral("dbus-send")),
            {QStringLiteral("--session"), QStringLiteral("--print-reply"),
             QStringLiteral("--dest=org.freedesktop.secrets"), QStringLiteral("/org/freedesktop/secrets"),
             QStringLiteral("org.freedesktop.Secret.Service.Lock"),
             QStringLiteral("array:objpath:/org/freedesktop/secrets/aliases/default")});
        QVERIFY2(locked.status == 0, locked.describe());
        QVERIFY2(!Cordon::Secrets::SecretServiceVault().usable(), "the keyring is still unlocked");

        const CliResult set = cordon(args({"secret", "set", "OTHER"}), "other-value-1234");
        QVERIFY2(set.status != 0 && set.err.contains("keyring is locked") &&
                     set.err.contains("Unlock the keyring"),
                 set.describe());
        const QString policy =
            writePolicy(QStringLiteral("locked"), R"({"secrets": [{"name": "API_TOKEN", "env": "TOKEN"}]})");
        verifyRunAndCreateRefused(policy, "keyring is locked");
        // The names are still listed: they are in the store's file.
        const CliResult listed = cordon(args({"secret", "ls"}));
        QVERIFY2(listed.status == 0 && listed.out.contains("API_TOKEN"), listed.describe());
        QCOMPARE(m_daemon.state(), QProcess::Running);
        QVERIFY2(cordon(args({"daemon", "status"})).status == 0, "the daemon stopped answering");
    }
};

CORDON_SANDBOX_TEST_MAIN(TestSecretKeyring)
#include "tst_secretkeyring.moc"
