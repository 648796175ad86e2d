// SPDX-License-Identifier: MIT
// Upload CSV (docs/pseudonymize.md): a CSV file about to be uploaded, its first rows as a table, a checkbox
// per column and, in each checked column, the pseudonyms the container will see instead of the values. The
// daemon reads the file and holds the key (file.csv_preview); this dialog only shows and chooses. Upload with
// no column checked sends the file as it is.
#pragma once

#include "daemonconnection.h"

#include <QDialog>
#include <QJsonArray>
#include <QJsonObject>

class QCheckBox;
class QLabel;
class QListWidget;
class QPushButton;
class QTableWidget;

namespace Cordon::Ui {

class CsvUploadDialog final : public QDialog
{
    Q_OBJECT

public:
    CsvUploadDialog(DaemonConnection &connection, const QString &hostPath, QWidget *parent = nullptr);

    // file.upload's `pseudonymize` for the choice made (positions, and the header as the checkbox says), or
    // an empty object for "as it is".
    QJsonObject pseudonymizeRequest() const;

    QListWidget *columnList() const { return m_columns; }
    QTableWidget *previewTable() const { return m_table; }
    QCheckBox *headerBox() const { return m_header; }
    QPushButton *uploadButton() const { return m_upload; }
    QLabel *statusLabel() const { return m_status; }
    // Whether the preview has arrived (or failed) since the last request.
    bool isLoaded() const { return m_loaded; }

Q_SIGNALS:
    void previewLoaded();

private:
    void requestPreview(bool explicitHeader);
    void showPreview(const QJsonObject &preview);
    void showError(const QString &message);
    void updateTable();

    DaemonConnection &m_connection;
    QString m_hostPath;
    QJsonObject m_preview;
    bool m_loaded = false;
    int m_request = 0; // the newest preview asked for: older answers are dropped
    QListWidget *m_columns;
    QTableWidget *m_table;
    QCheckBox *m_header;
    QLabel *m_status;
    QLabel *m_key;
    QLabel *m_guessable; // a checked column that few values fill can be read back by guessing
    QPushButton *m_upload;
};

} // namespace Cordon::Ui
