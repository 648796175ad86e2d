// SPDX-License-Identifier: MIT
#include "historyview.h"

#include "daemonconnection.h"
#include "eventtimelinemodel.h"
#include "eventtimelineview.h"
#include "historymodel.h"
#include "pagedfooter.h"
#include "pagedquery.h"
#include "rundetailview.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDateEdit>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSplitter>
#include <QTabWidget>
#include <QTimer>
#include <QTreeView>
#include <QVBoxLayout>

namespace Cordon::Ui {

namespace {

qint64 startOfDay(QDate day)
{
    return day.startOfDay().toMSecsSinceEpoch();
}

} // namespace

HistoryView::HistoryView(DaemonConnection &connection, QWidget *parent)
    : QWidget(parent), m_connection(connection), m_model(new HistoryModel(this)), m_error(new QLabel(this)),
      m_onlyCurrent(new QCheckBox(tr("Only the &selected container"), this)),
      m_showAudits(new QCheckBox(tr("Show a&udit runs"), this)), m_searchField(new QLineEdit(this)),
      m_searchDelay(new QTimer(this)), m_auditLine(new QLabel(this)), m_tabs(new QTabWidget(this))
{
    m_error->setObjectName(QStringLiteral("historyError"));
    m_error->setTextFormat(Qt::PlainText);
    m_error->setWordWrap(true);
    m_error->hide();
    m_onlyCurrent->setObjectName(QStringLiteral("historyOnlyCurrent"));
    m_onlyCurrent->setToolTip(tr("List only the runs and events of the container selected on the left"));
    m_showAudits->setObjectName(QStringLiteral("historyShowAudits"));
    m_showAudits->setToolTip(tr("Also list the runs and events of the Go/No-Go audit's own containers, which "
                                "are left out so that they do not bury yours"));
    m_searchField->setObjectName(QStringLiteral("historySearch"));
    m_searchField->setPlaceholderText(tr("Search runs"));
    m_searchField->setAccessibleName(tr("Search runs"));
    m_searchField->setToolTip(tr("Runs whose code, command, id or container name holds this text"));
    m_searchField->setClearButtonEnabled(true);
    m_searchField->setMinimumWidth(fontMetrics().horizontalAdvance(QLatin1Char('x')) * 24);
    // One request when typing pauses, not one per key.
    m_searchDelay->setSingleShot(true);
    m_searchDelay->setInterval(SearchDelayMs);
    connect(m_searchField, &QLineEdit::textChanged, m_searchDelay, qOverload<>(&QTimer::start));
    connect(m_searchDelay, &QTimer::timeout, this, [this] { setSearchText(m_searchField->text()); });
    m_auditLine->setObjectName(QStringLiteral("historyAuditFilter"));
    m_auditLine->setTextFormat(Qt::RichText);
    m_auditLine->hide();
    connect(m_auditLine, &QLabel::linkActivated, this, [this] { showAuditRuns({}); });
    connect(m_showAudits, &QCheckBox::toggled, this, &HistoryView::originChanged);
    auto *refresh = new QPushButton(tr("&Refresh"), this);
    refresh->setToolTip(tr("Read the history again"));

    m_tabs->setObjectName(QStringLiteral("historyTabs"));
    m_tabs->setDocumentMode(true);
    m_tabs->addTab(buildRunsPage(), tr("R&uns"));
    m_timeline = new EventTimelineView(m_connection, m_tabs);
    m_timeline->setObjectName(QStringLiteral("historyTimeline"));
    m_tabs->addTab(m_timeline, tr("&Timeline"));
    connect(&m_timeline->query(), &PagedQuery::failed, this, &HistoryView::showError);
    connect(&m_timeline->query(), &PagedQuery::loaded, m_error, &QWidget::hide);

    connect(refresh, &QPushButton::clicked, this, [this] {
        reload();
        m_timeline->query().refilter();
    });
    connect(m_onlyCurrent, &QCheckBox::toggled, this, [this] {
        m_query->refilter();
        m_timeline->setContainerFilter(onlyContainer());
    });

    auto *topRow = new QHBoxLayout;
    topRow->addWidget(m_searchField, 1);
    topRow->addWidget(m_onlyCurrent);
    topRow->addWidget(m_showAudits);
    topRow->addWidget(m_auditLine);
    topRow->addStretch(1);
    topRow->addWidget(refresh);
    // The search is over runs: the timeline has none.
    connect(m_tabs, &QTabWidget::currentChanged, this,
            [this] { m_searchField->setEnabled(m_tabs->currentIndex() == 0); });
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(8, 6, 8, 6);
    layout->addWidget(m_error);
    layout->addLayout(topRow);
    layout->addWidget(m_tabs, 1);
}

HistoryView::~HistoryView() = default;

QWidget *HistoryView::buildRunsPage()
{
    auto *page = new QWidget(this);
    m_query =
        new PagedQuery(m_connection, m_model, QStringLiteral("history.runs"), QStringLiteral("runs"), page);
    m_query->setPageSize(DefaultPageSize);

    m_outcome = new QComboBox(page);
    m_outcome->setObjectName(QStringLiteral("historyOutcomeFilter"));
    m_outcome->setAccessibleName(tr("Outcome filter"));
    m_outcome->addItem(tr("All outcomes"), QString());
    const QList<std::pair<QString, QString>> classes{
        {QStringLiteral("ok"), tr("ok — finished successfully")},
        {QStringLiteral("nonzero_exit"), tr("nonzero_exit — reported a failure")},
        {QStringLiteral("oom"), tr("oom — out of memory")},
        {QStringLiteral("timeout"), tr("timeout — ran out of time")},
        {QStringLiteral("killed"), tr("killed — stopped by a signal")},
        {QStringLiteral("setup_failed"), tr("setup_failed — did not start")}};
    for (const auto &[errorClass, title] : classes)
        m_outcome->addItem(title, errorClass);
    auto *outcomeLabel = new QLabel(tr("&Outcome:"), page);
    outcomeLabel->setBuddy(m_outcome);
    connect(m_outcome, &QComboBox::currentIndexChanged, this, [this] {
        m_filter = m_outcome->currentData().toString();
        m_query->refilter();
    });

    m_date = new QComboBox(page);
    m_date->setObjectName(QStringLiteral("historyDateFilter"));
    m_date->setAccessibleName(tr("Date filter"));
    m_date->addItem(tr("Any time"), static_cast<int>(DateFilter::AnyTime));
    m_date->addItem(tr("Today"), static_cast<int>(DateFilter::Today));
    m_date->addItem(tr("Last 7 days"), static_cast<int>(DateFilter::Last7Days));
    m_date->addItem(tr("Last 30 days"), static_cast<int>(DateFilter::Last30Days));
    m_date->addItem(tr("From … to …"), static_cast<int>(DateFilter::Custom));
    auto *dateLabel = new QLabel(tr("&Started:"), page);
    dateLabel->setBuddy(m_date);
    m_from = new QDateEdit(QDate::currentDate().addDays(-7), page);
    m_to = new QDateEdit(QDate::currentDate(), page);
    m_from->setObjectName(QStringLiteral("historyDateFrom"));
    m_to->setObjectName(QStringLiteral("historyDateTo"));
    m_from->setAccessibleName(tr("First day"));
    m_to->setAccessibleName(tr("Last day"));
    m_from->setToolTip(tr("Runs started on or after this day"));
    m_to->setToolTip(tr("Runs started on or before this day"));
    for (QDateEdit *edit : {m_from, m_to}) {
        edit->setCalendarPopup(true);
        connect(edit, &QDateEdit::dateChanged, m_query, &PagedQuery::refilter);
    }
    connect(m_date, &QComboBox::currentIndexChanged, this, [this] {
        updateDateEdits();
        m_query->refilter();
    });
    updateDateEdits();

    m_model->setObjectName(QStringLiteral("historyModel"));
    m_view = new QTreeView(page);
    m_view->setObjectName(QStringLiteral("historyList"));
    m_view->setAccessibleName(tr("Runs"));
    m_view->setModel(m_model);
    m_view->setRootIsDecorated(false);
    m_view->setUniformRowHeights(true);
    m_view->setAlternatingRowColors(true);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setAllColumnsShowFocus(true);
    m_view->header()->setStretchLastSection(false);
    m_view->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_view->header()->setSectionResizeMode(HistoryModel::WhatColumn, QHeaderView::Stretch);
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            &HistoryView::onCurrentChanged);

    m_footer = new PagedFooter(
        *m_query, *m_model,
        [](int shown, qint64 total) {
            return tr("Showing %1 of %n run(s)", nullptr, int(qMin<qint64>(total, INT_MAX))).arg(shown);
        },
        [this] {
            if (!m_search.isEmpty())
                return tr("No runs hold “%1”.").arg(m_search);
            const bool filtered = !m_filter.isEmpty() || currentDateFilter() != DateFilter::AnyTime;
            return filtered ? tr("No runs match the filter.") : tr("No runs yet.");
        },
        page);
    m_footer->setObjectName(QStringLiteral("historyFooter"));
    m_footer->loadMoreButton()->setObjectName(QStringLiteral("historyLoadMore"));

    m_query->setParameters([this] {
        QJsonObject params;
        if (!m_filter.isEmpty())
            params.insert(QStringLiteral("error_class"), m_filter);
        const QString container = onlyContainer();
        if (!container.isEmpty())
            params.insert(QStringLiteral("container"), container);
        const auto [since, until] = dateBounds();
        if (since > 0)
            params.insert(QStringLiteral("since"), since);
        if (until > 0)
            params.insert(QStringLiteral("until"), until);
        if (!m_search.isEmpty())
            params.insert(QStringLiteral("search"), m_search);
        insertOriginParameters(params);
        return params;
    });
    connect(m_query, &PagedQuery::loaded, this, &HistoryView::onPageLoaded);
    connect(m_query, &PagedQuery::failed, this, &HistoryView::showError);

    m_detail = new RunDetailView(m_connection, page);
    m_detail->setObjectName(QStringLiteral("historyDetail"));
    m_detail->setContainerNames([this](const QJsonObject &run) { return m_model->containerName(run); });
    // The first page replaces the rows; the run in the detail is selected again if it is still listed.
    connect(m_model, &QAbstractItemModel::modelAboutToBeReset, this,
            [this] { m_keepRunId = m_detail->runId(); });
    connect(m_detail, &RunDetailView::loaded, this, &HistoryView::detailLoaded);
    connect(m_detail, &RunDetailView::exportFailed, this, &HistoryView::showError);

    auto *listArea = new QWidget(page);
    auto *listLayout = new QVBoxLayout(listArea);
    listLayout->setContentsMargins(0, 0, 0, 0);
    auto *filterRow = new QHBoxLayout;
    filterRow->addWidget(outcomeLabel);
    filterRow->addWidget(m_outcome, 1);
    filterRow->addWidget(dateLabel);
    filterRow->addWidget(m_date);
    filterRow->addWidget(m_from);
    filterRow->addWidget(m_to);
    listLayout->addLayout(filterRow);
    listLayout->addWidget(m_view, 1);
    listLayout->addWidget(m_footer);

    auto *splitter = new QSplitter(Qt::Horizontal, page);
    splitter->setObjectName(QStringLiteral("historySplitter"));
    splitter->addWidget(listArea);
    splitter->addWidget(m_detail);
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 1);
    splitter->setChildrenCollapsible(false);
    auto *layout = new QVBoxLayout(page);
    layout->setContentsMargins(0, 4, 0, 0);
    layout->addWidget(splitter, 1);
    return page;
}

void HistoryView::setContainerNames(std::function<QString(const QString &)> names)
{
    m_model->setContainerNames(names);
    m_timeline->model()->setContainerNames(std::move(names));
}

void HistoryView::setPageSize(int size)
{
    m_query->setPageSize(size);
}

void HistoryView::setOutcomeFilter(const QString &errorClass)
{
    const int index = m_outcome->findData(errorClass);
    if (index >= 0)
        m_outcome->setCurrentIndex(index);
}

void HistoryView::setDateFilter(DateFilter filter, QDate from, QDate to)
{
    if (filter == DateFilter::Custom) {
        // Both first, with signals held, so that one request asks for the new range rather than two.
        const QSignalBlocker holdFrom(m_from);
        const QSignalBlocker holdTo(m_to);
        m_from->setDate(from);
        m_to->setDate(to);
    }
    const int index = m_date->findData(static_cast<int>(filter));
    if (index == m_date->currentIndex()) {
        m_query->refilter();
        return;
    }
    m_date->setCurrentIndex(index);
}

HistoryView::DateFilter HistoryView::currentDateFilter() const
{
    return static_cast<DateFilter>(m_date->currentData().toInt());
}

std::pair<qint64, qint64> HistoryView::dateBounds() const
{
    // Computed at each request, so that "Today" still means today after midnight.
    const QDate today = QDate::currentDate();
    switch (currentDateFilter()) {
    case DateFilter::AnyTime:
        return {0, 0};
    case DateFilter::Today:
        return {startOfDay(today), 0};
    case DateFilter::Last7Days:
        return {startOfDay(today.addDays(-6)), 0};
    case DateFilter::Last30Days:
        return {startOfDay(today.addDays(-29)), 0};
    case DateFilter::Custom: {
        const QDate from = qMin(m_from->date(), m_to->date());
        const QDate to = qMax(m_from->date(), m_to->date());
        return {startOfDay(from), startOfDay(to.addDays(1))};
    }
    }
    return {0, 0};
}

void HistoryView::updateDateEdits()
{
    const bool custom = currentDateFilter() == DateFilter::Custom;
    m_from->setVisible(custom);
    m_to->setVisible(custom);
}

QString HistoryView::onlyContainer() const
{
    return m_onlyCurrent->isChecked() ? m_currentContainer : QString();
}

void HistoryView::setCurrentContainer(const QString &containerId)
{
    if (containerId == m_currentContainer)
        return;
    m_currentContainer = containerId;
    if (m_onlyCurrent->isChecked()) {
        m_query->refilter();
        m_timeline->setContainerFilter(onlyContainer());
    }
}

void HistoryView::setOnlyCurrentContainer(bool only)
{
    m_onlyCurrent->setChecked(only);
}

void HistoryView::setSearchText(const QString &text)
{
    const QString trimmed = text.trimmed();
    if (m_searchField->text().trimmed() != trimmed) {
        const QSignalBlocker quiet(m_searchField);
        m_searchField->setText(trimmed);
    }
    m_searchDelay->stop();
    if (trimmed == m_search)
        return;
    m_search = trimmed;
    m_query->refilter();
}

void HistoryView::setShowAudits(bool show)
{
    m_showAudits->setChecked(show);
}

void HistoryView::showAuditRuns(const QString &auditId)
{
    if (auditId == m_auditId)
        return;
    m_auditId = auditId;
    m_auditLine->setText(
        tr("Only audit %1 (<a href=\"all\">show every run</a>)").arg(auditId.toHtmlEscaped()));
    m_auditLine->setVisible(!auditId.isEmpty());
    // The toggle means nothing while one audit's runs are shown.
    m_showAudits->setVisible(auditId.isEmpty());
    originChanged();
}

void HistoryView::insertOriginParameters(QJsonObject &params) const
{
    if (!m_auditId.isEmpty())
        params.insert(QStringLiteral("origin"), QString(QStringLiteral("audit:") + m_auditId));
    else if (m_showAudits->isChecked())
        params.insert(QStringLiteral("audits"), true);
}

void HistoryView::originChanged()
{
    m_query->refilter();
    m_timeline->setOriginFilter(m_showAudits->isChecked(),
                                m_auditId.isEmpty() ? QString() : QStringLiteral("audit:") + m_auditId);
}

void HistoryView::markStale()
{
    m_query->markStale();
}

void HistoryView::reload()
{
    m_query->reload();
}

void HistoryView::loadMore()
{
    m_query->loadMore();
}

QString HistoryView::footerText() const
{
    return m_footer->text();
}

void HistoryView::showError(const QString &message)
{
    m_error->setText(tr("The history could not be read: %1").arg(message));
    m_error->show();
}

void HistoryView::onPageLoaded(bool appended)
{
    m_error->hide();
    if (!appended) {
        const int row = m_model->rowOf(m_keepRunId);
        if (row >= 0)
            m_view->selectionModel()->setCurrentIndex(
                m_model->index(row, 0), QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    }
    Q_EMIT pageLoaded();
}

void HistoryView::showRun(const QString &runId)
{
    const int row = m_model->rowOf(runId);
    if (row >= 0) {
        m_view->selectionModel()->setCurrentIndex(
            m_model->index(row, 0), QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        return;
    }
    // Not in the list as filtered or paged now (a run of an audit's deleted container, say): the detail loads
    // it by id all the same.
    m_view->selectionModel()->clearSelection();
    m_detail->showRun(QJsonObject{{QStringLiteral("id"), runId}});
}

void HistoryView::onCurrentChanged()
{
    const QModelIndex current = m_view->selectionModel()->currentIndex();
    m_detail->showRun(current.isValid() ? current.data(HistoryModel::RunRole).toJsonObject() : QJsonObject());
}

const QJsonObject &HistoryView::detailRun() const
{
    return m_detail->run();
}

QPlainTextEdit *HistoryView::codeView() const
{
    return m_detail->codeView();
}

QPlainTextEdit *HistoryView::outputView() const
{
    return m_detail->outputView();
}

QString HistoryView::detailText() const
{
    return m_detail->text();
}

Result<> HistoryView::exportRun(const QString &path) const
{
    return m_detail->exportRun(path);
}

} // namespace Cordon::Ui
