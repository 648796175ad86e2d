// SPDX-License-Identifier: MIT
#include "fitscrollarea.h"

#include <QScrollBar>

namespace Cordon::Ui {

FitScrollArea::FitScrollArea(QWidget *content, QWidget *parent) : QScrollArea(parent)
{
    setWidgetResizable(true);
    setFrameShape(QFrame::NoFrame);
    setWidget(content);
}

void FitScrollArea::setWidthCap(int cap)
{
    if (cap == m_widthCap)
        return;
    m_widthCap = cap;
    updateGeometry();
}

QSize FitScrollArea::sizeHint() const
{
    const QWidget *content = widget();
    QSize size = content->sizeHint().expandedTo(content->minimumSizeHint());
    if (content->hasHeightForWidth())
        size.setHeight(content->heightForWidth(size.width()));
    return size;
}

QSize FitScrollArea::minimumSizeHint() const
{
    int width = widget()->minimumSizeHint().width() + verticalScrollBar()->sizeHint().width();
    if (m_widthCap > 0)
        width = qMin(width, m_widthCap);
    return QSize(width, 5 * fontMetrics().height());
}

} // namespace Cordon::Ui
