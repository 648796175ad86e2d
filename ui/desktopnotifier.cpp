// SPDX-License-Identifier: MIT
#include "desktopnotifier.h"

#include <QDBusConnection>
#include <QDBusPendingCallWatcher>
#include <QDBusPendingReply>
#include <QGuiApplication>
#include <QVariantMap>

namespace Cordon::Ui {

namespace {

const QString Service = QStringLiteral("org.freedesktop.Notifications");
const QString Path = QStringLiteral("/org/freedesktop/Notifications");
const QString Interface = QStringLiteral("org.freedesktop.Notifications");

} // namespace

DesktopNotifier::DesktopNotifier(QObject *parent) : QObject(parent)
{
    QDBusConnection bus = QDBusConnection::sessionBus();
    m_connected = bus.isConnected();
    if (!m_connected)
        return;
    bus.connect(Service, Path, Interface, QStringLiteral("ActionInvoked"), this,
                SLOT(onActionInvoked(uint, QString)));
    bus.connect(Service, Path, Interface, QStringLiteral("NotificationClosed"), this,
                SLOT(onNotificationClosed(uint, uint)));
}

void DesktopNotifier::notify(const QString &tag, const QString &summary, const QString &body,
                             const QList<Action> &actions)
{
    if (!m_connected)
        return;
    QStringList actionList;
    for (const auto &[key, label] : actions)
        actionList << key << label;
    // The desktop entry's id names the application and its icon: both are installed under that id.
    const QString desktopId = QGuiApplication::desktopFileName().isEmpty()
                                  ? QGuiApplication::applicationName()
                                  : QGuiApplication::desktopFileName();
    const QVariantMap hints{{QStringLiteral("desktop-entry"), desktopId},
                            {QStringLiteral("urgency"), QVariant::fromValue<uchar>(1)}};
    QDBusMessage call = QDBusMessage::createMethodCall(Service, Path, Interface, QStringLiteral("Notify"));
    call << QGuiApplication::applicationDisplayName() << m_ids.value(tag, 0u) << desktopId << summary << body
         << actionList << hints << qint32(-1);
    m_withdrawn.remove(tag);
    ++m_pending[tag];
    auto *watcher = new QDBusPendingCallWatcher(QDBusConnection::sessionBus().asyncCall(call), this);
    connect(watcher, &QDBusPendingCallWatcher::finished, this,
            [this, tag](QDBusPendingCallWatcher *finished) {
                finished->deleteLater();
                if (--m_pending[tag] <= 0)
                    m_pending.remove(tag);
                const QDBusPendingReply<uint> reply = *finished;
                if (reply.isError())
                    return; // no notification server on this bus: the status bar has said it already
                const uint id = reply.value();
                const uint earlier = m_ids.value(tag, 0u);
                if (earlier != 0 && earlier != id)
                    close(earlier); // two calls crossed: keep only the newest
                if (m_withdrawn.contains(tag)) {
                    close(id);
                    m_ids.remove(tag);
                    return;
                }
                m_ids.insert(tag, id);
            });
}

void DesktopNotifier::withdraw(const QString &tag)
{
    if (m_pending.contains(tag))
        m_withdrawn.insert(tag);
    const uint id = m_ids.take(tag);
    if (id != 0)
        close(id);
}

void DesktopNotifier::close(uint id)
{
    QDBusMessage call =
        QDBusMessage::createMethodCall(Service, Path, Interface, QStringLiteral("CloseNotification"));
    call << id;
    QDBusConnection::sessionBus().asyncCall(call);
}

void DesktopNotifier::onActionInvoked(uint id, const QString &actionKey)
{
    // The signal goes to every client of the server: only ids of ours mean anything here.
    const QString tag = m_ids.key(id);
    if (!tag.isEmpty())
        Q_EMIT actionInvoked(tag, actionKey);
}

void DesktopNotifier::onNotificationClosed(uint id, uint)
{
    const QString tag = m_ids.key(id);
    if (!tag.isEmpty())
        m_ids.remove(tag);
}

} // namespace Cordon::Ui
