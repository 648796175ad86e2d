// SPDX-License-Identifier: MIT
// What a container's network decisions may make the host write. One history row per proxied connection let
// a sandbox grow history.db by about 1.5 MB/s (61,184 refused connections in 20 s); the ledger bounds it:
//  - repeated decisions coalesce: of the same container, run, decision, host (or unparsed target) and
//    reason within a window of `coalesceMs`, the first five are written as they come and the rest as one
//    row when the window closes, whose detail says `count`, `first_at` and `last_at`;
//  - rows are capped per run (`rowsPerRun`) and, for connections no run can be named for, per container
//    (five times that); past the cap decisions are only counted, and written as one row per decision with
//    `"suppressed": true` and their `count` when the run or container is flushed (its end, a summary, the
//    daemon stopping) or at most once a minute;
//  - at most `MaxOpenWindows` windows are open at once. Each holds its key and, while it coalesces, a
//    decision's detail; a flood of attempts for a new host each (or a new unparsable request line each)
//    opened one window per attempt and held it for the whole window, so the daemon's memory grew with the
//    attempt rate. Past the cap, windows with nothing coalesced are dropped (closing them writes nothing),
//    and if that is not enough every window is closed early; closing early only writes a row sooner, so
//    counts stay exact and the row caps still hold.
// Every row stands for `count` decisions (1 when absent), so counts summed over rows stay exact.
#pragma once

#include <QHash>
#include <QJsonObject>
#include <QObject>
#include <QString>
#include <QTimer>

#include <functional>

namespace Cordon::Containers {

class NetworkLedger final : public QObject
{
    Q_OBJECT

public:
    using Writer = std::function<void(const QString &containerId, const QString &runId, const QString &kind,
                                      const QJsonObject &detail)>;

    NetworkLedger(Writer writer, int rowsPerRun, int coalesceMs, QObject *parent = nullptr);

    // One decision (kind network.allowed, network.denied or network.error; detail from ConnectionRecord).
    void add(const QString &containerId, const QString &runId, const QString &kind,
             const QJsonObject &detail);
    // Writes what is pending for a run or a container (its coalesced rests and suppressed counts), so that
    // counts read afterwards are complete. flushRun() also ends the run's row budget.
    void flushRun(const QString &runId);
    void flushContainer(const QString &containerId);
    void flushAll();

    // Coalescing windows open now; never more than MaxOpenWindows.
    qsizetype openWindows() const { return m_windows.size(); }
    static constexpr qsizetype MaxOpenWindows = 1024;

private:
    struct Window
    {
        QString containerId;
        QString runId;
        QString kind;
        qint64 openedAt = 0;
        int itemised = 0;       // written one by one so far
        QJsonObject lastDetail; // of the last coalesced decision: empty while rest is 0
        qint64 rest = 0;        // decisions after the first row, not yet written
        qint64 restFirstAt = 0;
        qint64 restLastAt = 0;
    };
    struct Budget
    {
        QString containerId;
        QString runId;
        int rows = 0;
        QHash<QString, qint64> suppressed; // by kind
        qint64 markedAt = 0;               // when suppressed counts were last written
    };

    void write(const QString &containerId, const QString &runId, const QString &kind, QJsonObject detail,
               qint64 count);
    // Rows a run may write, or a container for connections of no run.
    int rowCap(const QString &runId) const;
    void closeWindow(const QString &key);
    // Makes room for one more window (MaxOpenWindows).
    void makeRoom();
    void writeSuppressed(Budget &budget);
    void tick();
    template<typename Pred> void flushWhere(Pred matches);

    Writer m_writer;
    int m_rowsPerRun;
    int m_coalesceMs;
    QHash<QString, Window> m_windows; // by decision key
    QHash<QString, Budget> m_budgets; // by "r:<run>" or "c:<container>"
    QTimer m_timer;
};

} // namespace Cordon::Containers
