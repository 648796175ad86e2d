// SPDX-License-Identifier: MIT
// The selected container's idle countdown: the time left before the daemon deletes it with its files, a bar
// that turns amber in the last tenth, a keep-alive button, and, once it has happened, the expired state said
// plainly.
#pragma once

#include <QJsonObject>
#include <QTimer>
#include <QWidget>

#include <functional>

class QLabel;
class QProgressBar;
class QPushButton;

namespace Cordon::Ui {

class IdleTimer final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(IdleTimer)

public:
    explicit IdleTimer(QWidget *parent = nullptr);

    // The container as the daemon last described it; an empty object shows nothing selected.
    void setContainer(const QJsonObject &container);
    void setKeepAliveEnabled(bool enabled);
    void setClock(std::function<qint64()> clock) { m_clock = std::move(clock); }

    // For tests and screen readers.
    QString countdownText() const;
    QString stateText() const;
    bool isWarning() const { return m_warning; }
    bool isExpired() const { return m_expired; }

Q_SIGNALS:
    void keepAliveRequested(const QString &containerId);

private:
    void refresh();
    void applyCountdownFont();

    QJsonObject m_container;
    std::function<qint64()> m_clock;
    QTimer m_tick;
    bool m_warning = false;
    bool m_expired = false;
    bool m_keepAliveEnabled = true;

    QLabel *m_countdown;
    QProgressBar *m_bar;
    QLabel *m_state;
    QPushButton *m_keepAlive;
};

} // namespace Cordon::Ui
