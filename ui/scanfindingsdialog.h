// SPDX-License-Identifier: MIT
// Shown when the artifact scan kept files of a download back (docs/artifact-scan.md): each finding of those
// files (file, line, rule, severity, the masked excerpt) and "Download Anyway", which needs a reason; the
// daemon saves the files then and records the reason in an artifact.override event.
#pragma once

#include <QDialog>
#include <QJsonArray>

class QLineEdit;
class QPushButton;
class QTreeWidget;

namespace Cordon::Ui {

class ScanFindingsDialog final : public QDialog
{
    Q_OBJECT

public:
    // `scanned`: the download's `scanned` entries; the blocked ones are listed.
    explicit ScanFindingsDialog(const QJsonArray &scanned, QWidget *parent = nullptr);

    // The reason typed, trimmed.
    QString reason() const;
    QTreeWidget *findings() const { return m_findings; }
    QLineEdit *reasonField() const { return m_reason; }
    QPushButton *downloadAnywayButton() const { return m_downloadAnyway; }

private:
    QTreeWidget *m_findings;
    QLineEdit *m_reason;
    QPushButton *m_downloadAnyway;
};

} // namespace Cordon::Ui
