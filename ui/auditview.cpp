// SPDX-License-Identifier: MIT
#include "auditview.h"

#include "auditsignoff.h"
#include "daemonconnection.h"
#include "messagetone.h"
#include "workbenchsettings.h"

#include "audit/auditreport.h"
#include "audit/reportexport.h"
#include "audit/runevidence.h"
#include "auditrunner/backgroundaudit.h"
#include "core/plainbridge.h"
#include "sandbox/json.h"

#include <QComboBox>
#include <QDateEdit>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QSaveFile>
#include <QSettings>
#include <QToolButton>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace Cordon::Ui {

namespace {

constexpr int RowIdRole = Qt::UserRole;
constexpr int RunIdRole = Qt::UserRole + 1;

QString verdictText(const QString &verdict)
{
    if (verdict == QLatin1String("go"))
        return AuditView::tr("Go");
    return verdict == QLatin1String("not_applicable") ? AuditView::tr("Not applicable")
                                                      : AuditView::tr("No-Go");
}

// A row that could not apply is grey: neither the green of Go nor the red of No-Go.
QColor verdictColor(const QString &verdict)
{
    const Tone tone = verdict == QLatin1String("go")               ? Tone::Success
                      : verdict == QLatin1String("not_applicable") ? Tone::Neutral
                                                                   : Tone::Failure;
    return toneColours(tone, QGuiApplication::palette()).accent;
}

QString policyFileText(const QString &path, QJsonObject *policy, QString *error)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        *error = AuditView::tr("%1: %2").arg(path, file.errorString());
        return {};
    }
    const QByteArray text = file.readAll();
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(text, &parseError);
    if (!document.isObject()) {
        *error = AuditView::tr("%1 is not a policy: %2").arg(path, parseError.errorString());
        return {};
    }
    *policy = document.object();
    return QString::fromUtf8(text).trimmed();
}

} // namespace

AuditView::AuditView(DaemonConnection &connection, QWidget *parent)
    : QWidget(parent), m_connection(connection), m_audit(new Audit::BackgroundAudit(this)),
      m_source(new QLabel(this)), m_fileButton(new QPushButton(tr("Policy File…"), this)),
      m_runButton(new QPushButton(tr("Run Audit"), this)), m_progress(new QProgressBar(this)),
      m_status(new QLabel(this)), m_auditRunsButton(new QPushButton(tr("Show Its Runs"), this)),
      m_rows(new QTreeWidget(this)), m_name(new QLineEdit(this)), m_role(new QLineEdit(this)),
      m_decision(new QComboBox(this)), m_date(new QDateEdit(QDate::currentDate(), this)),
      m_signButton(new QPushButton(tr("Sign"), this)), m_exportButton(new QToolButton(this)),
      m_signature(new QLabel(this))
{
    m_runButton->setObjectName(QStringLiteral("auditRunButton"));
    m_runButton->setToolTip(
        tr("Create fresh containers from the policy and prove each of its claims with a live "
           "probe; the user's own containers are not touched"));
    m_fileButton->setToolTip(tr("Audit a policy file instead of the selected container's policy"));
    m_source->setWordWrap(true);
    m_progress->setRange(0, int(Audit::AuditRunner::rowTitles().size()));
    m_progress->setValue(0);
    m_progress->setTextVisible(true);
    m_progress->setFormat(tr("%v of %m rows"));
    m_status->setObjectName(QStringLiteral("auditStatus"));
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);

    m_rows->setObjectName(QStringLiteral("auditRows"));
    m_rows->setColumnCount(ColumnCount);
    m_rows->setHeaderLabels({tr("Verdict"), tr("Claim"), tr("Reason"), tr("Run"), tr("Time")});
    m_rows->setAccessibleName(tr("Audit rows"));
    m_rows->setRootIsDecorated(true);
    m_rows->setUniformRowHeights(true);
    m_rows->setWordWrap(false);
    m_rows->header()->setStretchLastSection(false);
    m_rows->header()->setSectionResizeMode(ReasonColumn, QHeaderView::Stretch);
    m_rows->header()->setSectionResizeMode(VerdictColumn, QHeaderView::ResizeToContents);
    m_rows->header()->setSectionResizeMode(RunColumn, QHeaderView::ResizeToContents);
    m_rows->header()->setSectionResizeMode(TimeColumn, QHeaderView::ResizeToContents);
    m_rows->setColumnWidth(ClaimColumn, 300);
    connect(m_rows, &QTreeWidget::itemClicked, this, &AuditView::onItemClicked);

    m_name->setObjectName(QStringLiteral("auditSignerName"));
    m_role->setObjectName(QStringLiteral("auditSignerRole"));
    m_name->setPlaceholderText(tr("Who signs off"));
    m_role->setPlaceholderText(tr("Their role"));
    QSettings settings;
    m_name->setText(settings.value(QStringLiteral("audit/signerName")).toString());
    m_role->setText(settings.value(QStringLiteral("audit/signerRole")).toString());
    m_decision->addItem(tr("Go"), QStringLiteral("go"));
    m_decision->addItem(tr("No-Go"), QStringLiteral("no_go"));
    m_date->setCalendarPopup(true);
    m_date->setDisplayFormat(QStringLiteral("yyyy-MM-dd"));
    m_signButton->setObjectName(QStringLiteral("auditSignButton"));
    m_signButton->setToolTip(tr("Sign the report with your key, which the daemon keeps in the secret store"));
    connect(m_signButton, &QPushButton::clicked, this, &AuditView::signReport);
    m_signature->setObjectName(QStringLiteral("auditSignature"));
    m_signature->setWordWrap(true);

    m_exportButton->setText(tr("Export"));
    m_exportButton->setPopupMode(QToolButton::InstantPopup);
    m_exportButton->setToolButtonStyle(Qt::ToolButtonTextOnly);
    auto *exportMenu = new QMenu(m_exportButton);
    const std::pair<QString, ExportFormat> formats[] = {{tr("JSON (signed form)…"), ExportFormat::Json},
                                                        {tr("Markdown…"), ExportFormat::Markdown},
                                                        {tr("HTML…"), ExportFormat::Html},
                                                        {tr("PDF…"), ExportFormat::Pdf}};
    for (const auto &[label, format] : formats)
        exportMenu->addAction(label, this, [this, format = format] { exportWithDialog(format); });
    m_exportButton->setMenu(exportMenu);

    auto *top = new QHBoxLayout;
    top->addWidget(m_source, 1);
    top->addWidget(m_fileButton);
    top->addWidget(m_runButton);
    // The audit's own runs are left out of the History's lists; this shows them there.
    m_auditRunsButton->setObjectName(QStringLiteral("auditRunsButton"));
    m_auditRunsButton->setToolTip(
        tr("List the runs and events of this audit's containers in the History (left out of it otherwise)"));
    connect(m_auditRunsButton, &QPushButton::clicked, this, [this] {
        const QString id = m_report.value(QStringLiteral("id")).toString();
        if (!id.isEmpty())
            Q_EMIT auditRunsRequested(id);
    });
    auto *progress = new QHBoxLayout;
    progress->addWidget(m_progress);
    progress->addWidget(m_status, 1);
    progress->addWidget(m_auditRunsButton);

    auto *signOff = new QGroupBox(tr("Sign-off"), this);
    auto *form = new QHBoxLayout(signOff);
    form->addWidget(m_name, 2);
    form->addWidget(m_role, 2);
    form->addWidget(m_decision);
    form->addWidget(m_date);
    form->addWidget(m_signButton);
    form->addWidget(m_exportButton);

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addLayout(progress);
    layout->addWidget(m_rows, 1);
    layout->addWidget(m_signature);
    layout->addWidget(signOff);

    connect(m_fileButton, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Policy to Audit"), QString(),
                                                          tr("Policies (*.json);;All files (*)"));
        if (!path.isEmpty())
            setPolicyFile(path);
    });
    connect(m_runButton, &QPushButton::clicked, this, [this] {
        if (isRunning())
            cancel();
        else
            runAudit();
    });
    connect(m_audit, &Audit::BackgroundAudit::rowStarted, this, &AuditView::onRowStarted);
    connect(m_audit, &Audit::BackgroundAudit::rowFinished, this, &AuditView::onRowFinished);
    connect(m_audit, &Audit::BackgroundAudit::finished, this, &AuditView::onFinished);
    connect(m_audit, &Audit::BackgroundAudit::failed, this, &AuditView::onFailed);
    setStatus(
        tr("The audit creates fresh containers from the policy and proves each claim with a live probe."));
    updateState();
}

AuditView::~AuditView() = default;

void AuditView::setCurrentContainer(const QString &id, const QString &name, const QJsonObject &policy)
{
    m_containerId = id;
    m_containerName = name;
    m_containerPolicy = policy;
    updateState();
}

void AuditView::setPolicyFile(const QString &path)
{
    m_policyFile = path;
    updateState();
}

bool AuditView::isRunning() const
{
    return m_audit->isRunning();
}

bool AuditView::runAudit()
{
    if (isRunning())
        return false;
    Audit::AuditRequest request;
    if (!m_policyFile.isEmpty()) {
        QString error;
        request.policyText = policyFileText(m_policyFile, &request.policy, &error);
        if (!error.isEmpty()) {
            setStatus(error);
            return false;
        }
    } else if (!m_containerId.isEmpty()) {
        request.policy = m_containerPolicy;
        request.sourceContainer = m_containerId;
    } else {
        setStatus(tr("Select a container, or choose a policy file, to audit its policy."));
        return false;
    }
    m_report = {};
    m_rows->clear();
    for (const auto &[id, title] : Audit::AuditRunner::rowTitles()) {
        auto *item = new QTreeWidgetItem(m_rows);
        item->setData(VerdictColumn, RowIdRole, id);
        item->setText(VerdictColumn, tr("Pending"));
        item->setText(ClaimColumn, title);
        item->setToolTip(ClaimColumn, id);
    }
    m_progress->setValue(0);
    m_audit->start(request);
    setStatus(tr("Auditing…"));
    updateState();
    return true;
}

void AuditView::cancel()
{
    m_audit->cancel();
    setStatus(tr("Cancelling after the row under way…"));
}

void AuditView::onRowStarted(const QString &id, const QString &title)
{
    for (int i = 0; i < m_rows->topLevelItemCount(); ++i) {
        QTreeWidgetItem *item = m_rows->topLevelItem(i);
        if (item->data(VerdictColumn, RowIdRole).toString() == id) {
            item->setText(VerdictColumn, tr("Running…"));
            m_rows->scrollToItem(item);
        }
    }
    setStatus(tr("Proving: %1").arg(title));
}

void AuditView::onRowFinished(const QJsonObject &row)
{
    const QString id = row.value(QStringLiteral("id")).toString();
    for (int i = 0; i < m_rows->topLevelItemCount(); ++i) {
        QTreeWidgetItem *item = m_rows->topLevelItem(i);
        if (item->data(VerdictColumn, RowIdRole).toString() == id)
            fillRow(item, row);
    }
    m_progress->setValue(m_progress->value() + 1);
}

void AuditView::onFinished(const QJsonObject &report)
{
    showReport(report);
    Q_EMIT reportChanged(report);
}

void AuditView::onFailed(const QString &code, const QString &message)
{
    m_rows->clear();
    setStatus(tr("The audit could not run: %1 (%2)").arg(message, code));
    updateState();
}

QString AuditView::runOfRow(const QJsonObject &row)
{
    // A run's own evidence first (audit/runevidence.h), then a probe's "(run ID)". Runs on the audit's
    // private daemon (the lifecycle rows) are named "private daemon's run": that daemon's history went with
    // it.
    std::vector<Audit::Evidence> pieces;
    for (const QJsonValue &piece : row.value(QStringLiteral("evidence")).toArray())
        pieces.push_back({toPlain(piece.toObject().value(QStringLiteral("label")).toString()),
                          toPlain(piece.toObject().value(QStringLiteral("text")).toString())});
    if (const std::string id = Audit::runOfEvidence(pieces); !id.empty())
        return toQt(id);
    static const QRegularExpression run(QStringLiteral("(?<!daemon's )\\brun ([0-9a-f]{16})\\b"));
    for (const QJsonValue &piece : row.value(QStringLiteral("evidence")).toArray()) {
        const QRegularExpressionMatch match =
            run.match(piece.toObject().value(QStringLiteral("text")).toString());
        if (match.hasMatch())
            return match.captured(1);
    }
    return {};
}

void AuditView::fillRow(QTreeWidgetItem *item, const QJsonObject &row)
{
    const QString verdict = row.value(QStringLiteral("verdict")).toString();
    item->setData(VerdictColumn, RowIdRole, row.value(QStringLiteral("id")).toString());
    item->setText(VerdictColumn, verdictText(verdict));
    item->setForeground(VerdictColumn, verdictColor(verdict));
    QFont bold = item->font(VerdictColumn);
    bold.setBold(true);
    item->setFont(VerdictColumn, bold);
    item->setText(ClaimColumn, row.value(QStringLiteral("title")).toString());
    item->setToolTip(ClaimColumn, row.value(QStringLiteral("id")).toString());
    item->setText(ReasonColumn, row.value(QStringLiteral("reason")).toString());
    item->setToolTip(ReasonColumn, row.value(QStringLiteral("reason")).toString());
    item->setText(TimeColumn, tr("%1 ms").arg(row.value(QStringLiteral("duration_ms")).toInteger()));
    const QString runId = runOfRow(row);
    item->setData(RunColumn, RunIdRole, runId);
    if (!runId.isEmpty()) {
        item->setText(RunColumn, runId.left(8));
        item->setToolTip(RunColumn, tr("Open run %1: what ran, its output, files and network").arg(runId));
        item->setForeground(RunColumn, palette().color(QPalette::Link));
        QFont underlined = item->font(RunColumn);
        underlined.setUnderline(true);
        item->setFont(RunColumn, underlined);
    }
    qDeleteAll(item->takeChildren());
    for (const QJsonValue &value : row.value(QStringLiteral("evidence")).toArray()) {
        const QJsonObject piece = value.toObject();
        auto *child = new QTreeWidgetItem(item);
        child->setText(ClaimColumn, piece.value(QStringLiteral("label")).toString());
        const QString text = piece.value(QStringLiteral("text")).toString();
        child->setText(ReasonColumn, QString(text).replace(QLatin1Char('\n'), QStringLiteral(" ⏎ ")));
        child->setToolTip(ReasonColumn, text);
    }
    auto *hash = new QTreeWidgetItem(item);
    hash->setText(ClaimColumn, tr("evidence sha256"));
    hash->setText(ReasonColumn, row.value(QStringLiteral("evidence_sha256")).toString());
}

void AuditView::onItemClicked(QTreeWidgetItem *item, int column)
{
    const QString runId = item->data(RunColumn, RunIdRole).toString();
    if (column == RunColumn && !runId.isEmpty())
        Q_EMIT runRequested(runId);
}

void AuditView::showReport(const QJsonObject &report)
{
    m_report = report;
    m_rows->clear();
    const QJsonArray rows = report.value(QStringLiteral("rows")).toArray();
    int go = 0;
    int applied = 0;
    QTreeWidgetItem *firstNoGo = nullptr;
    for (const QJsonValue &value : rows) {
        auto *item = new QTreeWidgetItem(m_rows);
        fillRow(item, value.toObject());
        const QString rowVerdict = value.toObject().value(QStringLiteral("verdict")).toString();
        go += rowVerdict == QLatin1String("go") ? 1 : 0;
        applied += rowVerdict == QLatin1String("not_applicable") ? 0 : 1;
        if (!firstNoGo && rowVerdict != QLatin1String("go") && rowVerdict != QLatin1String("not_applicable"))
            firstNoGo = item;
    }
    // The report opens where the reviewer must look first: its first No-Go row, selected, with its evidence
    // open; a report without one opens at its top (the live rows had scrolled to the last).
    if (firstNoGo) {
        firstNoGo->setExpanded(true);
        m_rows->setCurrentItem(firstNoGo);
        m_rows->scrollToItem(firstNoGo, QAbstractItemView::PositionAtTop);
    } else {
        m_rows->scrollToTop();
    }
    m_progress->setRange(0, int(rows.size()));
    m_progress->setValue(int(rows.size()));
    // The decision starts as what the rows say (or what was signed): a Go is never one click away on a No-Go.
    const QString signedDecision =
        report.value(QStringLiteral("sign_off")).toObject().value(QStringLiteral("decision")).toString();
    m_decision->setCurrentIndex(m_decision->findData(
        signedDecision.isEmpty() ? report.value(QStringLiteral("verdict")).toString() : signedDecision));
    const QString verdict = report.value(QStringLiteral("verdict")).toString();
    const QString notApplicable =
        applied == rows.size() ? QString()
                               : tr(", %1 not applicable under this policy").arg(rows.size() - applied);
    setStatus(tr("<b style=\"color:%1\">%2</b>: %3 of %4 rows Go%5. Report %6, kept in the history.")
                  .arg(verdictColor(verdict).name(), verdictText(verdict))
                  .arg(go)
                  .arg(applied)
                  .arg(notApplicable, report.value(QStringLiteral("id")).toString()));
    updateState();
}

void AuditView::loadReport(const QString &id)
{
    m_connection.call(QStringLiteral("audit.get"), {{QStringLiteral("id"), id}}, this,
                      [this](Result<QJsonObject> answer) {
                          if (!answer) {
                              setStatus(toQt(answer.error().message()));
                              return;
                          }
                          showReport(answer->value(QStringLiteral("report")).toObject());
                      });
}

void AuditView::signReport()
{
    if (m_report.isEmpty() || isRunning())
        return;
    if (m_name->text().trimmed().isEmpty() || m_role->text().trimmed().isEmpty()) {
        setStatus(tr("Fill in who signs off and their role first."));
        return;
    }
    QSettings settings;
    settings.setValue(QStringLiteral("audit/signerName"), m_name->text().trimmed());
    settings.setValue(QStringLiteral("audit/signerRole"), m_role->text().trimmed());
    m_signButton->setEnabled(false);
    m_connection.call(QStringLiteral("audit.sign"),
                      {{QStringLiteral("id"), m_report.value(QStringLiteral("id")).toString()},
                       {QStringLiteral("name"), m_name->text().trimmed()},
                       {QStringLiteral("role"), m_role->text().trimmed()},
                       {QStringLiteral("decision"), m_decision->currentData().toString()},
                       {QStringLiteral("date"), m_date->date().toString(Qt::ISODate)}},
                      this, [this](Result<QJsonObject> answer) {
                          if (!answer) {
                              setStatus(tr("Not signed: %1").arg(toQt(answer.error().message())));
                              updateState();
                              return;
                          }
                          showReport(answer->value(QStringLiteral("report")).toObject());
                          Q_EMIT reportChanged(m_report);
                      });
}

QString AuditView::exportTo(const QString &path, ExportFormat format) const
{
    auto report = Audit::AuditReport::fromJson(toPlain(m_report));
    if (!report)
        return toQt(report.error().message());
    if (format == ExportFormat::Pdf)
        return AuditSignOff::writePdf(m_report, path);
    const std::string content = format == ExportFormat::Json ? toPlain(m_report).serializeIndented() + "\n"
                                : format == ExportFormat::Markdown ? Audit::reportMarkdown(*report)
                                                                   : Audit::reportHtml(*report);
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) ||
        file.write(content.data(), qint64(content.size())) != qint64(content.size()) || !file.commit())
        return tr("%1: %2").arg(path, file.errorString());
    return {};
}

void AuditView::exportWithDialog(ExportFormat format)
{
    static const QString suffixes[] = {QStringLiteral(".json"), QStringLiteral(".md"),
                                       QStringLiteral(".html"), QStringLiteral(".pdf")};
    const QString suffix = suffixes[int(format)];
    const QString suggested =
        QStringLiteral("audit-") + m_report.value(QStringLiteral("id")).toString() + suffix;
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export Audit Report"),
        QDir(WorkbenchSettings::exportFolder(WorkbenchSettings::ExportKind::Audit)).filePath(suggested),
        tr("Report (*%1)").arg(suffix));
    if (!path.isEmpty())
        saveExport(path, format);
}

void AuditView::saveExport(const QString &path, ExportFormat format)
{
    const QString error = exportTo(path, format);
    setStatus(error.isEmpty() ? tr("Exported to %1").arg(path) : error);
    if (!error.isEmpty())
        return;
    WorkbenchSettings::setExportFolder(WorkbenchSettings::ExportKind::Audit, QFileInfo(path).absolutePath());
    Q_EMIT exported(path);
}

void AuditView::updateState()
{
    const bool running = isRunning();
    m_runButton->setText(running ? tr("Cancel Audit") : tr("Run Audit"));
    m_fileButton->setEnabled(!running);
    if (!m_policyFile.isEmpty())
        m_source->setText(tr("Policy file: <b>%1</b> (<a href=\"clear\">use the selected container's</a>)")
                              .arg(m_policyFile.toHtmlEscaped()));
    else if (!m_containerId.isEmpty())
        m_source->setText(
            tr("The policy of <b>%1</b>, in fresh containers of the audit's own")
                .arg((m_containerName.isEmpty() ? m_containerId : m_containerName).toHtmlEscaped()));
    else
        m_source->setText(tr("Select a container, or choose a policy file"));
    disconnect(m_source, &QLabel::linkActivated, this, nullptr);
    connect(m_source, &QLabel::linkActivated, this, [this] { setPolicyFile({}); });
    const bool haveReport = !m_report.isEmpty();
    m_signButton->setEnabled(haveReport && !running);
    m_exportButton->setEnabled(haveReport && !running);
    m_auditRunsButton->setEnabled(haveReport && !running);
    const QJsonObject signOff = m_report.value(QStringLiteral("sign_off")).toObject();
    const QJsonObject signature = m_report.value(QStringLiteral("signature")).toObject();
    if (!haveReport)
        m_signature->setText(QString());
    else if (signature.isEmpty())
        m_signature->setText(tr("Not signed yet: fill in the sign-off and sign it with your key."));
    else
        m_signature->setText(tr("Signed off <b>%1</b> by %2 (%3) on %4, with key %5.")
                                 .arg(verdictText(signOff.value(QStringLiteral("decision")).toString()),
                                      signOff.value(QStringLiteral("name")).toString().toHtmlEscaped(),
                                      signOff.value(QStringLiteral("role")).toString().toHtmlEscaped(),
                                      signOff.value(QStringLiteral("date")).toString(),
                                      signature.value(QStringLiteral("key_id")).toString()));
}

void AuditView::setStatus(const QString &text)
{
    m_status->setText(text);
}

QString AuditView::statusText() const
{
    return m_status->text();
}

} // namespace Cordon::Ui
