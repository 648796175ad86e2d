// SPDX-License-Identifier: MIT
// cordond against real sandboxes, through the protocol: long-lived containers, streaming, stdin, limits,
// memory sampling, idle expiry under a time scale, expiry and recovery across restarts and crashes.
#include "cliprocess.h"
#include "core/plainbridge.h"
#include "daemonfixture.h"
#include "hostprocesses.h"
#include "sandbox/workspace.h"
#include "sandboxtest.h"
#include "store/historystore.h"
#include "testutil.h"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLocalSocket>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>

#include <algorithm>

#include <csignal>
#include <sys/stat.h>
#include <unistd.h>

using namespace CordonTest;

namespace {

QJsonObject policyJson(int idleMinutes = 20, const QString &memory = QStringLiteral("1g"))
{
    return {{QStringLiteral("memory_limit"), memory},
            {QStringLiteral("expires_after"),
             QJsonObject{{QStringLiteral("anchor"), QStringLiteral("last_active_at")},
                         {QStringLiteral("minutes"), idleMinutes}}}};
}

} // namespace

class TestDaemon final : public QObject
{
    Q_OBJECT

private:
    DaemonFixture m_daemon;

    QString create(int idleMinutes = 20, const QString &memory = QStringLiteral("1g"), bool demo = false)
    {
        QJsonObject params{{QStringLiteral("policy"), policyJson(idleMinutes, memory)}};
        if (demo)
            params.insert(QStringLiteral("demo"), true);
        auto created = m_daemon.call(QStringLiteral("container.create"), params);
        if (!created) {
            qWarning() << Cordon::toQt(created.error().message());
            return {};
        }
        return created->value(QStringLiteral("container")).toObject().value(QStringLiteral("id")).toString();
    }

    // Executes and waits; returns the finished run object.
    QJsonObject execAndWait(const QString &container, const QJsonObject &extra)
    {
        QJsonObject params = extra;
        params.insert(QStringLiteral("container"), container);
        auto started = m_daemon.call(QStringLiteral("run.exec"), params);
        if (!started) {
            qWarning() << Cordon::toQt(started.error().code()) << Cordon::toQt(started.error().message());
            return {};
        }
        const QString runId =
            started->value(QStringLiteral("run")).toObject().value(QStringLiteral("id")).toString();
        auto finished = m_daemon.call(QStringLiteral("run.wait"), {{QStringLiteral("run_id"), runId}});
        return finished ? finished->value(QStringLiteral("run")).toObject() : QJsonObject{};
    }

    QJsonObject sh(const QString &container, const QString &script)
    {
        return execAndWait(container,
                           {{QStringLiteral("command"),
                             QJsonArray{QStringLiteral("/bin/sh"), QStringLiteral("-c"), script}}});
    }

    qint64 eventCount(const QString &container, const QString &kind)
    {
        auto events =
            m_daemon.call(QStringLiteral("history.events"),
                          {{QStringLiteral("container"), container}, {QStringLiteral("kind"), kind}});
        return events ? events->value(QStringLiteral("total")).toInteger() : -1;
    }

    // The container's wire form, or an object with only `error` (its code) when it cannot be read.
    QJsonObject container(const QString &id)
    {
        auto got = m_daemon.call(QStringLiteral("container.get"), {{QStringLiteral("id"), id}});
        return got ? got->value(QStringLiteral("container")).toObject()
                   : QJsonObject{{QStringLiteral("error"), Cordon::toQt(got.error().code())}};
    }

    QString state(const QString &id)
    {
        const QJsonObject got = container(id);
        return got.contains(QStringLiteral("error")) ? got.value(QStringLiteral("error")).toString()
                                                     : got.value(QStringLiteral("state")).toString();
    }

    // The container's idle deadline (ms since the epoch), or 0 when it cannot be read.
    qint64 expiresAt(const QString &id)
    {
        return container(id).value(QStringLiteral("expires_at")).toInteger();
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_daemon.start({QStringLiteral("--max-containers"), QStringLiteral("6"),
                                QStringLiteral("--max-runs"), QStringLiteral("64")}));
    }
    void cleanupTestCase() { QVERIFY(m_daemon.stop()); }

    // Runs first, while the daemon has served nothing. The keyring's libsecret (with GLib's object system and
    // libgcrypt), libarchive, libcrypto and the TLS stack behind the host's trust store are loaded at first
    // use: mapped at start, they made a fresh daemon 10 MiB larger (docs/benchmarks.md).
    void aFreshDaemonMapsNoLibraryItHasNotUsed()
    {
        QFile maps(QStringLiteral("/proc/%1/maps").arg(m_daemon.pid()));
        QVERIFY2(maps.open(QIODevice::ReadOnly), qPrintable(maps.errorString()));
        const QByteArray mapped = maps.readAll();
        QVERIFY(mapped.contains("libQt6Core")); // the right process, readable
        for (const char *library : {"libsecret-1.so", "libgobject-2.0.so", "libgio-2.0.so", "libgcrypt.so",
                                    "libarchive.so", "libcrypto.so", "libssl.so", "libqopensslbackend"})
            QVERIFY2(!mapped.contains(library), library);
    }

    // A failed test must not leave containers that count against the next test's limits.
    void cleanup()
    {
        auto listed = m_daemon.call(QStringLiteral("container.list"));
        if (!listed)
            return;
        for (const QJsonValue &container : listed->value(QStringLiteral("containers")).toArray())
            m_daemon.call(
                QStringLiteral("container.delete"),
                {{QStringLiteral("id"), container.toObject().value(QStringLiteral("id")).toString()}});
    }

    void filesAndProcessesPersistBetweenRuns()
    {
        const QString id = create();
        QVERIFY(!id.isEmpty());
        QCOMPARE(sh(id, QStringLiteral("echo kept > /mnt/data/note.txt; sleep 300 & echo started"))
                     .value(QStringLiteral("stdout"))
                     .toString(),
                 QStringLiteral("started\n"));
        const QJsonObject second = sh(
            id, QStringLiteral(
                    "cat /mnt/data/note.txt; for p in /proc/[0-9]*; do cat $p/comm; done | grep -c sleep"));
        QCOMPARE(second.value(QStringLiteral("stdout")).toString(), QStringLiteral("kept\n1\n"));

        // Stopping ends the processes and keeps the files.
        QVERIFY_RESULT(m_daemon.call(QStringLiteral("container.stop"), {{QStringLiteral("id"), id}}));
        QCOMPARE(state(id), QStringLiteral("stopped"));
        QVERIFY_RESULT(m_daemon.call(QStringLiteral("container.start"), {{QStringLiteral("id"), id}}));
        const QJsonObject third = sh(
            id, QStringLiteral(
                    "cat /mnt/data/note.txt; for p in /proc/[0-9]*; do cat $p/comm; done | grep -c sleep"));
        QCOMPARE(third.value(QStringLiteral("stdout")).toString(), QStringLiteral("kept\n0\n"));
        QVERIFY_RESULT(m_daemon.call(QStringLiteral("container.delete"), {{QStringLiteral("id"), id}}));
        QCOMPARE(state(id), QStringLiteral("deleted"));
        QVERIFY(!QFileInfo::exists(Cordon::toQt(Cordon::Containers::dataDirectory()) +
                                   QStringLiteral("/containers/") + id));
    }

    void codeRunsInEachLanguage()
    {
        const QString id = create();
        const QJsonObject python =
            execAndWait(id, {{QStringLiteral("language"), QStringLiteral("python")},
                             {QStringLiteral("code"), QStringLiteral("print(6 * 7)")}});
        QCOMPARE(python.value(QStringLiteral("stdout")).toString(), QStringLiteral("42\n"));
        QCOMPARE(python.value(QStringLiteral("language")).toString(), QStringLiteral("python"));
        QCOMPARE(python.value(QStringLiteral("code_sha256")).toString().size(), 64);
        const QJsonObject bash =
            execAndWait(id, {{QStringLiteral("language"), QStringLiteral("bash")},
                             {QStringLiteral("code"), QStringLiteral("echo $((6*7)); exit 4")}});
        QCOMPARE(bash.value(QStringLiteral("stdout")).toString(), QStringLiteral("42\n"));
        QCOMPARE(bash.value(QStringLiteral("exit_code")).toInt(), 4);
        QCOMPARE(bash.value(QStringLiteral("error_class")).toString(), QStringLiteral("nonzero_exit"));
        auto unknown =
            m_daemon.call(QStringLiteral("run.exec"), {{QStringLiteral("container"), id},
                                                       {QStringLiteral("language"), QStringLiteral("cobol")},
                                                       {QStringLiteral("code"), QStringLiteral("x")}});
        QVERIFY(!unknown);
        QCOMPARE(unknown.error().code(), "run.unknown_language");
        m_daemon.call(QStringLiteral("container.delete"), {{QStringLiteral("id"), id}});
    }

    void outputStreamsAsEvents()
    {
        const QString id = create();
        QSignalSpy events(m_daemon.client.get(), &Cordon::Daemon::DaemonClient::eventReceived);
        QVERIFY_RESULT(m_daemon.call(QStringLiteral("subscribe"),
                                     {{QStringLiteral("topics"), QJsonArray{QStringLiteral("runs")}},
                                      {QStringLiteral("container"), id}}));
        const QJsonObject run = execAndWait(
            id, {{QStringLiteral("language"), QStringLiteral("python")},
                 {QStringLiteral("code"),
                  QStringLiteral(
                      "import time\nfor i in range(3):\n    print(i, flush=True)\n    time.sleep(0.2)\n")}});
        QCOMPARE(run.value(QStringLiteral("stdout")).toString(), QStringLiteral("0\n1\n2\n"));
        QTRY_VERIFY(!events.isEmpty());
        QByteArray streamed;
        int outputEvents = 0;
        bool sawFinished = false;
        for (const QList<QVariant> &event : std::as_const(events)) {
            const QString name = event.at(0).toString();
            const QJsonObject data = event.at(1).toJsonObject();
            if (name == QLatin1String("run.output")) {
                ++outputEvents;
                streamed += QByteArray::fromBase64(data.value(QStringLiteral("data")).toString().toLatin1());
            }
            sawFinished |= name == QLatin1String("run.finished");
        }
        QVERIFY2(outputEvents >= 2,
                 qPrintable(QString::number(outputEvents))); // pieces, not one lump at the end
        QCOMPARE(streamed, QByteArray("0\n1\n2\n"));
        QTRY_VERIFY(sawFinished || events.size() > outputEvents);
        m_daemon.call(QStringLiteral("unsubscribe"));
        m_daemon.call(QStringLiteral("container.delete"), {{QStringLiteral("id"), id}});
    }

    void interactiveStdin()
    {
        const QString id = create();
        auto started = m_daemon.call(
            QStringLiteral("run.exec"),
            {{QStringLiteral("container"), id},
             {QStringLiteral("command"),
              QJsonArray{QStringLiteral("/usr/bin/tr"), QStringLiteral("a-z"), QStringLiteral("A-Z")}},
             {QStringLiteral("stdin_open"), true}});
        QVERIFY_RESULT(started);
        const QString runId =
            started->value(QStringLiteral("run")).toObject().value(QStringLiteral("id")).toString();
        QVERIFY_RESULT(
            m_daemon.call(QStringLiteral("run.stdin"),
                          {{QStringLiteral("run_id"), runId},
                           {QStringLiteral("data"), QString::fromLatin1(QByteArray("hello ").toBase64())}}));
        QVERIFY_RESULT(
            m_daemon.call(QStringLiteral("run.stdin"),
                          {{QStringLiteral("run_id"), runId},
                           {QStringLiteral("data"), QString::fromLatin1(QByteArray("there\n").toBase64())},
                           {QStringLiteral("eof"), true}}));
        auto finished = m_daemon.call(QStringLiteral("run.wait"), {{QStringLiteral("run_id"), runId}});
        QVERIFY_RESULT(finished);
        QCOMPARE(finished->value(QStringLiteral("run")).toObject().value(QStringLiteral("stdout")).toString(),
                 QStringLiteral("HELLO THERE\n"));
        m_daemon.call(QStringLiteral("container.delete"), {{QStringLiteral("id"), id}});
    }

    void idempotencyKeyRunsOnce()
    {
        const QString id = create();
        const QJsonObject params{
            {QStringLiteral("container"), id},
            {QStringLiteral("command"), QJsonArray{QStringLiteral("/bin/sh"), QStringLiteral("-c"),
                                                   QStringLiteral("echo x >> /mnt/data/count")}},
            {QStringLiteral("idempotency_key"), QStringLiteral("job-1")}};
        auto first = m_daemon.call(QStringLiteral("run.exec"), params);
        QVERIFY_RESULT(first);
        const QString runId =
            first->value(QStringLiteral("run")).toObject().value(QStringLiteral("id")).toString();
        QVERIFY_RESULT(m_daemon.call(QStringLiteral("run.wait"), {{QStringLiteral("run_id"), runId}}));
        auto second = m_daemon.call(QStringLiteral("run.exec"), params);
        QVERIFY_RESULT(second);
        QCOMPARE(second->value(QStringLiteral("run")).toObject().value(QStringLiteral("id")).toString(),
                 runId);
        QCOMPARE(sh(id, QStringLiteral("wc -l < /mnt/data/count")).value(QStringLiteral("stdout")).toString(),
                 QStringLiteral("1\n"));
        m_daemon.call(QStringLiteral("container.delete"), {{QStringLiteral("id"), id}});
    }

    void limitsGiveClearErrors()
    {
        QStringList ids;
        for (int i = 0; i < 6; ++i) {
            const QString id = create();
            if (id.isEmpty())
                break;
            ids.append(id);
        }
        QCOMPARE(ids.size(), 6);
        auto seventh =
            m_daemon.call(QStringLiteral("container.create"), {{QStringLiteral("policy"), policyJson()}});
        QVERIFY(!seventh);
        QCOMPARE(seventh.error().code(), "container.limit");
        for (const QString &id : std::as_const(ids))
            QVERIFY_RESULT(m_daemon.call(QStringLiteral("container.delete"), {{QStringLiteral("id"), id}}));

        auto missing =
            m_daemon.call(QStringLiteral("container.get"), {{QStringLiteral("id"), QStringLiteral("nope")}});
        QVERIFY(!missing);
        QCOMPARE(missing.error().code(), "container.not_found");
        auto badParams = m_daemon.call(QStringLiteral("run.exec"), {{QStringLiteral("container"), 42}});
        QVERIFY(!badParams);
        QCOMPARE(badParams.error().code(), "protocol.invalid_params");
        auto badPolicy =
            m_daemon.call(QStringLiteral("container.create"),
                          {{QStringLiteral("policy"),
                            QJsonObject{{QStringLiteral("memory_limit"), QStringLiteral("3g")}}}});
        QVERIFY(!badPolicy);
        QVERIFY(Cordon::toQt(badPolicy.error().code()).startsWith(QLatin1String("policy.")));
        auto unknown = m_daemon.call(QStringLiteral("container.explode"));
        QVERIFY(!unknown);
        QCOMPARE(unknown.error().code(), "protocol.unknown_method");
    }

    void memoryIsSampledAndOomIsReported()
    {
        const QString id = create(20, QStringLiteral("134217728"));
        QSignalSpy events(m_daemon.client.get(), &Cordon::Daemon::DaemonClient::eventReceived);
        QVERIFY_RESULT(m_daemon.call(QStringLiteral("subscribe"),
                                     {{QStringLiteral("topics"), QJsonArray{QStringLiteral("memory")}},
                                      {QStringLiteral("container"), id}}));
        QTRY_VERIFY_WITH_TIMEOUT(!events.isEmpty(), 5000);
        const QJsonObject sample = events.first().at(1).toJsonObject();
        QCOMPARE(events.first().at(0).toString(), QStringLiteral("memory.sample"));
        QCOMPARE(sample.value(QStringLiteral("container")).toString(), id);
        QCOMPARE(sample.value(QStringLiteral("limit")).toInteger(), 134217728);
        QVERIFY(sample.value(QStringLiteral("current")).toInteger() > 0);

        auto started = m_daemon.call(
            QStringLiteral("run.exec"),
            {{QStringLiteral("container"), id},
             {QStringLiteral("command"), QJsonArray{QStringLiteral("sleep"), QStringLiteral("30")}}});
        QVERIFY_RESULT(started);
        QTRY_VERIFY_WITH_TIMEOUT(
            [&] {
                auto processes =
                    m_daemon.call(QStringLiteral("memory.processes"), {{QStringLiteral("container"), id}});
                if (!processes)
                    return false;
                for (const QJsonValue &process : processes->value(QStringLiteral("processes")).toArray()) {
                    if (process.toObject().value(QStringLiteral("command")).toString() ==
                        QLatin1String("sleep"))
                        return process.toObject().value(QStringLiteral("rss_bytes")).toInteger() > 0;
                }
                return false;
            }(),
            5000);
        m_daemon.call(
            QStringLiteral("run.cancel"),
            {{QStringLiteral("run_id"),
              started->value(QStringLiteral("run")).toObject().value(QStringLiteral("id")).toString()}});

        const QJsonObject bomb = execAndWait(
            id,
            {{QStringLiteral("language"), QStringLiteral("python")},
             {QStringLiteral("code"), QStringLiteral("b = []\nwhile True: b.append(bytearray(16 << 20))")}});
        QCOMPARE(bomb.value(QStringLiteral("error_class")).toString(), QStringLiteral("oom"));
        // The container survives its run's OOM kill and keeps working.
        QCOMPARE(sh(id, QStringLiteral("echo still here")).value(QStringLiteral("stdout")).toString(),
                 QStringLiteral("still here\n"));
        m_daemon.call(QStringLiteral("unsubscribe"));
        m_daemon.call(QStringLiteral("container.delete"), {{QStringLiteral("id"), id}});
    }

    void parallelRunsInSeveralContainers()
    {
        QStringList ids;
        for (int i = 0; i < 3; ++i)
            ids.append(create());
        QStringList runIds;
        for (const QString &id : std::as_const(ids)) {
            for (int i = 0; i < 2; ++i) {
                auto started =
                    m_daemon.call(QStringLiteral("run.exec"),
                                  {{QStringLiteral("container"), id},
                                   {QStringLiteral("command"),
                                    QJsonArray{QStringLiteral("/bin/sh"), QStringLiteral("-c"),
                                               QStringLiteral("sleep 1; echo %1-%2").arg(id).arg(i)}}});
                QVERIFY_RESULT(started);
                runIds.append(
                    started->value(QStringLiteral("run")).toObject().value(QStringLiteral("id")).toString());
            }
        }
        QElapsedTimer clock;
        clock.start();
        for (int i = 0; i < runIds.size(); ++i) {
            auto finished =
                m_daemon.call(QStringLiteral("run.wait"), {{QStringLiteral("run_id"), runIds[i]}});
            QVERIFY_RESULT(finished);
            const QJsonObject run = finished->value(QStringLiteral("run")).toObject();
            QCOMPARE(run.value(QStringLiteral("stdout")).toString(),
                     QStringLiteral("%1-%2\n").arg(ids[i / 2]).arg(i % 2));
        }
        QVERIFY2(clock.elapsed() < 4000,
                 qPrintable(QString::number(clock.elapsed()))); // six 1 s runs, in parallel
        for (const QString &id : std::as_const(ids))
            m_daemon.call(QStringLiteral("container.delete"), {{QStringLiteral("id"), id}});
    }

    // The most runs a container may hold all start when submitted back to back, faster than cordon-init forks
    // them (its control socket once refused the thirty-somethingth with EAGAIN); the next is refused as
    // run.limit.
    void theMostRunsAllowedStartAtOnce()
    {
        const QString id = create();
        QVERIFY(!id.isEmpty());
        QStringList runIds;
        for (int i = 0; i < 64; ++i) {
            auto started = m_daemon.call(QStringLiteral("run.exec"),
                                         {{QStringLiteral("container"), id},
                                          {QStringLiteral("command"),
                                           QJsonArray{QStringLiteral("/bin/sleep"), QStringLiteral("30")}}});
            QVERIFY2(started,
                     qPrintable(QStringLiteral("run %1: %2")
                                    .arg(i)
                                    .arg(started ? QString() : Cordon::toQt(started.error().message()))));
            runIds.append(
                started->value(QStringLiteral("run")).toObject().value(QStringLiteral("id")).toString());
        }
        auto refused = m_daemon.call(
            QStringLiteral("run.exec"),
            {{QStringLiteral("container"), id},
             {QStringLiteral("command"), QJsonArray{QStringLiteral("/bin/sleep"), QStringLiteral("30")}}});
        QVERIFY(!refused);
        QCOMPARE(refused.error().code(), "run.limit");
        for (const QString &runId : std::as_const(runIds))
            QVERIFY_RESULT(m_daemon.call(QStringLiteral("run.cancel"), {{QStringLiteral("run_id"), runId}}));
        for (const QString &runId : std::as_const(runIds)) {
            auto finished = m_daemon.call(QStringLiteral("run.wait"), {{QStringLiteral("run_id"), runId}});
            QVERIFY_RESULT(finished);
            QCOMPARE(
                finished->value(QStringLiteral("run")).toObject().value(QStringLiteral("state")).toString(),
                QStringLiteral("finished"));
        }
    }

    void hostileOutputsAreRefusedOnDownload()
    {
        const QString id = create();
        QTemporaryDir destination;
        sh(id, QStringLiteral("cd /mnt/data/outputs && echo ok > ok.txt && ln -s /etc/shadow s && mkfifo f"));
        auto copied = m_daemon.call(
            QStringLiteral("file.download"),
            {{QStringLiteral("container"), id}, {QStringLiteral("destination"), destination.path()}});
        QVERIFY_RESULT(copied);
        QCOMPARE(copied->value(QStringLiteral("copied")).toArray().size(), 1);
        QCOMPARE(copied->value(QStringLiteral("refused")).toArray().size(), 2);
        // The wire forms (docs/protocol.md): a copy says where it went, a refusal its code and reason.
        const QJsonObject okCopy = copied->value(QStringLiteral("copied")).toArray().first().toObject();
        QCOMPARE(okCopy.keys(), (QStringList{QStringLiteral("path"), QStringLiteral("saved_as"),
                                             QStringLiteral("sha256"), QStringLiteral("size")}));
        QCOMPARE(okCopy.value(QStringLiteral("saved_as")).toString(), QStringLiteral("ok.txt"));
        QCOMPARE(okCopy.value(QStringLiteral("size")).toInteger(), 3);
        QCOMPARE(copied->value(QStringLiteral("refused")).toArray().first().toObject().keys(),
                 (QStringList{QStringLiteral("code"), QStringLiteral("path"), QStringLiteral("reason")}));
        auto listed = m_daemon.call(QStringLiteral("file.list"), {{QStringLiteral("container"), id}});
        QVERIFY_RESULT(listed);
        QCOMPARE(listed->keys(), (QStringList{QStringLiteral("files"), QStringLiteral("refused"),
                                              QStringLiteral("truncated")}));
        QCOMPARE(listed->value(QStringLiteral("files"))
                     .toArray()
                     .first()
                     .toObject()
                     .value(QStringLiteral("scope")),
                 QJsonValue(QStringLiteral("outputs")));
        QVERIFY(QFileInfo::exists(destination.filePath(QStringLiteral("ok.txt"))));
        QVERIFY(!QFileInfo::exists(destination.filePath(QStringLiteral("s"))));
        auto traversal = m_daemon.call(QStringLiteral("file.upload"),
                                       {{QStringLiteral("container"), id},
                                        {QStringLiteral("name"), QStringLiteral("../x")},
                                        {QStringLiteral("content"), QStringLiteral("eA==")}});
        QVERIFY(!traversal);
        QCOMPARE(traversal.error().code(), "files.bad_name");
        auto uploaded = m_daemon.call(QStringLiteral("file.upload"),
                                      {{QStringLiteral("container"), id},
                                       {QStringLiteral("name"), QStringLiteral("in.txt")},
                                       {QStringLiteral("content"), QStringLiteral("aW5wdXQ=")}});
        QVERIFY_RESULT(uploaded);
        const QJsonObject file = uploaded->value(QStringLiteral("file")).toObject();
        QCOMPARE(file.value(QStringLiteral("path")).toString(), QStringLiteral("in.txt"));
        QCOMPARE(file.value(QStringLiteral("scope")).toString(), QStringLiteral("inputs"));
        QCOMPARE(file.value(QStringLiteral("size")).toInteger(), 5);
        QCOMPARE(file.value(QStringLiteral("sha256")).toString().size(), 64);
        QCOMPARE(
            sh(id, QStringLiteral("cat /mnt/data/inputs/in.txt")).value(QStringLiteral("stdout")).toString(),
            QStringLiteral("input"));
        const QJsonObject run = sh(id, QStringLiteral("true"));
        QCOMPARE(run.value(QStringLiteral("inputs")).toArray().size(), 1);
        m_daemon.call(QStringLiteral("container.delete"), {{QStringLiteral("id"), id}});

        // Uploads count against the workspace quota (workspace_mb).
        QJsonObject small = policyJson();
        small.insert(QStringLiteral("limits"), QJsonObject{{QStringLiteral("workspace_mb"), 1}});
        auto created = m_daemon.call(QStringLiteral("container.create"), {{QStringLiteral("policy"), small}});
        QVERIFY_RESULT(created);
        const QString tiny =
            created->value(QStringLiteral("container")).toObject().value(QStringLiteral("id")).toString();
        const QString chunk = QString::fromLatin1(QByteArray(700 * 1024, 'x').toBase64());
        QVERIFY_RESULT(
            m_daemon.call(QStringLiteral("file.upload"), {{QStringLiteral("container"), tiny},
                                                          {QStringLiteral("name"), QStringLiteral("a")},
                                                          {QStringLiteral("content"), chunk}}));
        auto over =
            m_daemon.call(QStringLiteral("file.upload"), {{QStringLiteral("container"), tiny},
                                                          {QStringLiteral("name"), QStringLiteral("b")},
                                                          {QStringLiteral("content"), chunk}});
        QVERIFY(!over);
        QCOMPARE(over.error().code(), "files.quota");
        m_daemon.call(QStringLiteral("container.delete"), {{QStringLiteral("id"), tiny}});
        m_daemon.call(QStringLiteral("container.delete"), {{QStringLiteral("id"), id}});
    }

    // The protocol is strict: parameters a method does not take, null values and NULs inside strings are
    // refused by name; ids nobody has seen answer not_found, never an empty success; and no error echoes
    // what it was sent without bound.
    void requestsAreReadStrictly_data()
    {
        QTest::addColumn<QString>("method");
        QTest::addColumn<QJsonObject>("params");
        QTest::addColumn<QString>("code");
        const QString unknown = QStringLiteral("00000000deadbeef");
        QTest::newRow("unknown parameter") << QStringLiteral("container.list")
                                           << QJsonObject{{QStringLiteral("include_deleted"), true},
                                                          {QStringLiteral("include_delted"), true}}
                                           << QStringLiteral("protocol.invalid_params");
        QTest::newRow("parameter to a method without any")
            << QStringLiteral("daemon.status") << QJsonObject{{QStringLiteral("verbose"), true}}
            << QStringLiteral("protocol.invalid_params");
        QTest::newRow("null value") << QStringLiteral("history.runs")
                                    << QJsonObject{{QStringLiteral("container"), QJsonValue()}}
                                    << QStringLiteral("protocol.invalid_params");
        QTest::newRow("NUL in a path")
            << QStringLiteral("file.download")
            << QJsonObject{{QStringLiteral("container"), unknown},
                           {QStringLiteral("path"),
                            QString(QStringLiteral("a.txt") + QChar(0) + QStringLiteral("x"))},
                           {QStringLiteral("destination"), QStringLiteral("/tmp")}}
            << QStringLiteral("protocol.invalid_params");
        QTest::newRow("NUL in an upload name")
            << QStringLiteral("file.upload")
            << QJsonObject{{QStringLiteral("container"), unknown},
                           {QStringLiteral("name"), QString(QStringLiteral("a") + QChar(0))},
                           {QStringLiteral("content"), QStringLiteral("eA==")}}
            << QStringLiteral("protocol.invalid_params");
        QTest::newRow("unknown container, history.runs")
            << QStringLiteral("history.runs") << QJsonObject{{QStringLiteral("container"), unknown}}
            << QStringLiteral("container.not_found");
        QTest::newRow("unknown container, history.events")
            << QStringLiteral("history.events") << QJsonObject{{QStringLiteral("container"), unknown}}
            << QStringLiteral("container.not_found");
        QTest::newRow("unknown run, history.events")
            << QStringLiteral("history.events") << QJsonObject{{QStringLiteral("run_id"), unknown}}
            << QStringLiteral("run.not_found");
        QTest::newRow("unknown container, network.summary")
            << QStringLiteral("network.summary") << QJsonObject{{QStringLiteral("container"), unknown}}
            << QStringLiteral("container.not_found");
        QTest::newRow("unknown run, run.stdin")
            << QStringLiteral("run.stdin")
            << QJsonObject{{QStringLiteral("run_id"), unknown}, {QStringLiteral("eof"), true}}
            << QStringLiteral("run.not_found");
        QTest::newRow("unknown run, run.wait")
            << QStringLiteral("run.wait") << QJsonObject{{QStringLiteral("run_id"), unknown}}
            << QStringLiteral("run.not_found");
    }

    void requestsAreReadStrictly()
    {
        QFETCH(QString, method);
        QFETCH(QJsonObject, params);
        QFETCH(QString, code);
        const auto answer = m_daemon.call(method, params);
        QVERIFY(!answer);
        QCOMPARE(Cordon::toQt(answer.error().code()), code);
        QVERIFY_RESULT(m_daemon.call(QStringLiteral("daemon.status")));
    }

    void errorsDoNotEchoInputWithoutBound()
    {
        const QString huge(4 * 1024 * 1024, QLatin1Char('x'));
        QJsonObject hugeKey;
        hugeKey.insert(huge, 1);
        const QList<std::pair<QString, QJsonObject>> requests = {
            {huge, QJsonObject()},
            {QStringLiteral("container.get"), hugeKey},
            {QStringLiteral("container.get"), QJsonObject{{QStringLiteral("id"), huge}}}};
        for (const auto &[method, params] : requests) {
            const auto answer = m_daemon.call(method, params);
            QVERIFY(!answer);
            QVERIFY2(answer.error().message().size() <= 2100,
                     qPrintable(QString::number(answer.error().message().size())));
        }
    }

    // A large upload copies on a worker thread: another client is answered while it is still under way,
    // and the upload still lands whole (docs/benchmarks.md has the latency under load).
    void aLargeUploadDoesNotStallOtherClients()
    {
        const QString id = create(20, QStringLiteral("4g")); // its workspace takes 1.5 GiB
        QVERIFY(!id.isEmpty());
        QTemporaryDir host;
        const QString big = host.filePath(QStringLiteral("big.bin"));
        const qint64 size = 1536LL * 1024 * 1024;
        {
            QFile file(big);
            QVERIFY(file.open(QIODevice::WriteOnly));
            QVERIFY(file.resize(size)); // sparse: its bytes still have to be read and written
        }
        QProcess upload;
        upload.start(builtProgram(QStringLiteral("cordon")),
                     {QStringLiteral("cp"), big, id + QLatin1Char(':')});
        QVERIFY(upload.waitForStarted());
        QTest::qWait(300);
        int answeredDuringUpload = 0;
        for (int i = 0; i < 5 && upload.state() == QProcess::Running; ++i) {
            QVERIFY_RESULT(m_daemon.call(QStringLiteral("daemon.status")));
            if (upload.state() == QProcess::Running)
                ++answeredDuringUpload;
        }
        QVERIFY(upload.waitForFinished(120000));
        QVERIFY2(upload.exitCode() == 0, upload.readAllStandardError().constData());
        QVERIFY2(answeredDuringUpload > 0, "the upload ended before another client was answered");
        auto listing =
            m_daemon.call(QStringLiteral("file.list"), {{QStringLiteral("container"), id},
                                                        {QStringLiteral("scope"), QStringLiteral("inputs")}});
        QVERIFY_RESULT(listing);
        const QJsonArray files = listing->value(QStringLiteral("files")).toArray();
        QCOMPARE(files.size(), 1);
        QCOMPARE(files.first().toObject().value(QStringLiteral("size")).toInteger(), size);
        QVERIFY_RESULT(m_daemon.call(QStringLiteral("container.delete"), {{QStringLiteral("id"), id}}));
    }

    void garbageFromOneClientDoesNotHurtOthers()
    {
        QLocalSocket raw;
        raw.connectToServer(m_daemon.socketPath());
        QVERIFY(raw.waitForConnected(2000));
        raw.write(QByteArray("\x7f\xff\xff\xff garbage", 13));
        raw.flush();
        QTRY_VERIFY(raw.state() == QLocalSocket::UnconnectedState || raw.waitForDisconnected(100));
        QVERIFY_RESULT(m_daemon.call(QStringLiteral("daemon.status")));
    }

    // The demo clock moves the containers a trainer names (the one in front of the class) and those made
    // as demos; every other container keeps real time, whatever the clock does, even one created while it
    // runs fast.
    void aFasterClockShortensTheIdlePeriodUnderWay()
    {
        QSignalSpy events(m_daemon.client.get(), &Cordon::Daemon::DaemonClient::eventReceived);
        QVERIFY_RESULT(m_daemon.call(QStringLiteral("subscribe"),
                                     {{QStringLiteral("topics"), QJsonArray{QStringLiteral("containers")}}}));
        const QString id = create(1);
        const QString real = create(1);
        auto deadline = [this, &id] { return expiresAt(id); };
        const qint64 before = deadline();
        const qint64 realBefore = expiresAt(real);
        QVERIFY(before > QDateTime::currentMSecsSinceEpoch() + 50000);

        // 60x: the minute still to go becomes a second, at once, and the change is announced.
        events.clear();
        QVERIFY_RESULT(
            m_daemon.call(QStringLiteral("daemon.set_time_scale"),
                          {{QStringLiteral("scale"), 60}, {QStringLiteral("containers"), QJsonArray{id}}}));
        const qint64 after = deadline();
        QVERIFY2(after <= before - 55000, qPrintable(QStringLiteral("%1 -> %2").arg(before).arg(after)));
        QTRY_VERIFY(std::any_of(events.cbegin(), events.cend(), [&](const QList<QVariant> &event) {
            const QJsonObject container =
                event.at(1).toJsonObject().value(QStringLiteral("container")).toObject();
            return event.at(0).toString() == QLatin1String("container.changed") &&
                   container.value(QStringLiteral("id")).toString() == id &&
                   container.value(QStringLiteral("expires_at")).toInteger() == after;
        }));
        // A container made as a demo follows it; one made while it runs, but not as a demo, does not.
        const QString demo = create(1, QStringLiteral("1g"), true);
        QVERIFY(expiresAt(demo) <= QDateTime::currentMSecsSinceEpoch() + 1500);
        const QString later = create(1);
        QVERIFY(expiresAt(later) >= QDateTime::currentMSecsSinceEpoch() + 50000);
        QCOMPARE(container(later).value(QStringLiteral("demo")).toBool(), false);
        QCOMPARE(container(demo).value(QStringLiteral("demo")).toBool(), true);
        QTRY_COMPARE_WITH_TIMEOUT(state(id), QStringLiteral("expired"), 5000);
        QTRY_COMPARE_WITH_TIMEOUT(state(demo), QStringLiteral("expired"), 5000);
        // Marking one as a demo puts it on the clock at once; taking the mark away puts it back.
        auto marked = m_daemon.call(QStringLiteral("container.set_demo"),
                                    {{QStringLiteral("id"), later}, {QStringLiteral("demo"), true}});
        QVERIFY_RESULT(marked);
        QCOMPARE(marked->value(QStringLiteral("container"))
                     .toObject()
                     .value(QStringLiteral("time_scale"))
                     .toDouble(),
                 60.0);
        QVERIFY(expiresAt(later) <= QDateTime::currentMSecsSinceEpoch() + 1500);
        QVERIFY_RESULT(m_daemon.call(QStringLiteral("container.set_demo"),
                                     {{QStringLiteral("id"), later}, {QStringLiteral("demo"), false}}));
        QVERIFY(expiresAt(later) >= QDateTime::currentMSecsSinceEpoch() + 30000);
        QCOMPARE(state(later), QStringLiteral("running"));
        auto badMark =
            m_daemon.call(QStringLiteral("container.set_demo"),
                          {{QStringLiteral("id"), later}, {QStringLiteral("demo"), QStringLiteral("yes")}});
        QVERIFY(!badMark);
        QCOMPARE(Cordon::toQt(badMark.error().code()), QStringLiteral("protocol.invalid_params"));
        QVERIFY_RESULT(
            m_daemon.call(QStringLiteral("daemon.set_time_scale"), {{QStringLiteral("scale"), 1}}));
        QCOMPARE(state(real), QStringLiteral("running"));
        QCOMPARE(expiresAt(real), realBefore);
        QVERIFY_RESULT(m_daemon.call(QStringLiteral("container.delete"), {{QStringLiteral("id"), later}}));
        QVERIFY_RESULT(m_daemon.call(QStringLiteral("container.delete"), {{QStringLiteral("id"), real}}));
        auto unknown =
            m_daemon.call(QStringLiteral("daemon.set_time_scale"),
                          {{QStringLiteral("scale"), 2},
                           {QStringLiteral("containers"), QJsonArray{QStringLiteral("ffffffffffffffff")}}});
        QVERIFY(!unknown);
        QCOMPARE(Cordon::toQt(unknown.error().code()), QStringLiteral("container.not_found"));
    }

    void aFasterClockNeverExpiresWhatWasIdleBeforeTheSwitch()
    {
        // One idle minute, of which two real seconds pass at 1x. At 40x those two seconds would count as 80
        // and the container would be past its deadline at once: only the 58 idle seconds still to go may pass
        // faster, from the switch on, so the deadline is about 1.45 s ahead of it.
        const QString id = create(1);
        auto deadline = [this, &id] { return expiresAt(id); };
        const qint64 before = deadline();
        QTest::qWait(2000);
        const qint64 switched = QDateTime::currentMSecsSinceEpoch();
        QVERIFY_RESULT(
            m_daemon.call(QStringLiteral("daemon.set_time_scale"),
                          {{QStringLiteral("scale"), 40}, {QStringLiteral("containers"), QJsonArray{id}}}));
        const qint64 after = deadline();
        const qint64 expected = switched + (before - switched) / 40;
        QVERIFY2(after >= expected - 300 && after <= expected + 300,
                 qPrintable(QStringLiteral("deadline %1 ms after the switch, expected about %2")
                                .arg(after - switched)
                                .arg(expected - switched)));
        QCOMPARE(state(id), QStringLiteral("running"));
        QTRY_COMPARE_WITH_TIMEOUT(state(id), QStringLiteral("expired"), 5000);
        QVERIFY_RESULT(
            m_daemon.call(QStringLiteral("daemon.set_time_scale"), {{QStringLiteral("scale"), 1}}));
    }

    void idleContainersExpireAndRestartsKeepDeadlines()
    {
        // 600x: one idle minute is a tenth of a second.
        QVERIFY(m_daemon.stop());
        QVERIFY(m_daemon.start({QStringLiteral("--time-scale"), QStringLiteral("600"),
                                QStringLiteral("--expiring-soon"), QStringLiteral("30")}));
        QSignalSpy events(m_daemon.client.get(), &Cordon::Daemon::DaemonClient::eventReceived);
        QVERIFY_RESULT(m_daemon.call(QStringLiteral("subscribe"),
                                     {{QStringLiteral("topics"), QJsonArray{QStringLiteral("containers")}}}));
        const QString id = create(1);
        const QString root =
            Cordon::toQt(Cordon::Containers::dataDirectory()) + QStringLiteral("/containers/") + id;
        QVERIFY(QFileInfo::exists(root));
        QTRY_COMPARE_WITH_TIMEOUT(state(id), QStringLiteral("expired"), 5000);
        QVERIFY(!QFileInfo::exists(root));
        bool warned = false;
        for (const QList<QVariant> &event : std::as_const(events))
            warned |= event.at(0).toString() == QLatin1String("container.expiring_soon");
        QVERIFY(warned);

        // Keep-alive holds it open past several idle periods.
        const QString kept = create(1);
        for (int i = 0; i < 10; ++i) {
            QVERIFY_RESULT(
                m_daemon.call(QStringLiteral("container.keepalive"), {{QStringLiteral("id"), kept}}));
            QTest::qWait(30);
        }
        QCOMPARE(state(kept), QStringLiteral("running"));
        auto keptAlive = m_daemon.call(QStringLiteral("history.events"),
                                       {{QStringLiteral("container"), kept},
                                        {QStringLiteral("kind"), QStringLiteral("container.kept_alive")}});
        QVERIFY_RESULT(keptAlive);
        QCOMPARE(keptAlive->value(QStringLiteral("total")).toInteger(), 10);

        // A deadline that passes while the daemon is down is never a silent wipe at start-up: the container
        // gets a grace period (600 s on its clock, one second at 600x), announced, and then expires.
        const QString longer = create(2); // 200 ms
        QVERIFY(m_daemon.stop());
        QTest::qWait(500);
        QVERIFY(m_daemon.start());
        QCOMPARE(state(longer), QStringLiteral("running")); // started again, as the daemon's stop left it
        // Clients see that it is in its grace period (cordon ls, the workbench's list and notification).
        auto inGrace = m_daemon.call(QStringLiteral("container.get"), {{QStringLiteral("id"), longer}});
        QVERIFY_RESULT(inGrace);
        const qint64 graceSince = inGrace->value(QStringLiteral("container"))
                                      .toObject()
                                      .value(QStringLiteral("grace_since"))
                                      .toInteger();
        QVERIFY(QFileInfo::exists(Cordon::toQt(Cordon::Containers::dataDirectory()) +
                                  QStringLiteral("/containers/") + longer));
        auto deferred =
            m_daemon.call(QStringLiteral("history.events"),
                          {{QStringLiteral("container"), longer},
                           {QStringLiteral("kind"), QStringLiteral("container.expiry_deferred")}});
        QVERIFY_RESULT(deferred);
        const QJsonArray notices = deferred->value(QStringLiteral("events")).toArray();
        QCOMPARE(notices.size(), 1);
        const QJsonObject notice = notices.first().toObject().value(QStringLiteral("detail")).toObject();
        QCOMPARE(notice.value(QStringLiteral("grace_ms")).toInteger(), 1000);
        QCOMPARE(graceSince, notice.value(QStringLiteral("deadline_passed_at")).toInteger());
        QCOMPARE(notice.value(QStringLiteral("expires_at")).toInteger(), expiresAt(longer));
        QTRY_COMPARE_WITH_TIMEOUT(state(longer), QStringLiteral("expired"), 5000);
        QVERIFY(!QFileInfo::exists(Cordon::toQt(Cordon::Containers::dataDirectory()) +
                                   QStringLiteral("/containers/") + longer));
        QCOMPARE(eventCount(longer, QStringLiteral("container.expired")), 1);
    }

    // A container that expired or was deleted is listed (include_deleted) with its name and its end after
    // any restart of the daemon, as before it: the history's rows keep naming it, `cordon ls -a` too.
    void endedContainersKeepTheirNamesAcrossARestart()
    {
        // 600x: one idle minute is a tenth of a second.
        QVERIFY(m_daemon.stop());
        QVERIFY(m_daemon.start({QStringLiteral("--time-scale"), QStringLiteral("600")}));
        QJsonObject expiring = policyJson(1);
        expiring.insert(QStringLiteral("name"), QStringLiteral("soon-gone"));
        QJsonObject deletedPolicy = policyJson();
        deletedPolicy.insert(QStringLiteral("name"), QStringLiteral("thrown-away"));
        auto first =
            m_daemon.call(QStringLiteral("container.create"), {{QStringLiteral("policy"), expiring}});
        auto second =
            m_daemon.call(QStringLiteral("container.create"), {{QStringLiteral("policy"), deletedPolicy}});
        QVERIFY_RESULT(first);
        QVERIFY_RESULT(second);
        const QString expired =
            first->value(QStringLiteral("container")).toObject().value(QStringLiteral("id")).toString();
        const QString deleted =
            second->value(QStringLiteral("container")).toObject().value(QStringLiteral("id")).toString();
        const QString runId = sh(deleted, QStringLiteral("true")).value(QStringLiteral("id")).toString();
        QVERIFY(!runId.isEmpty());
        QVERIFY_RESULT(m_daemon.call(QStringLiteral("container.delete"), {{QStringLiteral("id"), deleted}}));
        QTRY_COMPARE_WITH_TIMEOUT(state(expired), QStringLiteral("expired"), 5000);

        QVERIFY(m_daemon.stop());
        QVERIFY(m_daemon.start());
        auto listed =
            m_daemon.call(QStringLiteral("container.list"), {{QStringLiteral("include_deleted"), true}});
        QVERIFY_RESULT(listed);
        QHash<QString, QJsonObject> byId;
        for (const QJsonValue &value : listed->value(QStringLiteral("containers")).toArray())
            byId.insert(value.toObject().value(QStringLiteral("id")).toString(), value.toObject());
        QVERIFY(byId.contains(expired));
        QVERIFY(byId.contains(deleted));
        QCOMPARE(byId[expired].value(QStringLiteral("name")).toString(), QStringLiteral("soon-gone"));
        QCOMPARE(byId[expired].value(QStringLiteral("state")).toString(), QStringLiteral("expired"));
        QVERIFY(byId[expired].value(QStringLiteral("ended_at")).toInteger() > 0);
        QCOMPARE(byId[deleted].value(QStringLiteral("name")).toString(), QStringLiteral("thrown-away"));
        QCOMPARE(byId[deleted].value(QStringLiteral("state")).toString(), QStringLiteral("deleted"));
        // Not among the live ones, and still gone for what needs a live container.
        auto live = m_daemon.call(QStringLiteral("container.list"));
        QVERIFY_RESULT(live);
        for (const QJsonValue &value : live->value(QStringLiteral("containers")).toArray())
            QVERIFY(value.toObject().value(QStringLiteral("id")).toString() != expired);
        QCOMPARE(state(expired), QStringLiteral("expired"));
        auto refused = m_daemon.call(QStringLiteral("container.start"), {{QStringLiteral("id"), expired}});
        QVERIFY(!refused);
        QCOMPARE(refused.error().code(), "container.gone");
        // The history names the run's container, whatever the daemon holds.
        auto runs = m_daemon.call(QStringLiteral("history.runs"), {{QStringLiteral("container"), deleted}});
        QVERIFY_RESULT(runs);
        const QJsonObject run = runs->value(QStringLiteral("runs")).toArray().first().toObject();
        QCOMPARE(run.value(QStringLiteral("id")).toString(), runId);
        QCOMPARE(run.value(QStringLiteral("container_name")).toString(), QStringLiteral("thrown-away"));
    }

    // container.create's origin (schema version 7): a Go/No-Go audit's containers carry "audit:<id>", and
    // their runs and events stay out of the history's lists unless asked for (`audits`, `origin`), or asked
    // for by container.
    void anAuditsContainersStayOutOfTheUsersHistory()
    {
        const QString own = create();
        QVERIFY(!own.isEmpty());
        auto made = m_daemon.call(QStringLiteral("container.create"),
                                  {{QStringLiteral("policy"), policyJson()},
                                   {QStringLiteral("origin"), QStringLiteral("audit:au-00112233")}});
        QVERIFY_RESULT(made);
        const QJsonObject audit = made->value(QStringLiteral("container")).toObject();
        QCOMPARE(audit.value(QStringLiteral("origin")).toString(), QStringLiteral("audit:au-00112233"));
        auto ownGot = m_daemon.call(QStringLiteral("container.get"), {{QStringLiteral("id"), own}});
        QVERIFY_RESULT(ownGot);
        QVERIFY(!ownGot->value(QStringLiteral("container")).toObject().contains(QStringLiteral("origin")));
        const QString auditId = audit.value(QStringLiteral("id")).toString();
        const QString ownRun = sh(own, QStringLiteral("echo mine")).value(QStringLiteral("id")).toString();
        const QJsonObject probe = sh(auditId, QStringLiteral("echo probe"));
        const QString auditRun = probe.value(QStringLiteral("id")).toString();
        QVERIFY(!ownRun.isEmpty() && !auditRun.isEmpty());
        QCOMPARE(probe.value(QStringLiteral("container_origin")).toString(),
                 QStringLiteral("audit:au-00112233"));

        const auto runIds = [this](const QJsonObject &params) {
            QStringList ids;
            if (auto page = m_daemon.call(QStringLiteral("history.runs"), params))
                for (const QJsonValue &run : page->value(QStringLiteral("runs")).toArray())
                    ids.append(run.toObject().value(QStringLiteral("id")).toString());
            return ids;
        };
        const QStringList byDefault = runIds({{QStringLiteral("limit"), 500}});
        QVERIFY(byDefault.contains(ownRun));
        QVERIFY(!byDefault.contains(auditRun));
        QVERIFY(
            runIds({{QStringLiteral("limit"), 500}, {QStringLiteral("audits"), true}}).contains(auditRun));
        QCOMPARE(runIds({{QStringLiteral("origin"), QStringLiteral("audit:au-00112233")}}),
                 QStringList{auditRun});
        QCOMPARE(runIds({{QStringLiteral("container"), auditId}}), QStringList{auditRun});
        QCOMPARE(runIds({{QStringLiteral("search"), QStringLiteral("ECHO MINE")}}), QStringList{ownRun});

        auto events = m_daemon.call(QStringLiteral("history.events"), {{QStringLiteral("limit"), 500}});
        QVERIFY_RESULT(events);
        for (const QJsonValue &event : events->value(QStringLiteral("events")).toArray())
            QVERIFY(event.toObject().value(QStringLiteral("container")).toString() != auditId);
        QVERIFY(eventCount(auditId, QStringLiteral("run.finished")) == 1);
        auto auditEvents = m_daemon.call(QStringLiteral("history.events"),
                                         {{QStringLiteral("origin"), QStringLiteral("audit:au-00112233")}});
        QVERIFY_RESULT(auditEvents);
        QVERIFY(auditEvents->value(QStringLiteral("total")).toInteger() >= 3); // created, started, finished

        // The audit's own test secret, set and removed on its behalf: those daemon-wide events go with it
        // too.
        const QString secret = QStringLiteral("AUDIT_KEY_0A1B");
        const QJsonObject auditOrigin{{QStringLiteral("origin"), QStringLiteral("audit:au-00112233")}};
        QVERIFY_RESULT(
            m_daemon.call(QStringLiteral("secret.set"),
                          {{QStringLiteral("name"), secret},
                           {QStringLiteral("value"), QStringLiteral("sk-audit-invalid-0123456789")},
                           {QStringLiteral("origin"), QStringLiteral("audit:au-00112233")}}));
        QVERIFY_RESULT(m_daemon.call(QStringLiteral("secret.remove"),
                                     {{QStringLiteral("name"), secret},
                                      {QStringLiteral("origin"), QStringLiteral("audit:au-00112233")}}));
        const auto secretKinds = [this, &secret](QJsonObject params) {
            QStringList kinds;
            params.insert(QStringLiteral("limit"), 500);
            if (auto page = m_daemon.call(QStringLiteral("history.events"), params))
                for (const QJsonValue &value : page->value(QStringLiteral("events")).toArray()) {
                    const QJsonObject event = value.toObject();
                    if (event.value(QStringLiteral("detail")).toObject().value(QStringLiteral("name")) ==
                        secret)
                        kinds.append(event.value(QStringLiteral("kind")).toString());
                }
            return kinds;
        };
        QCOMPARE(secretKinds({}), QStringList());
        QCOMPARE(secretKinds(auditOrigin),
                 (QStringList{QStringLiteral("secret.removed"), QStringLiteral("secret.set")}));
        QCOMPARE(secretKinds({{QStringLiteral("audits"), true}}).size(), 2);

        const QJsonValue other(QStringLiteral("someone else"));
        for (const auto &[method, params] :
             {std::pair{
                  QStringLiteral("container.create"),
                  QJsonObject{{QStringLiteral("policy"), policyJson()}, {QStringLiteral("origin"), other}}},
              std::pair{QStringLiteral("secret.set"),
                        QJsonObject{{QStringLiteral("name"), QStringLiteral("OTHER")},
                                    {QStringLiteral("value"), QStringLiteral("v")},
                                    {QStringLiteral("origin"), other}}}}) {
            auto refused = m_daemon.call(method, params);
            QVERIFY(!refused);
            QCOMPARE(refused.error().code(), "protocol.invalid_params");
            QVERIFY2(Cordon::toQt(refused.error().message()).contains(QStringLiteral("origin")),
                     refused.error().message().c_str());
        }
    }

    // The workspace lives in memory (a tmpfs): a daemon that stops normally saves it first, so the next
    // daemon brings the container back with its files; a killed daemon ends no container, and the next one
    // adopts it with every file it had.
    void filesSurviveADaemonRestartAndAKill()
    {
        const QString id = create();
        QVERIFY(!id.isEmpty());
        QCOMPARE(
            sh(id, QStringLiteral("echo saved > /mnt/data/a.txt && echo out > /mnt/data/outputs/o.txt && "
                                  "echo ok"))
                .value(QStringLiteral("stdout"))
                .toString(),
            QStringLiteral("ok\n"));
        QVERIFY_RESULT(m_daemon.call(QStringLiteral("file.upload"),
                                     {{QStringLiteral("container"), id},
                                      {QStringLiteral("name"), QStringLiteral("in.txt")},
                                      {QStringLiteral("content"), QStringLiteral("aW4K")}}));
        QVERIFY(m_daemon.stop());
        QVERIFY(m_daemon.start());
        QCOMPARE(state(id), QStringLiteral("running"));
        QCOMPARE(sh(id, QStringLiteral("cat /mnt/data/a.txt /mnt/data/outputs/o.txt /mnt/data/inputs/in.txt; "
                                       "echo kept > /mnt/data/b.txt"))
                     .value(QStringLiteral("stdout"))
                     .toString(),
                 QStringLiteral("saved\nout\nin\n"));
        auto saved = m_daemon.call(
            QStringLiteral("history.events"),
            {{QStringLiteral("container"), id}, {QStringLiteral("kind"), QStringLiteral("workspace.saved")}});
        QVERIFY_RESULT(saved);
        const QJsonObject detail = saved->value(QStringLiteral("events"))
                                       .toArray()
                                       .first()
                                       .toObject()
                                       .value(QStringLiteral("detail"))
                                       .toObject();
        QCOMPARE(detail.value(QStringLiteral("files")).toInteger(), 2);
        QCOMPARE(detail.value(QStringLiteral("bytes")).toInteger(), 10);

        m_daemon.kill();
        QVERIFY(m_daemon.start());
        QCOMPARE(state(id), QStringLiteral("running"));
        QCOMPARE(eventCount(id, QStringLiteral("container.adopted")), 1);
        QCOMPARE(sh(id, QStringLiteral(
                            "cat /mnt/data/a.txt /mnt/data/inputs/in.txt /mnt/data/b.txt; ls /mnt/data"))
                     .value(QStringLiteral("stdout"))
                     .toString(),
                 QStringLiteral("saved\nin\nkept\na.txt\nb.txt\ninputs\noutputs\n"));
        QVERIFY_RESULT(m_daemon.call(QStringLiteral("container.delete"), {{QStringLiteral("id"), id}}));
    }

    // A save that cannot write (a full or read-only disk) must not lose the session: the tmpfs is kept in
    // memory, the next start saves again before it restores and refuses to start on the old copy while that
    // fails, and starts with every file once the disk takes writes again.
    void aFailedSaveKeepsTheFilesUntilItCanSave()
    {
        const QString id = create();
        QVERIFY(!id.isEmpty());
        QCOMPARE(sh(id, QStringLiteral("echo precious > /mnt/data/p.txt && echo ok"))
                     .value(QStringLiteral("stdout"))
                     .toString(),
                 QStringLiteral("ok\n"));
        const QByteArray root = QFile::encodeName(Cordon::toQt(Cordon::Containers::dataDirectory()) +
                                                  QStringLiteral("/containers/") + id);
        // Root ignores permissions: the immutable attribute stops it instead.
        const bool asRoot = ::geteuid() == 0;
        const auto lock = [&](bool locked) {
            if (asRoot)
                return QProcess::execute(QStringLiteral("chattr"), {QString::fromLatin1(locked ? "+i" : "-i"),
                                                                    QString::fromLocal8Bit(root)}) == 0;
            return ::chmod(root.constData(), locked ? 0500 : 0700) == 0;
        };
        if (asRoot && QStandardPaths::findExecutable(QStringLiteral("chattr")).isEmpty())
            QSKIP("chattr is not installed");
        if (!lock(true))
            QSKIP("the data directory's file system takes no immutable attribute");
        QVERIFY_RESULT(m_daemon.call(QStringLiteral("container.stop"), {{QStringLiteral("id"), id}}));
        QTRY_VERIFY_WITH_TIMEOUT(eventCount(id, QStringLiteral("workspace.save_failed")) == 1, 10000);
        auto refused = m_daemon.call(QStringLiteral("container.start"), {{QStringLiteral("id"), id}});
        QVERIFY(!refused);
        QCOMPARE(Cordon::toQt(refused.error().code()), QStringLiteral("container.save_failed"));
        QCOMPARE(state(id), QStringLiteral("stopped"));
        // Still readable meanwhile, from memory.
        auto listed = m_daemon.call(
            QStringLiteral("file.list"),
            {{QStringLiteral("container"), id}, {QStringLiteral("scope"), QStringLiteral("workspace")}});
        QVERIFY_RESULT(listed);
        QVERIFY2(QJsonDocument(*listed).toJson().contains("p.txt"),
                 QJsonDocument(*listed).toJson().constData());

        QVERIFY(lock(false));
        QVERIFY_RESULT(m_daemon.call(QStringLiteral("container.start"), {{QStringLiteral("id"), id}}));
        QCOMPARE(sh(id, QStringLiteral("cat /mnt/data/p.txt")).value(QStringLiteral("stdout")).toString(),
                 QStringLiteral("precious\n"));
        QCOMPARE(eventCount(id, QStringLiteral("workspace.saved")), 1);
        QVERIFY_RESULT(m_daemon.call(QStringLiteral("container.delete"), {{QStringLiteral("id"), id}}));
    }

    // A client can make the daemon write (each refusal is a line): its log file is bounded. A log already
    // past the bound when the daemon starts becomes <log>.1, and the daemon writes to a new one.
    void theLogFileIsBounded()
    {
        QVERIFY(m_daemon.stop());
        QTemporaryDir dir;
        const QString log = dir.filePath(QStringLiteral("cordond.sock.log"));
        {
            QFile full(log);
            QVERIFY(full.open(QIODevice::WriteOnly));
            full.write(QByteArray(2 * 1024 * 1024, 'x'));
        }
        QProcess daemon;
        daemon.setStandardErrorFile(log, QIODevice::Append);
        daemon.start(QCoreApplication::applicationDirPath() + QStringLiteral("/cordond"),
                     {QStringLiteral("--log-max-mb"), QStringLiteral("1")});
        QVERIFY(daemon.waitForStarted(5000));
        Cordon::Daemon::DaemonClient client;
        QTRY_VERIFY_WITH_TIMEOUT(client.connectSync(false, 1000), 10000);
        QCOMPARE(QFileInfo(log + QStringLiteral(".1")).size(), qint64(2 * 1024 * 1024));
        QTRY_VERIFY(QFileInfo(log).size() > 0);
        QVERIFY(QFileInfo(log).size() < 64 * 1024);
        QFile fresh(log);
        QVERIFY(fresh.open(QIODevice::ReadOnly));
        QVERIFY(fresh.readAll().contains("what came before is in"));
        daemon.terminate();
        QVERIFY(daemon.waitForFinished(15000));
        QVERIFY(m_daemon.start({QStringLiteral("--max-containers"), QStringLiteral("6"),
                                QStringLiteral("--max-runs"), QStringLiteral("64")}));
    }

    // Cordon's data folder holds every container's files and the sockets on which a container's PID 1 waits
    // for the next daemon: a policy's mount may show neither it, nor a folder above or inside it, to a
    // container (whose processes could otherwise take over another container while no daemon runs).
    void aMountCannotShowTheDataFolder()
    {
        const QString data = Cordon::toQt(Cordon::Containers::dataDirectory());
        for (const QString &host :
             QStringList{data, QFileInfo(data).absolutePath(), data + QStringLiteral("/containers")}) {
            QJsonObject policy = policyJson();
            policy.insert(QStringLiteral("mounts"),
                          QJsonArray{QJsonObject{{QStringLiteral("host"), host},
                                                 {QStringLiteral("target"), QStringLiteral("/mnt/peek")},
                                                 {QStringLiteral("read_only"), true}}});
            auto refused =
                m_daemon.call(QStringLiteral("container.create"), {{QStringLiteral("policy"), policy}});
            QVERIFY2(!refused, qPrintable(host));
            QCOMPARE(Cordon::toQt(refused.error().code()), QStringLiteral("policy.mount_data_dir"));
        }
    }

    // `cordon rm 6f665d0d` must not remove a container named so when another's id starts so: a name of hex
    // digits alone is refused, whatever the ids now are.
    void aNameThatReadsAsAnIdIsRefused()
    {
        for (const QString &name :
             {QStringLiteral("6f665d0d"), QStringLiteral("0"), QStringLiteral("cafe")}) {
            QJsonObject policy = policyJson();
            policy.insert(QStringLiteral("name"), name);
            auto refused =
                m_daemon.call(QStringLiteral("container.create"), {{QStringLiteral("policy"), policy}});
            QVERIFY(!refused);
            QCOMPARE(Cordon::toQt(refused.error().code()), QStringLiteral("policy.invalid_name"));
            QVERIFY2(Cordon::toQt(refused.error().message()).contains(QStringLiteral("hex digits alone")),
                     refused.error().message().c_str());
        }
        QJsonObject policy = policyJson();
        policy.insert(QStringLiteral("name"), QStringLiteral("cafe-2"));
        auto created =
            m_daemon.call(QStringLiteral("container.create"), {{QStringLiteral("policy"), policy}});
        QVERIFY_RESULT(created);
        QVERIFY_RESULT(m_daemon.call(
            QStringLiteral("container.delete"),
            {{QStringLiteral("id"),
              created->value(QStringLiteral("container")).toObject().value(QStringLiteral("id"))}}));
    }

    // Files are memory: a container whose workspace fills its memory limit OOM-kills the next program that
    // needs some, however small. The outcome says what fills it, not only that the program ran out.
    void aWorkspaceThatFillsTheMemoryIsReportedAsFull()
    {
        QJsonObject policy = policyJson(20, QStringLiteral("134217728")); // 128 MiB
        policy.insert(QStringLiteral("limits"), QJsonObject{{QStringLiteral("workspace_mb"), 1024}});
        auto created =
            m_daemon.call(QStringLiteral("container.create"), {{QStringLiteral("policy"), policy}});
        QVERIFY_RESULT(created);
        const QString id =
            created->value(QStringLiteral("container")).toObject().value(QStringLiteral("id")).toString();
        const QJsonObject filled =
            sh(id, QStringLiteral("head -c 100M /dev/zero > /mnt/data/ballast; echo done"));
        QCOMPARE(filled.value(QStringLiteral("error_class")).toString(), QStringLiteral("ok"));
        const QJsonObject starved =
            execAndWait(id, {{QStringLiteral("command"),
                              QJsonArray{QStringLiteral("python3"), QStringLiteral("-c"),
                                         QStringLiteral("b = bytearray(64 << 20); print(len(b))")}}});
        QCOMPARE(starved.value(QStringLiteral("error_class")).toString(), QStringLiteral("oom"));
        const QString message = starved.value(QStringLiteral("message")).toString();
        QVERIFY2(message.startsWith(
                     QStringLiteral("workspace full: its files hold 100 MiB of the container's 128 MiB")),
                 qPrintable(message));
        // A program that runs out of memory on its own is no "workspace full".
        QVERIFY_RESULT(m_daemon.call(QStringLiteral("file.delete"),
                                     {{QStringLiteral("container"), id},
                                      {QStringLiteral("scope"), QStringLiteral("workspace")},
                                      {QStringLiteral("path"), QStringLiteral("ballast")}}));
        const QJsonObject greedy = execAndWait(
            id, {{QStringLiteral("command"), QJsonArray{QStringLiteral("python3"), QStringLiteral("-c"),
                                                        QStringLiteral("b = bytearray(512 << 20)")}}});
        QCOMPARE(greedy.value(QStringLiteral("error_class")).toString(), QStringLiteral("oom"));
        QVERIFY2(
            !greedy.value(QStringLiteral("message")).toString().startsWith(QStringLiteral("workspace full")),
            qPrintable(greedy.value(QStringLiteral("message")).toString()));
        QVERIFY_RESULT(m_daemon.call(QStringLiteral("container.delete"), {{QStringLiteral("id"), id}}));
    }

    // With the default limits, files can never fill the memory: the workspace is half the 1 GiB tier, so a
    // fill ends with ENOSPC as the writer sees it, the writer is not killed, and the next run has its memory.
    void aDefaultWorkspaceFillEndsWithNoSpaceNotTheMemoryLimit()
    {
        auto created = m_daemon.call(QStringLiteral("container.create"),
                                     {{QStringLiteral("policy"),
                                       QJsonObject{{QStringLiteral("memory_limit"), QStringLiteral("1g")}}}});
        QVERIFY_RESULT(created);
        const QJsonObject container = created->value(QStringLiteral("container")).toObject();
        const QString id = container.value(QStringLiteral("id")).toString();
        // Two files: one alone would stop at its size limit (RLIMIT_FSIZE is workspace_mb too).
        const QJsonObject filled =
            sh(id, QStringLiteral("head -c 400M /dev/zero > /mnt/data/a && "
                                  "{ head -c 400M /dev/zero > /mnt/data/b || echo \"writer saw: $?\"; }"));
        QCOMPARE(filled.value(QStringLiteral("error_class")).toString(), QStringLiteral("ok"));
        const QString out = filled.value(QStringLiteral("stdout")).toString() +
                            filled.value(QStringLiteral("stderr")).toString();
        QVERIFY2(out.contains(QStringLiteral("No space left on device")), qPrintable(out));
        QVERIFY2(out.contains(QStringLiteral("writer saw: 1")), qPrintable(out));
        const QJsonObject after =
            execAndWait(id, {{QStringLiteral("command"),
                              QJsonArray{QStringLiteral("python3"), QStringLiteral("-c"),
                                         QStringLiteral("b = bytearray(128 << 20); print('ok')")}}});
        QCOMPARE(after.value(QStringLiteral("error_class")).toString(), QStringLiteral("ok"));
        QVERIFY_RESULT(m_daemon.call(QStringLiteral("container.delete"), {{QStringLiteral("id"), id}}));
    }

    // A power loss takes the tmpfs with it (here: the daemon and the container's PID 1 killed together, so
    // that nothing holds the tmpfs): a container that was active is checkpointed every interval, and the next
    // daemon starts it from its last checkpoint.
    void aPowerLossLosesAtMostTheLastCheckpoint()
    {
        QVERIFY(m_daemon.stop());
        QVERIFY(m_daemon.start({QStringLiteral("--max-containers"), QStringLiteral("6"),
                                QStringLiteral("--max-runs"), QStringLiteral("64"),
                                QStringLiteral("--checkpoint-interval"), QStringLiteral("1")}));
        const QString id = create();
        QVERIFY(!id.isEmpty());
        QCOMPARE(sh(id, QStringLiteral("echo checkpointed > /mnt/data/c.txt; mkdir -p /mnt/data/outputs/d; "
                                       "echo out > /mnt/data/outputs/d/o.txt; echo ok"))
                     .value(QStringLiteral("stdout"))
                     .toString(),
                 QStringLiteral("ok\n"));
        const QString root =
            Cordon::toQt(Cordon::Containers::dataDirectory()) + QStringLiteral("/containers/") + id;
        // The next checkpoint, within a second or two: work/ and outputs/ are each replaced whole, one after
        // the other.
        QTRY_VERIFY_WITH_TIMEOUT(QFileInfo::exists(root + QStringLiteral("/work/c.txt")) &&
                                     QFileInfo::exists(root + QStringLiteral("/outputs/d/o.txt")),
                                 5000);
        auto processes =
            m_daemon.call(QStringLiteral("memory.processes"), {{QStringLiteral("container"), id}});
        QVERIFY_RESULT(processes);
        qint64 initPid = 0;
        for (const QJsonValue &process : processes->value(QStringLiteral("processes")).toArray()) {
            if (process.toObject()
                    .value(QStringLiteral("command"))
                    .toString()
                    .startsWith(QLatin1String("cordon-init")))
                initPid = process.toObject().value(QStringLiteral("pid")).toInteger();
        }
        QVERIFY(initPid > 1);
        m_daemon.kill();
        QCOMPARE(::kill(static_cast<pid_t>(initPid), SIGKILL), 0);
        QTest::qWait(300);

        QVERIFY(m_daemon.start({QStringLiteral("--max-containers"), QStringLiteral("6"),
                                QStringLiteral("--max-runs"), QStringLiteral("64")}));
        QCOMPARE(state(id), QStringLiteral("running"));
        QCOMPARE(eventCount(id, QStringLiteral("container.restarted")), 1);
        QCOMPARE(sh(id, QStringLiteral("cat /mnt/data/c.txt /mnt/data/outputs/d/o.txt"))
                     .value(QStringLiteral("stdout"))
                     .toString(),
                 QStringLiteral("checkpointed\nout\n"));
        QVERIFY_RESULT(m_daemon.call(QStringLiteral("container.delete"), {{QStringLiteral("id"), id}}));
    }

    // A daemon killed mid-run ends nothing: the run goes on while no daemon runs, what it writes is kept,
    // and the next daemon collects its real outcome; a process it left in the background lives on too.
    void crashMidRunKeepsTheRunAndCollectsItsOutcome()
    {
        const QString id = create();
        const QByteArray marker = QByteArray::number(700000 + ::getpid() % 90000);
        const QString background = QStringLiteral("sleep 200%1 &").arg(QString::fromLatin1(marker));
        QCOMPARE(sh(id, background).value(QStringLiteral("error_class")).toString(), QStringLiteral("ok"));
        auto started = m_daemon.call(
            QStringLiteral("run.exec"),
            {{QStringLiteral("container"), id},
             {QStringLiteral("command"),
              QJsonArray{QStringLiteral("/bin/sh"), QStringLiteral("-c"),
                         QStringLiteral("echo before; sleep 1.%1; echo after; echo oops >&2; exit 3")
                             .arg(QString::fromLatin1(marker))}}});
        QVERIFY_RESULT(started);
        const QString runId =
            started->value(QStringLiteral("run")).toObject().value(QStringLiteral("id")).toString();
        QTRY_COMPARE(countHostProcesses("sleep 1." + marker + " "), 1);

        m_daemon.kill(); // SIGKILL: no chance to clean up
        QTest::qWait(300);
        QCOMPARE(countHostProcesses("sleep 200" + marker + " "),
                 1); // the container lives on without a daemon
        QTRY_COMPARE_WITH_TIMEOUT(countHostProcesses("sleep 1." + marker + " "), 0,
                                  5000); // the run ended meanwhile

        QVERIFY(m_daemon.start());
        QCOMPARE(state(id), QStringLiteral("running"));
        auto run = m_daemon.call(QStringLiteral("run.wait"), {{QStringLiteral("run_id"), runId}});
        QVERIFY_RESULT(run);
        const QJsonObject finished = run->value(QStringLiteral("run")).toObject();
        QCOMPARE(finished.value(QStringLiteral("state")).toString(), QStringLiteral("finished"));
        QCOMPARE(finished.value(QStringLiteral("exit_code")).toInt(), 3);
        QCOMPARE(finished.value(QStringLiteral("error_class")).toString(), QStringLiteral("nonzero_exit"));
        QCOMPARE(finished.value(QStringLiteral("stdout")).toString(), QStringLiteral("before\nafter\n"));
        QCOMPARE(finished.value(QStringLiteral("stderr")).toString(), QStringLiteral("oops\n"));
        QVERIFY(finished.value(QStringLiteral("wall_ms")).toInteger() >= 1000);
        QCOMPARE(countHostProcesses("sleep 200" + marker + " "), 1);
        QCOMPARE(eventCount(id, QStringLiteral("container.adopted")), 1);
        QCOMPARE(eventCount(id, QStringLiteral("container.restarted")), 0);
        QCOMPARE(sh(id, QStringLiteral("echo back")).value(QStringLiteral("stdout")).toString(),
                 QStringLiteral("back\n"));

        auto store = Cordon::Store::HistoryStore::open(Cordon::toQt(Cordon::Containers::dataDirectory()) +
                                                       QStringLiteral("/history.db"));
        QVERIFY_RESULT(store);
        auto intact = (*store)->integrityCheck();
        QVERIFY_RESULT(intact);
        QVERIFY(*intact);
        QVERIFY_RESULT(m_daemon.call(QStringLiteral("container.delete"), {{QStringLiteral("id"), id}}));
        QTRY_COMPARE_WITH_TIMEOUT(countHostProcesses("sleep 200" + marker + " "), 0, 5000);
    }
};

CORDON_SANDBOX_TEST_MAIN(TestDaemon)
#include "tst_daemon.moc"
