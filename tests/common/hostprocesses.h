// SPDX-License-Identifier: MIT
// How many processes on the host have `needle` in their command line (arguments joined by spaces, a space
// after the last): a sandbox's processes are visible from outside, so a test can tell whether they live.
// End the needle with a space to match a whole last argument, and not a shell line that names it.
#pragma once

#include <QDir>
#include <QFile>

namespace CordonTest {

inline int countHostProcesses(const QByteArray &needle)
{
    int count = 0;
    for (const QString &entry : QDir(QStringLiteral("/proc")).entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        bool numeric = false;
        entry.toInt(&numeric);
        if (!numeric)
            continue;
        QFile cmdline(QStringLiteral("/proc/%1/cmdline").arg(entry));
        if (cmdline.open(QIODevice::ReadOnly) && cmdline.readAll().replace('\0', ' ').contains(needle))
            ++count;
    }
    return count;
}

} // namespace CordonTest
