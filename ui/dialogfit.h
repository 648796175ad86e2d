// SPDX-License-Identifier: MIT
// Every dialog of the workbench fits the screen it opens on: its content sits in a scroll area, its buttons
// stay pinned below, and it is sized to what the content asks for, capped to the screen's available area,
// when it opens and again whenever the content grows or shrinks (the New Container dialog's allowlist),
// re-centred over its parent each time. On a large screen nothing scrolls; on a 1280x720 projector the
// content does, and Create and Cancel are still there.
#pragma once

#include <QSize>

class QDialog;
class QLayout;
class QWidget;

namespace Cordon::Ui::DialogFit {

// Lays `dialog` out as `content` (a layout with no parent yet) in a vertical scroll area above `footer` (the
// button box, or a widget holding it and what must stay in sight with it). `preferred` is the size the dialog
// likes to open at when the screen has room, for dialogs whose views would otherwise open cramped.
void install(QDialog *dialog, QLayout *content, QWidget *footer, QSize preferred = QSize());

} // namespace Cordon::Ui::DialogFit
