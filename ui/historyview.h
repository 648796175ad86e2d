// SPDX-License-Identifier: MIT
// The History dock: past runs from the daemon's history, filtered by outcome class and date and paged ("Load
// More"), with the selected run's detail (RunDetailView); and beside them the event timeline
// (EventTimelineView). "Only the selected container" narrows both to the container selected in the window.
#pragma once

#include "core/result.h"

#include <QDate>
#include <QJsonObject>
#include <QWidget>

#include <functional>
#include <utility>

class QCheckBox;
class QComboBox;
class QDateEdit;
class QLabel;
class QLineEdit;
class QTimer;
class QPlainTextEdit;
class QTabWidget;
class QTreeView;

namespace Cordon::Ui {

class DaemonConnection;
class EventTimelineView;
class HistoryModel;
class PagedFooter;
class PagedQuery;
class RunDetailView;

class HistoryView final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(HistoryView)

public:
    static constexpr int DefaultPageSize = 50;
    // The search asks the daemon once typing has paused this long.
    static constexpr int SearchDelayMs = 300;

    enum class DateFilter
    {
        AnyTime,
        Today,
        Last7Days,
        Last30Days,
        Custom, // from and to, both days included
    };
    Q_ENUM(DateFilter)

    explicit HistoryView(DaemonConnection &connection, QWidget *parent = nullptr);
    ~HistoryView() override;

    HistoryModel *model() const { return m_model; }
    QTreeView *view() const { return m_view; }
    RunDetailView *detail() const { return m_detail; }
    EventTimelineView *timeline() const { return m_timeline; }
    QTabWidget *tabs() const { return m_tabs; }
    void setContainerNames(std::function<QString(const QString &)> names);
    // Runs per request (1..500).
    void setPageSize(int size);

    // Only runs of this class ("ok", "oom", ...); empty for all.
    void setOutcomeFilter(const QString &errorClass);
    // Only runs started in this range of local days; `from` and `to` are used by Custom.
    void setDateFilter(DateFilter filter, QDate from = {}, QDate to = {});
    // The `since` and `until` (ms, until exclusive; 0 for open) that the date filter asks for now.
    std::pair<qint64, qint64> dateBounds() const;
    // The container selected in the window; with "Only this container" checked, only its runs and events are
    // listed.
    void setCurrentContainer(const QString &containerId);
    void setOnlyCurrentContainer(bool only);
    // Only runs whose code, command, id or container name holds `text` (the search field); empty for all.
    void setSearchText(const QString &text);
    // Runs and events of the Go/No-Go audits' containers are left out unless shown ("Show audit runs").
    void setShowAudits(bool show);
    // Only the runs and events of this audit (its report's id), with a line saying so and a way back to
    // every run; empty for the usual lists.
    void showAuditRuns(const QString &auditId);
    QString auditFilter() const { return m_auditId; }
    // The first page again, with the current filter.
    void reload();
    void loadMore();
    QString footerText() const;
    // Selects the run and loads its detail; a run the list does not hold now is loaded into the detail by id.
    void showRun(const QString &runId);
    // The run in the detail panel (from `run.get`, with code and output); empty before one is loaded.
    const QJsonObject &detailRun() const;
    QPlainTextEdit *codeView() const;
    QPlainTextEdit *outputView() const;
    QString detailText() const;
    // Writes the detail run as indented JSON.
    Result<> exportRun(const QString &path) const;

    // Runs started or ended: reloads soon if visible, else when shown.
    void markStale();

Q_SIGNALS:
    void pageLoaded();
    void detailLoaded();

private:
    QWidget *buildRunsPage();
    void onCurrentChanged();
    void onPageLoaded(bool appended);
    void showError(const QString &message);
    QString onlyContainer() const;
    // history.runs' and history.events' `origin` or `audits` for the audit filter and the toggle.
    void insertOriginParameters(QJsonObject &params) const;
    void originChanged();
    DateFilter currentDateFilter() const;
    void updateDateEdits();

    DaemonConnection &m_connection;
    HistoryModel *m_model;
    PagedQuery *m_query = nullptr;
    QString m_filter;
    QString m_currentContainer;
    QString m_keepRunId;

    QString m_search;
    QString m_auditId;

    QLabel *m_error;
    QCheckBox *m_onlyCurrent;
    QCheckBox *m_showAudits;
    QLineEdit *m_searchField;
    QTimer *m_searchDelay;
    QLabel *m_auditLine;
    QTabWidget *m_tabs;
    QComboBox *m_outcome = nullptr;
    QComboBox *m_date = nullptr;
    QDateEdit *m_from = nullptr;
    QDateEdit *m_to = nullptr;
    QTreeView *m_view = nullptr;
    PagedFooter *m_footer = nullptr;
    RunDetailView *m_detail = nullptr;
    EventTimelineView *m_timeline = nullptr;
};

} // namespace Cordon::Ui
