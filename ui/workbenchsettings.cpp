// SPDX-License-Identifier: MIT
#include "workbenchsettings.h"

#include <QSettings>

namespace Cordon::Ui {

namespace {

const QString MemoryKey = QStringLiteral("defaults/memoryGib");
const QString IdleKey = QStringLiteral("defaults/idleMinutes");
const QString ThemeKey = QStringLiteral("appearance/theme");
const QString PresentationKey = QStringLiteral("appearance/presentation");

} // namespace

int WorkbenchSettings::defaultMemoryGib()
{
    const int gib = QSettings().value(MemoryKey, 1).toInt();
    // A hand-edited file with another number falls back to the smallest tier rather than failing a create.
    return memoryTiers().contains(gib) ? gib : 1;
}

void WorkbenchSettings::setDefaultMemoryGib(int gib)
{
    QSettings().setValue(MemoryKey, gib);
}

int WorkbenchSettings::defaultIdleMinutes()
{
    return qBound(MinIdleMinutes, QSettings().value(IdleKey, 20).toInt(), MaxIdleMinutes);
}

void WorkbenchSettings::setDefaultIdleMinutes(int minutes)
{
    QSettings().setValue(IdleKey, qBound(MinIdleMinutes, minutes, MaxIdleMinutes));
}

Theme WorkbenchSettings::theme()
{
    return Appearance::themeFromKey(QSettings().value(ThemeKey).toString());
}

void WorkbenchSettings::setTheme(Theme theme)
{
    QSettings().setValue(ThemeKey, Appearance::themeKey(theme));
}

bool WorkbenchSettings::presentation()
{
    return QSettings().value(PresentationKey, false).toBool();
}

void WorkbenchSettings::setPresentation(bool presentation)
{
    QSettings().setValue(PresentationKey, presentation);
}

} // namespace Cordon::Ui
