// SPDX-License-Identifier: MIT
// The few ways Cordon writes sizes, times and untrusted names for people, in one place so that the
// workbench's list, chart, timer and banner and the CLI's event lines say "1 GiB" and "4:59" the same way.
#pragma once

#include <QCoreApplication>
#include <QString>

namespace Cordon {

class Format final
{
    Q_DECLARE_TR_FUNCTIONS(Cordon::Format)

public:
    // Binary units, as the memory tiers are: "512 KiB", "35.2 MiB", "1 GiB".
    static QString bytes(qint64 bytes);
    // A countdown: "0:07", "19:42", "1:05:12", "3 d 4 h".
    static QString countdown(qint64 ms);
    // How long a run took: "420 ms", "1.3 s", "2 min 05 s".
    static QString duration(qint64 ms);
    // A name written by code in a container, safe to show: control characters, bidi overrides and invisible
    // characters become "\u{202e}" so that a name cannot reorder or hide text around it.
    static QString displayName(const QString &name);
    // A container id as tables show it: its first Lite::ShortIdLength hex digits.
    static QString shortId(const QString &containerId);
    // A date and time in the locale's short form: "29/11/2026 12:10:21".
    static QString dateTime(qint64 msSinceEpoch);
};

} // namespace Cordon
