// SPDX-License-Identifier: MIT
// Text for people: aligned tables, times and countdowns, names that came out of a sandbox made safe to print,
// and the summary of a run the daemon reported as JSON.
#pragma once

#include <QJsonObject>
#include <QString>
#include <QStringList>

namespace Cordon::Cli {

class Table final
{
public:
    explicit Table(QStringList headers);
    void addRow(QStringList cells);
    bool isEmpty() const { return m_rows.isEmpty(); }
    // Columns padded to their widest cell, two spaces apart, the last one unpadded.
    QString toString() const;

private:
    QStringList m_headers;
    QList<QStringList> m_rows;
};

// Local time, "2024-05-01 14:03:12"; "-" for 0.
QString formatTime(qint64 msSinceEpoch);
// A countdown or an age, coarse as people read it: "45s", "19m 58s", "2h 05m", "3d 4h".
QString formatSpan(qint64 ms);
// A run's wall time: "340 ms", "1.2 s", "2m 03s".
QString formatWall(qint64 ms);
// How long a container has left before it expires: "19m 58s"; "-" once it expired or was deleted.
QString describeExpiry(const QJsonObject &container, qint64 nowMs);

// Text that code in a sandbox chose (process names, commands, paths) may carry control characters, escape
// sequences or direction overrides that spoof the terminal: those are shown as \xNN or \u{NNNN}. Unlike
// Files::escapeForDisplay, backslashes are left alone, so names the daemon already escaped with it (refused
// entries) pass through unchanged instead of being escaped twice.
QString escapeName(const QString &name);

// The exit status a run mirrors, like `cordon run`: its exit code, 128+signal, or 125 when it never ran.
int runExitStatus(const QJsonObject &run);
// The same lines `cordon run` prints after a run (class, status, times, memory, cuts, artifacts), from the
// daemon's `run` object. `container` (may be empty) supplies the memory limit and whether limits were
// enforced.
QString summarizeRun(const QJsonObject &run, const QJsonObject &container);

} // namespace Cordon::Cli
