// SPDX-License-Identifier: MIT
#include "screenfit.h"

#include <QApplication>
#include <QScreen>
#include <QStyle>
#include <QWidget>
#include <QWindow>

namespace Cordon::Ui::ScreenFit {

QRect placeInside(QRect frame, const QRect &available)
{
    frame.setSize(frame.size().boundedTo(available.size()));
    if (frame.right() > available.right())
        frame.moveRight(available.right());
    if (frame.bottom() > available.bottom())
        frame.moveBottom(available.bottom());
    if (frame.left() < available.left())
        frame.moveLeft(available.left());
    if (frame.top() < available.top())
        frame.moveTop(available.top());
    return frame;
}

QRect centredInside(QSize size, QPoint centre, const QRect &available)
{
    QRect frame(QPoint(0, 0), size);
    frame.moveCenter(centre);
    return placeInside(frame, available);
}

QRect availableArea(const QWidget *widget)
{
    const QWidget *window = widget ? widget->window() : nullptr;
    QScreen *screen = nullptr;
    // A dialog not shown yet opens over its parent, on the parent's screen.
    if (window && !window->isVisible() && window->parentWidget())
        screen = QGuiApplication::screenAt(window->parentWidget()->window()->frameGeometry().center());
    // A window where it is, or where a restored geometry puts it.
    if (!screen && window)
        screen = QGuiApplication::screenAt(window->frameGeometry().center());
    // Off every screen (a geometry saved on a monitor since unplugged): the screen Qt would open it on.
    if (!screen && window)
        screen = window->screen();
    if (!screen)
        screen = QGuiApplication::primaryScreen();
    return screen ? screen->availableGeometry() : QRect(0, 0, 1024, 768);
}

QMargins frameMargins(const QWidget *window)
{
    if (const QWindow *handle = window->windowHandle()) {
        const QMargins known = handle->frameMargins();
        if (!known.isNull())
            return known;
    }
    const int border = 4;
    const int title = window->style()->pixelMetric(QStyle::PM_TitleBarHeight, nullptr, window);
    return QMargins(border, title + border, border, border);
}

QSize roomFor(const QWidget *window, const QRect &available)
{
    const QMargins frame = frameMargins(window);
    return available.size() - QSize(frame.left() + frame.right(), frame.top() + frame.bottom());
}

void fitWindow(QWidget *window, Placement placement)
{
    if (window->windowState() & (Qt::WindowMaximized | Qt::WindowFullScreen))
        return;
    const QRect available = availableArea(window);
    const QMargins frame = frameMargins(window);
    // pos() is the frame's corner for a window, also before the window system has drawn a frame.
    QRect wanted(window->pos(), window->size().grownBy(frame));
    if (placement == Placement::Centre)
        wanted.moveCenter(available.center());
    const QRect placed = placeInside(wanted, available);
    window->resize(placed.size().shrunkBy(frame));
    window->move(placed.topLeft());
}

} // namespace Cordon::Ui::ScreenFit
