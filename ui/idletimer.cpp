// SPDX-License-Identifier: MIT
#include "idletimer.h"

#include "appearance.h"
#include "containerlistmodel.h"
#include "core/formatting.h"
#include "messagetone.h"
#include "paletteicon.h"

#include <QApplication>
#include <QDateTime>
#include <QGridLayout>
#include <QGuiApplication>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>

namespace Cordon::Ui {

namespace {

QColor warningColour()
{
    return toneColours(Tone::Warning, QGuiApplication::palette()).accent;
}

} // namespace

IdleTimer::IdleTimer(QWidget *parent)
    : QWidget(parent), m_clock([] { return QDateTime::currentMSecsSinceEpoch(); }),
      m_countdown(new QLabel(this)), m_bar(new QProgressBar(this)), m_state(new QLabel(this)),
      m_keepAlive(new QPushButton(paletteIcon(QStringLiteral("keep-alive")), tr("&Keep alive"), this))
{
    setAccessibleName(tr("Idle timer"));
    applyCountdownFont();
    connect(Appearance::notifier(), &AppearanceNotifier::fontsChanged, this, &IdleTimer::applyCountdownFont);
    m_countdown->setAccessibleName(tr("Time left before the container expires"));
    m_bar->setTextVisible(false);
    m_bar->setRange(0, 1000);
    m_bar->setFixedHeight(6);
    m_bar->setAccessibleName(tr("Idle time left"));
    m_state->setWordWrap(true);
    m_keepAlive->setToolTip(tr("Count this as activity: the idle timer starts again from the full period"));
    m_keepAlive->setAccessibleName(tr("Keep the container alive"));
    connect(m_keepAlive, &QPushButton::clicked, this,
            [this] { Q_EMIT keepAliveRequested(m_container.value(QStringLiteral("id")).toString()); });

    auto *layout = new QGridLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setHorizontalSpacing(12);
    layout->setVerticalSpacing(6);
    layout->addWidget(m_countdown, 0, 0, Qt::AlignLeft | Qt::AlignVCenter);
    layout->addWidget(m_keepAlive, 0, 1, Qt::AlignRight | Qt::AlignVCenter);
    layout->addWidget(m_bar, 1, 0, 1, 2);
    layout->addWidget(m_state, 2, 0, 1, 2);
    layout->setColumnStretch(0, 1);

    m_tick.setInterval(250); // a quarter second, so the displayed second never lags by a whole one
    connect(&m_tick, &QTimer::timeout, this, &IdleTimer::refresh);
    refresh();
}

void IdleTimer::applyCountdownFont()
{
    QFont big = QApplication::font();
    big.setPointSizeF(big.pointSizeF() * 1.8);
    big.setWeight(QFont::DemiBold);
    m_countdown->setFont(big);
}

void IdleTimer::setContainer(const QJsonObject &container)
{
    m_container = container;
    refresh();
}

void IdleTimer::setKeepAliveEnabled(bool enabled)
{
    m_keepAliveEnabled = enabled;
    refresh();
}

QString IdleTimer::countdownText() const
{
    return m_countdown->text();
}

QString IdleTimer::stateText() const
{
    return m_state->text();
}

void IdleTimer::refresh()
{
    const QString state = m_container.value(QStringLiteral("state")).toString();
    const bool counting = state == QLatin1String("running") || state == QLatin1String("stopped");
    m_expired = state == QLatin1String("expired");
    if (counting)
        m_tick.start();
    else
        m_tick.stop();

    QPalette countdownPalette = palette();
    if (m_container.isEmpty()) {
        m_warning = false;
        m_countdown->setText(QStringLiteral("—"));
        m_state->setText(tr("No container selected."));
        m_bar->setValue(0);
        m_keepAlive->setEnabled(false);
    } else if (m_expired) {
        m_warning = false;
        m_countdown->setText(tr("Expired"));
        countdownPalette.setColor(QPalette::WindowText,
                                  palette().color(QPalette::Disabled, QPalette::WindowText));
        const int minutes = m_container.value(QStringLiteral("policy"))
                                .toObject()
                                .value(QStringLiteral("expires_after"))
                                .toObject()
                                .value(QStringLiteral("minutes"))
                                .toInt();
        const QString period = minutes == 1 ? tr("1 minute") : tr("%1 minutes").arg(minutes);
        // Under the demo clock the idle period passed in less real time than its minutes say: the text tells
        // the time that really passed, and what it stood for.
        const double scale = qMax(1.0, m_container.value(QStringLiteral("time_scale")).toDouble(1));
        const QString idle = scale > 1
                                 ? tr("%1, which the demo clock at %2× counts as %3")
                                       .arg(Format::duration(ContainerListModel::idlePeriodMs(m_container)))
                                       .arg(scale)
                                       .arg(period)
                                 : period;
        m_state->setText(tr("Expired — files are gone. Nothing happened in it for %1, so everything inside "
                            "was deleted. Create a new container to continue.")
                             .arg(idle));
        m_bar->setValue(0);
        m_keepAlive->setEnabled(false);
    } else if (counting) {
        const qint64 period = qMax<qint64>(1, ContainerListModel::idlePeriodMs(m_container));
        const qint64 left =
            qMax<qint64>(0, m_container.value(QStringLiteral("expires_at")).toInteger() - m_clock());
        m_warning = double(left) < ContainerListModel::WarningFraction * double(period);
        m_countdown->setText(left > 0 ? Format::countdown(left) : tr("Expiring…"));
        m_bar->setValue(static_cast<int>(qBound(qint64(0), left * 1000 / period, qint64(1000))));
        QPalette barPalette = m_bar->palette();
        barPalette.setColor(QPalette::Highlight,
                            m_warning ? warningColour() : palette().color(QPalette::Highlight));
        m_bar->setPalette(barPalette);
        if (m_warning)
            countdownPalette.setColor(QPalette::WindowText, warningColour());
        const QString when =
            QDateTime::fromMSecsSinceEpoch(m_clock() + left).toString(QStringLiteral("HH:mm:ss"));
        // Its deadline passed while no daemon ran: said first, since the countdown is the grace period.
        const bool inGrace = m_container.contains(QStringLiteral("grace_since"));
        if (inGrace)
            m_warning = true;
        m_state->setText(
            inGrace ? tr("Grace period: it was idle past its deadline while no daemon ran. Its files "
                         "are deleted at %1 unless it is used or kept alive.")
                          .arg(when)
            : m_warning ? tr("Expires soon, at %1: its files will be deleted unless it is used or kept "
                             "alive.")
                              .arg(when)
            : state == QLatin1String("stopped")
                ? tr("Stopped. Files are kept until %1 unless it is used.").arg(when)
                : tr("Deleted with its files at %1 if nothing happens in it. Every run "
                     "counts as activity.")
                      .arg(when));
        m_keepAlive->setEnabled(m_keepAliveEnabled);
    } else {
        m_warning = false;
        m_countdown->setText(QStringLiteral("—"));
        m_state->setText(QString());
        m_keepAlive->setEnabled(false);
    }
    m_countdown->setPalette(countdownPalette);
    m_countdown->setAccessibleDescription(m_state->text());
}

} // namespace Cordon::Ui
