// SPDX-License-Identifier: MIT
// The strip across the top of the window while cordond cannot be reached: what happened, that the workbench
// keeps trying, when the next attempt is, and a button to try at once; or, connected, that cordond has not
// answered for some seconds. Hidden while connected and answering.
#pragma once

#include <QFrame>
#include <QTimer>

class QLabel;
class QPushButton;

namespace Cordon::Ui {

class DaemonConnection;

class ConnectionBanner final : public QFrame
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ConnectionBanner)

public:
    explicit ConnectionBanner(DaemonConnection &connection, QWidget *parent = nullptr);

    QString text() const;

private:
    void refresh();
    void showNotAnswering();
    void showMessage(const QString &headline, const QString &detail);
    void applyTheme();

    DaemonConnection &m_connection;
    bool m_everConnected = false;
    QLabel *m_icon;
    QLabel *m_message;
    QPushButton *m_retry;
    QTimer m_tick;
};

} // namespace Cordon::Ui
