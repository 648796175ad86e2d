// SPDX-License-Identifier: MIT
// The code typed for each container and its language, kept in QSettings so that a restart of the workbench
// (or of the daemon) loses nothing. Containers are keyed by id; code typed with no container selected is kept
// as a scratch entry.
#pragma once

#include <QCoreApplication>
#include <QString>

namespace Cordon::Ui {

class CodeStore final
{
    Q_DECLARE_TR_FUNCTIONS(Cordon::Ui::CodeStore)

public:
    struct Entry
    {
        QString language;
        QString code;
    };

    // What a container starts with before anything was typed for it.
    static Entry defaultEntry();
    static Entry load(const QString &containerId);
    static void save(const QString &containerId, const Entry &entry);
    static void forget(const QString &containerId);
};

} // namespace Cordon::Ui
