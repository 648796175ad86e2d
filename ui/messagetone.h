// SPDX-License-Identifier: MIT
// The colours of messages that mean something (a run that failed, a limit that held, a lost connection),
// made from the palette in use so that they stay readable in the light and the dark theme alike: every text
// colour has a contrast of at least 4.5:1 (WCAG AA) against what it is drawn on. Widgets ask again when the
// theme changes (AppearanceNotifier::themeChanged) instead of keeping a colour made for another palette.
#pragma once

#include <QColor>
#include <QPalette>

namespace Cordon::Ui {

enum class Tone
{
    Success,   // a run that ended ok
    Failure,   // a run that failed, an error in a field
    Running,   // under way
    Warning,   // something to look at: a lost connection, an idle deadline near
    Contained, // a limit of the sandbox held: the lesson of a fork bomb or an OOM
    Neutral,   // not applicable, unknown
};

struct ToneColours
{
    QColor accent;     // for text, icons and bars on the palette's Window and Base
    QColor background; // a tint of Base for a banner of this tone
    QColor text;       // for text on `background`
    QColor border;     // the banner's edge: the tone at full strength
};

ToneColours toneColours(Tone tone, const QPalette &palette);

// The WCAG 2 contrast ratio of two opaque colours, from 1 (the same) to 21 (black on white).
double contrastRatio(const QColor &a, const QColor &b);

} // namespace Cordon::Ui
