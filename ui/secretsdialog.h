// SPDX-License-Identifier: MIT
// The host's secrets in the workbench (docs/secrets.md): the store's names, when each was set, its
// fingerprint and the containers whose policy uses it (secret.list), a write-only field to set one
// (secret.set) and Remove (secret.remove). A value is never shown and never read back: the field is a
// password field, emptied as soon as the value is sent.
#pragma once

#include <QDialog>
#include <QJsonArray>
#include <QJsonObject>

class QLabel;
class QLineEdit;
class QPushButton;
class QTableWidget;

namespace Cordon::Ui {

class DaemonConnection;

class SecretsDialog final : public QDialog
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(SecretsDialog)

public:
    explicit SecretsDialog(DaemonConnection &connection, QWidget *parent = nullptr);

    // Reads secret.list again.
    void reload();
    // Sends the name and value fields (secret.set); finished() says how it went. A name already in the store
    // asks first (replaceSecretQuestion), as the value it replaces is gone for good.
    void setFromFields();
    // Removes a secret without asking (the button asks first).
    void removeSecret(const QString &name);

    // The last secret.list answer.
    const QJsonArray &secrets() const { return m_secrets; }
    QString message() const;
    // Where the store keeps its values, as the dialog says it under the table.
    QString valuesInText() const;

Q_SIGNALS:
    // A set, remove or reload answered.
    void finished(bool ok);

private:
    void sendFields();
    // The secret of that name in the last list; empty when there is none.
    QJsonObject secretNamed(const QString &name) const;
    void showSecrets(const QJsonArray &secrets);
    void setMessage(const QString &text, bool problem);
    void updateButtons();

    DaemonConnection &m_connection;
    QJsonArray m_secrets;
    QTableWidget *m_table;
    QLineEdit *m_name;
    QLineEdit *m_value;
    QPushButton *m_set;
    QPushButton *m_remove;
    QLabel *m_message;
    QLabel *m_valuesIn;
};

} // namespace Cordon::Ui
