// SPDX-License-Identifier: MIT
#include "connectionbanner.h"

#include "appearance.h"
#include "daemonconnection.h"
#include "messagetone.h"
#include "paletteicon.h"

#include <QApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>

namespace Cordon::Ui {

ConnectionBanner::ConnectionBanner(DaemonConnection &connection, QWidget *parent)
    : QFrame(parent), m_connection(connection), m_icon(new QLabel(this)), m_message(new QLabel(this)),
      m_retry(new QPushButton(tr("Retry &now"), this))
{
    setObjectName(QStringLiteral("connectionBanner"));
    setAccessibleName(tr("Connection status"));
    setAutoFillBackground(true);
    applyTheme();
    // Made for the palette of the moment: a new theme needs new colours (a light tint under the dark
    // theme's near-white text was unreadable).
    connect(Appearance::notifier(), &AppearanceNotifier::themeChanged, this, &ConnectionBanner::applyTheme);
    m_message->setWordWrap(true);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_retry->setAccessibleName(tr("Retry connecting to cordond now"));
    connect(m_retry, &QPushButton::clicked, &m_connection, &DaemonConnection::retryNow);

    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(12, 6, 12, 6);
    layout->setSpacing(10);
    layout->addWidget(m_icon);
    layout->addWidget(m_message, 1);
    layout->addWidget(m_retry);

    m_tick.setInterval(500);
    connect(&m_tick, &QTimer::timeout, this, &ConnectionBanner::refresh);
    connect(&m_connection, &DaemonConnection::statusChanged, this, &ConnectionBanner::refresh);
    connect(&m_connection, &DaemonConnection::answeringChanged, this, &ConnectionBanner::refresh);
    refresh();
}

void ConnectionBanner::applyTheme()
{
    const ToneColours colours = toneColours(Tone::Warning, QApplication::palette());
    // A style sheet paints the background itself and ignores the palette's, so background and text go in it.
    setStyleSheet(QStringLiteral("#connectionBanner { background: %1; border-bottom: 1px solid %2; } "
                                 "#connectionBanner QLabel { color: %3; }")
                      .arg(colours.background.name(), colours.border.name(), colours.text.name()));
    m_icon->setPixmap(paletteIcon(QStringLiteral("disconnected"), colours.accent).pixmap(20, 20));
}

QString ConnectionBanner::text() const
{
    return isVisible() ? m_message->text() : QString();
}

void ConnectionBanner::refresh()
{
    switch (m_connection.status()) {
    case DaemonConnection::Status::Connected:
        m_everConnected = true;
        if (!m_connection.isAnswering()) {
            showNotAnswering();
            return;
        }
        m_tick.stop();
        hide();
        return;
    case DaemonConnection::Status::Connecting:
        m_tick.stop();
        // The first connection usually takes a moment (starting the daemon); a banner for it would flash.
        hide();
        return;
    case DaemonConnection::Status::Reconnecting:
        break;
    }
    const int seconds = (m_connection.retryInMs() + 999) / 1000;
    const QString headline = m_everConnected ? tr("Lost connection to cordond — reconnecting…")
                                             : tr("Cannot reach cordond — retrying…");
    QString detail = toQt(m_connection.lastError().message());
    if (seconds > 0)
        detail +=
            (detail.isEmpty() ? QString() : QStringLiteral(" · ")) + tr("next attempt in %1 s").arg(seconds);
    showMessage(headline, detail);
    m_retry->show();
}

void ConnectionBanner::showNotAnswering()
{
    // Connected, so there is nothing to retry: the daemon may be stopped (SIGSTOP, a debugger) or stuck.
    showMessage(tr("cordond is not answering — waiting for it…"),
                tr("no answer for %1 s; what you asked for is done when it answers again")
                    .arg(m_connection.silentForMs() / 1000));
    m_retry->hide();
}

void ConnectionBanner::showMessage(const QString &headline, const QString &detail)
{
    m_message->setText(
        QStringLiteral("<b>%1</b><br>%2").arg(headline.toHtmlEscaped(), detail.toHtmlEscaped()));
    setAccessibleDescription(headline);
    m_tick.start();
    show();
}

} // namespace Cordon::Ui
