// SPDX-License-Identifier: MIT
#include "csvuploaddialog.h"

#include "core/formatting.h"
#include "dialogfit.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

namespace Cordon::Ui {

namespace {

// Enough rows to recognise the columns; the daemon reads no more than it shows.
constexpr int PreviewRows = 8;

QString delimiterName(const QString &delimiter)
{
    if (delimiter.isEmpty())
        return QObject::tr("one column");
    if (delimiter == QLatin1String(","))
        return QObject::tr("comma-separated");
    if (delimiter == QLatin1String(";"))
        return QObject::tr("semicolon-separated");
    if (delimiter == QLatin1String("\t"))
        return QObject::tr("tab-separated");
    return QObject::tr("separated by %1").arg(delimiter);
}

} // namespace

CsvUploadDialog::CsvUploadDialog(DaemonConnection &connection, const QString &hostPath, QWidget *parent)
    : QDialog(parent), m_connection(connection), m_hostPath(hostPath)
{
    setObjectName(QStringLiteral("csvUploadDialog"));
    const QString name = Format::displayName(QFileInfo(hostPath).fileName());
    setWindowTitle(tr("Upload CSV: %1").arg(name));

    auto *intro =
        new QLabel(tr("Check the columns that hold personal data: their values reach the container as "
                      "keyed pseudonyms (psn_…), the same value always the same pseudonym, so joins "
                      "still work. The file on this computer and the key stay here."),
                   this);
    intro->setWordWrap(true);

    m_columns = new QListWidget(this);
    m_columns->setObjectName(QStringLiteral("csvColumns"));
    m_columns->setToolTip(tr("Columns to pseudonymise"));
    m_columns->setMaximumWidth(220);
    connect(m_columns, &QListWidget::itemChanged, this, [this] { updateTable(); });

    m_table = new QTableWidget(this);
    m_table->setObjectName(QStringLiteral("csvPreview"));
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionMode(QAbstractItemView::NoSelection);
    m_table->verticalHeader()->setVisible(false);
    m_table->horizontalHeader()->setStretchLastSection(true);

    m_header = new QCheckBox(tr("First row is a header"), this);
    m_header->setObjectName(QStringLiteral("csvHeader"));
    connect(m_header, &QCheckBox::clicked, this, [this] { requestPreview(true); });

    m_status = new QLabel(tr("Reading the file…"), this);
    m_status->setObjectName(QStringLiteral("csvStatus"));
    m_status->setWordWrap(true);
    m_key = new QLabel(this);
    m_key->setObjectName(QStringLiteral("csvKey"));
    m_key->setWordWrap(true);
    m_guessable = new QLabel(this);
    m_guessable->setObjectName(QStringLiteral("csvGuessable"));
    m_guessable->setWordWrap(true);
    m_guessable->setVisible(false);

    auto *buttons = new QDialogButtonBox(this);
    m_upload = buttons->addButton(tr("Upload As Is"), QDialogButtonBox::AcceptRole);
    m_upload->setObjectName(QStringLiteral("csvUpload"));
    m_upload->setDefault(true);
    buttons->addButton(QDialogButtonBox::Cancel);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto *middle = new QHBoxLayout;
    middle->addWidget(m_columns);
    middle->addWidget(m_table, 1);
    auto *layout = new QVBoxLayout;
    layout->addWidget(intro);
    layout->addLayout(middle, 1);
    layout->addWidget(m_header);
    layout->addWidget(m_status);
    layout->addWidget(m_key);
    layout->addWidget(m_guessable);
    DialogFit::install(this, layout, buttons, QSize(760, 420));

    requestPreview(false);
}

void CsvUploadDialog::requestPreview(bool explicitHeader)
{
    // Nothing is uploaded from a table the user has not seen: Upload waits for the answer.
    m_loaded = false;
    m_upload->setEnabled(false);
    m_header->setEnabled(false);
    QJsonObject params{{QStringLiteral("path"), m_hostPath}, {QStringLiteral("rows"), PreviewRows}};
    if (explicitHeader)
        params.insert(QStringLiteral("header"), m_header->isChecked());
    const int request = ++m_request;
    m_connection.call(QStringLiteral("file.csv_preview"), params, this,
                      [this, request](Result<QJsonObject> result) {
                          if (request != m_request)
                              return;
                          if (result)
                              showPreview(*result);
                          else
                              showError(toQt(result.error().message()));
                          m_loaded = true;
                          m_upload->setEnabled(true);
                          Q_EMIT previewLoaded();
                      });
}

void CsvUploadDialog::showPreview(const QJsonObject &preview)
{
    // The checks survive a header toggle where the columns stay the same.
    QList<bool> checked;
    for (int i = 0; i < m_columns->count(); ++i)
        checked.append(m_columns->item(i)->checkState() == Qt::Checked);
    m_preview = preview;
    const QJsonArray names = preview.value(QStringLiteral("columns")).toArray();
    const QSignalBlocker blocker(m_columns);
    m_columns->clear();
    for (int i = 0; i < names.size(); ++i) {
        auto *item = new QListWidgetItem(Format::displayName(names.at(i).toString()), m_columns);
        item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable);
        item->setCheckState(checked.size() == names.size() && checked.at(i) ? Qt::Checked : Qt::Unchecked);
    }
    m_header->setChecked(preview.value(QStringLiteral("header")).toBool());
    m_header->setEnabled(true);
    // A guess on even evidence is shown as one: the first row goes in raw if it is data taken for names.
    m_header->setText(preview.value(QStringLiteral("header_sure")).toBool()
                          ? tr("First row is a header")
                          : tr("First row is a header (a guess: check the first row above)"));
    const int rows = int(preview.value(QStringLiteral("rows")).toArray().size());
    const bool truncated = preview.value(QStringLiteral("truncated")).toBool();
    const QString shown =
        truncated ? (rows == 1 ? tr("the first row shown") : tr("the first %1 rows shown").arg(rows))
                  : (rows == 1 ? tr("1 row") : tr("%1 rows").arg(rows));
    m_status->setText(tr("%1, %2%3.")
                          .arg(delimiterName(preview.value(QStringLiteral("delimiter")).toString()), shown,
                               preview.value(QStringLiteral("byte_order_mark")).toBool()
                                   ? tr(", with a byte-order mark")
                                   : QString()));
    m_key->setText(tr("Key: %1 (%2), kept in the secret store; no mapping back is stored.")
                       .arg(preview.value(QStringLiteral("key")).toString(),
                            preview.value(QStringLiteral("key_id")).toString()));
    updateTable();
}

void CsvUploadDialog::showError(const QString &message)
{
    m_preview = {};
    m_columns->clear();
    m_table->clear();
    m_table->setRowCount(0);
    m_table->setColumnCount(0);
    m_header->setEnabled(false);
    m_key->clear();
    m_status->setText(tr("This file cannot be pseudonymised: %1. It can still be uploaded as it is.")
                          .arg(Format::displayName(message)));
    updateTable();
}

void CsvUploadDialog::updateTable()
{
    const QJsonArray names = m_preview.value(QStringLiteral("columns")).toArray();
    const QJsonArray rows = m_preview.value(QStringLiteral("rows")).toArray();
    const QJsonArray pseudonyms = m_preview.value(QStringLiteral("pseudonyms")).toArray();
    m_table->setColumnCount(int(names.size()));
    m_table->setRowCount(int(rows.size()));
    int chosen = 0;
    for (int column = 0; column < names.size(); ++column) {
        const bool pseudonymised = m_columns->item(column)->checkState() == Qt::Checked;
        chosen += pseudonymised ? 1 : 0;
        auto *heading = new QTableWidgetItem(Format::displayName(names.at(column).toString()));
        if (pseudonymised) {
            QFont font = heading->font();
            font.setItalic(true);
            heading->setFont(font);
            heading->setToolTip(tr("pseudonymised"));
        }
        m_table->setHorizontalHeaderItem(column, heading);
        for (int row = 0; row < rows.size(); ++row) {
            const QJsonArray source = (pseudonymised ? pseudonyms : rows).at(row).toArray();
            auto *cell = new QTableWidgetItem(Format::displayName(source.at(column).toString()));
            if (pseudonymised) {
                QFont font = cell->font();
                font.setItalic(true);
                cell->setFont(font);
                cell->setToolTip(
                    tr("was: %1").arg(Format::displayName(rows.at(row).toArray().at(column).toString())));
            }
            m_table->setItem(row, column, cell);
        }
    }
    m_table->resizeColumnsToContents();
    // Pseudonyms hide a value only from someone who cannot guess it: few values are easily listed.
    const QJsonArray few = m_preview.value(QStringLiteral("few_distinct")).toArray();
    QStringList guessable;
    for (int column = 0; column < names.size() && column < few.size(); ++column) {
        if (m_columns->item(column)->checkState() == Qt::Checked && few.at(column).toInteger() > 0)
            guessable.append(tr("%1 (%2 values)")
                                 .arg(Format::displayName(names.at(column).toString()))
                                 .arg(few.at(column).toInteger()));
    }
    m_guessable->setVisible(!guessable.isEmpty());
    m_guessable->setText(
        tr("⚠ Few distinct values in %1: whoever can list the values they could hold, and get a file of them "
           "pseudonymised with the same key (code in the container can ask you to upload one), can match "
           "the pseudonyms and read the column back.")
            .arg(guessable.join(QStringLiteral(", "))));
    m_upload->setText(chosen == 0   ? tr("Upload As Is")
                      : chosen == 1 ? tr("Upload with 1 Column Pseudonymised")
                                    : tr("Upload with %1 Columns Pseudonymised").arg(chosen));
}

QJsonObject CsvUploadDialog::pseudonymizeRequest() const
{
    // By position, with the header as shown: a header may repeat a name, a position is never ambiguous. The
    // history still records the header's names.
    QJsonArray columns;
    for (int i = 0; i < m_columns->count(); ++i) {
        if (m_columns->item(i)->checkState() == Qt::Checked)
            columns.append(i + 1);
    }
    if (columns.isEmpty())
        return {};
    return {{QStringLiteral("columns"), columns},
            {QStringLiteral("header"), m_header->isChecked()},
            {QStringLiteral("key"), m_preview.value(QStringLiteral("key")).toString()}};
}

} // namespace Cordon::Ui
