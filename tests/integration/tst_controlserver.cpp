// SPDX-License-Identifier: MIT
// The control socket end to end: a real ControlServer on a unix socket in a private directory, real
// DaemonClients, and raw sockets that send what no well-behaved client would. The server must answer errors,
// drop only the offending client, and keep serving everyone else.
#include "daemon/controlserver.h"
#include "daemon/daemonclient.h"
#include "daemon/daemonpaths.h"
#include "daemon/framecodec.h"
#include "testutil.h"

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QLocalSocket>
#include <QPointer>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QtEndian>

#include <cerrno>
#include <csignal>
#include <grp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace Cordon;
using namespace Cordon::Daemon;

namespace {

// The child of the peer-credential test exits with this when the server closed on it without a word.
constexpr int ClosedSilently = 42;
const char FakeDaemonVariable[] = "CORDON_TEST_FAKE_DAEMON";

QString str(const char *text)
{
    return QString::fromUtf8(text);
}

// Sets an environment variable for one scope and puts the old value back.
class ScopedEnv
{
public:
    ScopedEnv(const char *name, const QString &value) : m_name(name), m_had(qEnvironmentVariableIsSet(name))
    {
        m_old = qgetenv(name);
        if (value.isNull())
            qunsetenv(name);
        else
            qputenv(name, QFile::encodeName(value));
    }
    ~ScopedEnv()
    {
        if (m_had)
            qputenv(m_name, m_old);
        else
            qunsetenv(m_name);
    }
    Q_DISABLE_COPY_MOVE(ScopedEnv)

private:
    const char *m_name;
    bool m_had;
    QByteArray m_old;
};

mode_t modeOf(const QString &path)
{
    struct stat st = {};
    if (::lstat(QFile::encodeName(path).constData(), &st) != 0)
        return 0;
    return st.st_mode;
}

QByteArray lengthHeader(quint32 length)
{
    QByteArray bytes(4, Qt::Uninitialized);
    qToBigEndian<quint32>(length, bytes.data());
    return bytes;
}

QJsonObject request(qint64 id, const char *method, const QJsonObject &params = {})
{
    return makeRequest(id, str(method), params);
}

// A client that speaks the framing by hand, so the test can send anything at all.
class RawClient
{
public:
    explicit RawClient(const QString &path) { m_socket.connectToServer(path); }

    bool isConnected() const { return m_socket.state() == QLocalSocket::ConnectedState; }
    void sendBytes(const QByteArray &bytes) { m_socket.write(bytes); }
    void send(const QJsonObject &message) { sendBytes(encodeFrame(message)); }

    std::optional<QJsonObject> nextFrame(int timeoutMs = 5000)
    {
        (void)QTest::qWaitFor(
            [&] {
                pump();
                return !m_frames.isEmpty();
            },
            timeoutMs);
        pump();
        if (m_frames.isEmpty())
            return std::nullopt;
        return m_frames.takeFirst();
    }

    bool waitForDisconnect(int timeoutMs = 5000)
    {
        return QTest::qWaitFor([&] { return m_socket.state() == QLocalSocket::UnconnectedState; }, timeoutMs);
    }

    void disconnect() { m_socket.abort(); }

private:
    void pump()
    {
        m_decoder.feed(m_socket.readAll());
        while (std::optional<Result<QJsonObject>> frame = m_decoder.next()) {
            if (*frame)
                m_frames.append(**frame);
        }
    }

    QLocalSocket m_socket;
    FrameDecoder m_decoder;
    QList<QJsonObject> m_frames;
};

QString errorCodeOf(const QJsonObject &response)
{
    return response.value(QStringLiteral("error")).toObject().value(QStringLiteral("code")).toString();
}

// The requests a daemon's owner would answer, reduced to what exercises the transport.
class TestHandler final : public RequestHandler
{
public:
    std::function<void(Result<QJsonObject>)> held;
    QList<std::function<void(Result<QJsonObject>)>> heldMore;

    void handleRequest(const ClientInfo &client, const QString &method, const QJsonObject &params,
                       std::function<void(Result<QJsonObject>)> respond) override
    {
        if (method == QLatin1String("echo")) {
            respond(params);
        } else if (method == QLatin1String("slow")) {
            QTimer::singleShot(params.value(QStringLiteral("delay_ms")).toInt(), &m_context,
                               [respond, params] { respond(params); });
        } else if (method == QLatin1String("fail")) {
            respond(fail(QStringLiteral("container.not_found"), QStringLiteral("no container `c9`")));
        } else if (method == QLatin1String("client")) {
            respond(QJsonObject{{QStringLiteral("connection"), static_cast<qint64>(client.connectionId)},
                                {QStringLiteral("pid"), static_cast<qint64>(client.pid)},
                                {QStringLiteral("uid"), static_cast<qint64>(client.uid)},
                                {QStringLiteral("name"), client.clientName}});
        } else if (method == QLatin1String("hold")) {
            held = std::move(respond);
        } else if (method == QLatin1String("hold_more")) {
            heldMore.append(std::move(respond));
        } else if (method == QLatin1String("drop")) {
            // Forgets respond without calling it.
        } else if (method == QLatin1String("twice")) {
            respond(QJsonObject{{QStringLiteral("answer"), 1}});
            respond(QJsonObject{{QStringLiteral("answer"), 2}});
        } else if (method == QLatin1String("big")) {
            respond(QJsonObject{{QStringLiteral("blob"), QString(MaxFrameBytes + 1, QLatin1Char('x'))}});
        } else {
            respond(fail(QStringLiteral("protocol.unknown_method"),
                         QStringLiteral("unknown method `%1`").arg(method)));
        }
    }

private:
    QObject m_context;
};

// The test binary doubles as a minimal daemon, so that auto-start is tested end to end without cordond.
class FakeDaemonHandler final : public RequestHandler
{
public:
    void handleRequest(const ClientInfo &, const QString &method, const QJsonObject &,
                       std::function<void(Result<QJsonObject>)> respond) override
    {
        if (method == QLatin1String("daemon.shutdown")) {
            respond(QJsonObject());
            // Time for the answer to leave before the process goes.
            QTimer::singleShot(200, qApp, &QCoreApplication::quit);
        } else {
            respond(fail(QStringLiteral("protocol.unknown_method"),
                         QStringLiteral("unknown method `%1`").arg(method)));
        }
    }
};

int runFakeDaemon(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    auto lock = InstanceLock::acquire();
    if (!lock)
        return 3;
    ControlServer server;
    FakeDaemonHandler handler;
    server.setHandler(&handler);
    if (!server.listen(socketPath()))
        return 4;
    // Never outlive a test that failed before asking for shutdown.
    QTimer::singleShot(30000, &app, &QCoreApplication::quit);
    return app.exec();
}

// Like QTest::qWaitFor, without its 10 ms naps: for waits that are many event-loop rounds long (a reader
// draining megabytes through a socket buffer of a few hundred kilobytes per round).
template<typename Predicate> bool spinUntil(Predicate predicate, int timeoutMs)
{
    QTimer tick; // wakes the loop even when nothing else happens
    tick.start(20);
    QElapsedTimer clock;
    clock.start();
    while (!predicate()) {
        if (clock.hasExpired(timeoutMs))
            return false;
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents);
    }
    return true;
}

Result<QJsonObject> callOn(DaemonClient &client, const char *method, const QJsonObject &params = {})
{
    return client.callSync(str(method), params, 10000);
}

} // namespace

class TestControlServer final : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::unique_ptr<ScopedEnv> m_socketEnv;
    ControlServer m_server;
    TestHandler m_handler;

    std::unique_ptr<DaemonClient> connectedClient(const QString &name = QStringLiteral("tst"))
    {
        auto client = std::make_unique<DaemonClient>();
        client->setClientName(name);
        const Result<> connected = client->connectSync(false, 5000);
        if (!connected) {
            qWarning("connect: %s", connected.error().message().c_str());
            return nullptr;
        }
        return client;
    }

    // The server still answers promptly after whatever a test did to it.
    void verifyServerStillServes()
    {
        auto client = connectedClient(QStringLiteral("bystander"));
        QVERIFY(client);
        QElapsedTimer clock;
        clock.start();
        const Result<QJsonObject> echo = callOn(*client, "echo", QJsonObject{{QStringLiteral("ok"), true}});
        QVERIFY_RESULT(echo);
        QCOMPARE(echo->value(QStringLiteral("ok")), QJsonValue(true));
        QVERIFY2(clock.elapsed() < 2000, qPrintable(QStringLiteral("echo took %1 ms").arg(clock.elapsed())));
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_socketEnv =
            std::make_unique<ScopedEnv>("CORDON_SOCKET", m_dir.filePath(QStringLiteral("run/cordond.sock")));
        QVERIFY_RESULT(ensureSocketDirectory());
        m_server.setHandler(&m_handler);
        m_server.setHelloExtras(QJsonObject{{QStringLiteral("time_scale"), 1}, {QStringLiteral("pid"), -1}});
        m_server.setSubscribeBacklogProvider([](const QStringList &topics, const QString &container) {
            return QJsonObject{
                {QStringLiteral("memory_backlog"), QJsonArray{topics.join(QLatin1Char(',')), container}}};
        });
        QVERIFY_RESULT(m_server.listen(socketPath()));
    }

    // Clients of the previous test are closed by now, but the server learns of it on the event loop.
    void init() { QTRY_COMPARE(m_server.clientCount(), 0); }

    void cleanupTestCase()
    {
        m_server.close();
        m_socketEnv.reset();
    }

    void socketDirectoryAndSocketArePrivate()
    {
        QCOMPARE(socketDirectory(), m_dir.filePath(QStringLiteral("run")));
        QCOMPARE(modeOf(socketDirectory()) & 07777, mode_t(0700));
        QVERIFY(S_ISSOCK(modeOf(socketPath())));
        QCOMPARE(modeOf(socketPath()) & 07777, mode_t(0600));
    }

    void helloReportsTheDaemon()
    {
        auto client = connectedClient();
        QVERIFY(client);
        QVERIFY(client->isConnected());
        const QJsonObject hello = client->helloResult();
        QCOMPARE(hello.value(QStringLiteral("protocol")).toInteger(), 1);
        QVERIFY(!hello.value(QStringLiteral("daemon_version")).toString().isEmpty());
        // The owner's extras are merged in, but cannot override what the transport reports.
        QCOMPARE(hello.value(QStringLiteral("pid")).toInteger(), qint64(::getpid()));
        QCOMPARE(hello.value(QStringLiteral("time_scale")).toInteger(), 1);
    }

    void helloWithAnotherProtocolIsRefused_data()
    {
        QTest::addColumn<QJsonObject>("params");
        QTest::newRow("protocol 2") << QJsonObject{{QStringLiteral("protocol"), 2}};
        QTest::newRow("protocol 0") << QJsonObject{{QStringLiteral("protocol"), 0}};
        QTest::newRow("string") << QJsonObject{{QStringLiteral("protocol"), QStringLiteral("1")}};
        QTest::newRow("missing") << QJsonObject();
    }

    void helloWithAnotherProtocolIsRefused()
    {
        QFETCH(QJsonObject, params);
        RawClient raw(socketPath());
        raw.send(makeRequest(5, QStringLiteral("hello"), params));
        const std::optional<QJsonObject> answer = raw.nextFrame();
        QVERIFY(answer);
        QCOMPARE(answer->value(QStringLiteral("id")).toInteger(), 5);
        QCOMPARE(errorCodeOf(*answer), QStringLiteral("protocol.version"));
        // Refused, not thrown out: the client can still say hello properly.
        raw.send(request(6, "hello", QJsonObject{{QStringLiteral("protocol"), 1}}));
        const std::optional<QJsonObject> retry = raw.nextFrame();
        QVERIFY(retry);
        QCOMPARE(
            retry->value(QStringLiteral("result")).toObject().value(QStringLiteral("protocol")).toInteger(),
            1);
    }

    void requestBeforeHelloIsServed()
    {
        RawClient raw(socketPath());
        raw.send(request(1, "echo", QJsonObject{{QStringLiteral("x"), 1}}));
        const std::optional<QJsonObject> answer = raw.nextFrame();
        QVERIFY(answer);
        QCOMPARE(*answer, makeResult(1, QJsonObject{{QStringLiteral("x"), 1}}));
    }

    void callsResultsAndErrors()
    {
        auto client = connectedClient();
        QVERIFY(client);
        const QJsonObject params{
            {QStringLiteral("nested"), QJsonObject{{QStringLiteral("a"), QJsonArray{1, 2}}}}};
        const Result<QJsonObject> echo = callOn(*client, "echo", params);
        QVERIFY_RESULT(echo);
        QCOMPARE(*echo, params);

        const Result<QJsonObject> failed = callOn(*client, "fail");
        QVERIFY(!failed);
        QCOMPARE(failed.error().code(), "container.not_found");
        QCOMPARE(toQt(failed.error().message()), QStringLiteral("no container `c9`"));

        const Result<QJsonObject> unknown = callOn(*client, "no.such.method");
        QVERIFY(!unknown);
        QCOMPARE(unknown.error().code(), "protocol.unknown_method");
    }

    void withoutHandlerEveryOtherMethodIsUnknown()
    {
        ControlServer bare;
        const QString path = m_dir.filePath(QStringLiteral("run/bare.sock"));
        QVERIFY_RESULT(bare.listen(path));
        DaemonClient client;
        client.setSocketPath(path);
        QVERIFY_RESULT(client.connectSync(false, 5000));
        const Result<QJsonObject> answer = callOn(client, "container.list");
        QVERIFY(!answer);
        QCOMPARE(answer.error().code(), "protocol.unknown_method");
        QVERIFY(toQt(answer.error().message()).contains(QStringLiteral("container.list")));
    }

    void clientInfoComesFromPeerCredentials()
    {
        auto client = connectedClient(QStringLiteral("cordon-cli"));
        QVERIFY(client);
        const Result<QJsonObject> info = callOn(*client, "client");
        QVERIFY_RESULT(info);
        QCOMPARE(info->value(QStringLiteral("pid")).toInteger(), qint64(::getpid()));
        QCOMPARE(info->value(QStringLiteral("uid")).toInteger(), qint64(::getuid()));
        QCOMPARE(info->value(QStringLiteral("name")).toString(), QStringLiteral("cordon-cli"));
        QVERIFY(info->value(QStringLiteral("connection")).toInteger() > 0);
    }

    void answersArriveOutOfOrder()
    {
        auto client = connectedClient();
        QVERIFY(client);
        QStringList order;
        int pending = 3;
        const auto record = [&](const char *name) {
            return [&order, &pending, name](Result<QJsonObject> result) {
                order.append(result ? str(name) : toQt(result.error().code()));
                --pending;
            };
        };
        const qint64 slowId = client->call(QStringLiteral("slow"),
                                           QJsonObject{{QStringLiteral("delay_ms"), 300}}, record("slow"));
        const qint64 mediumId = client->call(
            QStringLiteral("slow"), QJsonObject{{QStringLiteral("delay_ms"), 100}}, record("medium"));
        const qint64 fastId = client->call(QStringLiteral("echo"), QJsonObject(), record("fast"));
        QVERIFY(slowId != mediumId && mediumId != fastId);
        QVERIFY(QTest::qWaitFor([&] { return pending == 0; }, 5000));
        QCOMPARE(order, (QStringList{str("fast"), str("medium"), str("slow")}));
    }

    void respondAfterDisconnectIsHarmless()
    {
        auto client = connectedClient();
        QVERIFY(client);
        const int before = m_server.clientCount();
        bool answered = false;
        client->call(QStringLiteral("hold"), QJsonObject(), [&](Result<QJsonObject>) { answered = true; });
        QVERIFY(QTest::qWaitFor([&] { return bool(m_handler.held); }, 5000));
        client.reset();
        QTRY_COMPARE(m_server.clientCount(), before - 1);
        auto respond = std::move(m_handler.held);
        m_handler.held = nullptr;
        respond(QJsonObject{{QStringLiteral("late"), true}});
        QVERIFY(!answered);
        verifyServerStillServes();
    }

    void droppedOrDoubleAnswers()
    {
        auto client = connectedClient();
        QVERIFY(client);
        // A handler that loses respond must not leave the client waiting forever.
        const Result<QJsonObject> dropped = callOn(*client, "drop");
        QVERIFY(!dropped);
        QCOMPARE(dropped.error().code(), "daemon.internal");

        const Result<QJsonObject> twice = callOn(*client, "twice");
        QVERIFY_RESULT(twice);
        QCOMPARE(twice->value(QStringLiteral("answer")).toInteger(), 1);
        const Result<QJsonObject> after = callOn(*client, "echo", QJsonObject{{QStringLiteral("n"), 3}});
        QVERIFY_RESULT(after);
        QCOMPARE(after->value(QStringLiteral("n")).toInteger(), 3);
    }

    void oversizedAnswerBecomesAnError()
    {
        auto client = connectedClient();
        QVERIFY(client);
        const Result<QJsonObject> big = callOn(*client, "big");
        QVERIFY(!big);
        QCOMPARE(big.error().code(), "protocol.frame_too_large");
        QVERIFY(client->isConnected());
        QVERIFY_RESULT(callOn(*client, "echo"));
    }

    void oversizedRequestIsRefusedByTheClient()
    {
        auto client = connectedClient();
        QVERIFY(client);
        const Result<QJsonObject> big = callOn(
            *client, "echo", QJsonObject{{QStringLiteral("blob"), QString(MaxFrameBytes, QLatin1Char('y'))}});
        QVERIFY(!big);
        QCOMPARE(big.error().code(), "protocol.frame_too_large");
        QVERIFY(client->isConnected());
    }

    void subscribeAndPublishWithContainerFilter()
    {
        auto filtered = connectedClient(QStringLiteral("filtered"));
        auto everything = connectedClient(QStringLiteral("everything"));
        auto silent = connectedClient(QStringLiteral("silent"));
        QVERIFY(filtered && everything && silent);
        QStringList filteredGot, everythingGot, silentGot;
        const auto collect = [](QStringList *into) {
            return [into](const QString &name, const QJsonObject &data) {
                into->append(name + QLatin1Char(':') + data.value(QStringLiteral("container")).toString());
            };
        };
        connect(filtered.get(), &DaemonClient::eventReceived, this, collect(&filteredGot));
        connect(everything.get(), &DaemonClient::eventReceived, this, collect(&everythingGot));
        connect(silent.get(), &DaemonClient::eventReceived, this, collect(&silentGot));

        const Result<QJsonObject> subscribed =
            callOn(*filtered, "subscribe",
                   QJsonObject{{QStringLiteral("topics"),
                                QJsonArray{QStringLiteral("runs"), QStringLiteral("memory")}},
                               {QStringLiteral("container"), QStringLiteral("c1")}});
        QVERIFY_RESULT(subscribed);
        QCOMPARE(subscribed->value(QStringLiteral("subscribed")).toArray(),
                 (QJsonArray{QStringLiteral("memory"), QStringLiteral("runs")}));
        QCOMPARE(subscribed->value(QStringLiteral("container")).toString(), QStringLiteral("c1"));
        // The owner's backlog is merged into the answer, computed for this subscription.
        QCOMPARE(subscribed->value(QStringLiteral("memory_backlog")).toArray(),
                 (QJsonArray{QStringLiteral("memory,runs"), QStringLiteral("c1")}));
        QVERIFY_RESULT(callOn(*everything, "subscribe",
                              QJsonObject{{QStringLiteral("topics"),
                                           QJsonArray{QStringLiteral("runs"), QStringLiteral("containers"),
                                                      QStringLiteral("memory"), QStringLiteral("events")}}}));

        const auto publishAll = [this] {
            m_server.publish(str("runs"), str("c1"), str("run.started"),
                             QJsonObject{{str("container"), str("c1")}});
            m_server.publish(str("runs"), str("c2"), str("run.started"),
                             QJsonObject{{str("container"), str("c2")}});
            m_server.publish(str("containers"), str("c1"), str("container.changed"),
                             QJsonObject{{str("container"), str("c1")}});
            m_server.publish(str("memory"), str("c1"), str("memory.sample"),
                             QJsonObject{{str("container"), str("c1")}});
        };
        publishAll();
        // A round trip on each connection after the publishing: any event for it was written before the
        // answer.
        QVERIFY_RESULT(callOn(*filtered, "echo"));
        QVERIFY_RESULT(callOn(*everything, "echo"));
        QVERIFY_RESULT(callOn(*silent, "echo"));
        QCOMPARE(filteredGot, (QStringList{str("run.started:c1"), str("memory.sample:c1")}));
        QCOMPARE(everythingGot, (QStringList{str("run.started:c1"), str("run.started:c2"),
                                             str("container.changed:c1"), str("memory.sample:c1")}));
        QCOMPARE(silentGot, QStringList());

        // A new subscription replaces the old one; unsubscribe ends them.
        QVERIFY_RESULT(
            callOn(*filtered, "subscribe", QJsonObject{{str("topics"), QJsonArray{str("containers")}}}));
        QVERIFY_RESULT(callOn(*everything, "unsubscribe"));
        filteredGot.clear();
        everythingGot.clear();
        publishAll();
        QVERIFY_RESULT(callOn(*filtered, "echo"));
        QVERIFY_RESULT(callOn(*everything, "echo"));
        QCOMPARE(filteredGot, QStringList{str("container.changed:c1")});
        QCOMPARE(everythingGot, QStringList());
    }

    void badSubscriptionsAreRefused_data()
    {
        QTest::addColumn<QJsonObject>("params");
        QTest::newRow("no topics") << QJsonObject();
        QTest::newRow("empty topics") << QJsonObject{{str("topics"), QJsonArray()}};
        QTest::newRow("unknown topic")
            << QJsonObject{{str("topics"), QJsonArray{str("runs"), str("secrets")}}};
        QTest::newRow("topic not a string") << QJsonObject{{str("topics"), QJsonArray{1}}};
        QTest::newRow("topics not an array") << QJsonObject{{str("topics"), str("runs")}};
        QTest::newRow("container not a string")
            << QJsonObject{{str("topics"), QJsonArray{str("runs")}}, {str("container"), 5}};
    }

    void badSubscriptionsAreRefused()
    {
        QFETCH(QJsonObject, params);
        auto client = connectedClient();
        QVERIFY(client);
        const Result<QJsonObject> answer = callOn(*client, "subscribe", params);
        QVERIFY(!answer);
        QCOMPARE(answer.error().code(), "protocol.invalid_params");
    }

    void malformedInputGetsErrorsAndTheConnectionSurvives_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<qint64>("answerId"); // -1: the error answers no request (id null)
        QTest::addColumn<QString>("errorCode");

        const auto frame = [](const QByteArray &body) {
            return QByteArray(lengthHeader(quint32(body.size())) + body);
        };
        QTest::newRow("invalid JSON")
            << frame("{\"id\": 1, \"method\":") << qint64(-1) << str("protocol.invalid_json");
        QTest::newRow("JSON array") << frame("[1,2]") << qint64(-1) << str("protocol.invalid_json");
        QTest::newRow("binary garbage")
            << frame(QByteArray("\x00\xff\x13\x37garbage", 11)) << qint64(-1) << str("protocol.invalid_json");
        QTest::newRow("zero length") << lengthHeader(0) << qint64(-1) << str("protocol.invalid_json");
        QTest::newRow("string id") << encodeFrame(
                                          QJsonObject{{str("id"), str("x")}, {str("method"), str("echo")}})
                                   << qint64(-1) << str("protocol.invalid_request");
        QTest::newRow("no method") << encodeFrame(QJsonObject{{str("id"), 44}}) << qint64(44)
                                   << str("protocol.invalid_request");
        QTest::newRow("params array")
            << encodeFrame(
                   QJsonObject{{str("id"), 45}, {str("method"), str("echo")}, {str("params"), QJsonArray()}})
            << qint64(45) << str("protocol.invalid_request");
    }

    void malformedInputGetsErrorsAndTheConnectionSurvives()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(qint64, answerId);
        QFETCH(QString, errorCode);
        RawClient raw(socketPath());
        raw.sendBytes(bytes);
        const std::optional<QJsonObject> answer = raw.nextFrame();
        QVERIFY(answer);
        QCOMPARE(errorCodeOf(*answer), errorCode);
        if (answerId < 0)
            QVERIFY(answer->value(str("id")).isNull());
        else
            QCOMPARE(answer->value(str("id")).toInteger(), answerId);
        raw.send(request(2, "echo", QJsonObject{{str("after"), true}}));
        const std::optional<QJsonObject> next = raw.nextFrame();
        QVERIFY(next);
        QCOMPARE(*next, makeResult(2, QJsonObject{{str("after"), true}}));
        QVERIFY(raw.isConnected());
    }

    // Every malformed frame is answered, but the log gets only the first few of each client and a few a
    // second in all: clients that send nothing else cannot fill the disk (they wrote 50 MB in 5 s before).
    void malformedFramesCannotFillTheLog()
    {
        static QAtomicInt logged = 0;
        static QtMessageHandler previous = nullptr;
        logged = 0;
        previous = qInstallMessageHandler(
            [](QtMsgType type, const QMessageLogContext &context, const QString &text) {
                if (text.contains(QLatin1String("a frame holds")) ||
                    text.contains(QLatin1String("malformed frames")))
                    logged.fetchAndAddRelaxed(1);
                if (previous)
                    previous(type, context, text);
            });
        QByteArray garbage;
        for (int i = 0; i < 200; ++i)
            garbage += lengthHeader(5) + QByteArray("[1,2]");
        std::vector<std::unique_ptr<RawClient>> clients;
        for (int c = 0; c < 5; ++c) {
            clients.push_back(std::make_unique<RawClient>(socketPath()));
            clients.back()->sendBytes(garbage);
        }
        for (auto &client : clients) {
            for (int i = 0; i < 200; ++i) {
                const std::optional<QJsonObject> answer = client->nextFrame();
                QVERIFY(answer);
                QCOMPARE(errorCodeOf(*answer), str("protocol.invalid_json"));
            }
            QVERIFY(client->isConnected());
        }
        qInstallMessageHandler(previous);
        // 3 lines each for 5 clients, within a budget of 10 a second (and one line counting the rest).
        QVERIFY2(logged.loadRelaxed() >= 1 && logged.loadRelaxed() <= 16,
                 qPrintable(QString::number(logged.loadRelaxed())));
    }

    void impossibleLengthsCloseTheConnection_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::newRow("1 GiB header") << lengthHeader(1u << 30);
        QTest::newRow("1 GiB header, then a body")
            << QByteArray(lengthHeader(1u << 30) + QByteArray(100000, 'a'));
        QTest::newRow("16 MiB + 1") << lengthHeader(quint32(MaxFrameBytes + 1));
        QTest::newRow("text protocol") << QByteArray("GET / HTTP/1.1\r\nHost: cordond\r\n\r\n");
    }

    void impossibleLengthsCloseTheConnection()
    {
        QFETCH(QByteArray, bytes);
        auto bystander = connectedClient(QStringLiteral("bystander"));
        QVERIFY(bystander);
        RawClient raw(socketPath());
        // A request that precedes the garbage is answered normally.
        raw.send(request(1, "echo"));
        raw.sendBytes(bytes);
        const std::optional<QJsonObject> first = raw.nextFrame();
        QVERIFY(first);
        QCOMPARE(*first, makeResult(1, QJsonObject()));
        const std::optional<QJsonObject> answer = raw.nextFrame();
        QVERIFY(answer);
        QCOMPARE(errorCodeOf(*answer), QStringLiteral("protocol.frame_too_large"));
        QVERIFY(answer->value(str("id")).isNull());
        QVERIFY(raw.waitForDisconnect());
        QVERIFY_RESULT(callOn(*bystander, "echo"));
        QVERIFY(bystander->isConnected());
    }

    void halfAFrameThenDisconnectIsCleanedUp()
    {
        const int before = m_server.clientCount();
        QSignalSpy gone(&m_server, &ControlServer::clientDisconnected);
        {
            RawClient raw(socketPath());
            raw.send(request(1, "echo"));
            QVERIFY(raw.nextFrame());
            QCOMPARE(m_server.clientCount(), before + 1);
            raw.sendBytes(QByteArray(lengthHeader(1000) + QByteArray(10, '{')));
            QTest::qWait(50);
            raw.disconnect();
        }
        QTRY_COMPARE(m_server.clientCount(), before);
        QCOMPARE(gone.count(), 1);
        verifyServerStillServes();
    }

    void clientDisconnectsWithAnswersPending()
    {
        const int before = m_server.clientCount();
        {
            RawClient raw(socketPath());
            for (int i = 0; i < 50; ++i)
                raw.send(request(i, "slow", QJsonObject{{str("delay_ms"), 50}}));
            QVERIFY(QTest::qWaitFor([&] { return m_server.clientCount() == before + 1; }, 5000));
            QTest::qWait(20);
        }
        QTRY_COMPARE(m_server.clientCount(), before);
        QTest::qWait(100); // the slow answers fire into a connection that is gone
        verifyServerStillServes();
    }

    void clientSeesDisconnectWithPendingCalls()
    {
        ControlServer server;
        TestHandler handler;
        server.setHandler(&handler);
        const QString path = m_dir.filePath(QStringLiteral("run/short.sock"));
        QVERIFY_RESULT(server.listen(path));
        DaemonClient client;
        client.setSocketPath(path);
        QVERIFY_RESULT(client.connectSync(false, 5000));
        QSignalSpy disconnected(&client, &DaemonClient::disconnected);
        std::optional<Result<QJsonObject>> outcome;
        client.call(str("hold"), QJsonObject(),
                    [&](Result<QJsonObject> result) { outcome = std::move(result); });
        QVERIFY(QTest::qWaitFor([&] { return bool(handler.held); }, 5000));
        server.close();
        QVERIFY(disconnected.wait(5000));
        QVERIFY(QTest::qWaitFor([&] { return outcome.has_value(); }, 5000));
        QVERIFY(!*outcome);
        QCOMPARE(outcome->error().code(), "daemon.disconnected");
        QVERIFY(!client.isConnected());
        const Result<QJsonObject> afterwards = callOn(client, "echo");
        QVERIFY(!afterwards);
        QCOMPARE(afterwards.error().code(), "daemon.disconnected");
        QVERIFY(!QFile::exists(path));
    }

    void clientThatNeverReadsIsDisconnected()
    {
        // A raw fd that subscribes and then never reads: the server's queue for it must hit the cap.
        const int slow = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        QVERIFY(slow >= 0);
        sockaddr_un address = {};
        address.sun_family = AF_UNIX;
        const QByteArray path = QFile::encodeName(socketPath());
        std::copy(path.cbegin(), path.cend(), address.sun_path);
        QSignalSpy connected(&m_server, &ControlServer::clientConnected);
        QSignalSpy disconnected(&m_server, &ControlServer::clientDisconnected);
        QCOMPARE(::connect(slow, reinterpret_cast<const sockaddr *>(&address), sizeof address), 0);
        const QByteArray subscribe =
            encodeFrame(request(1, "subscribe", QJsonObject{{str("topics"), QJsonArray{str("runs")}}}));
        QCOMPARE(::send(slow, subscribe.constData(), size_t(subscribe.size()), MSG_NOSIGNAL),
                 ssize_t(subscribe.size()));
        QVERIFY(connected.wait(5000));
        const quint64 slowId = connected.first().first().toULongLong();
        // Wait for the subscribe answer without reading it: then the subscription is in place.
        QVERIFY(QTest::qWaitFor(
            [&] {
                pollfd pfd{slow, POLLIN, 0};
                return ::poll(&pfd, 1, 0) == 1;
            },
            5000));

        // A reader that keeps up gets every event; a client with another filter gets none and answers
        // quickly.
        auto reader = connectedClient(QStringLiteral("reader"));
        auto other = connectedClient(QStringLiteral("other"));
        QVERIFY(reader && other);
        QVERIFY_RESULT(callOn(*reader, "subscribe", QJsonObject{{str("topics"), QJsonArray{str("runs")}}}));
        QVERIFY_RESULT(callOn(
            *other, "subscribe",
            QJsonObject{{str("topics"), QJsonArray{str("runs")}}, {str("container"), str("elsewhere")}}));
        int readerEvents = 0;
        int otherEvents = 0;
        connect(reader.get(), &DaemonClient::eventReceived, this, [&] { ++readerEvents; });
        connect(other.get(), &DaemonClient::eventReceived, this, [&] { ++otherEvents; });

        const QJsonObject data{{str("container"), str("c1")},
                               {str("data"), QString(64 * 1024, QLatin1Char('z'))}};
        const qint64 eventBytes = encodeFrame(makeEvent(str("run.output"), data)).size();
        const int events = int((100LL << 20) / eventBytes);
        qint64 publishedWhenDropped = -1;
        for (int i = 0; i < events; ++i) {
            m_server.publish(str("runs"), str("c1"), str("run.output"), data);
            if (publishedWhenDropped < 0) {
                for (const QList<QVariant> &signal : std::as_const(disconnected)) {
                    if (signal.first().toULongLong() == slowId)
                        publishedWhenDropped = (i + 1) * eventBytes;
                }
            }
            // Paced so the reader (in this same thread) keeps up: it must not be the one that hits the cap.
            if (i % 16 == 15)
                QVERIFY(spinUntil([&] { return readerEvents >= i + 1 - 64; }, 10000));
        }
        QVERIFY2(publishedWhenDropped > 0, "the client that never reads was not disconnected");
        // Dropped at the cap, not before (kernel socket buffers absorb a little more than the cap itself).
        QVERIFY2(publishedWhenDropped >= ControlServer::MaxQueuedBytes &&
                     publishedWhenDropped <= ControlServer::MaxQueuedBytes + (8LL << 20),
                 qPrintable(QStringLiteral("dropped after %1 bytes").arg(publishedWhenDropped)));

        QElapsedTimer clock;
        clock.start();
        QVERIFY_RESULT(callOn(*other, "echo"));
        QVERIFY2(clock.elapsed() < 2000, qPrintable(QStringLiteral("echo took %1 ms").arg(clock.elapsed())));
        QVERIFY(spinUntil([&] { return readerEvents == events; }, 30000));
        QVERIFY_RESULT(callOn(*reader, "echo"));
        QCOMPARE(readerEvents, events);
        QCOMPARE(otherEvents, 0);

        // The slow client sees its connection end after what was in the kernel buffer.
        char buffer[65536];
        ssize_t n = 0;
        qint64 received = 0;
        while ((n = ::recv(slow, buffer, sizeof buffer, MSG_DONTWAIT)) > 0)
            received += n;
        QCOMPARE(n, ssize_t(0));
        QVERIFY(received < ControlServer::MaxQueuedBytes);
        ::close(slow);
    }

    // One process (or a few) must not shut out the workbench or the CLI: when every slot is taken, a new
    // client takes the slot that the process holding the most connections used longest ago, unless it waits
    // for an answer there; only when every connection waits for one is the newcomer refused, with a clear
    // error.
    void connectionLimitMakesRoomUnlessEveryoneWaits()
    {
        ControlServer server;
        TestHandler handler;
        server.setHandler(&handler);
        server.setMaxClients(2);
        const QString path = m_dir.filePath(QStringLiteral("run/limited.sock"));
        QVERIFY_RESULT(server.listen(path));
        RawClient first(path), second(path);
        for (RawClient *client : {&first, &second}) {
            client->send(request(1, "hello", QJsonObject{{str("protocol"), 1}}));
            QVERIFY(client->nextFrame());
        }
        first.send(request(2, "hold", {}));
        second.send(request(2, "hold_more", {}));
        QTRY_VERIFY(handler.held && handler.heldMore.size() == 1);
        QCOMPARE(server.clientCount(), 2);

        RawClient third(path);
        const std::optional<QJsonObject> refusal = third.nextFrame();
        QVERIFY(refusal);
        QCOMPARE(errorCodeOf(*refusal), QStringLiteral("daemon.too_many_clients"));
        QVERIFY(third.waitForDisconnect());

        // Its answer sent, the second connection is idle: a newcomer takes its slot.
        handler.heldMore.takeFirst()(QJsonObject{});
        QVERIFY(second.nextFrame());
        DaemonClient client;
        client.setSocketPath(path);
        QVERIFY_RESULT(client.connectSync(false, 5000));
        const std::optional<QJsonObject> goodbye = second.nextFrame();
        QVERIFY(goodbye);
        QCOMPARE(errorCodeOf(*goodbye), QStringLiteral("daemon.too_many_clients"));
        QVERIFY(second.waitForDisconnect());
        QVERIFY(first.isConnected());
        handler.held(QJsonObject{});
        QVERIFY(first.nextFrame());
    }

    // Connections that never say hello cannot lock others out: each is closed after the hello timeout, and
    // while they hold every slot, a new client takes the slot of the oldest silent one at once.
    void silentConnectionsMakeRoom()
    {
        ControlServer server;
        TestHandler handler;
        server.setHandler(&handler);
        server.setMaxClients(3);
        server.setHelloTimeout(60000);
        const QString path = m_dir.filePath(QStringLiteral("run/silent.sock"));
        QVERIFY_RESULT(server.listen(path));
        RawClient greeted(path);
        greeted.send(request(1, "hello", QJsonObject{{str("protocol"), 1}}));
        QVERIFY(greeted.nextFrame());
        RawClient oldestSilent(path);
        QTRY_COMPARE(server.clientCount(), 2);
        RawClient youngerSilent(path);
        QTRY_COMPARE(server.clientCount(), 3);

        // Full: the newcomer is served, the oldest silent connection is told why it goes.
        DaemonClient client;
        client.setSocketPath(path);
        QVERIFY_RESULT(client.connectSync(false, 5000));
        const std::optional<QJsonObject> goodbye = oldestSilent.nextFrame();
        QVERIFY(goodbye);
        QCOMPARE(errorCodeOf(*goodbye), QStringLiteral("daemon.hello_timeout"));
        QVERIFY(oldestSilent.waitForDisconnect());
        QVERIFY(youngerSilent.isConnected());

        // Full again, with every client greeted: the newcomer still gets a slot, the one used longest ago.
        RawClient another(path);
        const std::optional<QJsonObject> evicted = youngerSilent.nextFrame();
        QVERIFY(evicted);
        QCOMPARE(errorCodeOf(*evicted), QStringLiteral("daemon.hello_timeout"));
        another.send(request(1, "hello", QJsonObject{{str("protocol"), 1}}));
        QVERIFY(another.nextFrame());
        RawClient newcomer(path);
        const std::optional<QJsonObject> madeRoom = greeted.nextFrame();
        QVERIFY(madeRoom);
        QCOMPARE(errorCodeOf(*madeRoom), QStringLiteral("daemon.too_many_clients"));
        newcomer.send(request(1, "hello", QJsonObject{{str("protocol"), 1}}));
        QVERIFY(newcomer.nextFrame());
        QVERIFY(another.isConnected());
    }

    // A client that said hello and then holds its slot for nothing is closed after the idle timeout; one
    // that subscribed, or waits for an answer, is not idle however long it says nothing.
    void idleConnectionsAreClosedAfterTheIdleTimeout()
    {
        ControlServer server;
        TestHandler handler;
        server.setHandler(&handler);
        server.setIdleTimeout(300);
        const QString path = m_dir.filePath(QStringLiteral("run/idle.sock"));
        QVERIFY_RESULT(server.listen(path));
        RawClient idle(path), subscribed(path), waiting(path);
        for (RawClient *client : {&idle, &subscribed, &waiting}) {
            client->send(request(1, "hello", QJsonObject{{str("protocol"), 1}}));
            QVERIFY(client->nextFrame());
        }
        subscribed.send(request(2, "subscribe", QJsonObject{{str("topics"), QJsonArray{str("runs")}}}));
        QVERIFY(subscribed.nextFrame());
        waiting.send(request(2, "hold", {}));
        QTRY_VERIFY(handler.held);
        const std::optional<QJsonObject> goodbye = idle.nextFrame();
        QVERIFY(goodbye);
        QCOMPARE(errorCodeOf(*goodbye), QStringLiteral("daemon.idle_timeout"));
        QVERIFY(idle.waitForDisconnect());
        QTest::qWait(700);
        QVERIFY(subscribed.isConnected());
        QVERIFY(waiting.isConnected());
        // Answered, it is idle from the answer on, and then closed too.
        handler.held(QJsonObject{});
        QVERIFY(waiting.nextFrame());
        const std::optional<QJsonObject> later = waiting.nextFrame();
        QVERIFY(later);
        QCOMPARE(errorCodeOf(*later), QStringLiteral("daemon.idle_timeout"));
        QVERIFY(subscribed.isConnected());
    }

    void silentConnectionsAreClosedAfterTheHelloTimeout()
    {
        ControlServer server;
        server.setHelloTimeout(300);
        const QString path = m_dir.filePath(QStringLiteral("run/timeout.sock"));
        QVERIFY_RESULT(server.listen(path));
        RawClient silent(path), greeted(path);
        greeted.send(request(1, "hello", QJsonObject{{str("protocol"), 1}}));
        QVERIFY(greeted.nextFrame());
        const std::optional<QJsonObject> goodbye = silent.nextFrame();
        QVERIFY(goodbye);
        QCOMPARE(errorCodeOf(*goodbye), QStringLiteral("daemon.hello_timeout"));
        QVERIFY(silent.waitForDisconnect());
        QTest::qWait(500);
        QVERIFY(greeted.isConnected());
        QCOMPARE(server.clientCount(), 1);
    }

    void listenReplacesOnlyStaleSockets()
    {
        const QString stalePath = m_dir.filePath(QStringLiteral("run/stale.sock"));
        {
            // A socket file whose listener is gone, as a crashed daemon leaves it.
            const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
            sockaddr_un address = {};
            address.sun_family = AF_UNIX;
            const QByteArray encoded = QFile::encodeName(stalePath);
            std::copy(encoded.cbegin(), encoded.cend(), address.sun_path);
            QCOMPARE(::bind(fd, reinterpret_cast<const sockaddr *>(&address), sizeof address), 0);
            ::close(fd);
        }
        QVERIFY(S_ISSOCK(modeOf(stalePath)));
        ControlServer replacement;
        QVERIFY_RESULT(replacement.listen(stalePath));
        RawClient raw(stalePath);
        raw.send(request(1, "hello", QJsonObject{{str("protocol"), 1}}));
        QVERIFY(raw.nextFrame());

        // A live daemon is never displaced.
        ControlServer intruder;
        const Result<> displaced = intruder.listen(socketPath());
        QVERIFY(!displaced);
        QCOMPARE(displaced.error().code(), "daemon.already_running");
        verifyServerStillServes();

        // Something that is not a socket is left alone.
        const QString filePath = m_dir.filePath(QStringLiteral("run/not-a-socket"));
        QFile file(filePath);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("keep me");
        file.close();
        const Result<> onFile = intruder.listen(filePath);
        QVERIFY(!onFile);
        QCOMPARE(onFile.error().code(), "daemon.listen");
        QVERIFY(S_ISREG(modeOf(filePath)));

        replacement.close();
        QVERIFY(!QFile::exists(stalePath));
    }

    void secondInstanceLockFails()
    {
        auto first = InstanceLock::acquire();
        QVERIFY_RESULT(first);
        QCOMPARE(first->path(), socketPath() + QStringLiteral(".lock"));
        QFile lockFile(first->path());
        QVERIFY(lockFile.open(QIODevice::ReadOnly));
        QCOMPARE(lockFile.readAll().trimmed(), QByteArray::number(::getpid()));

        const auto second = InstanceLock::acquire();
        QVERIFY(!second);
        QCOMPARE(second.error().code(), "daemon.already_running");
        QVERIFY2(toQt(second.error().message()).contains(QStringLiteral("pid %1").arg(::getpid())),
                 second.error().message().c_str());

        // Moving keeps the lock held; destroying releases it.
        InstanceLock moved = std::move(*first);
        QVERIFY(!InstanceLock::acquire());
        {
            InstanceLock released = std::move(moved);
        }
        QVERIFY_RESULT(InstanceLock::acquire());
    }

    void socketDirectoryChoice()
    {
        QTemporaryDir base;
        QVERIFY(base.isValid());
        const QString runtime = base.filePath(QStringLiteral("runtime"));
        QVERIFY(QDir().mkpath(runtime));
        QVERIFY(QFile::setPermissions(runtime, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner));
        const QString state = base.filePath(QStringLiteral("state"));
        const QString home = base.filePath(QStringLiteral("home"));

        ScopedEnv noOverride("CORDON_SOCKET", QString());
        ScopedEnv runtimeEnv("XDG_RUNTIME_DIR", runtime);
        ScopedEnv stateEnv("XDG_STATE_HOME", state);
        ScopedEnv homeEnv("HOME", home);
        QCOMPARE(socketDirectory(), runtime + QStringLiteral("/cordon"));
        QCOMPARE(socketPath(), runtime + QStringLiteral("/cordon/cordond.sock"));

        // A runtime dir others can write to is no protection: fall back to the state dir.
        QCOMPARE(::chmod(QFile::encodeName(runtime).constData(), 0777), 0);
        QCOMPARE(socketDirectory(), state + QStringLiteral("/cordon"));
        {
            ScopedEnv missingRuntime("XDG_RUNTIME_DIR", base.filePath(QStringLiteral("missing")));
            ScopedEnv relativeState("XDG_STATE_HOME", QStringLiteral("relative/state"));
            QCOMPARE(socketDirectory(), home + QStringLiteral("/.local/state/cordon"));
            // Parents are created as needed.
            QVERIFY_RESULT(ensureSocketDirectory());
            QCOMPARE(modeOf(home + QStringLiteral("/.local/state/cordon")) & 07777, mode_t(0700));
        }
    }

    void ensureSocketDirectoryChecksWhatItUses()
    {
        QTemporaryDir base;
        QVERIFY(base.isValid());

        // Our own directory with a loose mode is narrowed.
        const QString loose = base.filePath(QStringLiteral("loose"));
        QCOMPARE(::mkdir(QFile::encodeName(loose).constData(), 0777), 0);
        QCOMPARE(::chmod(QFile::encodeName(loose).constData(), 0777), 0);
        {
            ScopedEnv env("CORDON_SOCKET", loose + QStringLiteral("/cordond.sock"));
            QVERIFY_RESULT(ensureSocketDirectory());
        }
        QCOMPARE(modeOf(loose) & 07777, mode_t(0700));

        // A shared directory like /tmp is refused and left as it is, even when we own it (root owns /tmp).
        const QString shared = base.filePath(QStringLiteral("shared"));
        QCOMPARE(::mkdir(QFile::encodeName(shared).constData(), 0700), 0);
        QCOMPARE(::chmod(QFile::encodeName(shared).constData(), 01777), 0);
        {
            ScopedEnv env("CORDON_SOCKET", shared + QStringLiteral("/cordond.sock"));
            const Result<> refused = ensureSocketDirectory();
            QVERIFY(!refused);
            QVERIFY2(
                toQt(refused.error().message()).contains(QStringLiteral("shared directory (sticky bit)")),
                refused.error().message().c_str());
        }
        QCOMPARE(modeOf(shared) & 07777, mode_t(01777));

        // A symlink is refused, and what it points to is left untouched.
        const QString target = base.filePath(QStringLiteral("target"));
        QCOMPARE(::mkdir(QFile::encodeName(target).constData(), 0755), 0);
        const QString link = base.filePath(QStringLiteral("link"));
        QVERIFY(QFile::link(target, link));
        {
            ScopedEnv env("CORDON_SOCKET", link + QStringLiteral("/cordond.sock"));
            const Result<> refused = ensureSocketDirectory();
            QVERIFY(!refused);
            QCOMPARE(refused.error().code(), "daemon.socket_dir");
            QVERIFY(toQt(refused.error().message()).contains(QStringLiteral("symlink")));
        }
        QCOMPARE(modeOf(target) & 07777, mode_t(0755));

        if (::getuid() != 0)
            QSKIP("a directory owned by another user can only be made as root");
        const QString foreign = base.filePath(QStringLiteral("foreign"));
        QCOMPARE(::mkdir(QFile::encodeName(foreign).constData(), 0700), 0);
        QCOMPARE(::chown(QFile::encodeName(foreign).constData(), 65534, 65534), 0);
        ScopedEnv env("CORDON_SOCKET", foreign + QStringLiteral("/cordond.sock"));
        const Result<> refused = ensureSocketDirectory();
        QVERIFY(!refused);
        QCOMPARE(refused.error().code(), "daemon.socket_dir");
        QVERIFY(toQt(refused.error().message()).contains(QStringLiteral("uid 65534")));
    }

    void noAutoStartToADeadSocketIsUnreachable_data()
    {
        QTest::addColumn<bool>("staleFile");
        QTest::newRow("no socket file") << false;
        QTest::newRow("stale socket file") << true;
    }

    void noAutoStartToADeadSocketIsUnreachable()
    {
        QFETCH(bool, staleFile);
        const QString path = m_dir.filePath(QStringLiteral("run/dead.sock"));
        QFile::remove(path);
        if (staleFile) {
            const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
            sockaddr_un address = {};
            address.sun_family = AF_UNIX;
            const QByteArray encoded = QFile::encodeName(path);
            std::copy(encoded.cbegin(), encoded.cend(), address.sun_path);
            QCOMPARE(::bind(fd, reinterpret_cast<const sockaddr *>(&address), sizeof address), 0);
            ::close(fd);
        }
        DaemonClient client;
        client.setSocketPath(path);
        QSignalSpy failed(&client, &DaemonClient::connectionFailed);
        const Result<> connected = client.connectSync(false, 5000);
        QVERIFY(!connected);
        QCOMPARE(connected.error().code(), "daemon.unreachable");
        QVERIFY2(toQt(connected.error().message()).contains(path), connected.error().message().c_str());
        QCOMPARE(failed.count(), 1);
        QVERIFY(!client.isConnected());
        QFile::remove(path);
    }

    void autoStartStartsTheDaemon()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        ScopedEnv socket("CORDON_SOCKET", dir.filePath(QStringLiteral("auto/cordond.sock")));
        ScopedEnv daemon("CORDON_DAEMON", QCoreApplication::applicationFilePath());
        ScopedEnv fake(FakeDaemonVariable, QStringLiteral("1"));
        QCOMPARE(DaemonClient::daemonProgram(), QCoreApplication::applicationFilePath());

        DaemonClient client;
        QVERIFY_RESULT(client.connectSync(true, 10000));
        const qint64 daemonPid = client.helloResult().value(str("pid")).toInteger();
        QVERIFY(daemonPid > 0 && daemonPid != ::getpid());
        QCOMPARE(modeOf(dir.filePath(QStringLiteral("auto"))) & 07777, mode_t(0700));

        // A second client finds the running daemon instead of starting another.
        DaemonClient second;
        QVERIFY_RESULT(second.connectSync(true, 10000));
        QCOMPARE(second.helloResult().value(str("pid")).toInteger(), daemonPid);

        QSignalSpy disconnected(&client, &DaemonClient::disconnected);
        QVERIFY_RESULT(client.callSync(str("daemon.shutdown"), QJsonObject(), 5000));
        QVERIFY(disconnected.wait(5000));
        QTRY_VERIFY(::kill(pid_t(daemonPid), 0) != 0);
    }

    void autoStartFailuresAreReported()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        ScopedEnv socket("CORDON_SOCKET", dir.filePath(QStringLiteral("cordond.sock")));
        {
            ScopedEnv daemon("CORDON_DAEMON", dir.filePath(QStringLiteral("no-such-cordond")));
            DaemonClient client;
            const Result<> connected = client.connectSync(true, 10000);
            QVERIFY(!connected);
            QCOMPARE(connected.error().code(), "daemon.start_failed");
            QVERIFY2(toQt(connected.error().message()).contains(QStringLiteral("no-such-cordond")),
                     connected.error().message().c_str());
        }
        {
            // Starts and exits without ever listening: the client says so as soon as it has gone, instead of
            // waiting out its start window.
            ScopedEnv daemon("CORDON_DAEMON", QStringLiteral("/bin/true"));
            DaemonClient client;
            const Result<> connected = client.connectSync(true, 20000);
            QVERIFY(!connected);
            QCOMPARE(connected.error().code(), "daemon.start_failed");
            QVERIFY2(toQt(connected.error().message()).contains(QStringLiteral("but it exited")),
                     connected.error().message().c_str());
        }
        {
            // connectSync's own deadline is shorter than the start window: a "daemon" that neither listens
            // nor exits (for a few seconds).
            const QString silent = dir.filePath(QStringLiteral("silent-cordond"));
            QFile script(silent);
            QVERIFY(script.open(QIODevice::WriteOnly));
            script.write("#!/bin/sh\nexec sleep 3\n");
            script.close();
            QVERIFY(script.setPermissions(QFileDevice::ReadOwner | QFileDevice::ExeOwner));
            ScopedEnv daemon("CORDON_DAEMON", silent);
            DaemonClient client;
            const Result<> connected = client.connectSync(true, 300);
            QVERIFY(!connected);
            QCOMPARE(connected.error().code(), "daemon.timeout");
            // The abandoned attempt stays silent: no retries, no late signals.
            QSignalSpy late(&client, &DaemonClient::connectionFailed);
            QSignalSpy lateSuccess(&client, &DaemonClient::connected);
            QTest::qWait(1000);
            QCOMPARE(late.count(), 0);
            QCOMPARE(lateSuccess.count(), 0);
            QVERIFY(!client.isConnected());
        }
    }

    void otherUidsAreRefusedWithoutAnAnswer()
    {
        if (::getuid() != 0)
            QSKIP("needs root to connect as another uid");
        // The directory and the socket are opened up on purpose, so that only the SO_PEERCRED check stands
        // between the other user and the daemon.
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QCOMPARE(::chmod(QFile::encodeName(dir.path()).constData(), 0755), 0);
        const QString path = dir.filePath(QStringLiteral("open.sock"));
        ControlServer server;
        server.setHandler(&m_handler);
        QVERIFY_RESULT(server.listen(path));
        QCOMPARE(::chmod(QFile::encodeName(path).constData(), 0666), 0);
        QSignalSpy connected(&server, &ControlServer::clientConnected);

        sockaddr_un address = {};
        address.sun_family = AF_UNIX;
        const QByteArray encoded = QFile::encodeName(path);
        std::copy(encoded.cbegin(), encoded.cend(), address.sun_path);
        const QByteArray hello = encodeFrame(request(1, "hello", QJsonObject{{str("protocol"), 1}}));

        const pid_t child = ::fork();
        QVERIFY(child >= 0);
        if (child == 0) {
            // Only system calls from here: the parent is multithreaded.
            ::alarm(10);
            if (::setgroups(0, nullptr) != 0 || ::setgid(65534) != 0 || ::setuid(65534) != 0)
                ::_exit(10);
            const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
            if (fd < 0)
                ::_exit(11);
            if (::connect(fd, reinterpret_cast<const sockaddr *>(&address), sizeof address) != 0)
                ::_exit(12);
            (void)::send(fd, hello.constData(), size_t(hello.size()), MSG_NOSIGNAL);
            char byte;
            const ssize_t n = ::recv(fd, &byte, 1, 0);
            // Closed with our hello unread, the kernel reports a reset rather than an orderly end.
            ::_exit(n == 0 || (n < 0 && errno == ECONNRESET) ? ClosedSilently : n > 0 ? 13 : 14);
        }
        int status = 0;
        QVERIFY(QTest::qWaitFor([&] { return ::waitpid(child, &status, WNOHANG) == child; }, 15000));
        QVERIFY2(WIFEXITED(status) && WEXITSTATUS(status) == ClosedSilently,
                 qPrintable(QStringLiteral("child status %1").arg(status)));
        QCOMPARE(connected.count(), 0);
        QCOMPARE(server.clientCount(), 0);

        // The same socket still serves its own user.
        RawClient raw(path);
        raw.send(request(2, "echo"));
        QVERIFY(raw.nextFrame());
    }
};

int main(int argc, char **argv)
{
    if (qEnvironmentVariableIsSet(FakeDaemonVariable))
        return runFakeDaemon(argc, argv);
    QCoreApplication app(argc, argv);
    TestControlServer test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_controlserver.moc"
