// SPDX-License-Identifier: MIT
// The trainer's demo programs: each one runs into a limit of the sandbox on purpose (memory, processes,
// network, the file system) or shows the way results come back (an artifact in outputs/). The programs are
// plain Python files in resources/demos, compiled into the workbench, so that what the class sees in the
// editor is exactly what runs.
#pragma once

#include <QCoreApplication>
#include <QList>
#include <QString>

namespace Cordon::Ui {

struct DemoScript
{
    QString id;       // the file name in resources/demos without ".py", e.g. "memory-bomb"
    QString title;    // "Memory Bomb"
    QString shows;    // what the class should watch, one sentence
    QString language; // the editor's language key

    // The program's text, read from the compiled-in resource.
    QString code() const;
};

class DemoScripts final
{
    Q_DECLARE_TR_FUNCTIONS(Cordon::Ui::DemoScripts)

public:
    // In the order the Demo menu lists them.
    static QList<DemoScript> all();
    // Whether `code` is one of the demo programs unchanged: replacing it in the editor loses nothing.
    static bool isDemoCode(const QString &code);
};

} // namespace Cordon::Ui
