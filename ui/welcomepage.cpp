// SPDX-License-Identifier: MIT
#include "welcomepage.h"

#include "paletteicon.h"

#include <QEvent>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace Cordon::Ui {

WelcomePage::WelcomePage(QWidget *parent)
    : QWidget(parent), m_demo(new QPushButton(tr("Create a &demo container"), this)),
      m_custom(new QPushButton(paletteIcon(QStringLiteral("container-new")), tr("&New container…"), this)),
      m_status(new QLabel(this))
{
    setAccessibleName(tr("Welcome"));
    auto *logo = new QLabel(this);
    logo->setPixmap(QIcon(QStringLiteral(":/icons/cordon.svg")).pixmap(72, 72));
    logo->setAlignment(Qt::AlignCenter);
    auto *title = new QLabel(tr("Run untrusted code in a sealed container"), this);
    QFont titleFont = title->font();
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.6);
    titleFont.setWeight(QFont::DemiBold);
    title->setFont(titleFont);
    title->setAlignment(Qt::AlignCenter);
    title->setWordWrap(true);
    auto *body = m_body = new QLabel(
        tr("A container has its own memory limit, no network and no view of your files. Write code in the "
           "editor, run it with Ctrl+Return, and watch its output, its memory and its idle timer. A "
           "container "
           "that stays unused is deleted with its files."),
        this);
    body->setAlignment(Qt::AlignCenter);
    body->setWordWrap(true);
    // A fixed width lets the label compute its wrapped height; a maximum alone clips the last line.
    body->setFixedWidth(520);
    fitBody();
    m_demo->setDefault(true);
    m_demo->setIcon(paletteIcon(QStringLiteral("run")));
    m_demo->setAccessibleDescription(
        tr("Creates a container named demo with 1 GiB of memory and a first program"));
    m_demo->setMinimumHeight(m_demo->sizeHint().height() * 5 / 4);
    m_custom->setMinimumHeight(m_demo->minimumHeight());
    auto *hint =
        new QLabel(tr("The demo container has 1 GiB of memory and expires after 20 idle minutes."), this);
    hint->setAlignment(Qt::AlignCenter);
    hint->setWordWrap(true);
    hint->setForegroundRole(QPalette::PlaceholderText);
    m_status->setAlignment(Qt::AlignCenter);
    m_status->setWordWrap(true);
    m_status->setVisible(false);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);

    connect(m_demo, &QPushButton::clicked, this, &WelcomePage::demoRequested);
    connect(m_custom, &QPushButton::clicked, this, &WelcomePage::newContainerRequested);

    auto *buttons = new QHBoxLayout;
    buttons->addStretch();
    buttons->addWidget(m_demo);
    buttons->addSpacing(8);
    buttons->addWidget(m_custom);
    buttons->addStretch();
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(32, 32, 32, 32);
    layout->addStretch(2);
    layout->addWidget(logo);
    layout->addSpacing(12);
    layout->addWidget(title);
    layout->addSpacing(8);
    layout->addWidget(body, 0, Qt::AlignHCenter);
    layout->addSpacing(20);
    layout->addLayout(buttons);
    layout->addSpacing(8);
    layout->addWidget(hint);
    layout->addWidget(m_status);
    layout->addStretch(3);
}

void WelcomePage::fitBody()
{
    m_body->setFixedHeight(m_body->heightForWidth(m_body->width()));
}

void WelcomePage::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::FontChange)
        fitBody();
}

void WelcomePage::setConnected(bool connected)
{
    m_connected = connected;
    m_demo->setEnabled(m_connected && !m_busy);
    m_custom->setEnabled(m_connected && !m_busy);
}

void WelcomePage::setBusy(bool busy)
{
    m_busy = busy;
    setConnected(m_connected);
    if (busy) {
        m_status->setPalette(palette());
        m_status->setText(tr("Starting the demo container…"));
        m_status->setVisible(true);
    } else {
        m_status->setVisible(false);
    }
}

void WelcomePage::setError(const QString &text)
{
    QPalette errorPalette = m_status->palette();
    errorPalette.setColor(QPalette::WindowText, QColor(0xc0, 0x1c, 0x28));
    m_status->setPalette(errorPalette);
    m_status->setText(text);
    m_status->setVisible(!text.isEmpty());
}

} // namespace Cordon::Ui
