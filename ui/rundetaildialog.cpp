// SPDX-License-Identifier: MIT
#include "rundetaildialog.h"

#include "dialogfit.h"
#include "pagedlistmodel.h"
#include "rundetailview.h"

#include <QDialogButtonBox>
#include <QJsonObject>
#include <QVBoxLayout>

namespace Cordon::Ui {

RunDetailDialog::RunDetailDialog(DaemonConnection &connection, const QString &runId,
                                 std::function<QString(const QString &)> containerNames, QWidget *parent)
    : QDialog(parent), m_detail(new RunDetailView(connection, this))
{
    setObjectName(QStringLiteral("runDetailDialog"));
    setWindowTitle(tr("Run %1").arg(runId.left(8)));
    // Named as the History names it: a container the history never named (an audit's, long deleted) is its
    // id.
    m_detail->setContainerNames([names = std::move(containerNames)](const QJsonObject &run) {
        return PagedListModel::containerName(run, names);
    });
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *layout = new QVBoxLayout;
    layout->addWidget(m_detail, 1);
    DialogFit::install(this, layout, buttons, QSize(820, 560));
    // The id alone: the detail shows it at once and fills in the rest when run.get answers.
    m_detail->showRun(QJsonObject{{QStringLiteral("id"), runId}});
}

RunDetailDialog *RunDetailDialog::open(DaemonConnection &connection, const QString &runId,
                                       std::function<QString(const QString &)> containerNames,
                                       QWidget *parent)
{
    const auto open = parent->findChildren<RunDetailDialog *>(QString(), Qt::FindDirectChildrenOnly);
    for (RunDetailDialog *dialog : open) {
        if (dialog->runId() == runId) {
            dialog->raise();
            dialog->activateWindow();
            return dialog;
        }
    }
    auto *dialog = new RunDetailDialog(connection, runId, std::move(containerNames), parent);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->show();
    return dialog;
}

QString RunDetailDialog::runId() const
{
    return m_detail->runId();
}

} // namespace Cordon::Ui
