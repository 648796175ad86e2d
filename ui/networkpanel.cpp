// SPDX-License-Identifier: MIT
#include "networkpanel.h"

#include "allowlisteditor.h"
#include "allowlistmodel.h"
#include "daemonconnection.h"
#include "networkdecisionmodel.h"
#include "orgallowlisteditor.h"

#include <QEvent>
#include <QFrame>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QJsonArray>
#include <QJsonObject>
#include <QLabel>
#include <QListView>
#include <QMap>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QStackedWidget>
#include <QTabWidget>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

namespace Cordon::Ui {

namespace {

enum Page
{
    NonePage,
    DisabledPage,
    AllowlistPage,
};

QLabel *note(QWidget *parent, const QString &objectName)
{
    auto *label = new QLabel(parent);
    label->setObjectName(objectName);
    label->setTextFormat(Qt::PlainText);
    label->setWordWrap(true);
    return label;
}

// "Secret API_TOKEN: sent to api.example.com (3 requests); refused to other.example.net (1 request)", one
// line per secret, from network.summary's "secrets".
QString secretDeliveriesText(const QJsonArray &rows)
{
    QMap<QString, QStringList> sent;
    QMap<QString, QStringList> refused;
    for (const QJsonValue &value : rows) {
        const QJsonObject row = value.toObject();
        const qint64 count = row[QStringLiteral("count")].toInteger();
        const QString host = row[QStringLiteral("host")].toString();
        const QString entry = count == 1 ? NetworkPanel::tr("%1 (1 request)").arg(host)
                                         : NetworkPanel::tr("%1 (%2 requests)").arg(host).arg(count);
        (row[QStringLiteral("decision")].toString() == QStringLiteral("refused")
             ? refused
             : sent)[row[QStringLiteral("secret")].toString()]
            .append(entry);
    }
    QStringList lines;
    QStringList names = sent.keys() + refused.keys();
    names.removeDuplicates();
    names.sort();
    for (const QString &name : std::as_const(names)) {
        QStringList parts;
        if (sent.contains(name))
            parts.append(NetworkPanel::tr("sent to %1").arg(sent[name].join(QStringLiteral(", "))));
        if (refused.contains(name))
            parts.append(NetworkPanel::tr("refused to %1").arg(refused[name].join(QStringLiteral(", "))));
        lines.append(NetworkPanel::tr("Secret %1: %2").arg(name, parts.join(QStringLiteral("; "))));
    }
    return lines.join(QLatin1Char('\n'));
}

} // namespace

NetworkPanel::NetworkPanel(DaemonConnection &connection, QWidget *parent)
    : QWidget(parent), m_connection(connection), m_pages(new QStackedWidget(this)),
      m_noneNote(note(this, QStringLiteral("networkNoneNote"))),
      m_disabledNote(note(this, QStringLiteral("networkDisabledNote"))),
      m_enable(new QPushButton(tr("&Use an Allowlist"), this)),
      m_liveNote(note(this, QStringLiteral("networkLiveNote"))),
      m_disable(new QPushButton(tr("Turn Network &Off"), this)), m_listTabs(new QTabWidget(this)),
      m_org(new OrgAllowlistEditor(connection, this)),
      m_editor(new AllowlistEditor(connection, AllowlistEditor::Mode::Container, this)),
      m_apply(new QPushButton(tr("&Apply"), this)), m_revert(new QPushButton(tr("&Revert"), this)),
      m_message(note(this, QStringLiteral("networkMessage"))), m_decisions(new NetworkDecisionModel(this)),
      m_decisionView(new QTableView(this)), m_allowHost(new QPushButton(tr("Allow T&his Host"), this)),
      m_refresh(new QToolButton(this)), m_decisionNote(note(this, QStringLiteral("decisionNote"))),
      m_secretDeliveries(note(this, QStringLiteral("secretDeliveries")))
{
    setObjectName(QStringLiteral("networkPanel"));
    m_noneNote->setAlignment(Qt::AlignCenter);
    m_noneNote->setForegroundRole(QPalette::PlaceholderText);
    auto *nonePage = new QWidget(this);
    auto *noneLayout = new QVBoxLayout(nonePage);
    noneLayout->addWidget(m_noneNote, 1);
    m_pages->addWidget(nonePage);
    m_pages->addWidget(buildDisabledPage());
    // The run panel gives the allowlist page the height it asks for (sizeHint()) from the editor; with a dock
    // open on a small screen there may still be less, and it scrolls rather than make the window taller than
    // the screen.
    auto *allowlistScroll = new QScrollArea(this);
    allowlistScroll->setObjectName(QStringLiteral("allowlistScroll"));
    allowlistScroll->setWidgetResizable(true);
    allowlistScroll->setFrameShape(QFrame::NoFrame);
    m_allowlistPage = buildAllowlistPage();
    allowlistScroll->setWidget(m_allowlistPage);
    m_pages->addWidget(allowlistScroll);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_pages);

    m_decisionsDue.setSingleShot(true);
    m_decisionsDue.setInterval(DecisionBurstMs);
    connect(&m_decisionsDue, &QTimer::timeout, this, &NetworkPanel::refreshDecisions);
    m_refreshTimer.setInterval(RefreshIntervalMs);
    connect(&m_refreshTimer, &QTimer::timeout, this, [this] {
        refreshDecisions();
        if (!m_org->isModified())
            m_org->reload();
    });
    connect(&m_connection, &DaemonConnection::statusChanged, this, [this] {
        if (m_connection.isConnected())
            refreshDecisions();
        updateButtons();
    });
    setContainer({});
}

QWidget *NetworkPanel::buildDisabledPage()
{
    auto *page = new QWidget(this);
    m_enable->setObjectName(QStringLiteral("enableAllowlistButton"));
    m_enable->setToolTip(
        tr("Give this stopped container the egress proxy with an empty allowlist, then add hosts"));
    connect(m_enable, &QPushButton::clicked, this, [this] { setNetworkType(QStringLiteral("allowlist")); });
    auto *layout = new QVBoxLayout(page);
    layout->addStretch(1);
    layout->addWidget(m_disabledNote);
    layout->addWidget(m_enable, 0, Qt::AlignLeft);
    layout->addStretch(2);
    return page;
}

QWidget *NetworkPanel::buildAllowlistPage()
{
    auto *page = new QWidget(this);
    m_disable->setObjectName(QStringLiteral("disableNetworkButton"));
    connect(m_disable, &QPushButton::clicked, this, [this] { setNetworkType(QStringLiteral("disabled")); });
    auto *top = new QHBoxLayout;
    top->addWidget(m_liveNote, 1);
    top->addWidget(m_disable);

    connect(m_org, &OrgAllowlistEditor::organisationChanged, this, [this] {
        // What the container may list depends on it.
        m_editor->recheck();
        checkSelectedHost();
    });

    m_editor->setObjectName(QStringLiteral("containerAllowlistEditor"));
    m_apply->setObjectName(QStringLiteral("applyNetworkButton"));
    m_apply->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_S));
    m_revert->setObjectName(QStringLiteral("revertNetworkButton"));
    m_revert->setToolTip(tr("Back to the list the container has"));
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_message->hide();
    connect(m_apply, &QPushButton::clicked, this, &NetworkPanel::apply);
    connect(m_revert, &QPushButton::clicked, this, &NetworkPanel::revert);
    connect(m_editor, &AllowlistEditor::entriesChanged, this, [this] {
        setMessage(QString(), false);
        updateButtons();
        checkSelectedHost();
    });
    connect(m_editor, &AllowlistEditor::validityChanged, this, &NetworkPanel::updateButtons);
    m_editor->addTrailingButton(m_revert);
    m_editor->addTrailingButton(m_apply);
    auto *containerPage = new QWidget(this);
    auto *containerLayout = new QVBoxLayout(containerPage);
    containerLayout->setContentsMargins(6, 6, 6, 6);
    containerLayout->addWidget(m_editor, 1);
    containerLayout->addWidget(m_message);
    auto *orgPage = new QWidget(this);
    auto *orgLayout = new QVBoxLayout(orgPage);
    orgLayout->setContentsMargins(6, 6, 6, 6);
    orgLayout->addWidget(m_org);

    // The container's list, which the task is about, in front and the organisation's, its outer bound, one
    // tab away: side by side the two lists and the decisions under them did not fit a laptop's screen.
    m_listTabs->setObjectName(QStringLiteral("networkListTabs"));
    m_listTabs->addTab(containerPage, QString());
    m_listTabs->addTab(orgPage, QString());
    for (AllowlistModel *model : {m_editor->model(), m_org->editor()->model()}) {
        connect(model, &QAbstractItemModel::modelReset, this, &NetworkPanel::updateListTitles);
        connect(model, &QAbstractItemModel::rowsInserted, this, &NetworkPanel::updateListTitles);
        connect(model, &QAbstractItemModel::rowsRemoved, this, &NetworkPanel::updateListTitles);
    }
    updateListTitles();

    auto *decisionBox = new QFrame(this);
    decisionBox->setObjectName(QStringLiteral("decisionBox"));
    decisionBox->setFrameShape(QFrame::StyledPanel);
    auto *decisionTitle = new QLabel(tr("Recent decisions"), this);
    decisionTitle->setWordWrap(true);
    m_decisionView->setObjectName(QStringLiteral("decisionTable"));
    m_decisionView->setAccessibleName(tr("Recent network decisions"));
    m_decisionView->setModel(m_decisions);
    m_decisionView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_decisionView->setSelectionMode(QAbstractItemView::SingleSelection);
    m_decisionView->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_decisionView->setAlternatingRowColors(true);
    m_decisionView->setWordWrap(false);
    m_decisionView->verticalHeader()->hide();
    m_decisionView->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_decisionView->horizontalHeader()->setSectionResizeMode(NetworkDecisionModel::ReasonColumn,
                                                             QHeaderView::Stretch);
    connect(m_decisionView->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            &NetworkPanel::checkSelectedHost);
    m_allowHost->setObjectName(QStringLiteral("allowHostButton"));
    m_allowHost->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_A));
    connect(m_allowHost, &QPushButton::clicked, this, &NetworkPanel::allowSelectedHost);
    m_refresh->setObjectName(QStringLiteral("refreshDecisionsButton"));
    m_refresh->setText(tr("Re&fresh"));
    m_refresh->setToolTip(tr("Read the decisions again"));
    connect(m_refresh, &QPushButton::clicked, this, &NetworkPanel::refreshDecisions);
    // Said in the table's empty space rather than under it, where its lines took the rows' room.
    m_decisionNote->setForegroundRole(QPalette::PlaceholderText);
    m_decisionNote->setParent(m_decisionView->viewport());
    m_decisionNote->setAlignment(Qt::AlignCenter);
    m_decisionNote->setAttribute(Qt::WA_TransparentForMouseEvents);
    m_decisionNote->show();
    m_decisionView->viewport()->installEventFilter(this);
    // Refresh beside the title and Allow This Host alone under the table: the column stays narrow enough to
    // sit beside the lists on a 1280-pixel screen in presentation mode.
    m_refresh->setAutoRaise(true);
    auto *decisionHeader = new QHBoxLayout;
    decisionHeader->addWidget(decisionTitle, 1);
    decisionHeader->addWidget(m_refresh);
    auto *decisionButtons = new QHBoxLayout;
    decisionButtons->addStretch(1);
    decisionButtons->addWidget(m_allowHost);
    auto *decisionLayout = new QVBoxLayout(decisionBox);
    decisionLayout->setContentsMargins(6, 6, 6, 6);
    decisionLayout->addLayout(decisionHeader);
    decisionLayout->addWidget(m_decisionView, 1);
    m_secretDeliveries->setToolTip(
        tr("Domain secrets: the proxy puts a secret's value into requests to its "
           "domain only, and refuses a request that carries its placeholder anywhere "
           "else"));
    m_secretDeliveries->hide();
    decisionLayout->addWidget(m_secretDeliveries);
    decisionLayout->addLayout(decisionButtons);

    // The lists beside the decisions, not above them: the panel is wider than it is tall on every screen.
    auto *columns = new QSplitter(Qt::Horizontal, this);
    columns->setObjectName(QStringLiteral("networkSplitter"));
    columns->addWidget(m_listTabs);
    columns->addWidget(decisionBox);
    columns->setStretchFactor(0, 1);
    columns->setStretchFactor(1, 1);
    columns->setChildrenCollapsible(false);

    auto *layout = new QVBoxLayout(page);
    layout->setContentsMargins(6, 6, 6, 6);
    layout->addLayout(top);
    layout->addWidget(columns, 1);
    return page;
}

void NetworkPanel::updateListTitles()
{
    sizeLists();
    m_listTabs->setTabText(0, tr("&This container (%1)").arg(m_editor->model()->rowCount()));
    m_listTabs->setTabText(1, tr("Or&ganisation (%1)").arg(m_org->editor()->model()->rowCount()));
}

void NetworkPanel::setContainer(const QJsonObject &container)
{
    const QString id = container.value(QStringLiteral("id")).toString();
    const bool other = id != m_containerId;
    const QJsonArray before = m_baseline;
    const bool wasModified = isModified();
    if (other && wasModified && !m_containerId.isEmpty())
        m_drafts.insert(m_containerId, m_editor->entries()); // kept for when the user comes back
    m_container = container;
    m_containerId = id;
    m_baseline = policyDomains();
    if (other) {
        ++m_decisionGeneration;
        m_decisions->clear();
        const auto draft = m_drafts.constFind(id);
        if (draft != m_drafts.cend() && policyType() == QLatin1String("allowlist")) {
            m_editor->setEntries(*draft);
            setMessage(
                tr("Your changes to this list from before are back, not applied yet: Apply or Revert them."),
                false);
        } else {
            m_editor->setEntries(m_baseline);
            setMessage(QString(), false);
        }
        m_drafts.remove(id);
        refreshDecisions();
    } else if (m_baseline != before && !wasModified) {
        // Changed by another client (the CLI, another window): show it, unless the user is editing.
        m_editor->setEntries(m_baseline);
    }
    updatePage();
}

void NetworkPanel::onEvent(const QString &name, const QJsonObject &payload)
{
    if (name == QLatin1String("container.changed")) {
        const QJsonObject container = payload.value(QStringLiteral("container")).toObject();
        if (!m_containerId.isEmpty() && container.value(QStringLiteral("id")).toString() == m_containerId)
            setContainer(container);
    } else if (name == QLatin1String("run.finished")) {
        const QJsonObject run = payload.value(QStringLiteral("run")).toObject();
        if (run.value(QStringLiteral("container")).toString() == m_containerId)
            refreshDecisions();
    } else if (name == QLatin1String("event")) {
        const QString kind = payload.value(QStringLiteral("kind")).toString();
        if (kind == QLatin1String("network.org_policy_reloaded")) {
            // Saved in Settings, by the CLI or in the file: show the list in force at once.
            if (!m_org->isModified())
                m_org->reload();
            m_editor->recheck();
        } else if (kind.startsWith(QLatin1String("network.")) &&
                   payload.value(QStringLiteral("container")).toString() == m_containerId && isVisible()) {
            // Decisions come in bursts (a pip install makes dozens): one read for the burst.
            m_decisionsDue.start();
        }
    }
}

QSize NetworkPanel::sizeHint() const
{
    const QSize hint = QWidget::sizeHint();
    if (m_pages->currentIndex() != AllowlistPage)
        return hint;
    // What the scroll area around the page asks for: with wrapped labels, the height for the width it has.
    const int width = m_pages->width() > 0 ? m_pages->width() : hint.width();
    const int height = m_allowlistPage->hasHeightForWidth() ? m_allowlistPage->heightForWidth(width)
                                                            : m_allowlistPage->minimumSizeHint().height();
    return {hint.width(), qMax(height, m_allowlistPage->minimumSizeHint().height())};
}

void NetworkPanel::sizeLists()
{
    // The lists take what height there is, and ask for a few rows only: a long list scrolls rather than
    // push Apply and the rule's meaning out of sight.
    const auto rows = [](QAbstractItemView *view, int count, int header) {
        const int row = qMax(view->sizeHintForRow(0), view->fontMetrics().lineSpacing() + 8);
        view->setMinimumHeight(count * row + header + 2 * view->frameWidth());
    };
    for (AllowlistEditor *editor : {m_editor, m_org->editor()}) {
        editor->view()->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Ignored);
        rows(editor->view(), MinimumRows, 0);
    }
    m_decisionView->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Ignored);
    rows(m_decisionView, MinimumRows, m_decisionView->horizontalHeader()->sizeHint().height());
}

bool NetworkPanel::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_decisionView->viewport() && event->type() == QEvent::Resize)
        m_decisionNote->setGeometry(m_decisionView->viewport()->rect().adjusted(8, 4, -8, -4));
    return QWidget::eventFilter(watched, event);
}

void NetworkPanel::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    // Presentation mode's larger font needs taller rows.
    if (event->type() == QEvent::FontChange)
        sizeLists();
}

QString NetworkPanel::page() const
{
    switch (m_pages->currentIndex()) {
    case DisabledPage:
        return QStringLiteral("disabled");
    case AllowlistPage:
        return QStringLiteral("allowlist");
    default:
        return QStringLiteral("none");
    }
}

QString NetworkPanel::message() const
{
    return m_message->isVisible() || m_pages->currentIndex() != AllowlistPage ? m_message->text() : QString();
}

bool NetworkPanel::isModified() const
{
    return policyType() == QLatin1String("allowlist") && m_editor->entries() != m_baseline;
}

QJsonArray NetworkPanel::policyDomains() const
{
    return m_container.value(QStringLiteral("policy"))
        .toObject()
        .value(QStringLiteral("network_policy"))
        .toObject()
        .value(QStringLiteral("allowed_domains"))
        .toArray();
}

QString NetworkPanel::policyType() const
{
    const QString type = m_container.value(QStringLiteral("policy"))
                             .toObject()
                             .value(QStringLiteral("network_policy"))
                             .toObject()
                             .value(QStringLiteral("type"))
                             .toString();
    return type.isEmpty() ? QStringLiteral("disabled") : type;
}

bool NetworkPanel::isLive() const
{
    const QString state = m_container.value(QStringLiteral("state")).toString();
    return state == QLatin1String("running") || state == QLatin1String("stopped");
}

void NetworkPanel::updatePage()
{
    const QString state = m_container.value(QStringLiteral("state")).toString();
    const bool running = state == QLatin1String("running");
    if (m_containerId.isEmpty()) {
        m_noneNote->setText(tr("Select a container to see and change what it may reach."));
        m_pages->setCurrentIndex(NonePage);
    } else if (!isLive()) {
        m_noneNote->setText(tr("This container has ended: it reaches nothing any more."));
        m_pages->setCurrentIndex(NonePage);
    } else if (policyType() != QLatin1String("allowlist")) {
        m_disabledNote->setText(
            running
                ? tr("The network is off for this container: code in it has only loopback and no name "
                     "resolution, so nothing leaves it.\n\nTo let it reach chosen hosts, stop the container, "
                     "then choose Use an Allowlist: the egress proxy is set up when it starts, so a running "
                     "container cannot switch.")
                : tr("The network is off for this container: code in it has only loopback and no name "
                     "resolution, so nothing leaves it.\n\nUse an Allowlist gives it the egress proxy with "
                     "an "
                     "empty list; add the hosts it may reach, then start it."));
        m_pages->setCurrentIndex(DisabledPage);
    } else {
        m_liveNote->setText(
            running ? tr("Allowlist: only the hosts below, through the egress proxy. Changes apply "
                         "to the running container at once.")
                    : tr("Allowlist: only the hosts below, through the egress proxy, once the "
                         "container is started."));
        m_pages->setCurrentIndex(AllowlistPage);
    }
    updateGeometry();
    updateButtons();
}

void NetworkPanel::updateButtons()
{
    const bool connected = m_connection.isConnected();
    const bool stopped = m_container.value(QStringLiteral("state")).toString() == QLatin1String("stopped");
    m_enable->setEnabled(connected && stopped && !m_busy);
    m_disable->setEnabled(connected && stopped && !m_busy);
    m_disable->setToolTip(
        stopped ? tr("Take the network away: only loopback inside")
                : tr("Stop the container first: a running container cannot switch its network"));
    m_enable->setToolTip(stopped
                             ? tr("Give this container the egress proxy with an empty allowlist")
                             : tr("Stop the container first: a running container cannot switch its network"));
    const bool modified = isModified();
    const bool acceptable = m_editor->isAcceptable();
    m_apply->setEnabled(connected && isLive() && modified && acceptable && !m_busy);
    m_apply->setToolTip(!modified     ? tr("Nothing to apply: the list is what the container has")
                        : !acceptable ? m_editor->problemSummary()
                                      : tr("Give the container this list (Ctrl+S)"));
    m_revert->setEnabled(modified && !m_busy);
    const QModelIndex current = m_decisionView->currentIndex();
    const bool denied = current.isValid() && current.data(NetworkDecisionModel::DecisionRole).toString() ==
                                                 QLatin1String("denied");
    m_allowHost->setEnabled(connected && isLive() && denied && m_hostAllowed && !m_busy);
    m_decisionNote->setText(
        m_decisions->rowCount() == 0
            ? tr("No connections yet. Programs in the container reach hosts through the proxy "
                 "(HTTP_PROXY and HTTPS_PROXY are set for them).")
            : QString());
}

void NetworkPanel::setMessage(const QString &text, bool problem)
{
    showNote(m_message, text, problem ? AllowlistModel::problemColour(palette()) : QColor());
}

void NetworkPanel::apply()
{
    if (!m_apply->isEnabled())
        return;
    updateNetworkPolicy(
        {{QStringLiteral("type"), QStringLiteral("allowlist")},
         {QStringLiteral("allowed_domains"), m_editor->entries()}},
        tr("Applied: the container may now reach %n entries.", nullptr, int(m_editor->entries().size())));
}

void NetworkPanel::revert()
{
    m_editor->setEntries(m_baseline);
    setMessage(QString(), false);
    updateButtons();
}

void NetworkPanel::setNetworkType(const QString &type)
{
    updateNetworkPolicy(
        {{QStringLiteral("type"), type}},
        type == QLatin1String("allowlist")
            ? tr("The container now has an empty allowlist: add the hosts it may reach and apply.")
            : tr("The network is off for this container."));
}

void NetworkPanel::updateNetworkPolicy(const QJsonObject &networkPolicy, const QString &done)
{
    if (m_containerId.isEmpty() || m_busy)
        return;
    m_busy = true;
    updateButtons();
    const QString id = m_containerId;
    m_connection.call(QStringLiteral("container.update_network"),
                      {{QStringLiteral("id"), id}, {QStringLiteral("network_policy"), networkPolicy}}, this,
                      [this, id, done](Result<QJsonObject> result) {
                          m_busy = false;
                          if (id != m_containerId) {
                              updateButtons();
                              return;
                          }
                          if (!result) {
                              setMessage(tr("Not applied: %1").arg(errorWithHint(result.error())), true);
                              updateButtons();
                              Q_EMIT applied(false);
                              return;
                          }
                          const QJsonObject container = result->value(QStringLiteral("container")).toObject();
                          // The daemon's canonical form of the list becomes what the editor shows.
                          m_container = container;
                          m_baseline = policyDomains();
                          m_editor->setEntries(m_baseline);
                          updatePage();
                          setMessage(done, false);
                          Q_EMIT applied(true);
                      });
}

void NetworkPanel::refreshDecisions()
{
    if (m_containerId.isEmpty() || !m_connection.isConnected())
        return;
    const quint64 generation = ++m_decisionGeneration;
    const QString id = m_containerId;
    m_connection.call(
        QStringLiteral("network.summary"), {{QStringLiteral("container"), id}}, this,
        [this, generation, id](Result<QJsonObject> result) {
            if (generation != m_decisionGeneration || id != m_containerId || !result)
                return;
            // Keep the selected row selected across the reset.
            const QModelIndex current = m_decisionView->currentIndex();
            const QString host = current.data(NetworkDecisionModel::HostRole).toString();
            const QString decision = current.data(NetworkDecisionModel::DecisionRole).toString();
            m_decisions->setHosts(result->value(QStringLiteral("hosts")).toArray());
            const QString deliveries =
                secretDeliveriesText(result->value(QStringLiteral("secrets")).toArray());
            m_secretDeliveries->setText(deliveries);
            m_secretDeliveries->setVisible(!deliveries.isEmpty());
            if (const int row = m_decisions->find(host, decision); current.isValid() && row >= 0)
                m_decisionView->selectionModel()->setCurrentIndex(m_decisions->index(row, 0),
                                                                  QItemSelectionModel::ClearAndSelect |
                                                                      QItemSelectionModel::Rows);
            else
                checkSelectedHost();
            updateButtons();
        });
}

void NetworkPanel::checkSelectedHost()
{
    m_hostAllowed = false;
    const quint64 generation = ++m_hostCheckGeneration;
    const QModelIndex current = m_decisionView->currentIndex();
    const QString host = current.data(NetworkDecisionModel::HostRole).toString();
    const bool denied =
        current.data(NetworkDecisionModel::DecisionRole).toString() == QLatin1String("denied");
    updateButtons();
    if (!current.isValid() || !denied || host.isEmpty()) {
        m_allowHost->setToolTip(tr("Select a denied host to allow it"));
        return;
    }
    if (m_editor->model()->find(host) >= 0) {
        m_allowHost->setToolTip(
            tr("%1 is in the list already; see its reason for what was refused").arg(host));
        return;
    }
    if (!m_connection.isConnected())
        return;
    // The daemon decides whether the organisation list permits the host, with the same check Apply meets.
    m_connection.call(
        QStringLiteral("network.check"), {{QStringLiteral("allowed_domains"), QJsonArray{host}}}, this,
        [this, generation, host](Result<QJsonObject> result) {
            if (generation != m_hostCheckGeneration || !result)
                return;
            const QJsonObject answer = result->value(QStringLiteral("entries")).toArray().first().toObject();
            m_hostAllowed = answer.value(QStringLiteral("ok")).toBool() &&
                            !answer.contains(QStringLiteral("outside_organisation"));
            if (m_hostAllowed)
                m_allowHost->setToolTip(tr("Add %1 to this container's allowlist (Ctrl+Shift+A)").arg(host));
            else if (answer.contains(QStringLiteral("outside_organisation")))
                m_allowHost->setToolTip(tr("The organisation allowlist does not permit it: %1")
                                            .arg(answer.value(QStringLiteral("outside_organisation"))
                                                     .toObject()
                                                     .value(QStringLiteral("message"))
                                                     .toString()));
            else
                m_allowHost->setToolTip(
                    tr("Not a host an allowlist can name: %1").arg(AllowlistModel::refusal(answer)));
            updateButtons();
        });
}

void NetworkPanel::allowSelectedHost()
{
    if (!m_allowHost->isEnabled())
        return;
    const QString host = m_decisionView->currentIndex().data(NetworkDecisionModel::HostRole).toString();
    const bool wasModified = isModified();
    m_editor->addEntries(QJsonArray{host});
    m_hostAllowed = false;
    updateButtons();
    if (wasModified) {
        setMessage(tr("%1 was added to the list; Apply to allow it along with your other changes.").arg(host),
                   false);
        return;
    }
    // Nothing else was being edited: apply at once, once the daemon has checked the new list.
    auto *once = new QObject(this);
    connect(m_editor, &AllowlistEditor::validityChanged, once, [this, once, host] {
        if (m_editor->isChecking())
            return;
        once->deleteLater();
        if (m_editor->isAcceptable()) {
            updateButtons();
            updateNetworkPolicy({{QStringLiteral("type"), QStringLiteral("allowlist")},
                                 {QStringLiteral("allowed_domains"), m_editor->entries()}},
                                tr("Allowed %1: the container may reach it now.").arg(host));
        }
    });
}

void NetworkPanel::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    refreshDecisions();
    m_refreshTimer.start();
}

void NetworkPanel::hideEvent(QHideEvent *event)
{
    QWidget::hideEvent(event);
    m_refreshTimer.stop();
}

} // namespace Cordon::Ui
