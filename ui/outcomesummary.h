// SPDX-License-Identifier: MIT
// How a run ended, in words: the headline and the explanation the outcome banner shows, built from the run
// object the daemon returns (docs/protocol.md). Pure, so tests can check the exact sentences.
#pragma once

#include <QCoreApplication>
#include <QJsonObject>
#include <QString>

namespace Cordon::Ui {

struct OutcomeSummary
{
    Q_DECLARE_TR_FUNCTIONS(Cordon::Ui::OutcomeSummary)

public:
    enum class Severity
    {
        Running,
        Success,
        Contained, // a limit of the sandbox held, and the run ended without failing for it (a fork bomb)
        Failure,
        Unknown, // interrupted, or the connection was lost before the end
    };

    Severity severity = Severity::Unknown;
    QString headline;    // "Exit code 0", "Killed: out of memory"
    QString explanation; // "oom — the run exceeded its 1 GiB memory limit and was killed"
    QString details;     // "Took 1.2 s · peak memory 35 MiB of 1 GiB"
    // What held, said to a class: "Contained: out of memory at 1 GiB". The banner's headline in presentation
    // mode; empty when no limit ended the run.
    QString contained;

    // `containerLimit` stands in when the run object does not carry `memory_limit_bytes` itself; `pidsLimit`
    // is the container's limits.pids, named when the process limit held.
    static OutcomeSummary fromRun(const QJsonObject &run, qint64 containerLimit = 0, qint64 pidsLimit = 0);
    static OutcomeSummary running(const QString &language);
    static OutcomeSummary connectionLost();
    static OutcomeSummary refused(const QString &code, const QString &message);

    // "SIGKILL" for 9; "signal 77" for one without a common name.
    static QString signalName(int signal);
};

} // namespace Cordon::Ui
