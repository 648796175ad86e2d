// SPDX-License-Identifier: MIT
// cordond started the way systemd's cordond.socket starts it: the test binds and listens on the socket
// itself, passes it as fd 3 with LISTEN_PID and LISTEN_FDS (sd_listen_fds(3)), and talks to the real daemon
// through the client library and `cordon daemon status`. Passed descriptors that are not a listening unix
// socket, or not the socket clients look for, fail the start clearly; variables meant for another process are
// ignored with a note. In-process: takeActivation() and ControlServer::adopt().
#include "cliprocess.h"
#include "daemon/controlserver.h"
#include "daemon/daemonclient.h"
#include "daemon/framecodec.h"
#include "daemon/socketactivation.h"
#include "sandboxtest.h"
#include "testutil.h"

#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <cerrno>
#include <csignal>
#include <fcntl.h>
#include <grp.h>
#include <memory>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace CordonTest;
using Cordon::Daemon::ControlServer;

namespace {

constexpr int ClosedSilently = 40;

sockaddr_un addressOf(const QString &path)
{
    sockaddr_un address = {};
    address.sun_family = AF_UNIX;
    const QByteArray encoded = QFile::encodeName(path);
    std::copy(encoded.cbegin(), encoded.cend(), address.sun_path);
    return address;
}

// What systemd does for ListenStream=: bind, listen, keep the descriptor (close-on-exec here, so only the
// fd 3 the child is given survives its exec).
int listeningSocket(const QString &path)
{
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const sockaddr_un address = addressOf(path);
    if (fd < 0 || ::bind(fd, reinterpret_cast<const sockaddr *>(&address), sizeof address) != 0 ||
        ::chmod(QFile::encodeName(path).constData(), 0600) != 0 || ::listen(fd, 16) != 0) {
        if (fd >= 0)
            ::close(fd);
        return -1;
    }
    return fd;
}

// cordond with `passed` as its fd 3 and the variables set as systemd sets them: the shell exports
// LISTEN_PID=$$ and execs, so the pid it names is cordond's own.
class ActivatedDaemon
{
public:
    ActivatedDaemon(const QString &socketPath, const QString &dataDir) : m_socketPath(socketPath)
    {
        m_environment = QProcessEnvironment::systemEnvironment();
        m_environment.insert(QStringLiteral("CORDON_SOCKET"), socketPath);
        m_environment.insert(QStringLiteral("CORDON_DATA_DIR"), dataDir);
    }
    ~ActivatedDaemon() { kill(); }

    // listenPid: "$$" for cordond itself, or another value; fds: LISTEN_FDS; passed: the descriptor that
    // becomes fd 3, or -1 for none.
    void start(int passed, const QString &listenPid = QStringLiteral("$$"),
               const QString &fds = QStringLiteral("1"))
    {
        m_process = std::make_unique<QProcess>();
        m_process->setProcessEnvironment(m_environment);
        m_process->setChildProcessModifier([passed] {
            // In the child before exec: system calls only.
            if (passed < 0)
                ::close(3);
            else if (::dup2(passed, 3) == 3)
                (void)::fcntl(3, F_SETFD, 0);
        });
        m_process->start(QStringLiteral("/bin/sh"),
                         {QStringLiteral("-c"),
                          QStringLiteral("export LISTEN_PID=%1 LISTEN_FDS=%2 LISTEN_FDNAMES=cordond.sock; "
                                         "exec \"$0\" --allow-degraded")
                              .arg(listenPid, fds),
                          builtProgram(QStringLiteral("cordond"))});
    }

    // The exit status of a daemon that is expected to end by itself, and what it said.
    int waitForExit(QByteArray *err)
    {
        if (!m_process->waitForFinished(20000))
            return -1;
        *err = m_process->readAllStandardError();
        return m_process->exitStatus() == QProcess::NormalExit ? m_process->exitCode() : -1;
    }

    // Waits until stderr holds `text` (or the daemon ended); returns all of stderr so far.
    QByteArray waitForLog(const QByteArray &text)
    {
        QElapsedTimer clock;
        clock.start();
        while (!m_err.contains(text) && clock.elapsed() < 20000 &&
               m_process->state() != QProcess::NotRunning) {
            m_process->waitForReadyRead(200);
            m_err += m_process->readAllStandardError();
        }
        m_err += m_process->readAllStandardError();
        return m_err;
    }

    // Connects as soon as something listens: at once on a passed socket, which exists before the daemon,
    // after the daemon's start when it binds its own.
    // Stderr so far, without waiting (QVERIFY2 evaluates its message even when the check passes).
    QByteArray log()
    {
        if (m_process)
            m_err += m_process->readAllStandardError();
        return m_err;
    }

    std::unique_ptr<Cordon::Daemon::DaemonClient> connect()
    {
        qputenv("CORDON_SOCKET", QFile::encodeName(m_socketPath));
        QElapsedTimer clock;
        clock.start();
        while (clock.elapsed() < 20000 && m_process && m_process->state() != QProcess::NotRunning) {
            auto client = std::make_unique<Cordon::Daemon::DaemonClient>();
            if (client->connectSync(false, 15000))
                return client;
            QThread::msleep(50);
        }
        return nullptr;
    }

    CliResult cordon(const QStringList &arguments) const
    {
        return runProgram(builtProgram(QStringLiteral("cordon")), arguments, {}, m_environment);
    }

    // SIGTERM, as `systemctl --user stop` sends it; true when it ended cleanly.
    bool stop()
    {
        if (!m_process)
            return true;
        m_process->terminate();
        const bool ended = m_process->waitForFinished(20000) &&
                           m_process->exitStatus() == QProcess::NormalExit && m_process->exitCode() == 0;
        m_err += m_process->readAllStandardError();
        m_process.reset();
        return ended;
    }

    void kill()
    {
        if (m_process) {
            m_process->kill();
            m_process->waitForFinished(5000);
            m_process.reset();
        }
    }

    qint64 pid() const { return m_process ? m_process->processId() : -1; }
    const QProcessEnvironment &environment() const { return m_environment; }

private:
    QString m_socketPath;
    QProcessEnvironment m_environment;
    std::unique_ptr<QProcess> m_process;
    QByteArray m_err;
};

// Sets or clears environment variables for one test and puts them back afterwards.
class EnvironmentGuard
{
public:
    EnvironmentGuard()
    {
        for (const char *name : Names) {
            m_saved.append({name, qEnvironmentVariableIsSet(name), qgetenv(name)});
            qunsetenv(name);
        }
    }
    ~EnvironmentGuard()
    {
        for (const Saved &saved : m_saved) {
            if (saved.set)
                qputenv(saved.name, saved.value);
            else
                qunsetenv(saved.name);
        }
    }

private:
    static constexpr const char *Names[] = {"LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"};
    struct Saved
    {
        const char *name;
        bool set;
        QByteArray value;
    };
    QList<Saved> m_saved;
};

} // namespace

class TestSocketActivation final : public QObject
{
    Q_OBJECT

private:
    // Below /tmp: a unix socket path has at most 107 bytes.
    QTemporaryDir m_dir{QStringLiteral("/tmp/cordon-activation-XXXXXX")};

    QString socketPath() const { return m_dir.filePath(QStringLiteral("d.sock")); }
    QString dataDir() const { return m_dir.filePath(QStringLiteral("data")); }

private Q_SLOTS:
    void init()
    {
        QVERIFY(m_dir.isValid());
        QFile::remove(socketPath());
    }

    void servesOnThePassedSocket()
    {
        const int listener = listeningSocket(socketPath());
        QVERIFY2(listener >= 0, std::strerror(errno));
        struct stat before = {};
        QCOMPARE(::stat(QFile::encodeName(socketPath()).constData(), &before), 0);

        ActivatedDaemon daemon(socketPath(), dataDir());
        daemon.start(listener);
        // As with systemd, a client may connect before the daemon runs: it waits in the socket's queue.
        auto client = daemon.connect();
        QVERIFY2(client, daemon.log().constData());
        QCOMPARE(client->helloResult().value(QStringLiteral("pid")).toInteger(), daemon.pid());
        const QByteArray serving = daemon.waitForLog("socket-activated");
        QVERIFY2(serving.contains(QByteArray(QByteArray("serving, socket-activated, on ") +
                                             QFile::encodeName(socketPath()))),
                 serving.constData());

        // The command line finds it the way users do.
        const CliResult status = daemon.cordon({QStringLiteral("daemon"), QStringLiteral("status")});
        QVERIFY2(status.status == 0, status.describe());
        QVERIFY2(status.out.contains(QByteArray::number(daemon.pid())), status.describe());

        // A container starts and runs through it.
        auto created = client->callSync(
            QStringLiteral("container.create"),
            {{QStringLiteral("policy"), QJsonObject{{QStringLiteral("memory_limit"), QStringLiteral("1g")}}}},
            60000);
        QVERIFY_RESULT(created);
        const QString id =
            created->value(QStringLiteral("container")).toObject().value(QStringLiteral("id")).toString();
        auto started = client->callSync(
            QStringLiteral("run.exec"),
            {{QStringLiteral("container"), id},
             {QStringLiteral("command"),
              QJsonArray{QStringLiteral("/bin/sh"), QStringLiteral("-c"), QStringLiteral("echo activated")}}},
            60000);
        QVERIFY_RESULT(started);
        auto ended =
            client->callSync(QStringLiteral("run.wait"),
                             {{QStringLiteral("run_id"),
                               started->value(QStringLiteral("run")).toObject().value(QStringLiteral("id"))}},
                             60000);
        QVERIFY_RESULT(ended);
        const QJsonObject run = ended->value(QStringLiteral("run")).toObject();
        QCOMPARE(run.value(QStringLiteral("error_class")).toString(), QStringLiteral("ok"));

        // One instance per user still: a daemon started by hand finds the lock taken.
        const CliResult second = runProgram(builtProgram(QStringLiteral("cordond")),
                                            {QStringLiteral("--allow-degraded")}, {}, daemon.environment());
        QCOMPARE(second.status, 1);
        QVERIFY2(second.err.contains(QByteArray(QByteArray("cordond is already running (pid ") +
                                                QByteArray::number(daemon.pid()))),
                 second.describe());

        client.reset();
        QVERIFY(daemon.stop());
        // The socket file is the service manager's: still there, the same file, and still taking connections
        // (the next connection would start the daemon again).
        struct stat after = {};
        QCOMPARE(::stat(QFile::encodeName(socketPath()).constData(), &after), 0);
        QCOMPARE(after.st_ino, before.st_ino);
        const int probe = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        const sockaddr_un address = addressOf(socketPath());
        QCOMPARE(::connect(probe, reinterpret_cast<const sockaddr *>(&address), sizeof address), 0);
        ::close(probe);

        // ... and a second activation serves on the same socket, the pending connection included.
        ActivatedDaemon again(socketPath(), dataDir());
        again.start(listener);
        auto reconnected = again.connect();
        QVERIFY2(reconnected, again.log().constData());
        QCOMPARE(reconnected->helloResult().value(QStringLiteral("pid")).toInteger(), again.pid());
        reconnected.reset();
        QVERIFY(again.stop());
        ::close(listener);
    }

    void otherUidsAreRefusedOnThePassedSocket()
    {
        if (::getuid() != 0)
            QSKIP("needs root to connect as another uid");
        const int listener = listeningSocket(socketPath());
        QVERIFY(listener >= 0);
        ActivatedDaemon daemon(socketPath(), dataDir());
        daemon.start(listener);
        QVERIFY(daemon.connect());
        // Opened up on purpose, so that only the daemon's SO_PEERCRED check stands in the way (after the
        // start, which narrows the socket's directory to 0700).
        QCOMPARE(::chmod(QFile::encodeName(m_dir.path()).constData(), 0755), 0);
        QCOMPARE(::chmod(QFile::encodeName(socketPath()).constData(), 0666), 0);

        const sockaddr_un address = addressOf(socketPath());
        const QByteArray hello = Cordon::Daemon::encodeFrame(
            Cordon::Daemon::makeRequest(1, QStringLiteral("hello"), {{QStringLiteral("protocol"), 1}}));
        const pid_t child = ::fork();
        QVERIFY(child >= 0);
        if (child == 0) {
            // Only system calls from here: the parent is multithreaded.
            ::alarm(10);
            if (::setgroups(0, nullptr) != 0 || ::setgid(65534) != 0 || ::setuid(65534) != 0)
                ::_exit(10);
            const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
            if (fd < 0 || ::connect(fd, reinterpret_cast<const sockaddr *>(&address), sizeof address) != 0)
                ::_exit(11);
            (void)::send(fd, hello.constData(), size_t(hello.size()), MSG_NOSIGNAL);
            char byte;
            const ssize_t n = ::recv(fd, &byte, 1, 0);
            ::_exit(n == 0 || (n < 0 && errno == ECONNRESET) ? ClosedSilently : n > 0 ? 12 : 13);
        }
        int status = 0;
        QVERIFY(QTest::qWaitFor([&] { return ::waitpid(child, &status, WNOHANG) == child; }, 15000));
        QVERIFY2(WIFEXITED(status) && WEXITSTATUS(status) == ClosedSilently,
                 qPrintable(QStringLiteral("child status %1").arg(status)));
        const QByteArray refused = daemon.waitForLog("refused a client with uid 65534");
        QVERIFY2(refused.contains("refused a client with uid 65534"), refused.constData());
        QVERIFY(daemon.stop());
        ::close(listener);
        QCOMPARE(::chmod(QFile::encodeName(m_dir.path()).constData(), 0700), 0);
    }

    void unusablePassedDescriptorsFailTheStart_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("fds");
        QTest::addColumn<QByteArray>("message");
        QTest::newRow("a directory") << QStringLiteral("file") << QStringLiteral("1")
                                     << QByteArray("socket activation: fd 3 is not a socket");
        QTest::newRow("a connected socket") << QStringLiteral("socketpair") << QStringLiteral("1")
                                            << QByteArray("fd 3 is not a listening unix stream socket");
        QTest::newRow("nothing at fd 3") << QStringLiteral("none") << QStringLiteral("1")
                                         << QByteArray("socket activation: fd 3 is not open");
        QTest::newRow("two sockets") << QStringLiteral("listener") << QStringLiteral("2")
                                     << QByteArray("LISTEN_FDS=2, but cordond serves exactly one socket");
        QTest::newRow("a count that is no number") << QStringLiteral("listener") << QStringLiteral("x1")
                                                   << QByteArray("LISTEN_FDS=`x1` is not a number");
        QTest::newRow("bound where clients do not look")
            << QStringLiteral("elsewhere") << QStringLiteral("1") << QByteArray("but clients look for `");
    }

    void unusablePassedDescriptorsFailTheStart()
    {
        QFETCH(QString, kind);
        QFETCH(QString, fds);
        QFETCH(QByteArray, message);
        int passed = -1, other = -1;
        if (kind == QLatin1String("file")) {
            passed = ::open(QFile::encodeName(m_dir.path()).constData(), O_RDONLY | O_CLOEXEC);
        } else if (kind == QLatin1String("socketpair")) {
            int pair[2];
            QCOMPARE(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair), 0);
            passed = pair[0];
            other = pair[1];
        } else if (kind == QLatin1String("listener")) {
            passed = listeningSocket(socketPath());
        } else if (kind == QLatin1String("elsewhere")) {
            passed = listeningSocket(m_dir.filePath(QStringLiteral("other.sock")));
        }
        QVERIFY(kind == QLatin1String("none") || passed >= 0);

        ActivatedDaemon daemon(socketPath(), dataDir());
        daemon.start(passed, QStringLiteral("$$"), fds);
        QByteArray err;
        const int status = daemon.waitForExit(&err);
        QVERIFY2(status == 1, err.constData());
        QVERIFY2(err.contains(message), err.constData());
        QVERIFY2(err.startsWith("cordond: "), err.constData());
        for (const int fd : {passed, other}) {
            if (fd >= 0)
                ::close(fd);
        }
        QFile::remove(m_dir.filePath(QStringLiteral("other.sock")));
    }

    // LISTEN_PID of another process: a parent that exec'ed us without clearing its own variables. They are
    // not ours; the daemon says so and binds its own socket.
    void variablesForAnotherProcessAreIgnored()
    {
        const int decoy = ::open(QFile::encodeName(m_dir.path()).constData(), O_RDONLY | O_CLOEXEC);
        QVERIFY(decoy >= 0);
        ActivatedDaemon daemon(socketPath(), dataDir());
        daemon.start(decoy, QStringLiteral("1"));
        auto client = daemon.connect();
        QVERIFY2(client, daemon.log().constData());
        const QByteArray log = daemon.waitForLog("listening on");
        QVERIFY2(log.contains("cordond: LISTEN_PID=1 names another process"), log.constData());
        QVERIFY2(log.contains(QByteArray(QByteArray("listening on ") + QFile::encodeName(socketPath()))),
                 log.constData());
        client.reset();
        QVERIFY(daemon.stop());
        // Its own socket: removed when it stops.
        QVERIFY(!QFile::exists(socketPath()));
        ::close(decoy);
    }

    // The rules on the environment, in this process (fd 3 is left alone: these cases never reach it).
    void variablesAreTakenOutOfTheEnvironment()
    {
        {
            EnvironmentGuard guard;
            const Cordon::Result<Cordon::Daemon::Activation> none = Cordon::Daemon::takeActivation();
            QVERIFY_RESULT(none);
            QCOMPARE(none->fd, -1);
            QVERIFY(none->ignored.isEmpty());
        }
        {
            EnvironmentGuard guard;
            qputenv("LISTEN_PID", QByteArray::number(::getpid() + 1));
            qputenv("LISTEN_FDS", "1");
            qputenv("LISTEN_FDNAMES", "cordond.sock");
            const auto ignored = Cordon::Daemon::takeActivation();
            QVERIFY_RESULT(ignored);
            QCOMPARE(ignored->fd, -1);
            QVERIFY2(ignored->ignored.contains(QLatin1String("names another process")),
                     qPrintable(ignored->ignored));
            for (const char *name : {"LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"})
                QVERIFY2(!qEnvironmentVariableIsSet(name), name);
        }
        {
            EnvironmentGuard guard;
            qputenv("LISTEN_FDS", "1");
            const auto noPid = Cordon::Daemon::takeActivation();
            QVERIFY_RESULT(noPid);
            QCOMPARE(noPid->fd, -1);
            QVERIFY2(noPid->ignored.contains(QLatin1String("without a valid LISTEN_PID")),
                     qPrintable(noPid->ignored));
            QVERIFY(!qEnvironmentVariableIsSet("LISTEN_FDS"));
        }
        {
            EnvironmentGuard guard;
            qputenv("LISTEN_PID", QByteArray::number(::getpid()));
            qputenv("LISTEN_FDS", "0");
            const auto zero = Cordon::Daemon::takeActivation();
            QVERIFY(!zero);
            QCOMPARE(zero.error().code(), "daemon.activation");
            QVERIFY(!qEnvironmentVariableIsSet("LISTEN_PID"));
        }
    }

    void adoptedSocketFilesStayAfterClose()
    {
        const int listener = listeningSocket(socketPath());
        QVERIFY(listener >= 0);
        const int duplicate = ::fcntl(listener, F_DUPFD_CLOEXEC, 3);
        {
            ControlServer server;
            QVERIFY_RESULT(server.adopt(duplicate, socketPath()));
            QVERIFY(server.isListening());
            QCOMPARE(server.path(), socketPath());
            server.close();
        }
        QVERIFY(QFile::exists(socketPath()));

        // A socket bound elsewhere is refused and its descriptor closed.
        const int elsewhere = listeningSocket(m_dir.filePath(QStringLiteral("other.sock")));
        QVERIFY(elsewhere >= 0);
        ControlServer server;
        const auto refused = server.adopt(elsewhere, socketPath());
        QVERIFY(!refused);
        QVERIFY2(Cordon::toQt(refused.error().message())
                     .contains(QStringLiteral("the passed socket is bound to `%1`")
                                   .arg(m_dir.filePath(QStringLiteral("other.sock")))),
                 refused.error().message().c_str());
        QVERIFY(!server.isListening());
        QCOMPARE(::fcntl(elsewhere, F_GETFD), -1);
        ::close(listener);
        QFile::remove(m_dir.filePath(QStringLiteral("other.sock")));
    }
};

CORDON_SANDBOX_TEST_MAIN(TestSocketActivation)
#include "tst_socketactivation.moc"
