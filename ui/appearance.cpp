// SPDX-License-Identifier: MIT
#include "appearance.h"

#include <QApplication>
#include <QFontDatabase>
#include <QPalette>
#include <QStyle>
#include <QStyleFactory>

namespace Cordon::Ui {

namespace {

struct Platform
{
    QString styleName;
    QPalette palette;
    QFont font;
};

struct State
{
    bool captured = false;
    Platform platform;
    Theme theme = Theme::System;
    bool presentation = false;
};

State &state()
{
    static State instance;
    return instance;
}

QPalette lightPalette()
{
    QPalette palette = QStyleFactory::create(QStringLiteral("Fusion"))->standardPalette();
    palette.setColor(QPalette::Highlight, QColor(0x2a, 0x6f, 0xdb));
    palette.setColor(QPalette::Link, QColor(0x1d, 0x5b, 0xbf));
    return palette;
}

QPalette darkPalette()
{
    QPalette palette;
    const QColor window(0x2b, 0x2d, 0x31);
    const QColor base(0x1e, 0x1f, 0x22);
    const QColor text(0xe6, 0xe6, 0xe6);
    const QColor disabledText(0x80, 0x82, 0x86);
    palette.setColor(QPalette::Window, window);
    palette.setColor(QPalette::WindowText, text);
    palette.setColor(QPalette::Base, base);
    palette.setColor(QPalette::AlternateBase, QColor(0x26, 0x28, 0x2b));
    palette.setColor(QPalette::ToolTipBase, QColor(0x3c, 0x3f, 0x44));
    palette.setColor(QPalette::ToolTipText, text);
    palette.setColor(QPalette::PlaceholderText, QColor(0x9a, 0x9c, 0xa0));
    palette.setColor(QPalette::Text, text);
    palette.setColor(QPalette::Button, QColor(0x35, 0x37, 0x3b));
    palette.setColor(QPalette::ButtonText, text);
    palette.setColor(QPalette::BrightText, QColor(0xff, 0x6b, 0x6b));
    palette.setColor(QPalette::Light, QColor(0x45, 0x47, 0x4c));
    palette.setColor(QPalette::Midlight, QColor(0x3a, 0x3c, 0x40));
    palette.setColor(QPalette::Mid, QColor(0x25, 0x26, 0x29));
    palette.setColor(QPalette::Dark, QColor(0x18, 0x19, 0x1b));
    palette.setColor(QPalette::Shadow, QColor(0x0c, 0x0c, 0x0d));
    palette.setColor(QPalette::Highlight, QColor(0x3d, 0x7e, 0xe6));
    palette.setColor(QPalette::HighlightedText, Qt::white);
    palette.setColor(QPalette::Link, QColor(0x6c, 0xa6, 0xff));
    palette.setColor(QPalette::LinkVisited, QColor(0xb0, 0x8c, 0xff));
    for (QPalette::ColorRole role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
        palette.setColor(QPalette::Disabled, role, disabledText);
    return palette;
}

} // namespace

void Appearance::apply(Theme theme, bool presentation)
{
    State &current = state();
    if (!current.captured) {
        current.platform = {QApplication::style()->name(), QApplication::palette(), QApplication::font()};
        current.captured = true;
    }
    const bool themeChanged = theme != current.theme;
    current.theme = theme;
    current.presentation = presentation;

    if (themeChanged) {
        switch (theme) {
        case Theme::System:
            QApplication::setStyle(current.platform.styleName);
            QApplication::setPalette(current.platform.palette);
            break;
        case Theme::Light:
            QApplication::setStyle(QStringLiteral("Fusion"));
            QApplication::setPalette(lightPalette());
            break;
        case Theme::Dark:
            QApplication::setStyle(QStringLiteral("Fusion"));
            QApplication::setPalette(darkPalette());
            break;
        }
        Q_EMIT notifier()->themeChanged();
    }

    QFont font = current.platform.font;
    if (presentation) {
        if (font.pointSizeF() > 0)
            font.setPointSizeF(font.pointSizeF() * PresentationScale);
        else
            font.setPixelSize(qRound(font.pixelSize() * PresentationScale));
    }
    if (QApplication::font() != font) {
        QApplication::setFont(font);
        Q_EMIT notifier()->fontsChanged();
    }
}

AppearanceNotifier *Appearance::notifier()
{
    static AppearanceNotifier *instance = new AppearanceNotifier(qApp);
    return instance;
}

Theme Appearance::theme()
{
    return state().theme;
}

bool Appearance::presentation()
{
    return state().presentation;
}

QFont Appearance::fixedFont()
{
    QFont font = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    if (state().presentation && font.pointSizeF() > 0)
        font.setPointSizeF(font.pointSizeF() * PresentationScale);
    return font;
}

QString Appearance::themeKey(Theme theme)
{
    switch (theme) {
    case Theme::Light:
        return QStringLiteral("light");
    case Theme::Dark:
        return QStringLiteral("dark");
    case Theme::System:
        break;
    }
    return QStringLiteral("system");
}

Theme Appearance::themeFromKey(const QString &key)
{
    if (key == QLatin1String("light"))
        return Theme::Light;
    if (key == QLatin1String("dark"))
        return Theme::Dark;
    return Theme::System;
}

} // namespace Cordon::Ui
