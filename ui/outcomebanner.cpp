// SPDX-License-Identifier: MIT
#include "outcomebanner.h"

#include "appearance.h"
#include "messagetone.h"
#include "paletteicon.h"

#include <QApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QStyle>
#include <QVBoxLayout>

namespace Cordon::Ui {

namespace {

Tone toneOf(OutcomeSummary::Severity severity)
{
    switch (severity) {
    case OutcomeSummary::Severity::Success:
        return Tone::Success;
    case OutcomeSummary::Severity::Contained:
        return Tone::Contained;
    case OutcomeSummary::Severity::Failure:
        return Tone::Failure;
    case OutcomeSummary::Severity::Running:
        return Tone::Running;
    case OutcomeSummary::Severity::Unknown:
        break;
    }
    return Tone::Warning;
}

QString iconFor(OutcomeSummary::Severity severity)
{
    switch (severity) {
    case OutcomeSummary::Severity::Success:
        return QStringLiteral("outcome-ok");
    case OutcomeSummary::Severity::Running:
        return QStringLiteral("outcome-running");
    case OutcomeSummary::Severity::Contained:
    case OutcomeSummary::Severity::Failure:
    case OutcomeSummary::Severity::Unknown:
        break;
    }
    return QStringLiteral("outcome-failed");
}

} // namespace

OutcomeBanner::OutcomeBanner(QWidget *parent)
    : QFrame(parent), m_icon(new QLabel(this)), m_headline(new QLabel(this)), m_explanation(new QLabel(this)),
      m_details(new QLabel(this))
{
    setObjectName(QStringLiteral("outcomeBanner"));
    setAccessibleName(tr("Run outcome"));
    setFrameShape(QFrame::NoFrame);
    setAutoFillBackground(true);
    QFont headlineFont = m_headline->font();
    headlineFont.setBold(true);
    m_headline->setFont(headlineFont);
    m_explanation->setWordWrap(true);
    m_details->setWordWrap(true);
    for (QLabel *label : {m_headline, m_explanation, m_details})
        label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    const int iconSize = style()->pixelMetric(QStyle::PM_LargeIconSize);
    m_icon->setFixedSize(iconSize, iconSize);

    auto *words = new QVBoxLayout;
    words->setSpacing(2);
    words->addWidget(m_headline);
    words->addWidget(m_explanation);
    words->addWidget(m_details);
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(12, 8, 12, 8);
    layout->setSpacing(10);
    layout->addWidget(m_icon, 0, Qt::AlignTop);
    layout->addLayout(words, 1);
    // Presentation mode changes the headline ("Contained: …") of the outcome already shown.
    connect(Appearance::notifier(), &AppearanceNotifier::fontsChanged, this, &OutcomeBanner::apply);
    // A new theme: the same outcome, tinted for the new palette.
    connect(Appearance::notifier(), &AppearanceNotifier::themeChanged, this, &OutcomeBanner::apply);
    clear();
}

void OutcomeBanner::setSummary(const OutcomeSummary &summary)
{
    m_summary = summary;
    apply();
    show();
}

void OutcomeBanner::apply()
{
    if (!m_summary)
        return;
    const OutcomeSummary &summary = *m_summary;
    // The application's palette, never the banner's own: the style sheet below becomes the banner's palette,
    // so mixing into palette() tinted the previous run's tint again, and after a few runs every outcome was
    // the same colour.
    const ToneColours colours = toneColours(toneOf(summary.severity), QApplication::palette(this));
    const int iconSize = m_icon->width();
    m_icon->setPixmap(paletteIcon(iconFor(summary.severity), colours.accent).pixmap(iconSize, iconSize));
    m_background = colours.background;
    // A style sheet paints the background itself and ignores the palette's, so background and text (which
    // must read on it in either theme) both go in it.
    const QString sheet = QStringLiteral("#outcomeBanner { background: %1; border-left: 4px solid %2; } "
                                         "#outcomeBanner QLabel { color: %3; }")
                              .arg(m_background.name(), colours.border.name(), colours.text.name());
    if (sheet != styleSheet())
        setStyleSheet(sheet);
    // In front of a class the headline says what held; the explanation below still says how the run ended.
    m_headline->setText(Appearance::presentation() && !summary.contained.isEmpty() ? summary.contained
                                                                                   : summary.headline);
    m_explanation->setText(summary.explanation);
    m_details->setText(summary.details);
    m_details->setVisible(!summary.details.isEmpty());
    setAccessibleDescription(text());
}

void OutcomeBanner::clear()
{
    m_summary.reset();
    m_headline->clear();
    m_explanation->clear();
    m_details->clear();
    hide();
}

QString OutcomeBanner::text() const
{
    QStringList parts{m_headline->text(), m_explanation->text(), m_details->text()};
    parts.removeAll(QString());
    return parts.join(QLatin1Char('\n'));
}

} // namespace Cordon::Ui
