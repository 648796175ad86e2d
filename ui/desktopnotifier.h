// SPDX-License-Identifier: MIT
// Desktop notifications through the freedesktop Notifications service on the session bus (what GNOME, KDE,
// and every notification daemon implement). Calls are asynchronous, so a slow or absent server never holds up
// the window; without a session bus the notifier stays silent and the window's status bar still says it.
// Each notification has a tag (the container id): a new one with the same tag replaces the old one.
#pragma once

#include <QHash>
#include <QList>
#include <QObject>
#include <QSet>
#include <QString>

#include <utility>

namespace Cordon::Ui {

class DesktopNotifier final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(DesktopNotifier)

public:
    // An action button: a key that comes back in actionInvoked(), and its label.
    using Action = std::pair<QString, QString>;

    explicit DesktopNotifier(QObject *parent = nullptr);

    void notify(const QString &tag, const QString &summary, const QString &body,
                const QList<Action> &actions = {});
    // Closes the tag's notification, if it is still shown.
    void withdraw(const QString &tag);
    bool isShowing(const QString &tag) const { return m_ids.contains(tag) || m_pending.contains(tag); }

Q_SIGNALS:
    void actionInvoked(const QString &tag, const QString &actionKey);

private Q_SLOTS:
    // Signals of the notification server (string-connected: QtDBus connects signals by signature).
    void onActionInvoked(uint id, const QString &actionKey);
    void onNotificationClosed(uint id, uint reason);

private:
    void close(uint id);

    bool m_connected = false;
    QHash<QString, uint> m_ids;    // tag -> the server's id of the notification shown
    QHash<QString, int> m_pending; // tag -> Notify calls not answered yet
    QSet<QString> m_withdrawn;     // withdrawn while a Notify call was pending
};

} // namespace Cordon::Ui
