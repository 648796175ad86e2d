// SPDX-License-Identifier: MIT
// Where a top-level window may go: the available area of the screen it is on (the screen less panels and
// docks), and a window's rectangle moved, then shrunk as little as needed, to lie inside it. The main window
// and every dialog place themselves through these, so that no title bar or button ends up off screen.
#pragma once

#include <QMargins>
#include <QPoint>
#include <QRect>
#include <QSize>

class QWidget;

namespace Cordon::Ui::ScreenFit {

// `frame` (a window with its decorations) moved, and shrunk only if it is larger, so that it lies inside
// `available`; its top-left corner wins when both cannot, so the title bar stays reachable.
QRect placeInside(QRect frame, const QRect &available);

// A frame of `size` centred on `centre`, then placed inside `available`.
QRect centredInside(QSize size, QPoint centre, const QRect &available);

// The available area of the screen that holds the centre of `widget`'s window, of its parent's window when
// it has none yet, or of the primary screen.
QRect availableArea(const QWidget *widget);

// What the window system draws around `window`'s client area. Before the window is mapped it is not known on
// X11, and a typical title bar and border are assumed, so a window is never sized to the screen's edge
// only to have its title bar pushed above it.
QMargins frameMargins(const QWidget *window);

// The largest client size of `window` whose frame fits inside `available`.
QSize roomFor(const QWidget *window, const QRect &available);

enum class Placement
{
    KeepPlace, // moved only as far as it must be (a restored geometry)
    Centre,    // centred on the available area (a first start)
};

// Moves `window` (a top-level widget, shown or not yet) so that its frame lies inside the available area of
// its screen, shrinking it where it is larger. A maximised or full-screen window is left alone: the window
// system fits it already.
void fitWindow(QWidget *window, Placement placement = Placement::KeepPlace);

} // namespace Cordon::Ui::ScreenFit
