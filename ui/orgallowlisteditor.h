// SPDX-License-Identifier: MIT
// The organisation allowlist, the outer bound of every container's list: where it comes from, its entries in
// an AllowlistEditor, and Save (network.set_org_policy, which writes the user's file and applies it to
// running containers at once) and Revert. Read-only, saying so, when an administrator's
// /etc/cordon/org-policy.json governs. The network panel shows it beside a container's list; the Settings
// dialog can embed it as it is.
#pragma once

#include <QJsonArray>
#include <QJsonObject>
#include <QWidget>

class QLabel;
class QPushButton;

namespace Cordon::Ui {

class AllowlistEditor;
class DaemonConnection;

class OrgAllowlistEditor final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(OrgAllowlistEditor)

public:
    explicit OrgAllowlistEditor(DaemonConnection &connection, QWidget *parent = nullptr);

    // Reads network.org_policy; unsaved edits are kept (only the source line and read-only state follow).
    void reload();
    // Says what changes (added and removed entries) and, confirmed, writes the list with
    // network.set_org_policy; saved() says how it went (false also when the user said no).
    void save();
    // Back to the list in force.
    void revert();

    // The last network.org_policy (or set_org_policy) answer: allowed_domains, path, source, administered.
    const QJsonObject &organisation() const { return m_organisation; }
    bool isAdministered() const;
    bool isModified() const;
    // Saved entries differ from what is shown and the list is acceptable.
    bool canSave() const;

    AllowlistEditor *editor() const { return m_editor; }
    QPushButton *saveButton() const { return m_save; }
    QPushButton *revertButton() const { return m_revert; }
    // Where the list comes from, in words.
    QString sourceText() const;
    // What the last save said (plain text).
    QString message() const;

Q_SIGNALS:
    // The list in force changed (read for the first time, changed elsewhere, or saved here).
    void organisationChanged(const QJsonObject &organisation);
    void saved(bool ok);
    // isModified() or canSave() may have changed (for a dialog's own OK button).
    void stateChanged();

private:
    void write();
    // The entries added and removed against the list in force, in words.
    QString changeSummary() const;
    void showOrganisation(const QJsonObject &organisation);
    void setMessage(const QString &text, bool problem);
    void updateButtons();

    DaemonConnection &m_connection;
    QJsonObject m_organisation;
    bool m_busy = false;
    QLabel *m_source;
    AllowlistEditor *m_editor;
    QPushButton *m_save;
    QPushButton *m_revert;
    QLabel *m_message;
};

} // namespace Cordon::Ui
