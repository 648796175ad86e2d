// SPDX-License-Identifier: MIT
#include "containers/networkledger.h"

#include <QDateTime>
#include <QStringList>

namespace Cordon::Containers {

namespace {

constexpr int TickMs = 1000;
constexpr qint64 SuppressedMarkEveryMs = 60000;
// Connections no run can be named for share their container's budget, a few runs' worth.
constexpr int ContainerBudgetInRuns = 5;
// Decisions of one key written one by one in each window before the rest coalesce: ordinary use (a retry or
// two) stays itemised as it happens; only repetition beyond this waits for the window's one row.
constexpr int ItemisedPerWindow = 5;

qint64 now()
{
    return QDateTime::currentMSecsSinceEpoch();
}

QString budgetKey(const QString &containerId, const QString &runId)
{
    return runId.isEmpty() ? QStringLiteral("c:") + containerId : QStringLiteral("r:") + runId;
}

} // namespace

NetworkLedger::NetworkLedger(Writer writer, int rowsPerRun, int coalesceMs, QObject *parent)
    : QObject(parent), m_writer(std::move(writer)), m_rowsPerRun(rowsPerRun), m_coalesceMs(coalesceMs)
{
    m_timer.setInterval(TickMs);
    connect(&m_timer, &QTimer::timeout, this, &NetworkLedger::tick);
}

void NetworkLedger::add(const QString &containerId, const QString &runId, const QString &kind,
                        const QJsonObject &detail)
{
    const QString key =
        QStringList{containerId, runId, kind, detail.value(QStringLiteral("host")).toString(),
                    detail.value(QStringLiteral("target")).toString(),
                    detail.value(QStringLiteral("reason")).toString(),
                    // Where secrets went is never summed into a row that does not name them.
                    detail.value(QStringLiteral("secrets_sent")).toVariant().toStringList().join(u','),
                    detail.value(QStringLiteral("secret_refused")).toString()}
            .join(QChar(0));
    const qint64 at = now();
    auto window = m_windows.find(key);
    if (window != m_windows.end() && at - window->openedAt < m_coalesceMs) {
        if (window->itemised < ItemisedPerWindow) {
            ++window->itemised;
            write(containerId, runId, kind, detail, 1);
            return;
        }
        if (window->rest == 0)
            window->restFirstAt = at;
        ++window->rest;
        window->restLastAt = at;
        window->lastDetail = detail;
        return;
    }
    if (window != m_windows.end())
        closeWindow(key);
    else if (m_windows.size() >= MaxOpenWindows)
        makeRoom();
    // The detail is written now; only a coalesced rest needs one kept.
    m_windows.insert(key, Window{containerId, runId, kind, at, 1, {}, 0, 0, 0});
    write(containerId, runId, kind, detail, 1);
    if (!m_timer.isActive())
        m_timer.start();
}

void NetworkLedger::write(const QString &containerId, const QString &runId, const QString &kind,
                          QJsonObject detail, qint64 count)
{
    const QString key = budgetKey(containerId, runId);
    auto budget = m_budgets.find(key);
    if (budget == m_budgets.end())
        budget = m_budgets.insert(key, Budget{containerId, runId, 0, {}, 0});
    if (budget->rows >= rowCap(runId)) {
        budget->suppressed[kind] += count;
        return;
    }
    ++budget->rows;
    if (count > 1)
        detail.insert(QStringLiteral("count"), count);
    m_writer(containerId, runId, kind, detail);
}

int NetworkLedger::rowCap(const QString &runId) const
{
    return runId.isEmpty() ? ContainerBudgetInRuns * m_rowsPerRun : m_rowsPerRun;
}

void NetworkLedger::closeWindow(const QString &key)
{
    const Window window = m_windows.take(key);
    if (window.rest == 0)
        return;
    QJsonObject detail = window.lastDetail;
    detail.insert(QStringLiteral("first_at"), window.restFirstAt);
    detail.insert(QStringLiteral("last_at"), window.restLastAt);
    write(window.containerId, window.runId, window.kind, detail, window.rest);
}

void NetworkLedger::makeRoom()
{
    // Windows with nothing coalesced write nothing when they close: dropping them only means that the next
    // decision of their key is itemised again, within the row caps. A flood of new hosts is all such windows.
    m_windows.removeIf(
        [](const std::pair<const QString &, Window &> &entry) { return entry.second.rest == 0; });
    if (m_windows.size() < MaxOpenWindows)
        return;
    // Every open window is coalescing: each writes its row now instead of when its time is up.
    const QStringList windows = m_windows.keys();
    for (const QString &key : windows)
        closeWindow(key);
}

void NetworkLedger::writeSuppressed(Budget &budget)
{
    for (auto it = budget.suppressed.begin(); it != budget.suppressed.end(); ++it) {
        if (it.value() == 0)
            continue;
        // Not counted against the budget: at most one row per decision each time, and only when some were
        // suppressed.
        m_writer(budget.containerId, budget.runId, it.key(),
                 {{QStringLiteral("suppressed"), true},
                  {QStringLiteral("count"), it.value()},
                  {QStringLiteral("host"), QString()},
                  {QStringLiteral("reason"),
                   QStringLiteral("%1 more connections, counted but not itemised: the limit is %2 rows %3")
                       .arg(it.value())
                       .arg(rowCap(budget.runId))
                       .arg(budget.runId.isEmpty() ? QStringLiteral("per container")
                                                   : QStringLiteral("per run"))}});
        it.value() = 0;
    }
    budget.markedAt = now();
}

template<typename Pred> void NetworkLedger::flushWhere(Pred matches)
{
    const QStringList windows = m_windows.keys();
    for (const QString &key : windows) {
        const Window &window = m_windows[key];
        if (matches(window.containerId, window.runId))
            closeWindow(key);
    }
    for (Budget &budget : m_budgets) {
        if (matches(budget.containerId, budget.runId))
            writeSuppressed(budget);
    }
}

void NetworkLedger::flushRun(const QString &runId)
{
    flushWhere([&](const QString &, const QString &run) { return run == runId; });
    // A run's budget ends with its flush (at its end): a decision that comes later starts a new one.
    m_budgets.remove(budgetKey({}, runId));
}

void NetworkLedger::flushContainer(const QString &containerId)
{
    flushWhere([&](const QString &container, const QString &) { return container == containerId; });
}

void NetworkLedger::flushAll()
{
    flushWhere([](const QString &, const QString &) { return true; });
}

void NetworkLedger::tick()
{
    const qint64 at = now();
    const QStringList windows = m_windows.keys();
    for (const QString &key : windows) {
        if (at - m_windows[key].openedAt >= m_coalesceMs)
            closeWindow(key);
    }
    for (Budget &budget : m_budgets) {
        if (at - budget.markedAt >= SuppressedMarkEveryMs)
            writeSuppressed(budget);
    }
    if (m_windows.isEmpty())
        m_timer.stop();
}

} // namespace Cordon::Containers
