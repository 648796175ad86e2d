// SPDX-License-Identifier: MIT
// An upgrade of the package replaces cordond while containers run. `cordon daemon restart` ends the old
// daemon without stopping them, and the new one adopts what the old one started: processes, files, and a
// run under way with its real outcome. A container whose cordon-init speaks another protocol version (an
// older package's) cannot be adopted: its files are saved first, it is started again, and an event says why.
#include "cliprocess.h"
#include "core/plainbridge.h"
#include "daemonfixture.h"
#include "hostprocesses.h"
#include "sandboxtest.h"
#include "testutil.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QTemporaryDir>

#include <unistd.h>

using namespace CordonTest;

namespace {

QJsonObject shell(const QString &script)
{
    return {{QStringLiteral("command"), QJsonArray{QStringLiteral("/bin/sh"), QStringLiteral("-c"), script}}};
}

// A marker only this test's background processes carry on their command line.
QByteArray marker(int salt)
{
    return QByteArray::number(700000 + (::getpid() * 7 + salt) % 90000);
}

} // namespace

class TestDaemonUpgrade final : public QObject
{
    Q_OBJECT

private:
    DaemonFixture m_daemon;

    QStringList eventMessages(Cordon::Daemon::DaemonClient &client, const QString &container,
                              const QString &kind)
    {
        QStringList found;
        auto events = client.callSync(
            QStringLiteral("history.events"),
            {{QStringLiteral("container"), container}, {QStringLiteral("kind"), kind}}, 10000);
        if (!events)
            return {QStringLiteral("<unreadable: %1>").arg(Cordon::toQt(events.error().message()))};
        for (const QJsonValue &event : events->value(QStringLiteral("events")).toArray())
            found.append(QString::fromUtf8(QJsonDocument(event.toObject()).toJson(QJsonDocument::Compact)));
        return found;
    }

private Q_SLOTS:
    void aNewDaemonAdoptsWhatThePreviousOneStarted()
    {
        // The package before: the same programs installed somewhere else, found beside its cordond.
        QTemporaryDir previous;
        QVERIFY(previous.isValid());
        QVERIFY(QFile::setPermissions(previous.path(), QFile::permissions(previous.path()) | QFile::ExeOther |
                                                           QFile::ReadOther));
        for (const char *program : {"cordond", "cordon-init", "cordon-secret-reader",
                                    "cordon-artifact-export", "cordon-audit-probe"}) {
            const QString name = QString::fromLatin1(program);
            QVERIFY2(QFile::copy(builtProgram(name), previous.filePath(name)), program);
        }
        QVERIFY(m_daemon.start({}, previous.filePath(QStringLiteral("cordond"))));
        const qint64 oldPid = m_daemon.pid();
        const auto created = m_daemon.createContainer(QStringLiteral("upgraded"));
        QVERIFY_RESULT(created);
        const QString id = *created;
        const QByteArray background = marker(1);
        auto prepared = m_daemon.runToEnd(
            id, shell(QStringLiteral("echo written-before > /mnt/data/kept; sleep 300%1 > /dev/null 2>&1 &")
                          .arg(QString::fromLatin1(background))));
        QVERIFY_RESULT(prepared);
        QCOMPARE(prepared->value(QStringLiteral("error_class")).toString(), QStringLiteral("ok"));
        auto longRun =
            m_daemon.call(QStringLiteral("run.exec"),
                          {{QStringLiteral("container"), id},
                           {QStringLiteral("command"),
                            QJsonArray{QStringLiteral("/bin/sh"), QStringLiteral("-c"),
                                       QStringLiteral("echo first-half; sleep 3; echo second-half")}}});
        QVERIFY_RESULT(longRun);
        const QString longRunId =
            longRun->value(QStringLiteral("run")).toObject().value(QStringLiteral("id")).toString();
        QTest::qWait(300);

        // The build's cordon restarts the daemon into the build's cordond (CORDON_DAEMON, set by the
        // fixture).
        const CliResult restarted = runProgram(builtProgram(QStringLiteral("cordon")),
                                               {QStringLiteral("daemon"), QStringLiteral("restart")});
        QVERIFY2(restarted.status == 0, restarted.describe());
        QVERIFY2(restarted.out.contains("its 1 container(s) go on running"), restarted.describe());
        QVERIFY2(restarted.out.contains("cordond started"), restarted.describe());

        Cordon::Daemon::DaemonClient client;
        QVERIFY(client.connectSync(false, 5000));
        const qint64 newPid = client.helloResult().value(QStringLiteral("pid")).toInteger();
        QVERIFY(newPid > 0 && newPid != oldPid);
        QCOMPARE(countHostProcesses("sleep 300" + background + " "), 1); // never stopped
        auto waited =
            client.callSync(QStringLiteral("run.wait"), {{QStringLiteral("run_id"), longRunId}}, 30000);
        QVERIFY_RESULT(waited);
        const QJsonObject run = waited->value(QStringLiteral("run")).toObject();
        QCOMPARE(run.value(QStringLiteral("error_class")).toString(), QStringLiteral("ok"));
        QCOMPARE(run.value(QStringLiteral("stdout")).toString(), QStringLiteral("first-half\nsecond-half\n"));
        auto started =
            client.callSync(QStringLiteral("run.exec"),
                            {{QStringLiteral("container"), id},
                             {QStringLiteral("command"),
                              QJsonArray{QStringLiteral("cat"), QStringLiteral("/mnt/data/kept")}}},
                            10000);
        QVERIFY_RESULT(started);
        auto read =
            client.callSync(QStringLiteral("run.wait"),
                            {{QStringLiteral("run_id"),
                              started->value(QStringLiteral("run")).toObject().value(QStringLiteral("id"))}},
                            30000);
        QVERIFY_RESULT(read);
        QCOMPARE(read->value(QStringLiteral("run")).toObject().value(QStringLiteral("stdout")).toString(),
                 QStringLiteral("written-before\n"));
        const QStringList adopted = eventMessages(client, id, QStringLiteral("container.adopted"));
        QCOMPARE(adopted.size(), 1);
        QVERIFY(eventMessages(client, id, QStringLiteral("container.adoption_refused")).isEmpty());

        // The new daemon is not the fixture's child: the CLI stops it, and it stops the container.
        const CliResult stopped = runProgram(builtProgram(QStringLiteral("cordon")),
                                             {QStringLiteral("daemon"), QStringLiteral("stop")});
        QVERIFY2(stopped.status == 0, stopped.describe());
        QTRY_COMPARE_WITH_TIMEOUT(countHostProcesses("sleep 300" + background + " "), 0, 5000);
        m_daemon.kill(); // long gone; forgets the process
    }

    void aContainerOfAnotherProtocolVersionIsSavedAndStartedAgain()
    {
        // Containers started with a cordon-init that answers an adoption with protocol version 1.
        qputenv("CORDON_INIT", QFile::encodeName(builtProgram(QStringLiteral("cordon-init-older"))));
        const bool started = m_daemon.start();
        qunsetenv("CORDON_INIT");
        QVERIFY(started);
        const auto created = m_daemon.createContainer(QStringLiteral("older"));
        QVERIFY_RESULT(created);
        const QString id = *created;
        const QByteArray background = marker(2);
        auto prepared = m_daemon.runToEnd(
            id, shell(QStringLiteral("echo acknowledged > /mnt/data/kept; sleep 300%1 > /dev/null 2>&1 &")
                          .arg(QString::fromLatin1(background))));
        QVERIFY_RESULT(prepared);
        QCOMPARE(countHostProcesses("sleep 300" + background + " "), 1);

        m_daemon.kill(); // the containers outlive it, as they would an upgrade
        QCOMPARE(countHostProcesses("sleep 300" + background + " "), 1);
        QVERIFY(m_daemon.start());
        const QStringList refused =
            eventMessages(*m_daemon.client, id, QStringLiteral("container.adoption_refused"));
        QCOMPARE(refused.size(), 1);
        QVERIFY2(refused.first().contains(QStringLiteral("protocol version 1")), qPrintable(refused.first()));
        QVERIFY2(refused.first().contains(QStringLiteral("its files were saved")),
                 qPrintable(refused.first()));
        // Its processes ended with it; the acknowledged write is in the container started again.
        QTRY_COMPARE_WITH_TIMEOUT(countHostProcesses("sleep 300" + background + " "), 0, 5000);
        auto container = m_daemon.call(QStringLiteral("container.get"), {{QStringLiteral("id"), id}});
        QVERIFY_RESULT(container);
        QCOMPARE(container->value(QStringLiteral("container"))
                     .toObject()
                     .value(QStringLiteral("state"))
                     .toString(),
                 QStringLiteral("running"));
        auto read = m_daemon.runToEnd(id, shell(QStringLiteral("cat /mnt/data/kept")));
        QVERIFY_RESULT(read);
        QCOMPARE(read->value(QStringLiteral("stdout")).toString(), QStringLiteral("acknowledged\n"));
        QVERIFY_RESULT(m_daemon.call(QStringLiteral("container.delete"), {{QStringLiteral("id"), id}}));
        QVERIFY(m_daemon.stop());
    }
};

CORDON_SANDBOX_TEST_MAIN(TestDaemonUpgrade)
#include "tst_daemonupgrade.moc"
