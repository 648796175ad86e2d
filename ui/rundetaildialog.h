// SPDX-License-Identifier: MIT
// One past run in a window of its own: the run detail (RunDetailView) loaded by the run's id, for links that
// name a run, such as a row of the Go/No-Go audit. The History's list is filtered and paged, and its detail
// sits beside it in a dock; a run named elsewhere opens here whole, whatever the History shows.
#pragma once

#include <QDialog>

#include <functional>

namespace Cordon::Ui {

class DaemonConnection;
class RunDetailView;

class RunDetailDialog final : public QDialog
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(RunDetailDialog)

public:
    RunDetailDialog(DaemonConnection &connection, const QString &runId,
                    std::function<QString(const QString &)> containerNames, QWidget *parent = nullptr);

    // The window of this run under `parent` when one is open, raised; else a new one, shown. Closed, it goes.
    static RunDetailDialog *open(DaemonConnection &connection, const QString &runId,
                                 std::function<QString(const QString &)> containerNames, QWidget *parent);

    QString runId() const;
    RunDetailView *detail() const { return m_detail; }

private:
    RunDetailView *m_detail;
};

} // namespace Cordon::Ui
