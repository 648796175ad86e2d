// SPDX-License-Identifier: MIT
// The trainer's demo clock: idle time runs 60 times faster for demo containers only (those the Demo menu or
// the welcome page made, and those the trainer marks), so that expiry can be shown in seconds while every
// other container of the daemon keeps real time. Putting a container that is not a demo on the fast clock
// expires it, files and all, within seconds: the trainer is asked first (daemon.set_time_scale,
// container.set_demo).
#pragma once

#include <QJsonObject>
#include <QObject>
#include <QString>

class QAction;
class QWidget;

namespace Cordon::Ui {

class ContainerListModel;
class DaemonConnection;

class DemoClock final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(DemoClock)

public:
    static constexpr double FastScale = 60;

    // Questions are asked over `window`, which also owns the actions.
    DemoClock(DaemonConnection &connection, ContainerListModel &model, QWidget *window);

    // Demo > Fast Idle Clock (checkable) and Demo > Mark as Demo Container (checkable, for the selection).
    QAction *fastClockAction() const { return m_fastClock; }
    QAction *markAction() const { return m_mark; }
    // The daemon's demo clock, as its hello said or the last change answered.
    double scale() const { return m_scale; }
    void setScaleFromDaemon(double scale);
    // The selected container, whose mark markAction() shows and changes; refreshed on its changes.
    void setCurrentContainer(const QString &id);
    void refresh();

Q_SIGNALS:
    void scaleChanged(double scale);
    void message(const QString &text);

private:
    void setFast(bool fast);
    void setMarked(bool marked);
    // The daemon's demo clock to `scale`; `joining` become demos.
    void applyScale(double scale, const QStringList &joining);
    void applyMark(const QString &id, bool demo);
    // The selection when it is live (running or stopped) and not a demo, else an empty object.
    QJsonObject currentNonDemo() const;
    // "20 idle minutes" on the fast clock: how soon a container would expire, in words.
    static QString fastIdleWords(const QJsonObject &container);

    DaemonConnection &m_connection;
    ContainerListModel &m_model;
    QWidget *m_window;
    QAction *m_fastClock;
    QAction *m_mark;
    QString m_currentId;
    double m_scale = 1;
};

} // namespace Cordon::Ui
