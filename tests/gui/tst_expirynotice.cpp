// SPDX-License-Identifier: MIT
// The desktop notification before a container expires, over a real D-Bus: the test starts a private session
// bus (dbus-daemon) and plays the notification server on it, as GNOME or KDE would, while the workbench runs
// against a real cordond whose idle clock runs 60 times faster. The warning names the container and offers
// Keep Alive; pressing it keeps the container alive and takes the warning back; left alone, the container
// expires and the notice says so.
#include "guitest.h"
#include "windowtest.h"

#include "containerlistmodel.h"
#include "daemonconnection.h"
#include "mainwindow.h"

#include <QDBusConnection>
#include <QDBusMessage>

#include <csignal>
#include <cstdio>
#include <cstdlib>

using namespace Cordon::Ui;

namespace {

const QString NotificationsPath = QStringLiteral("/org/freedesktop/Notifications");
const QString NotificationsInterface = QStringLiteral("org.freedesktop.Notifications");

} // namespace

// What a desktop's notification daemon offers, reduced to what the test checks.
class FakeNotificationServer final : public QObject
{
    Q_OBJECT
    Q_CLASSINFO("D-Bus Interface", "org.freedesktop.Notifications")

public:
    struct Notice
    {
        uint id;
        uint replaces;
        QString summary;
        QString body;
        QStringList actions;
    };
    QList<Notice> notices;
    QList<uint> closed;

public Q_SLOTS:
    uint Notify(const QString &, uint replacesId, const QString &, const QString &summary,
                const QString &body, const QStringList &actions, const QVariantMap &, int)
    {
        const uint id = replacesId != 0 ? replacesId : ++m_lastId;
        notices.append({id, replacesId, summary, body, actions});
        return id;
    }
    void CloseNotification(uint id) { closed.append(id); }
    QStringList GetCapabilities() { return {QStringLiteral("actions"), QStringLiteral("body")}; }

private:
    uint m_lastId = 0;
};

class ExpiryNoticeTest final : public QObject
{
    Q_OBJECT

    QString createContainer(const QString &name, int idleMinutes)
    {
        const QJsonObject policy{{QStringLiteral("name"), name},
                                 {QStringLiteral("expires_after"),
                                  QJsonObject{{QStringLiteral("anchor"), QStringLiteral("last_active_at")},
                                              {QStringLiteral("minutes"), idleMinutes}}}};
        const auto created = CordonGuiTest::callAndWait(
            m_window->connection(), QStringLiteral("container.create"), {{QStringLiteral("policy"), policy}});
        if (!created) {
            qWarning() << Cordon::toQt(created.error().describe());
            return {};
        }
        return created->value(QStringLiteral("container")).toObject().value(QStringLiteral("id")).toString();
    }

    QJsonObject container(const QString &id) const { return m_window->containerModel().container(id); }

    const FakeNotificationServer::Notice *lastNoticeMatching(const QString &text) const
    {
        for (auto it = m_server.notices.crbegin(); it != m_server.notices.crend(); ++it)
            if (it->summary.contains(text))
                return &*it;
        return nullptr;
    }

private Q_SLOTS:
    void initTestCase()
    {
        const QByteArray address = qgetenv("DBUS_SESSION_BUS_ADDRESS");
        QVERIFY2(!address.isEmpty(), "main() starts a private session bus");
        m_serverBus = std::make_unique<QDBusConnection>(
            QDBusConnection::connectToBus(QString::fromUtf8(address), QStringLiteral("fake-notifications")));
        QVERIFY2(m_serverBus->isConnected(), qPrintable(m_serverBus->lastError().message()));
        QVERIFY(m_serverBus->registerService(NotificationsInterface));
        QVERIFY(m_serverBus->registerObject(NotificationsPath, &m_server, QDBusConnection::ExportAllSlots));

        // 60x: a 2-minute idle period lasts 2 s; the warning comes 60 scaled seconds (1 s) before the end.
        QVERIFY(m_daemon.start({QStringLiteral("--time-scale"), QStringLiteral("60"),
                                QStringLiteral("--expiring-soon"), QStringLiteral("60")}));
        m_window = CordonGuiTest::openConnectedWindow();
        QVERIFY(m_window);
    }

    void cleanupTestCase()
    {
        m_window.reset();
        QVERIFY(m_daemon.stop());
        m_serverBus->unregisterObject(NotificationsPath);
        QDBusConnection::disconnectFromBus(QStringLiteral("fake-notifications"));
    }

    void keepAliveFromTheNotification()
    {
        const QString id = createContainer(QStringLiteral("notice-demo"), 2);
        QVERIFY(!id.isEmpty());
        QTRY_VERIFY_WITH_TIMEOUT(lastNoticeMatching(QStringLiteral("“notice-demo” expires in")), 10000);
        const FakeNotificationServer::Notice warning = *lastNoticeMatching(QStringLiteral("expires in"));
        QVERIFY2(warning.body.contains(QStringLiteral("every file in its workspace is deleted")),
                 qPrintable(warning.body));
        QVERIFY2(warning.actions.contains(QStringLiteral("keep-alive")),
                 qPrintable(warning.actions.join(QLatin1Char(','))));
        const qint64 warnedDeadline = container(id).value(QStringLiteral("expires_at")).toInteger();

        // The user presses Keep Alive on the notification.
        QDBusMessage pressed = QDBusMessage::createSignal(NotificationsPath, NotificationsInterface,
                                                          QStringLiteral("ActionInvoked"));
        pressed << warning.id << QStringLiteral("keep-alive");
        QVERIFY(m_serverBus->send(pressed));
        QTRY_VERIFY_WITH_TIMEOUT(
            container(id).value(QStringLiteral("expires_at")).toInteger() > warnedDeadline, 5000);
        QCOMPARE(container(id).value(QStringLiteral("state")).toString(), QStringLiteral("running"));
        // The warning no longer holds, so it is taken off the screen.
        QTRY_VERIFY_WITH_TIMEOUT(m_server.closed.contains(warning.id), 5000);
    }

    void leftAloneItExpiresAndTheNoticeSaysSo()
    {
        const QString id = createContainer(QStringLiteral("notice-gone"), 2);
        QVERIFY(!id.isEmpty());
        QTRY_VERIFY_WITH_TIMEOUT(lastNoticeMatching(QStringLiteral("“notice-gone” expires in")), 10000);
        const uint warningId = lastNoticeMatching(QStringLiteral("“notice-gone” expires in"))->id;
        QTRY_COMPARE_WITH_TIMEOUT(container(id).value(QStringLiteral("state")).toString(),
                                  QStringLiteral("expired"), 10000);
        QTRY_VERIFY_WITH_TIMEOUT(lastNoticeMatching(QStringLiteral("“notice-gone” expired")), 5000);
        const FakeNotificationServer::Notice expired =
            *lastNoticeMatching(QStringLiteral("“notice-gone” expired"));
        // It replaces the warning rather than piling up beside it.
        QCOMPARE(expired.replaces, warningId);
        QVERIFY2(expired.body.contains(QStringLiteral("files deleted")), qPrintable(expired.body));
        QVERIFY(expired.actions.isEmpty());
    }

    // Idle past its deadline while no daemon ran: the next daemon gives it a grace period, and the
    // workbench opened afterwards announces it once on the desktop, with Keep Alive, which ends it.
    void aGracePeriodIsAnnouncedWithKeepAlive()
    {
        const QString id = createContainer(QStringLiteral("grace-demo"), 1); // 1 s at 60x
        QVERIFY(!id.isEmpty());
        m_window.reset();
        QVERIFY(m_daemon.stop());
        QTest::qWait(1500);
        // 600 scaled seconds of grace: 10 s.
        QVERIFY(m_daemon.start({QStringLiteral("--time-scale"), QStringLiteral("60"),
                                QStringLiteral("--expiring-soon"), QStringLiteral("60")}));
        m_window = CordonGuiTest::openConnectedWindow();
        QVERIFY(m_window);
        QVERIFY(container(id).contains(QStringLiteral("grace_since")));
        QTRY_VERIFY_WITH_TIMEOUT(lastNoticeMatching(QStringLiteral("“grace-demo” is in its grace period")),
                                 5000);
        const FakeNotificationServer::Notice notice =
            *lastNoticeMatching(QStringLiteral("“grace-demo” is in its grace period"));
        QVERIFY2(notice.body.contains(QStringLiteral("while no daemon ran")), qPrintable(notice.body));
        QVERIFY(notice.actions.contains(QStringLiteral("keep-alive")));
        const qsizetype announced = m_server.notices.size();

        QDBusMessage pressed = QDBusMessage::createSignal(NotificationsPath, NotificationsInterface,
                                                          QStringLiteral("ActionInvoked"));
        pressed << notice.id << QStringLiteral("keep-alive");
        QVERIFY(m_serverBus->send(pressed));
        QTRY_VERIFY_WITH_TIMEOUT(!container(id).contains(QStringLiteral("grace_since")), 5000);
        QCOMPARE(container(id).value(QStringLiteral("state")).toString(), QStringLiteral("running"));
        // Announced once: the update that ended it brings no second notice of it.
        for (qsizetype i = announced; i < m_server.notices.size(); ++i)
            QVERIFY(!m_server.notices.at(i).summary.contains(QStringLiteral("grace period")));
    }

private:
    CordonTest::DaemonFixture m_daemon;
    FakeNotificationServer m_server;
    std::unique_ptr<QDBusConnection> m_serverBus;
    std::unique_ptr<MainWindow> m_window;
};

// A private session bus for the test, started before QApplication: the workbench connects to the session
// bus when its window is built, and nothing of the host's desktop must answer.
int main(int argc, char *argv[])
{
    FILE *daemon = ::popen("dbus-daemon --session --fork --print-address=1 --print-pid=1", "r");
    char address[512] = {};
    char pid[32] = {};
    if (!daemon || !std::fgets(address, sizeof address, daemon) || !std::fgets(pid, sizeof pid, daemon)) {
        std::fprintf(stderr, "dbus-daemon could not be started (packaging/bootstrap.sh installs it)\n");
        return qEnvironmentVariableIntValue("CORDON_MUST_WORK") == 1 ? 1 : 77;
    }
    ::pclose(daemon);
    QByteArray line(address);
    qputenv("DBUS_SESSION_BUS_ADDRESS", line.trimmed());
    const int status =
        CordonGuiTest::guiTestMain<ExpiryNoticeTest>(argc, argv, CordonGuiTest::Needs::Sandbox);
    ::kill(static_cast<pid_t>(std::atoi(pid)), SIGTERM);
    return status;
}

#include "tst_expirynotice.moc"
