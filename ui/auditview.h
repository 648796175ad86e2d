// SPDX-License-Identifier: MIT
// The Go/No-Go audit in the workbench (docs/audit.md): one button audits the policy of the selected container
// (or a policy file) in fresh containers; each row fills in as it ends, Go or No-Go with its reason and its
// evidence beneath; a row's run opens in a run detail of its own with one click. Finished, it shows the first
// No-Go row. The report is kept in the history; the sign-off (name, role, decision, date) is signed by the
// daemon with the user's key; the report exports as JSON, Markdown, HTML and a PDF to sign off on
// (auditsignoff.h).
#pragma once

#include <QJsonObject>
#include <QString>
#include <QWidget>

class QComboBox;
class QDateEdit;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QToolButton;
class QTreeWidget;
class QTreeWidgetItem;

namespace Cordon::Audit {
class BackgroundAudit;
}

namespace Cordon::Ui {

class DaemonConnection;

class AuditView final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(AuditView)

public:
    enum Column
    {
        VerdictColumn,
        ClaimColumn,
        ReasonColumn,
        RunColumn,
        TimeColumn,
        ColumnCount,
    };
    enum class ExportFormat
    {
        Json,
        Markdown,
        Html,
        Pdf,
    };

    explicit AuditView(DaemonConnection &connection, QWidget *parent = nullptr);
    ~AuditView() override;

    // The container whose policy "Run Audit" proves when no file is chosen.
    void setCurrentContainer(const QString &id, const QString &name, const QJsonObject &policy);
    // A policy file instead (empty: back to the selected container's policy).
    void setPolicyFile(const QString &path);

    // Starts the audit (the one button); false with a message when there is nothing to audit or one runs.
    bool runAudit();
    void cancel();
    bool isRunning() const;

    // The report shown: the last audit's, or one loaded from the history (audit.get).
    const QJsonObject &report() const { return m_report; }
    void showReport(const QJsonObject &report);
    void loadReport(const QString &id);

    // Signs the shown report with the fields of the sign-off (audit.sign).
    void signReport();
    QLineEdit *signerName() const { return m_name; }
    QLineEdit *signerRole() const { return m_role; }
    QComboBox *decision() const { return m_decision; }

    // Writes the shown report; an error message, or empty.
    QString exportTo(const QString &path, ExportFormat format) const;
    // What Export does once a path is chosen: writes the report, remembers the folder for the next export
    // (WorkbenchSettings::exportFolder) and announces it (exported); the status line says how it went.
    void saveExport(const QString &path, ExportFormat format);

    QTreeWidget *rows() const { return m_rows; }
    QPushButton *runButton() const { return m_runButton; }
    QPushButton *auditRunsButton() const { return m_auditRunsButton; }
    QString statusText() const;
    // The run a row links to (its first run in the user's history); empty when none.
    static QString runOfRow(const QJsonObject &row);

Q_SIGNALS:
    // A row's run was clicked: open that run.
    void runRequested(const QString &runId);
    // An audit finished, or a report was signed.
    void reportChanged(const QJsonObject &report);
    // The report was written to `path` (the window's status bar says so).
    void exported(const QString &path);
    // "Show Its Runs": the History is to list only the runs of the audit with this id.
    void auditRunsRequested(const QString &auditId);

private:
    void onRowStarted(const QString &id, const QString &title);
    void onRowFinished(const QJsonObject &row);
    void onFinished(const QJsonObject &report);
    void onFailed(const QString &code, const QString &message);
    void onItemClicked(QTreeWidgetItem *item, int column);
    void fillRow(QTreeWidgetItem *item, const QJsonObject &row);
    void exportWithDialog(ExportFormat format);
    void updateState();
    void setStatus(const QString &text);

    DaemonConnection &m_connection;
    Audit::BackgroundAudit *m_audit;
    QString m_containerId;
    QString m_containerName;
    QJsonObject m_containerPolicy;
    QString m_policyFile;
    QJsonObject m_report;

    QLabel *m_source;
    QPushButton *m_fileButton;
    QPushButton *m_runButton;
    QProgressBar *m_progress;
    QLabel *m_status;
    QPushButton *m_auditRunsButton;
    QTreeWidget *m_rows;
    QLineEdit *m_name;
    QLineEdit *m_role;
    QComboBox *m_decision;
    QDateEdit *m_date;
    QPushButton *m_signButton;
    QToolButton *m_exportButton;
    QLabel *m_signature;
};

} // namespace Cordon::Ui
