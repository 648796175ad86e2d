// SPDX-License-Identifier: MIT
// A scroll area that asks for all of its content and gives way down to a few lines: QScrollArea's own size
// hint stops at 36 by 24 lines of text, so a dialog or dock sized from it scrolls on any screen, while the
// content's minimum, taken as the area's, makes a window taller than a small screen. Here the content gets
// its preferred size where there is room and scrolls where there is not. Its width stays at least the
// content's minimum (plus a scroll bar), up to an optional cap past which it scrolls sideways too.
#pragma once

#include <QScrollArea>

namespace Cordon::Ui {

class FitScrollArea final : public QScrollArea
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(FitScrollArea)

public:
    // Takes `content`, without a frame, scrolling up and down as needed.
    FitScrollArea(QWidget *content, QWidget *parent);

    // The most the minimum width may be (0: no cap), for a dialog on a screen narrower than its content.
    void setWidthCap(int cap);

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

private:
    int m_widthCap = 0;
};

} // namespace Cordon::Ui
