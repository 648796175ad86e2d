// SPDX-License-Identifier: MIT
#include "democlock.h"

#include "containerlistmodel.h"
#include "core/formatting.h"
#include "core/plainbridge.h"
#include "daemonconnection.h"

#include <QAction>
#include <QJsonArray>
#include <QMessageBox>
#include <QPushButton>
#include <QWidget>

namespace Cordon::Ui {

DemoClock::DemoClock(DaemonConnection &connection, ContainerListModel &model, QWidget *window)
    : QObject(window), m_connection(connection), m_model(model), m_window(window),
      m_fastClock(new QAction(tr("&Fast Idle Clock for Demos (1 Minute = 1 Second)"), window)),
      m_mark(new QAction(tr("&Mark as Demo Container"), window))
{
    m_fastClock->setObjectName(QStringLiteral("fastClockAction"));
    m_fastClock->setCheckable(true);
    m_fastClock->setToolTip(tr("Idle time runs 60 times faster for demo containers (made by the Demo menu or "
                               "marked as demos), so that expiry can be shown in seconds. Every other "
                               "container keeps real time."));
    m_mark->setObjectName(QStringLiteral("markDemoAction"));
    m_mark->setCheckable(true);
    m_mark->setToolTip(tr("The selected container follows the demo clock (or, unmarked, real time again)"));
    connect(m_fastClock, &QAction::toggled, this, &DemoClock::setFast);
    connect(m_mark, &QAction::toggled, this, &DemoClock::setMarked);
    connect(&m_model, &QAbstractItemModel::dataChanged, this, &DemoClock::refresh);
    connect(&m_model, &QAbstractItemModel::rowsRemoved, this, &DemoClock::refresh);
    refresh();
}

void DemoClock::setScaleFromDaemon(double scale)
{
    m_scale = scale;
    const QSignalBlocker blocker(m_fastClock);
    m_fastClock->setChecked(m_scale > 1);
    Q_EMIT scaleChanged(m_scale);
}

void DemoClock::setCurrentContainer(const QString &id)
{
    m_currentId = id;
    refresh();
}

namespace {

// Running or stopped: a container whose clock still matters.
bool isLive(const QJsonObject &container)
{
    const QString state = container.value(QStringLiteral("state")).toString();
    return state == QLatin1String("running") || state == QLatin1String("stopped");
}

} // namespace

void DemoClock::refresh()
{
    const QJsonObject container = m_model.container(m_currentId);
    const bool live = isLive(container);
    m_mark->setEnabled(live && m_connection.isConnected());
    const QSignalBlocker blocker(m_mark);
    m_mark->setChecked(live && container.value(QStringLiteral("demo")).toBool());
}

QJsonObject DemoClock::currentNonDemo() const
{
    const QJsonObject container = m_model.container(m_currentId);
    return isLive(container) && !container.value(QStringLiteral("demo")).toBool() ? container : QJsonObject();
}

QString DemoClock::fastIdleWords(const QJsonObject &container)
{
    const double minutes = container.value(QStringLiteral("policy"))
                               .toObject()
                               .value(QStringLiteral("expires_after"))
                               .toObject()
                               .value(QStringLiteral("minutes"))
                               .toDouble(20);
    return tr("%n idle second(s)", nullptr, qRound(minutes * 60 / FastScale));
}

void DemoClock::setFast(bool fast)
{
    const QJsonObject other = fast ? currentNonDemo() : QJsonObject();
    if (other.isEmpty()) {
        applyScale(fast ? FastScale : 1, {});
        return;
    }
    // The container in front of the trainer is a user's own: it follows the clock only when asked to.
    const QString name = Format::displayName(other.value(QStringLiteral("name")).toString());
    const QString id = other.value(QStringLiteral("id")).toString();
    auto *box =
        new QMessageBox(QMessageBox::Question, tr("Fast Idle Clock"),
                        tr("The fast idle clock runs for demo containers only. Include “%1”?").arg(name),
                        QMessageBox::Cancel, m_window);
    box->setObjectName(QStringLiteral("demoClockQuestion"));
    box->setInformativeText(tr("“%1” is not a demo container. On the fast clock it expires after %2, and "
                               "its files are deleted with it. Other containers keep real time either way.")
                                .arg(name, fastIdleWords(other)));
    QPushButton *demosOnly = box->addButton(tr("&Demo Containers Only"), QMessageBox::AcceptRole);
    demosOnly->setObjectName(QStringLiteral("demosOnlyButton"));
    QPushButton *include = box->addButton(tr("&Include “%1”").arg(name), QMessageBox::DestructiveRole);
    include->setObjectName(QStringLiteral("includeButton"));
    box->setDefaultButton(demosOnly);
    box->setAttribute(Qt::WA_DeleteOnClose);
    connect(box, &QMessageBox::finished, this, [this, box, demosOnly, include, id] {
        if (box->clickedButton() == demosOnly)
            applyScale(FastScale, {});
        else if (box->clickedButton() == include)
            applyScale(FastScale, {id});
        else
            setScaleFromDaemon(m_scale); // Cancel: the clock stays as it was, and the menu says so
    });
    box->open();
}

void DemoClock::setMarked(bool marked)
{
    const QJsonObject container = m_model.container(m_currentId);
    const QString id = m_currentId;
    if (!marked || m_scale <= 1) {
        applyMark(id, marked);
        return;
    }
    const QString name = Format::displayName(container.value(QStringLiteral("name")).toString());
    auto *box =
        new QMessageBox(QMessageBox::Question, tr("Mark as Demo Container"),
                        tr("Put “%1” on the fast demo clock?").arg(name), QMessageBox::Cancel, m_window);
    box->setObjectName(QStringLiteral("demoMarkQuestion"));
    box->setInformativeText(
        tr("The demo clock runs %1 times faster: “%2” expires after %3, and its files are deleted with it.")
            .arg(m_scale)
            .arg(name, fastIdleWords(container)));
    QPushButton *mark = box->addButton(tr("&Mark as Demo"), QMessageBox::DestructiveRole);
    mark->setObjectName(QStringLiteral("markButton"));
    box->setDefaultButton(QMessageBox::Cancel);
    box->setAttribute(Qt::WA_DeleteOnClose);
    connect(box, &QMessageBox::finished, this, [this, box, mark, id] {
        if (box->clickedButton() == mark)
            applyMark(id, true);
        else
            refresh();
    });
    box->open();
}

void DemoClock::applyScale(double scale, const QStringList &joining)
{
    QJsonObject params{{QStringLiteral("scale"), scale}};
    if (!joining.isEmpty())
        params.insert(QStringLiteral("containers"), QJsonArray::fromStringList(joining));
    m_connection.call(QStringLiteral("daemon.set_time_scale"), params, this,
                      [this, scale, joining](Result<QJsonObject> result) {
                          if (!result) {
                              Q_EMIT message(
                                  tr("The daemon kept its clock: %1").arg(toQt(result.error().describe())));
                              setScaleFromDaemon(m_scale);
                              return;
                          }
                          setScaleFromDaemon(result->value(QStringLiteral("time_scale")).toDouble(1));
                          if (scale > 1 && joining.isEmpty() && !m_model.hasDemo())
                              Q_EMIT message(tr("The fast clock is on for demo containers; none is open yet: "
                                                "the Demo menu makes one, or mark one."));
                      });
}

void DemoClock::applyMark(const QString &id, bool demo)
{
    m_connection.call(
        QStringLiteral("container.set_demo"), {{QStringLiteral("id"), id}, {QStringLiteral("demo"), demo}},
        this, [this](Result<QJsonObject> result) {
            if (!result)
                Q_EMIT message(tr("The container kept its clock: %1").arg(toQt(result.error().describe())));
            else
                m_model.update(result->value(QStringLiteral("container")).toObject());
            refresh();
        });
}

} // namespace Cordon::Ui
