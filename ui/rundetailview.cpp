// SPDX-License-Identifier: MIT
#include "rundetailview.h"

#include "audit/runevidence.h"
#include "core/eventwords.h"
#include "core/formatting.h"
#include "daemonconnection.h"
#include "eventtimelinemodel.h"
#include "historymodel.h"
#include "outcomesummary.h"
#include "policyview.h"
#include "workbenchsettings.h"

#include <QDateTime>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonDocument>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSaveFile>
#include <QTabWidget>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace Cordon::Ui {

namespace {

enum NetworkColumn
{
    NetTime,
    NetRequest,
    NetDecision,
    NetReason,
    NetStatus,
    NetBytes,
    NetDuration,
};

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
        new QTreeWidgetItem(group, {RunDetailView::tr("none")});
    group->setExpanded(true);
    return group;
}

} // namespace

RunDetailView::RunDetailView(DaemonConnection &connection, QWidget *parent)
    : QWidget(parent), m_connection(connection), m_title(new QLabel(this)), m_summary(valueLabel(this)),
      m_tabs(new QTabWidget(this)), m_code(new QPlainTextEdit(this)), m_output(new QPlainTextEdit(this)),
      m_files(new QTreeWidget(this)), m_network(new QTreeWidget(this)), m_policy(new PolicyView(this)),
      m_export(new QPushButton(tr("&Export as JSON…"), this))
{
    QFont titleFont = m_title->font();
    titleFont.setBold(true);
    m_title->setFont(titleFont);
    m_title->setTextFormat(Qt::PlainText);
    m_title->setObjectName(QStringLiteral("historyDetailTitle"));
    m_summary->setObjectName(QStringLiteral("historyDetailSummary"));
    const QFont fixed = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    for (QPlainTextEdit *text : {m_code, m_output}) {
        text->setReadOnly(true);
        text->setLineWrapMode(QPlainTextEdit::NoWrap);
        text->setFont(fixed);
    }
    m_code->setAccessibleName(tr("Code of the run"));
    m_output->setAccessibleName(tr("Output of the run"));
    m_files->setAccessibleName(tr("Files of the run"));
    m_files->setHeaderLabels({tr("File"), tr("Size"), tr("SHA-256")});
    m_files->setAlternatingRowColors(true);
    m_files->header()->setStretchLastSection(true);
    m_network->setObjectName(QStringLiteral("historyNetwork"));
    m_network->setAccessibleName(tr("Network requests of the run"));
    m_network->setHeaderLabels({tr("Time"), tr("Request"), tr("Decision"), tr("Reason"), tr("Status"),
                                tr("Sent / received"), tr("Took")});
    m_network->setRootIsDecorated(false);
    m_network->setAlternatingRowColors(true);
    m_network->setUniformRowHeights(true);
    m_network->header()->setStretchLastSection(false);
    m_network->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_network->header()->setSectionResizeMode(NetReason, QHeaderView::Stretch);
    m_tabs->setObjectName(QStringLiteral("historyDetailTabs"));
    m_tabs->setDocumentMode(true);
    m_tabs->addTab(m_code, tr("Code"));
    m_tabs->addTab(m_output, tr("Output"));
    m_tabs->addTab(m_files, tr("Files"));
    m_tabs->addTab(m_network, tr("Network"));
    m_policy->setObjectName(QStringLiteral("historyPolicy"));
    m_tabs->addTab(m_policy, tr("Policy"));
    m_export->setObjectName(QStringLiteral("historyExport"));
    m_export->setToolTip(tr("Save this run (command, code, outcome, files, output) as a JSON file"));
    connect(m_export, &QPushButton::clicked, this, &RunDetailView::chooseExport);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 0, 0, 0);
    auto *titleRow = new QHBoxLayout;
    titleRow->addWidget(m_title, 1);
    titleRow->addWidget(m_export);
    layout->addLayout(titleRow);
    layout->addWidget(m_summary);
    layout->addWidget(m_tabs, 1);
    clear();
}

QString RunDetailView::containerName(const QJsonObject &run) const
{
    return m_names ? m_names(run) : run.value(QStringLiteral("container")).toString();
}

void RunDetailView::clear()
{
    m_runId.clear();
    setRun({});
    setNetwork({}, 0);
}

void RunDetailView::showRun(const QJsonObject &listed)
{
    const QString runId = listed.value(QStringLiteral("id")).toString();
    if (runId == m_runId && m_run.contains(QStringLiteral("code")))
        return;
    m_runId = runId;
    if (runId.isEmpty()) {
        clear();
        return;
    }
    // The list has no code or output; show what it has at once, the rest when run.get answers.
    setRun(listed);
    setNetwork({}, -1);
    m_connection.call(QStringLiteral("run.get"), {{QStringLiteral("run_id"), runId}}, this,
                      [this, runId](Result<QJsonObject> result) {
                          if (runId != m_runId)
                              return;
                          if (!result) {
                              m_summary->setText(
                                  m_summary->text() + QLatin1Char('\n') +
                                  tr("Details unavailable: %1").arg(toQt(result.error().message())));
                              return;
                          }
                          setRun(result->value(QStringLiteral("run")).toObject());
                          Q_EMIT loaded();
                      });
    loadNetwork(runId);
}

void RunDetailView::loadNetwork(const QString &runId)
{
    const QJsonObject params{{QStringLiteral("run_id"), runId},
                             {QStringLiteral("kind"), QStringLiteral("network.")},
                             {QStringLiteral("limit"), NetworkEventLimit}};
    m_connection.call(
        QStringLiteral("history.events"), params, this, [this, runId](Result<QJsonObject> result) {
            if (runId != m_runId)
                return;
            if (!result) {
                setNetwork({}, 0);
                m_network->setHeaderHidden(true);
                new QTreeWidgetItem(
                    m_network,
                    {tr("The network decisions could not be read: %1").arg(toQt(result.error().message()))});
                return;
            }
            setNetwork(result->value(QStringLiteral("events")).toArray(),
                       result->value(QStringLiteral("total")).toInteger());
            Q_EMIT networkLoaded();
        });
}

void RunDetailView::setNetwork(const QJsonArray &events, qint64 total)
{
    m_networkEvents = events;
    m_network->clear();
    m_network->setHeaderHidden(events.isEmpty());
    const int tab = m_tabs->indexOf(m_network);
    if (total < 0) {
        m_tabs->setTabText(tab, tr("Network"));
        new QTreeWidgetItem(m_network, {tr("Loading…")});
        return;
    }
    m_tabs->setTabText(tab, total == 0 ? tr("Network") : tr("Network (%1)").arg(total));
    if (events.isEmpty()) {
        new QTreeWidgetItem(m_network, {tr("No network requests were recorded for this run.")});
        return;
    }
    // Oldest first, in the order the run made them (the daemon answers newest first).
    for (auto it = events.end(); it != events.begin();) {
        const QJsonObject event = (--it)->toObject();
        const QJsonObject detail = event.value(QStringLiteral("detail")).toObject();
        const QString decision = detail.value(QStringLiteral("decision")).toString();
        const qint64 status = detail.value(QStringLiteral("status")).toInteger();
        auto *item = new QTreeWidgetItem(m_network);
        item->setText(NetTime, QDateTime::fromMSecsSinceEpoch(event.value(QStringLiteral("at")).toInteger())
                                   .toString(QStringLiteral("HH:mm:ss.zzz")));
        item->setText(NetRequest,
                      tr("%1 %2:%3")
                          .arg(detail.value(QStringLiteral("method")).toString(),
                               Format::displayName(detail.value(QStringLiteral("host")).toString()))
                          .arg(detail.value(QStringLiteral("port")).toInt()));
        item->setText(NetDecision, decision);
        item->setText(NetReason, Format::displayName(detail.value(QStringLiteral("reason")).toString()));
        item->setText(NetStatus, status > 0 ? QString::number(status) : QString());
        item->setText(NetBytes, tr("%1 / %2").arg(
                                    Format::bytes(detail.value(QStringLiteral("bytes_up")).toInteger()),
                                    Format::bytes(detail.value(QStringLiteral("bytes_down")).toInteger())));
        item->setText(NetDuration, Format::duration(detail.value(QStringLiteral("duration_ms")).toInteger()));
        item->setToolTip(NetRequest, EventWords::network(detail));
        item->setToolTip(NetReason, item->text(NetReason));
        if (decision != QLatin1String("allowed")) {
            QFont bold = item->font(NetDecision);
            bold.setBold(true);
            item->setFont(NetDecision, bold);
        }
    }
    if (total > events.size())
        new QTreeWidgetItem(m_network, {tr("… and %1 older ones not listed").arg(total - events.size())});
}

void RunDetailView::setRun(const QJsonObject &run)
{
    m_run = run;
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
    m_title->setText(tr("Run %1").arg(id));
    const OutcomeSummary outcome = OutcomeSummary::fromRun(run);
    QStringList lines;
    lines.append(tr("Container: %1").arg(containerName(run)));
    lines.append(
        tr("Started: %1").arg(Format::dateTime(run.value(QStringLiteral("started_at")).toInteger())));
    const QString language = run.value(QStringLiteral("language")).toString();
    const QString what = HistoryModel::whatOf(run);
    lines.append(language.isEmpty() || what == language ? tr("Ran: %1").arg(what)
                                                        : tr("Ran: %1 · %2").arg(language, what));
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
    // Only run.get carries the policy text; the list's row has its hash alone.
    m_policy->setPolicy(run.value(QStringLiteral("policy")).toObject(),
                        run.value(QStringLiteral("policy_version")).toString());
    fileGroup(m_files, tr("Inputs (%1)"), run.value(QStringLiteral("inputs")).toArray());
    fileGroup(m_files, tr("Artifacts (%1)"), run.value(QStringLiteral("artifacts")).toArray());
    m_files->resizeColumnToContents(0);
    m_files->resizeColumnToContents(1);
}

QString RunDetailView::text() const
{
    return m_title->text() + QLatin1Char('\n') + m_summary->text();
}

Result<> RunDetailView::exportRun(const QString &path) const
{
    if (m_run.isEmpty())
        return fail(QStringLiteral("history.no_run"), tr("no run is selected"));
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return fail(QStringLiteral("history.export"),
                    tr("cannot write %1: %2").arg(path, file.errorString()));
    // The run as the daemon describes it, and what it tried on the network (listed beside it in the detail).
    QJsonObject exported = m_run;
    if (!m_networkEvents.isEmpty())
        exported.insert(QStringLiteral("network_events"), m_networkEvents);
    // The run's evidence as a Go/No-Go report shows it (audit/runevidence.h), with its hash.
    const QJsonObject evidence = toQt(Audit::runEvidenceJson(toPlain(m_run))).toObject();
    for (auto it = evidence.begin(); it != evidence.end(); ++it)
        exported.insert(it.key(), it.value());
    file.write(QJsonDocument(exported).toJson(QJsonDocument::Indented));
    if (!file.commit())
        return fail(QStringLiteral("history.export"),
                    tr("cannot write %1: %2").arg(path, file.errorString()));
    return {};
}

void RunDetailView::chooseExport()
{
    if (m_run.isEmpty())
        return;
    const QString suggested =
        QStringLiteral("cordon-run-%1.json").arg(m_run.value(QStringLiteral("id")).toString());
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export Run as JSON"),
        QDir(WorkbenchSettings::exportFolder(WorkbenchSettings::ExportKind::Run)).filePath(suggested),
        tr("JSON files (*.json)"));
    if (!path.isEmpty())
        saveExport(path);
}

void RunDetailView::saveExport(const QString &path)
{
    if (auto written = exportRun(path); !written) {
        Q_EMIT exportFailed(tr("The run was not exported: %1").arg(toQt(written.error().message())));
        return;
    }
    WorkbenchSettings::setExportFolder(WorkbenchSettings::ExportKind::Run, QFileInfo(path).absolutePath());
    Q_EMIT exported(path);
}

} // namespace Cordon::Ui
