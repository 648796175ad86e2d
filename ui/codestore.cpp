// SPDX-License-Identifier: MIT
#include "codestore.h"

#include <QSettings>

namespace Cordon::Ui {

namespace {

QString groupFor(const QString &containerId)
{
    // Ids are hex; anything else (there should be nothing) must not reach into other settings groups.
    QString safe = containerId;
    safe.replace(QLatin1Char('/'), QLatin1Char('_'));
    return QStringLiteral("code/") + (safe.isEmpty() ? QStringLiteral("scratch") : safe);
}

} // namespace

CodeStore::Entry CodeStore::defaultEntry()
{
    return {QStringLiteral("python"),
            tr("# Runs inside the container; files in /mnt/data stay between runs.\n"
               "import platform, os\n"
               "\n"
               "print(\"Hello from\", platform.node())\n"
               "print(\"Working directory:\", os.getcwd())\n")};
}

CodeStore::Entry CodeStore::load(const QString &containerId)
{
    QSettings settings;
    settings.beginGroup(groupFor(containerId));
    if (!settings.contains(QStringLiteral("code")))
        return defaultEntry();
    return {settings.value(QStringLiteral("language")).toString(),
            settings.value(QStringLiteral("code")).toString()};
}

void CodeStore::save(const QString &containerId, const Entry &entry)
{
    QSettings settings;
    settings.beginGroup(groupFor(containerId));
    settings.setValue(QStringLiteral("language"), entry.language);
    settings.setValue(QStringLiteral("code"), entry.code);
}

void CodeStore::forget(const QString &containerId)
{
    QSettings settings;
    settings.remove(groupFor(containerId));
}

} // namespace Cordon::Ui
