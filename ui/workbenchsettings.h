// SPDX-License-Identifier: MIT
// The user's choices from the Settings dialog, and the folders the file dialogs remember, stored with
// QSettings
// (~/.config/cordon/cordon-workbench.conf): what a new container starts with, and how the window looks. One
// place for the keys and their defaults, so that the dialog, the create dialog and start-up read the same
// values.
#pragma once

#include "appearance.h"

#include <QList>
#include <QString>

namespace Cordon::Ui {

class WorkbenchSettings final
{
public:
    // The hosted tiers, in GiB.
    static QList<int> memoryTiers() { return {1, 4, 16, 64}; }
    static constexpr int MinIdleMinutes = 1;
    static constexpr int MaxIdleMinutes = 10080; // a week

    // The tier a new container is offered, in GiB (default 1).
    static int defaultMemoryGib();
    static void setDefaultMemoryGib(int gib);
    // Idle minutes before a new container expires (default 20, as hosted sandboxes do).
    static int defaultIdleMinutes();
    static void setDefaultIdleMinutes(int minutes);
    static Theme theme();
    static void setTheme(Theme theme);
    static bool presentation();
    static void setPresentation(bool presentation);
    // Where the Download dialogs open: the folder last downloaded to while it still exists, else the user's
    // Downloads folder, else home.
    static QString downloadFolder();
    static void setDownloadFolder(const QString &folder);
    // Where the Upload dialog opens: the folder the last upload came from while it still exists, else home.
    static QString uploadFolder();
    static void setUploadFolder(const QString &folder);
    // What an Export… dialog writes; each kind remembers its own folder.
    enum class ExportKind
    {
        Run,   // a run as JSON (History)
        Audit, // a Go/No-Go report (JSON, Markdown, HTML, PDF)
    };
    // Where an Export… dialog of that kind opens: the folder last exported to while it still exists, else the
    // user's Documents folder, else home; never the folder the program was started from.
    static QString exportFolder(ExportKind kind);
    static void setExportFolder(ExportKind kind, const QString &folder);
};

} // namespace Cordon::Ui
