// SPDX-License-Identifier: MIT
#include "workbenchsettings.h"

#include <QDir>
#include <QFileInfo>
#include <QSettings>
#include <QStandardPaths>

namespace Cordon::Ui {

namespace {

const QString MemoryKey = QStringLiteral("defaults/memoryGib");
const QString IdleKey = QStringLiteral("defaults/idleMinutes");
const QString ThemeKey = QStringLiteral("appearance/theme");
const QString PresentationKey = QStringLiteral("appearance/presentation");
const QString DownloadFolderKey = QStringLiteral("files/downloadFolder");
const QString UploadFolderKey = QStringLiteral("files/uploadFolder");

// The remembered folder if it is still a folder, else the first fallback that is.
QString rememberedFolder(const QString &key, QStandardPaths::StandardLocation fallback)
{
    for (const QString &folder :
         {QSettings().value(key).toString(), QStandardPaths::writableLocation(fallback), QDir::homePath()}) {
        if (!folder.isEmpty() && QFileInfo(folder).isDir())
            return folder;
    }
    return QDir::homePath();
}

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

QString WorkbenchSettings::downloadFolder()
{
    return rememberedFolder(DownloadFolderKey, QStandardPaths::DownloadLocation);
}

void WorkbenchSettings::setDownloadFolder(const QString &folder)
{
    QSettings().setValue(DownloadFolderKey, folder);
}

QString WorkbenchSettings::uploadFolder()
{
    return rememberedFolder(UploadFolderKey, QStandardPaths::HomeLocation);
}

void WorkbenchSettings::setUploadFolder(const QString &folder)
{
    QSettings().setValue(UploadFolderKey, folder);
}

namespace {

QString exportFolderKey(WorkbenchSettings::ExportKind kind)
{
    return kind == WorkbenchSettings::ExportKind::Run ? QStringLiteral("export/runFolder")
                                                      : QStringLiteral("export/auditFolder");
}

} // namespace

QString WorkbenchSettings::exportFolder(ExportKind kind)
{
    return rememberedFolder(exportFolderKey(kind), QStandardPaths::DocumentsLocation);
}

void WorkbenchSettings::setExportFolder(ExportKind kind, const QString &folder)
{
    QSettings().setValue(exportFolderKey(kind), folder);
}

} // namespace Cordon::Ui
