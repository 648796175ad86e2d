// SPDX-License-Identifier: MIT
// How the window looks, as the user chose in Settings and in the Demo menu: the theme (the system's, or a
// light or dark one of our own) and the presentation mode, which scales every font for a projector. Both are
// application-wide, so they live here rather than in any one widget; widgets that pick a fixed-width font
// take it from fixedFont() so that they scale along.
#pragma once

#include <QFont>
#include <QObject>
#include <QString>

namespace Cordon::Ui {

enum class Theme
{
    System, // the platform's style and palette, as the workbench found them at start-up
    Light,
    Dark,
};

// Says when apply() changed the fonts or the theme. Widgets with a font of their own (the editor, the
// console, the countdown) are not told by Qt when the application font changes, since theirs did not; widgets
// whose style sheet gives them a palette of their own (the outcome banner) are not reliably told of a new
// palette. They listen here.
class AppearanceNotifier final : public QObject
{
    Q_OBJECT

public:
    using QObject::QObject;

Q_SIGNALS:
    void fontsChanged();
    void themeChanged();
};

class Appearance final
{
public:
    // How much bigger the fonts are in presentation mode.
    static constexpr double PresentationScale = 1.5;

    // Applies the theme and the presentation mode to the whole application. The first call remembers the
    // platform's style, palette and font, so that System and the end of presentation mode restore them.
    static void apply(Theme theme, bool presentation);
    static Theme theme();
    static bool presentation();

    // The system's fixed-width font, scaled like the application font (for the editor and the console).
    static QFont fixedFont();
    static AppearanceNotifier *notifier();

    static QString themeKey(Theme theme);
    static Theme themeFromKey(const QString &key);
};

} // namespace Cordon::Ui
