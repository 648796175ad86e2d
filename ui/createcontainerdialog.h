// SPDX-License-Identifier: MIT
// "New container": a name, a memory tier, the idle minutes before it expires, the network (off, or an
// allowlist edited in the same AllowlistEditor as the network panel's and checked by the daemon before Create
// is offered), the secrets from the host's store its runs receive (names only), and the advanced limits
// folded away. Creating starts the sandbox, which takes a moment: the dialog stays open with a busy note
// until the daemon answers, and shows the daemon's error in words if it refuses.
#pragma once

#include <QDialog>
#include <QJsonObject>

class QComboBox;
class QDialogButtonBox;
class QGroupBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QProgressBar;
class QRadioButton;
class QSpinBox;
class QToolButton;

namespace Cordon::Ui {

class AllowlistEditor;
class DaemonConnection;

class CreateContainerDialog final : public QDialog
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(CreateContainerDialog)

public:
    CreateContainerDialog(DaemonConnection &connection, QWidget *parent = nullptr);

    // The policy the form describes (docs/policy.md); only the fields the form sets.
    QJsonObject policy() const;
    // The container the daemon created, once accepted.
    const QJsonObject &createdContainer() const { return m_created; }

    void setName(const QString &name);
    // Names of containers that exist (not expired or deleted): such a name is refused here, as the daemon
    // would refuse it.
    void setTakenNames(const QStringList &names);
    // The allowlist editor shown when "Allowlist" is chosen.
    AllowlistEditor *allowlistEditor() const { return m_allowlist; }
    // Chooses the network: false for off, true for an allowlist.
    void setAllowlistChosen(bool allowlist);
    // The secrets of the store offered as checkboxes (from secret.list); those checked go into the policy.
    QListWidget *secretsList() const { return m_secrets; }
    // Whether Create is offered now (the name is valid, the allowlist checked and acceptable).
    bool canCreate() const;

    void accept() override;

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void validate();
    // The name field's validator dropped a keystroke or a paste: the note under the field says why.
    void explainRejectedInput();
    void showOrganisation();
    void loadSecrets();
    void setBusy(bool busy);
    void showError(const QString &text);

    DaemonConnection &m_connection;
    QJsonObject m_created;
    bool m_busy = false;
    QStringList m_takenNames;
    QString m_lastTyped;    // the text of the last key pressed in the name field
    QString m_rejectedNote; // why input was dropped from the name field, until it is emptied

    QLineEdit *m_name;
    QLabel *m_nameError;
    QComboBox *m_memory;
    QSpinBox *m_idleMinutes;
    QListWidget *m_secrets;
    QLabel *m_secretsNote;
    QRadioButton *m_networkOff;
    QRadioButton *m_networkAllowlist;
    AllowlistEditor *m_allowlist;
    QLabel *m_networkNote;
    QToolButton *m_advancedToggle;
    QGroupBox *m_advanced;
    QSpinBox *m_runTimeout;
    QSpinBox *m_pids;
    QSpinBox *m_tmpMb;
    QSpinBox *m_workspaceMb;
    QSpinBox *m_outputMb;
    QProgressBar *m_progress;
    QLabel *m_status;
    QDialogButtonBox *m_buttons;
};

} // namespace Cordon::Ui
