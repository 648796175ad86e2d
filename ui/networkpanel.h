// SPDX-License-Identifier: MIT
// The Network tab for the selected container: the organisation allowlist (an OrgAllowlistEditor: read-only
// when an administrator provides it) beside the container's own list in an AllowlistEditor, Apply
// (container.update_network, the daemon's refusal in words) and Revert; the container's recent egress
// decisions per host (network.summary), refreshed after runs and every few seconds while the tab is visible,
// with "Allow This Host" on a denied host when the organisation list permits it. A container without network
// says so and how to give it an allowlist (stopped containers only: a running one was started without a
// proxy).
#pragma once

#include <QHash>
#include <QJsonArray>
#include <QJsonObject>
#include <QTimer>
#include <QWidget>

class QLabel;
class QPushButton;
class QStackedWidget;
class QTabWidget;
class QTableView;
class QToolButton;

namespace Cordon::Ui {

class AllowlistEditor;
class DaemonConnection;
class NetworkDecisionModel;
class OrgAllowlistEditor;

class NetworkPanel final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(NetworkPanel)

public:
    // While the tab is visible, decisions and the organisation list are read again this often.
    static constexpr int RefreshIntervalMs = 4000;
    // Pushed decisions of the container shown are read again this long after the first of a burst.
    static constexpr int DecisionBurstMs = 300;
    // Rows each list and the decisions keep in sight however little height there is.
    static constexpr int MinimumRows = 3;

    explicit NetworkPanel(DaemonConnection &connection, QWidget *parent = nullptr);

    // The container as in container.list and container.changed (with `policy`); an empty object for none.
    void setContainer(const QJsonObject &container);
    // Pushed events from DaemonConnection::eventReceived: container.changed updates the container shown;
    // run.finished and network decisions of this container read its decisions again; a reloaded
    // organisation list is read again.
    void onEvent(const QString &name, const QJsonObject &payload);

    // "none", "disabled" or "allowlist": which page is shown.
    QString page() const;
    AllowlistEditor *editor() const { return m_editor; }
    OrgAllowlistEditor *organisationEditor() const { return m_org; }
    NetworkDecisionModel *decisionModel() const { return m_decisions; }
    QTableView *decisionView() const { return m_decisionView; }
    QLabel *secretDeliveries() const { return m_secretDeliveries; }
    QPushButton *applyButton() const { return m_apply; }
    QPushButton *revertButton() const { return m_revert; }
    QPushButton *allowHostButton() const { return m_allowHost; }
    // What the last Apply, switch or "allow" said (plain text).
    QString message() const;
    bool isModified() const;
    bool isBusy() const { return m_busy; }

    // The height the page shown needs to show everything without scrolling: the run panel gives it that much
    // from the editor while the tab is shown.
    QSize sizeHint() const override;

    void apply();
    void revert();
    void refreshDecisions();
    // Adds the selected denied host to the list, and applies at once when nothing else was being edited.
    void allowSelectedHost();

Q_SIGNALS:
    // Apply (or a switch of the network type) answered; message() says how.
    void applied(bool ok);

protected:
    void showEvent(QShowEvent *event) override;
    void hideEvent(QHideEvent *event) override;
    void changeEvent(QEvent *event) override;
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    QWidget *buildDisabledPage();
    QWidget *buildAllowlistPage();
    void setNetworkType(const QString &type);
    void updateNetworkPolicy(const QJsonObject &networkPolicy, const QString &done);
    void updatePage();
    void updateButtons();
    // The tabs of the two lists say how many entries each has.
    void updateListTitles();
    void sizeLists();
    void checkSelectedHost();
    void setMessage(const QString &text, bool problem);
    QJsonArray policyDomains() const;
    QString policyType() const;
    bool isLive() const;

    DaemonConnection &m_connection;
    QJsonObject m_container;
    QString m_containerId;
    QJsonArray m_baseline;               // the container's list as the daemon has it
    QHash<QString, QJsonArray> m_drafts; // unapplied lists of containers the user switched away from
    bool m_busy = false;
    quint64 m_decisionGeneration = 0;
    quint64 m_hostCheckGeneration = 0;
    bool m_hostAllowed = false;
    QTimer m_refreshTimer;
    QTimer m_decisionsDue;

    QStackedWidget *m_pages;
    QWidget *m_allowlistPage = nullptr;
    QLabel *m_noneNote;
    QLabel *m_disabledNote;
    QPushButton *m_enable;
    QLabel *m_liveNote;
    QPushButton *m_disable;
    QTabWidget *m_listTabs;
    OrgAllowlistEditor *m_org;
    AllowlistEditor *m_editor;
    QPushButton *m_apply;
    QPushButton *m_revert;
    QLabel *m_message;
    NetworkDecisionModel *m_decisions;
    QTableView *m_decisionView;
    QPushButton *m_allowHost;
    QToolButton *m_refresh;
    QLabel *m_decisionNote;
    // Where domain secrets went, from the same summary: hidden while there is nothing to say.
    QLabel *m_secretDeliveries;
};

} // namespace Cordon::Ui
