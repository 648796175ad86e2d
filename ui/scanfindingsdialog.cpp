// SPDX-License-Identifier: MIT
#include "scanfindingsdialog.h"

#include "core/formatting.h"
#include "dialogfit.h"

#include <QDialogButtonBox>
#include <QHeaderView>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace Cordon::Ui {

ScanFindingsDialog::ScanFindingsDialog(const QJsonArray &scanned, QWidget *parent) : QDialog(parent)
{
    setObjectName(QStringLiteral("scanFindingsDialog"));
    setWindowTitle(tr("Files Kept Back"));
    m_findings = new QTreeWidget(this);
    m_findings->setObjectName(QStringLiteral("scanFindings"));
    m_findings->setHeaderLabels({tr("File"), tr("Where"), tr("Found"), tr("Severity"), tr("Excerpt")});
    m_findings->setRootIsDecorated(false);
    m_findings->setUniformRowHeights(true);
    int files = 0;
    for (const QJsonValue &entry : scanned) {
        const QJsonObject file = entry.toObject();
        if (file.value(QStringLiteral("action")).toString() != QLatin1String("blocked"))
            continue;
        ++files;
        for (const QJsonValue &value : file.value(QStringLiteral("findings")).toArray()) {
            const QJsonObject finding = value.toObject();
            const qint64 line = finding.value(QStringLiteral("line")).toInteger();
            const QString where =
                line > 0 ? tr("line %1").arg(line)
                         : tr("byte %1").arg(finding.value(QStringLiteral("offset")).toInteger());
            auto *item = new QTreeWidgetItem(
                m_findings, {Format::displayName(finding.value(QStringLiteral("path")).toString()), where,
                             finding.value(QStringLiteral("rule")).toString(),
                             finding.value(QStringLiteral("severity")).toString(),
                             Format::displayName(finding.value(QStringLiteral("excerpt")).toString())});
            item->setToolTip(0, finding.value(QStringLiteral("path")).toString());
        }
    }
    m_findings->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_findings->header()->setStretchLastSection(true);

    auto *intro = new QLabel(
        files == 1
            ? tr("The artifact scan kept 1 file back: it holds what the container's policy does not let "
                 "leave (by default a private key, a cloud or service token, a secret's value, or what "
                 "could not be fully scanned; any finding under \"block\"). It was not saved.")
            : tr("The artifact scan kept %1 files back: they hold what the container's policy does not "
                 "let leave (by default a private key, a cloud or service token, a secret's value, or what "
                 "could not be fully scanned; any finding under \"block\"). They were not saved.")
                  .arg(files),
        this);
    intro->setWordWrap(true);
    m_reason = new QLineEdit(this);
    m_reason->setObjectName(QStringLiteral("overrideReason"));
    m_reason->setPlaceholderText(tr("why these files may leave (recorded in the container's events)"));
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Cancel, this);
    m_downloadAnyway = buttons->addButton(tr("&Download Anyway"), QDialogButtonBox::AcceptRole);
    m_downloadAnyway->setObjectName(QStringLiteral("downloadAnyway"));
    m_downloadAnyway->setEnabled(false);
    buttons->button(QDialogButtonBox::Cancel)->setDefault(true);
    connect(m_reason, &QLineEdit::textChanged, this,
            [this](const QString &text) { m_downloadAnyway->setEnabled(!text.trimmed().isEmpty()); });
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto *layout = new QVBoxLayout;
    layout->addWidget(intro);
    layout->addWidget(m_findings, 1);
    layout->addWidget(new QLabel(tr("Reason:"), this));
    layout->addWidget(m_reason);
    DialogFit::install(this, layout, buttons, QSize(760, 360));
}

QString ScanFindingsDialog::reason() const
{
    return m_reason->text().trimmed();
}

} // namespace Cordon::Ui
