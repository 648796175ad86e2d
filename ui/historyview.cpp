// SPDX-License-Identifier: MIT
#include "historyview.h"

#include "daemonconnection.h"
#include "formatting.h"
#include "historymodel.h"
#include "outcomesummary.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QFontDatabase>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSaveFile>
#include <QSplitter>
#include <QTabWidget>
#include <QTreeView>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace Cordon::Ui {

namespace {

QLabel *valueLabel(QWidget *parent)
{
    auto *label = new QLabel(parent);
    label->setTextFormat(Qt::PlainText);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    label->setWordWrap(true);
    return label;
}

QTreeWidgetItem *fileGroup(QTreeWidget *tree, const QString &title, const QJsonArray &files)
{
    auto *group = new QTreeWidgetItem(tree, {title.arg(files.size())});
    QFont bold = group->font(0);
    bold.setBold(true);
    group->setFont(0, bold);
    for (const QJsonValue &value : files) {
        const QJsonObject file = value.toObject();
        const QString sha256 = file.value(QStringLiteral("sha256")).toString();
        auto *item = new QTreeWidgetItem(
            group, {Format::displayName(file.value(QStringLiteral("path")).toString()),
                    Format::bytes(file.value(QStringLiteral("size")).toInteger()), sha256});
        item->setTextAlignment(1, Qt::AlignRight | Qt::AlignVCenter);
        item->setToolTip(2, sha256);
    }
    if (files.isEmpty())
        new QTreeWidgetItem(group, {HistoryView::tr("none")});
    group->setExpanded(true);
    return group;
}

} // namespace

HistoryView::HistoryView(DaemonConnection &connection, QWidget *parent)
    : QWidget(parent), m_connection(connection), m_model(new HistoryModel(this)),
      m_outcome(new QComboBox(this)), m_onlyCurrent(new QCheckBox(tr("Only the &selected container"), this)),
      m_view(new QTreeView(this)), m_footer(new QLabel(this)),
      m_loadMore(new QPushButton(tr("Load &More"), this)), m_title(new QLabel(this)),
      m_summary(valueLabel(this)), m_error(valueLabel(this)), m_detailTabs(new QTabWidget(this)),
      m_code(new QPlainTextEdit(this)), m_output(new QPlainTextEdit(this)), m_files(new QTreeWidget(this)),
      m_export(new QPushButton(tr("&Export as JSON…"), this))
{
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
    auto *outcomeLabel = new QLabel(tr("&Outcome:"), this);
    outcomeLabel->setBuddy(m_outcome);
    auto *refresh = new QPushButton(tr("&Refresh"), this);
    refresh->setToolTip(tr("Read the history again"));
    connect(refresh, &QPushButton::clicked, this, &HistoryView::reload);
    m_onlyCurrent->setObjectName(QStringLiteral("historyOnlyCurrent"));
    m_onlyCurrent->setToolTip(tr("List only the runs of the container selected on the left"));
    connect(m_onlyCurrent, &QCheckBox::toggled, this, &HistoryView::reload);
    connect(m_outcome, &QComboBox::currentIndexChanged, this, [this] {
        m_filter = m_outcome->currentData().toString();
        reload();
    });

    m_model->setObjectName(QStringLiteral("historyModel"));
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
    m_footer->setForegroundRole(QPalette::PlaceholderText);
    m_loadMore->setObjectName(QStringLiteral("historyLoadMore"));
    connect(m_loadMore, &QPushButton::clicked, this, &HistoryView::loadMore);

    auto *listArea = new QWidget(this);
    auto *listLayout = new QVBoxLayout(listArea);
    listLayout->setContentsMargins(0, 0, 0, 0);
    auto *filterRow = new QHBoxLayout;
    filterRow->addWidget(outcomeLabel);
    filterRow->addWidget(m_outcome, 1);
    filterRow->addWidget(m_onlyCurrent);
    filterRow->addWidget(refresh);
    auto *footerRow = new QHBoxLayout;
    footerRow->addWidget(m_footer, 1);
    footerRow->addWidget(m_loadMore);
    listLayout->addLayout(filterRow);
    listLayout->addWidget(m_view, 1);
    listLayout->addLayout(footerRow);

    QFont titleFont = m_title->font();
    titleFont.setBold(true);
    m_title->setFont(titleFont);
    m_title->setTextFormat(Qt::PlainText);
    m_title->setObjectName(QStringLiteral("historyDetailTitle"));
    m_summary->setObjectName(QStringLiteral("historyDetailSummary"));
    m_error->setObjectName(QStringLiteral("historyError"));
    m_error->hide();
    const QFont fixed = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    for (QPlainTextEdit *text : {m_code, m_output}) {
        text->setReadOnly(true);
        text->setLineWrapMode(QPlainTextEdit::NoWrap);
        text->setFont(fixed);
    }
    m_code->setAccessibleName(tr("Code of the run"));
    m_output->setAccessibleName(tr("Output of the run"));
    m_files->setHeaderLabels({tr("File"), tr("Size"), tr("SHA-256")});
    m_files->setAlternatingRowColors(true);
    m_files->header()->setStretchLastSection(true);
    m_detailTabs->setDocumentMode(true);
    m_detailTabs->addTab(m_code, tr("Code"));
    m_detailTabs->addTab(m_output, tr("Output"));
    m_detailTabs->addTab(m_files, tr("Files"));
    m_export->setObjectName(QStringLiteral("historyExport"));
    m_export->setToolTip(tr("Save this run (command, code, outcome, files, output) as a JSON file"));
    connect(m_export, &QPushButton::clicked, this, &HistoryView::chooseExport);

    auto *detailArea = new QWidget(this);
    auto *detailLayout = new QVBoxLayout(detailArea);
    detailLayout->setContentsMargins(6, 0, 0, 0);
    auto *titleRow = new QHBoxLayout;
    titleRow->addWidget(m_title, 1);
    titleRow->addWidget(m_export);
    detailLayout->addLayout(titleRow);
    detailLayout->addWidget(m_summary);
    detailLayout->addWidget(m_detailTabs, 1);

    auto *splitter = new QSplitter(Qt::Horizontal, this);
    splitter->setObjectName(QStringLiteral("historySplitter"));
    splitter->addWidget(listArea);
    splitter->addWidget(detailArea);
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 1);
    splitter->setChildrenCollapsible(false);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(8, 6, 8, 6);
    layout->addWidget(m_error);
    layout->addWidget(splitter, 1);

    connect(&m_connection, &DaemonConnection::statusChanged, this, [this] {
        if (m_connection.isConnected())
            markStale();
    });
    setDetail({});
    updateFooter();
}

HistoryView::~HistoryView() = default;

void HistoryView::setContainerNames(std::function<QString(const QString &)> names)
{
    m_model->setContainerNames(std::move(names));
}

void HistoryView::setOutcomeFilter(const QString &errorClass)
{
    const int index = m_outcome->findData(errorClass);
    if (index >= 0)
        m_outcome->setCurrentIndex(index);
}

void HistoryView::setCurrentContainer(const QString &containerId)
{
    if (containerId == m_currentContainer)
        return;
    m_currentContainer = containerId;
    if (m_onlyCurrent->isChecked())
        markStale();
}

void HistoryView::setOnlyCurrentContainer(bool only)
{
    m_onlyCurrent->setChecked(only);
}

void HistoryView::markStale()
{
    m_stale = true;
    if (isVisible())
        reload();
}

void HistoryView::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    if (m_stale)
        reload();
}

void HistoryView::reload()
{
    request(false);
}

void HistoryView::loadMore()
{
    if (m_model->canLoadMore() && !m_loading)
        request(true);
}

void HistoryView::request(bool append)
{
    if (!m_connection.isConnected())
        return;
    m_stale = false;
    m_loading = true;
    const quint64 generation = ++m_generation;
    QJsonObject params{{QStringLiteral("limit"), m_pageSize},
                       {QStringLiteral("offset"), append ? m_model->rowCount() : 0}};
    if (!m_filter.isEmpty())
        params.insert(QStringLiteral("error_class"), m_filter);
    if (m_onlyCurrent->isChecked() && !m_currentContainer.isEmpty())
        params.insert(QStringLiteral("container"), m_currentContainer);
    updateFooter();
    m_connection.call(
        QStringLiteral("history.runs"), params, this, [this, generation, append](Result<QJsonObject> result) {
            if (generation != m_generation)
                return; // the filter changed meanwhile
            m_loading = false;
            if (!result) {
                m_error->setText(tr("The history could not be read: %1").arg(result.error().message()));
                m_error->show();
                updateFooter();
                return;
            }
            m_error->hide();
            const QJsonArray runs = result->value(QStringLiteral("runs")).toArray();
            const qint64 total = result->value(QStringLiteral("total")).toInteger();
            if (append) {
                m_model->append(runs, total);
            } else {
                const QString keep = m_detailRunId;
                m_model->resetFrom(runs, total);
                const int row = m_model->rowOf(keep);
                if (row >= 0)
                    m_view->selectionModel()->setCurrentIndex(m_model->index(row, 0),
                                                              QItemSelectionModel::ClearAndSelect |
                                                                  QItemSelectionModel::Rows);
            }
            updateFooter();
            Q_EMIT pageLoaded();
        });
}

void HistoryView::updateFooter()
{
    if (m_loading)
        m_footer->setText(tr("Loading…"));
    else if (m_model->total() == 0)
        m_footer->setText(m_filter.isEmpty() ? tr("No runs yet.") : tr("No runs with this outcome."));
    else
        m_footer->setText(m_model->total() == 1
                              ? tr("Showing 1 of 1 run")
                              : tr("Showing %1 of %2 runs").arg(m_model->rowCount()).arg(m_model->total()));
    m_loadMore->setEnabled(!m_loading && m_model->canLoadMore());
    m_loadMore->setVisible(m_model->canLoadMore());
}

void HistoryView::showRun(const QString &runId)
{
    const int row = m_model->rowOf(runId);
    if (row >= 0)
        m_view->selectionModel()->setCurrentIndex(
            m_model->index(row, 0), QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
}

void HistoryView::onCurrentChanged()
{
    const QModelIndex current = m_view->selectionModel()->currentIndex();
    const QString runId = current.isValid() ? current.data(HistoryModel::RunIdRole).toString() : QString();
    if (runId == m_detailRunId && !m_detail.isEmpty())
        return;
    m_detailRunId = runId;
    if (runId.isEmpty()) {
        setDetail({});
        return;
    }
    // The list has no code or output; show what it has at once, the rest when run.get answers.
    setDetail(current.data(HistoryModel::RunRole).toJsonObject());
    m_connection.call(QStringLiteral("run.get"), {{QStringLiteral("run_id"), runId}}, this,
                      [this, runId](Result<QJsonObject> result) {
                          if (runId != m_detailRunId)
                              return;
                          if (!result) {
                              m_summary->setText(m_summary->text() + QLatin1Char('\n') +
                                                 tr("Details unavailable: %1").arg(result.error().message()));
                              return;
                          }
                          setDetail(result->value(QStringLiteral("run")).toObject());
                          Q_EMIT detailLoaded();
                      });
}

void HistoryView::setDetail(const QJsonObject &run)
{
    m_detail = run;
    m_export->setEnabled(!run.isEmpty());
    m_files->clear();
    if (run.isEmpty()) {
        m_title->setText(tr("No run selected"));
        m_summary->setText(tr("Select a run to see what ran, how it ended and what it read and wrote."));
        m_code->clear();
        m_output->clear();
        return;
    }
    const QString id = run.value(QStringLiteral("id")).toString();
    m_title->setText(tr("Run %1").arg(id.left(12)));
    const OutcomeSummary outcome = OutcomeSummary::fromRun(run);
    QStringList lines;
    lines.append(
        tr("Container: %1").arg(m_model->containerName(run.value(QStringLiteral("container")).toString())));
    lines.append(
        tr("Started: %1").arg(Format::dateTime(run.value(QStringLiteral("started_at")).toInteger())));
    lines.append(tr("Ran: %1").arg(HistoryModel::whatOf(run)));
    lines.append(tr("Outcome: %1 — %2").arg(outcome.headline, outcome.explanation));
    if (!outcome.details.isEmpty())
        lines.append(outcome.details);
    lines.append(tr("Policy version: %1").arg(run.value(QStringLiteral("policy_version")).toString()));
    const QString codeHash = run.value(QStringLiteral("code_sha256")).toString();
    if (!codeHash.isEmpty())
        lines.append(tr("Code sha256: %1").arg(codeHash));
    m_summary->setText(lines.join(QLatin1Char('\n')));

    if (run.contains(QStringLiteral("code"))) {
        const QString code = run.value(QStringLiteral("code")).toString();
        QStringList command;
        for (const QJsonValue &part : run.value(QStringLiteral("command")).toArray())
            command.append(part.toString());
        m_code->setPlainText(code.isEmpty() ? command.join(QLatin1Char(' ')) : code);
        QString output = run.value(QStringLiteral("stdout")).toString();
        const QString errors = run.value(QStringLiteral("stderr")).toString();
        if (run.value(QStringLiteral("stdout_truncated")).toBool())
            output += tr("\n[stdout was cut at the daemon's limit]\n");
        if (!errors.isEmpty())
            output += tr("\n── stderr ──\n") + errors;
        if (run.value(QStringLiteral("stderr_truncated")).toBool())
            output += tr("\n[stderr was cut at the daemon's limit]\n");
        m_output->setPlainText(output.isEmpty() ? tr("(no output)") : output);
    } else {
        m_code->setPlainText(tr("Loading…"));
        m_output->setPlainText(tr("Loading…"));
    }
    fileGroup(m_files, tr("Inputs (%1)"), run.value(QStringLiteral("inputs")).toArray());
    fileGroup(m_files, tr("Artifacts (%1)"), run.value(QStringLiteral("artifacts")).toArray());
    m_files->resizeColumnToContents(0);
    m_files->resizeColumnToContents(1);
}

QString HistoryView::detailText() const
{
    return m_title->text() + QLatin1Char('\n') + m_summary->text();
}

Result<> HistoryView::exportRun(const QString &path) const
{
    if (m_detail.isEmpty())
        return fail(QStringLiteral("history.no_run"), tr("no run is selected"));
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return fail(QStringLiteral("history.export"),
                    tr("cannot write %1: %2").arg(path, file.errorString()));
    file.write(QJsonDocument(m_detail).toJson(QJsonDocument::Indented));
    if (!file.commit())
        return fail(QStringLiteral("history.export"),
                    tr("cannot write %1: %2").arg(path, file.errorString()));
    return {};
}

void HistoryView::chooseExport()
{
    if (m_detail.isEmpty())
        return;
    const QString suggested =
        QStringLiteral("cordon-run-%1.json").arg(m_detail.value(QStringLiteral("id")).toString().left(12));
    const QString path =
        QFileDialog::getSaveFileName(this, tr("Export Run as JSON"), suggested, tr("JSON files (*.json)"));
    if (path.isEmpty())
        return;
    if (auto written = exportRun(path); !written) {
        m_error->setText(tr("The run was not exported: %1").arg(written.error().message()));
        m_error->show();
    }
}

} // namespace Cordon::Ui
