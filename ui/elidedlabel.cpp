// SPDX-License-Identifier: MIT
#include "elidedlabel.h"

#include <QPainter>
#include <QStyle>

namespace Cordon::Ui {

ElidedLabel::ElidedLabel(QWidget *parent) : QLabel(parent)
{
    setTextFormat(Qt::PlainText);
    setWordWrap(false);
}

QSize ElidedLabel::minimumSizeHint() const
{
    QSize size = QLabel::minimumSizeHint();
    const QMargins margins = contentsMargins();
    // About seven characters and the ellipsis: enough to tell containers apart at a glance.
    const int few = fontMetrics().averageCharWidth() * 8 + margins.left() + margins.right();
    size.setWidth(qMin(size.width(), few));
    return size;
}

void ElidedLabel::setShortText(const QString &shortText)
{
    m_shortText = shortText;
    update();
}

QString ElidedLabel::shownText() const
{
    const int width = contentsRect().width();
    const bool fits = fontMetrics().horizontalAdvance(text()) <= width;
    const QString &candidate = fits || m_shortText.isEmpty() ? text() : m_shortText;
    return fontMetrics().elidedText(candidate, Qt::ElideRight, width);
}

void ElidedLabel::paintEvent(QPaintEvent *)
{
    QPainter painter(this);
    const QRect area = contentsRect();
    const QString shown = shownText();
    style()->drawItemText(&painter, area, QStyle::visualAlignment(layoutDirection(), alignment()), palette(),
                          isEnabled(), shown, foregroundRole());
    // Here because QLabel::setText is not virtual and announces nothing: a new text and a new width both
    // come through a paint.
    const QString tip = shown == text() ? QString() : text();
    if (toolTip() != tip)
        setToolTip(tip);
}

} // namespace Cordon::Ui
