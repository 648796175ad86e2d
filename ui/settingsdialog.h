// SPDX-License-Identifier: MIT
// Settings: what a new container starts with (memory tier, idle minutes), how the window looks (the system's
// theme or a light or dark one), the organisation allowlist (edited here unless an administrator's file
// governs it), and where the daemon keeps its data, with a way to clear old history. The general choices
// take effect on OK; the allowlist and the history purge go to the daemon at once, as their buttons say.
#pragma once

#include <QDialog>

class QComboBox;
class QLabel;
class QPushButton;
class QSpinBox;
class QTabWidget;

namespace Cordon::Ui {

class DaemonConnection;
class OrgAllowlistEditor;

class SettingsDialog final : public QDialog
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(SettingsDialog)

public:
    SettingsDialog(DaemonConnection &connection, QWidget *parent = nullptr);

    QTabWidget *tabs() const { return m_tabs; }
    OrgAllowlistEditor *orgEditor() const { return m_orgEditor; }
    // Where the history purge stands, for tests: the last result or error in words.
    QString purgeMessage() const;

    void accept() override;

private:
    QWidget *buildGeneralPage();
    QWidget *buildNetworkPage();
    QWidget *buildDataPage();
    void loadDataLocation();
    void purgeHistory();

    DaemonConnection &m_connection;
    QTabWidget *m_tabs;
    OrgAllowlistEditor *m_orgEditor = nullptr;
    QComboBox *m_memory = nullptr;
    QSpinBox *m_idleMinutes = nullptr;
    QComboBox *m_theme = nullptr;
    QLabel *m_dataLocation = nullptr;
    QPushButton *m_openData = nullptr;
    QSpinBox *m_purgeDays = nullptr;
    QPushButton *m_purge = nullptr;
    QLabel *m_purgeMessage = nullptr;
    QString m_dataDir;
};

} // namespace Cordon::Ui
