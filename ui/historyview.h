// SPDX-License-Identifier: MIT
// Past runs from the daemon's history: a list filtered by outcome class and paged ("Load more"), and the
// selected run's detail: what ran (command or code), how it ended, the policy version, the input files and
// the artifacts with their hashes, and the captured output (`run.get`). "Export as JSON…" writes the run
// object as the daemon describes it.
#pragma once

#include "core/result.h"

#include <QJsonObject>
#include <QWidget>

#include <functional>

class QCheckBox;
class QComboBox;
class QLabel;
class QPlainTextEdit;
class QPushButton;
class QTabWidget;
class QTreeView;
class QTreeWidget;

namespace Cordon::Ui {

class DaemonConnection;
class HistoryModel;

class HistoryView final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(HistoryView)

public:
    static constexpr int DefaultPageSize = 50;

    explicit HistoryView(DaemonConnection &connection, QWidget *parent = nullptr);
    ~HistoryView() override;

    HistoryModel *model() const { return m_model; }
    QTreeView *view() const { return m_view; }
    void setContainerNames(std::function<QString(const QString &)> names);
    // Runs per request (1..500).
    void setPageSize(int size) { m_pageSize = qBound(1, size, 500); }

    // Only runs of this class ("ok", "oom", ...); empty for all.
    void setOutcomeFilter(const QString &errorClass);
    // The container selected in the window; with "Only this container" checked, only its runs are listed.
    void setCurrentContainer(const QString &containerId);
    void setOnlyCurrentContainer(bool only);
    // The first page again, with the current filter.
    void reload();
    void loadMore();
    // Selects the run and loads its detail.
    void showRun(const QString &runId);
    // The run in the detail panel (from `run.get`, with code and output); empty before one is loaded.
    const QJsonObject &detailRun() const { return m_detail; }
    QPlainTextEdit *codeView() const { return m_code; }
    QPlainTextEdit *outputView() const { return m_output; }
    QString detailText() const;
    // Writes the detail run as indented JSON.
    Result<> exportRun(const QString &path) const;

    // Runs started or ended: reloads now if visible, else when shown.
    void markStale();

Q_SIGNALS:
    void pageLoaded();
    void detailLoaded();

protected:
    void showEvent(QShowEvent *event) override;

private:
    void request(bool append);
    void onCurrentChanged();
    void setDetail(const QJsonObject &run);
    void chooseExport();
    void updateFooter();

    DaemonConnection &m_connection;
    HistoryModel *m_model;
    QString m_filter;
    QString m_currentContainer;
    int m_pageSize = DefaultPageSize;
    quint64 m_generation = 0;
    bool m_loading = false;
    bool m_stale = true;
    QJsonObject m_detail;
    QString m_detailRunId;

    QComboBox *m_outcome;
    QCheckBox *m_onlyCurrent;
    QTreeView *m_view;
    QLabel *m_footer;
    QPushButton *m_loadMore;
    QLabel *m_title;
    QLabel *m_summary;
    QLabel *m_error;
    QTabWidget *m_detailTabs;
    QPlainTextEdit *m_code;
    QPlainTextEdit *m_output;
    QTreeWidget *m_files;
    QPushButton *m_export;
};

} // namespace Cordon::Ui
