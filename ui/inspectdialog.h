// SPDX-License-Identifier: MIT
// Inspect: one container as a reviewer needs to see it. Its id, name, state, times and expiry; the effective
// allowlist (each of its rules in words, and whether the organisation allowlist still covers it, asked of the
// daemon's network.check so the answer is the proxy's); and its policy in full, in words and as JSON. Opened
// from the container list's context menu or Container › Inspect (Ctrl+I); it follows the container while
// open.
#pragma once

#include <QDialog>
#include <QJsonObject>

class QLabel;
class QTreeWidget;

namespace Cordon::Ui {

class DaemonConnection;
class PolicyView;

class InspectDialog final : public QDialog
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(InspectDialog)

public:
    InspectDialog(DaemonConnection &connection, const QJsonObject &container, QWidget *parent = nullptr);

    // A newer description of the same container (container.changed); others are ignored.
    void update(const QJsonObject &container);
    QString containerId() const;

    // What is shown, for tests: the header as "Label: value" lines, the effective allowlist rows.
    QString headerText() const;
    QStringList allowlistRows() const;
    PolicyView *policyView() const { return m_policy; }

Q_SIGNALS:
    // The effective allowlist was answered by the daemon (or could not be).
    void allowlistChecked();

private:
    void showHeader();
    void checkAllowlist();

    DaemonConnection &m_connection;
    QJsonObject m_container;
    QLabel *m_header;
    QLabel *m_allowlistTitle;
    QTreeWidget *m_allowlist;
    PolicyView *m_policy;
};

} // namespace Cordon::Ui
