// SPDX-License-Identifier: MIT
// One past run in full: what ran (command or code), how it ended, the policy version, the input files and the
// artifacts with their hashes, the captured output (`run.get`), and the egress proxy's decisions for it
// (`history.events` with its run id, kinds `network.*`). "Export as JSON…" writes the run object as the
// daemon describes it.
#pragma once

#include "core/result.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QWidget>

#include <functional>

class QLabel;
class QPlainTextEdit;
class QPushButton;
class QTabWidget;
class QTreeWidget;

namespace Cordon::Ui {

class PolicyView;

class DaemonConnection;

class RunDetailView final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(RunDetailView)

public:
    // At most this many network decisions are listed for one run (the daemon's page limit).
    static constexpr int NetworkEventLimit = 500;

    explicit RunDetailView(DaemonConnection &connection, QWidget *parent = nullptr);

    // The name shown for a run's container (PagedListModel::containerName).
    void setContainerNames(std::function<QString(const QJsonObject &)> names) { m_names = std::move(names); }
    // Shows what `listed` (a run from a list, without output) already says, then asks for the rest.
    void showRun(const QJsonObject &listed);
    void clear();

    // The run (from `run.get`, with code and output); empty before one is loaded.
    const QJsonObject &run() const { return m_run; }
    QString runId() const { return m_runId; }
    QPlainTextEdit *codeView() const { return m_code; }
    QPlainTextEdit *outputView() const { return m_output; }
    QTreeWidget *networkView() const { return m_network; }
    // The network decisions recorded for the run, as the daemon sent them.
    const QJsonArray &networkEvents() const { return m_networkEvents; }
    QString text() const;
    PolicyView *policyView() const { return m_policy; }
    Result<> exportRun(const QString &path) const;
    // What Export as JSON… does once a path is chosen: writes the run, remembers the folder for the next
    // export (WorkbenchSettings::exportFolder) and announces it (exported), or says why not (exportFailed).
    void saveExport(const QString &path);

Q_SIGNALS:
    void loaded();
    void networkLoaded();
    void exportFailed(const QString &message);
    // The run was written to `path` (the window's status bar says so).
    void exported(const QString &path);

private:
    void setRun(const QJsonObject &run);
    void loadNetwork(const QString &runId);
    void setNetwork(const QJsonArray &events, qint64 total);
    void chooseExport();
    QString containerName(const QJsonObject &run) const;

    DaemonConnection &m_connection;
    std::function<QString(const QJsonObject &)> m_names;
    QJsonObject m_run;
    QString m_runId;
    QJsonArray m_networkEvents;

    QLabel *m_title;
    QLabel *m_summary;
    QTabWidget *m_tabs;
    QPlainTextEdit *m_code;
    QPlainTextEdit *m_output;
    QTreeWidget *m_files;
    QTreeWidget *m_network;
    PolicyView *m_policy; // what the run ran under: run.get's policy, in words and as JSON
    QPushButton *m_export;
};

} // namespace Cordon::Ui
