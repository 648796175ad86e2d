// SPDX-License-Identifier: MIT
// Icons drawn in the palette's own text colour: the SVGs in resources/icons paint with `currentColor`, which
// this engine replaces at paint time, so one file serves light and dark palettes (and follows a palette
// change while the window is open) and stays sharp at any device pixel ratio.
#pragma once

#include <QColor>
#include <QIcon>
#include <QString>

namespace Cordon::Ui {

// `name` is the file name in resources/icons without `.svg`, e.g. "run". With `colour` the icon is drawn in
// that colour instead (an accent that means something, like red for a failed run).
QIcon paletteIcon(const QString &name, const QColor &colour = QColor());

} // namespace Cordon::Ui
