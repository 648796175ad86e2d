// SPDX-License-Identifier: MIT
#include "secretsdialog.h"

#include "allowlisteditor.h"
#include "allowlistmodel.h"
#include "core/formatting.h"
#include "daemonconnection.h"
#include "dialogfit.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHeaderView>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QRegularExpressionValidator>
#include <QTableWidget>
#include <QVBoxLayout>

namespace Cordon::Ui {

namespace {

enum Column
{
    NameColumn,
    UsedByColumn,
    SetColumn,
    FingerprintColumn,
    ColumnCount
};

QString usedByText(const QJsonArray &containers)
{
    QStringList names;
    for (const QJsonValue &container : containers)
        names.append(Format::displayName(container.toObject().value(QStringLiteral("name")).toString()));
    return names.isEmpty() ? SecretsDialog::tr("no container") : names.join(QStringLiteral(", "));
}

} // namespace

SecretsDialog::SecretsDialog(DaemonConnection &connection, QWidget *parent)
    : QDialog(parent), m_connection(connection)
{
    setWindowTitle(tr("Secrets"));
    auto *intro =
        new QLabel(tr("Secrets stay on this computer. A container's policy names the ones its runs "
                      "receive as environment variables, and the domain secrets its proxy puts into "
                      "requests to one domain while the runs hold only a placeholder; values are shown "
                      "as <b>[secret:NAME]</b> in every output Cordon keeps. Values can be set, never "
                      "read back."),
                   this);
    intro->setWordWrap(true);

    m_table = new QTableWidget(0, ColumnCount, this);
    m_table->setObjectName(QStringLiteral("secretsTable"));
    m_table->setHorizontalHeaderLabels({tr("Name"), tr("Used by"), tr("Set"), tr("Fingerprint")});
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setToolTip(tr("The fingerprint is a keyed hash of the value: the same value gives the same "
                           "fingerprint here and in each run's record."));

    m_name = new QLineEdit(this);
    m_name->setObjectName(QStringLiteral("secretName"));
    m_name->setPlaceholderText(QStringLiteral("API_TOKEN"));
    m_name->setValidator(new QRegularExpressionValidator(
        QRegularExpression(QStringLiteral("[A-Za-z_][A-Za-z0-9_]{0,127}")), m_name));
    m_value = new QLineEdit(this);
    m_value->setObjectName(QStringLiteral("secretValue"));
    m_value->setEchoMode(QLineEdit::Password);
    m_value->setPlaceholderText(tr("the value (8 to 4096 bytes; not shown)"));
    m_set = new QPushButton(tr("&Set"), this);
    m_set->setObjectName(QStringLiteral("setSecret"));
    m_remove = new QPushButton(tr("&Remove…"), this);
    m_remove->setObjectName(QStringLiteral("removeSecret"));
    m_valuesIn = new QLabel(this);
    m_valuesIn->setObjectName(QStringLiteral("secretsValuesIn"));
    m_valuesIn->setWordWrap(true);
    m_message = new QLabel(this);
    m_message->setObjectName(QStringLiteral("secretsMessage"));
    m_message->setWordWrap(true);

    auto *form = new QFormLayout;
    form->addRow(tr("Name:"), m_name);
    form->addRow(tr("Value:"), m_value);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    buttons->addButton(m_set, QDialogButtonBox::ActionRole);
    buttons->addButton(m_remove, QDialogButtonBox::ActionRole);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto *layout = new QVBoxLayout;
    layout->addWidget(intro);
    layout->addWidget(m_table, 1);
    layout->addWidget(m_valuesIn);
    layout->addLayout(form);
    layout->addWidget(m_message);
    DialogFit::install(this, layout, buttons, QSize(820, 420));

    connect(m_set, &QPushButton::clicked, this, &SecretsDialog::setFromFields);
    connect(m_value, &QLineEdit::returnPressed, this, &SecretsDialog::setFromFields);
    connect(m_remove, &QPushButton::clicked, this, [this] {
        const int row = m_table->currentRow();
        if (row < 0)
            return;
        const QString name = m_table->item(row, NameColumn)->text();
        const auto answer = QMessageBox::question(
            this, tr("Remove secret"),
            tr("Remove secret %1? Runs of containers that use it fail until it is set again.").arg(name));
        if (answer == QMessageBox::Yes)
            removeSecret(name);
    });
    connect(m_table, &QTableWidget::itemSelectionChanged, this, [this] {
        if (const int row = m_table->currentRow(); row >= 0)
            m_name->setText(m_table->item(row, NameColumn)->text());
        updateButtons();
    });
    connect(m_name, &QLineEdit::textChanged, this, &SecretsDialog::updateButtons);
    connect(m_value, &QLineEdit::textChanged, this, &SecretsDialog::updateButtons);
    connect(&m_connection, &DaemonConnection::statusChanged, this, [this] {
        if (m_connection.isConnected())
            reload();
        updateButtons();
    });
    if (m_connection.isConnected())
        reload();
    updateButtons();
}

void SecretsDialog::reload()
{
    m_connection.call(QStringLiteral("secret.list"), {}, this, [this](Result<QJsonObject> result) {
        if (!result) {
            setMessage(tr("Could not read the secrets: %1").arg(errorWithHint(result.error())), true);
            Q_EMIT finished(false);
            return;
        }
        showSecrets(result->value(QStringLiteral("secrets")).toArray());
        m_valuesIn->setText(
            result->value(QStringLiteral("values_in")).toString() == QLatin1String("secret-service")
                ? tr("Values are kept in the desktop keyring (Secret Service); a locked keyring "
                     "must be unlocked before a run can receive them.")
                : tr("Values are kept in the data folder's secrets.json, readable by you alone "
                     "(mode 0600)."));
        Q_EMIT finished(true);
    });
}

void SecretsDialog::setFromFields()
{
    if (!m_set->isEnabled())
        return;
    const QJsonObject existing = secretNamed(m_name->text());
    if (existing.isEmpty())
        return sendFields();
    // A value cannot be read back: replaced by mistake, the old one is gone for good.
    const QString name = m_name->text();
    auto *box = new QMessageBox(QMessageBox::Question, tr("Replace Secret"),
                                tr("Replace the value of secret %1?").arg(Format::displayName(name)),
                                QMessageBox::Cancel, this);
    box->setObjectName(QStringLiteral("replaceSecretQuestion"));
    box->setTextFormat(Qt::PlainText);
    box->setInformativeText(
        tr("The value set %1 (%2) cannot be read back and is gone once replaced. Used by: %3; their next "
           "runs receive the new value.")
            .arg(Format::dateTime(existing.value(QStringLiteral("set_at")).toInteger()),
                 existing.value(QStringLiteral("fingerprint")).toString(),
                 usedByText(existing.value(QStringLiteral("used_by")).toArray())));
    QPushButton *replace = box->addButton(tr("&Replace"), QMessageBox::DestructiveRole);
    replace->setObjectName(QStringLiteral("replaceSecretButton"));
    box->setDefaultButton(QMessageBox::Cancel);
    box->setAttribute(Qt::WA_DeleteOnClose);
    connect(box, &QMessageBox::finished, this, [this, box, replace, name] {
        // Still the name asked about: the fields could have changed while the question was open.
        if (box->clickedButton() == replace && m_name->text() == name)
            sendFields();
    });
    box->open();
}

QJsonObject SecretsDialog::secretNamed(const QString &name) const
{
    for (const QJsonValue &secret : m_secrets) {
        if (secret.toObject().value(QStringLiteral("name")).toString() == name)
            return secret.toObject();
    }
    return {};
}

void SecretsDialog::sendFields()
{
    if (!m_set->isEnabled())
        return;
    const QString name = m_name->text();
    const QString value = m_value->text();
    // The value leaves the widget at once: nothing keeps it once it is on its way to the daemon.
    m_value->clear();
    m_connection.call(
        QStringLiteral("secret.set"), {{QStringLiteral("name"), name}, {QStringLiteral("value"), value}},
        this, [this, name](Result<QJsonObject> result) {
            if (!result) {
                setMessage(tr("Not set: %1").arg(errorWithHint(result.error())), true);
                Q_EMIT finished(false);
                return;
            }
            const QJsonObject secret = result->value(QStringLiteral("secret")).toObject();
            setMessage(
                tr("Secret %1 set (%2).").arg(name, secret.value(QStringLiteral("fingerprint")).toString()),
                false);
            reload();
        });
}

void SecretsDialog::removeSecret(const QString &name)
{
    m_connection.call(QStringLiteral("secret.remove"), {{QStringLiteral("name"), name}}, this,
                      [this, name](Result<QJsonObject> result) {
                          if (!result) {
                              setMessage(tr("Not removed: %1").arg(errorWithHint(result.error())), true);
                              Q_EMIT finished(false);
                              return;
                          }
                          setMessage(tr("Secret %1 removed.").arg(name), false);
                          reload();
                      });
}

QString SecretsDialog::message() const
{
    return m_message->text();
}

void SecretsDialog::showSecrets(const QJsonArray &secrets)
{
    m_secrets = secrets;
    m_table->setRowCount(0);
    for (const QJsonValue &value : secrets) {
        const QJsonObject secret = value.toObject();
        const int row = m_table->rowCount();
        m_table->insertRow(row);
        const QStringList cells{secret.value(QStringLiteral("name")).toString(),
                                usedByText(secret.value(QStringLiteral("used_by")).toArray()),
                                Format::dateTime(secret.value(QStringLiteral("set_at")).toInteger()),
                                secret.value(QStringLiteral("fingerprint")).toString()};
        for (int column = 0; column < ColumnCount; ++column)
            m_table->setItem(row, column, new QTableWidgetItem(cells.at(column)));
    }
    m_table->resizeColumnsToContents();
    updateButtons();
}

QString SecretsDialog::valuesInText() const
{
    return m_valuesIn->text();
}

void SecretsDialog::setMessage(const QString &text, bool problem)
{
    showNote(m_message, text, problem ? AllowlistModel::problemColour(palette()) : QColor());
}

void SecretsDialog::updateButtons()
{
    const bool connected = m_connection.isConnected();
    m_set->setEnabled(connected && m_name->hasAcceptableInput() && !m_value->text().isEmpty());
    m_remove->setEnabled(connected && m_table->currentRow() >= 0);
}

} // namespace Cordon::Ui
