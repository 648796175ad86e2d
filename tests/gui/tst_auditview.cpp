// SPDX-License-Identifier: MIT
// The Go/No-Go audit in the workbench against a real cordond: View › Go/No-Go Audit (Ctrl+G), one button
// audits the selected container's policy in fresh containers, rows fill in live, the report is kept in the
// history, a row's run opens in a window of its own with one click, the sign-off is signed by the daemon,
// and the report exports as JSON (which verifies), Markdown, HTML and PDF. The audited container has no
// network: the rows that cannot apply to it show as not applicable, and the status counts only the rows that
// applied.
#include "guitest.h"
#include "testutil.h"
#include "windowtest.h"

#include "auditview.h"
#include "containerlistmodel.h"
#include "daemonconnection.h"
#include "daemonfixture.h"
#include "historymodel.h"
#include "historyview.h"
#include "mainwindow.h"
#include "rundetaildialog.h"
#include "rundetailview.h"
#include "workbenchsettings.h"

#include "audit/reportsignature.h"
#include "core/plainbridge.h"
#include "sandbox/json.h"

#include <QAction>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileInfo>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTreeWidget>

using namespace Cordon::Ui;

class AuditViewTest final : public QObject
{
    Q_OBJECT

private:
    CordonTest::DaemonFixture m_daemon;
    std::unique_ptr<MainWindow> m_window;
    QString m_container;

    AuditView *view() const { return m_window->auditView(); }

    QTreeWidgetItem *rowItem(const QString &title) const
    {
        const QList<QTreeWidgetItem *> found =
            view()->rows()->findItems(title, Qt::MatchExactly, AuditView::ClaimColumn);
        return found.isEmpty() ? nullptr : found.first();
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_daemon.start());
        m_window = CordonGuiTest::openConnectedWindow();
        QVERIFY(m_window);
        auto created = CordonGuiTest::callAndWait(
            m_window->connection(), QStringLiteral("container.create"),
            {{QStringLiteral("policy"),
              QJsonObject{{QStringLiteral("name"), QStringLiteral("audited")},
                          {QStringLiteral("limits"), QJsonObject{{QStringLiteral("run_timeout_s"), 30},
                                                                 {QStringLiteral("workspace_mb"), 128}}}}}});
        QVERIFY_RESULT(created);
        m_container =
            created->value(QStringLiteral("container")).toObject().value(QStringLiteral("id")).toString();
        QTRY_VERIFY(m_window->containerModel().rowCount() == 1);
        m_window->selectContainer(m_container);
        QTRY_COMPARE(m_window->currentContainerId(), m_container);
    }

    void oneButtonAuditsTheSelectedContainersPolicyLive()
    {
        QAction *action = m_window->findChild<QAction *>(QStringLiteral("auditAction"));
        QVERIFY(action);
        QVERIFY(CordonGuiTest::activate(m_window.get()));
        QTest::keySequence(m_window.get(), action->shortcut());
        QTRY_VERIFY(m_window->auditDock()->isVisible());
        QVERIFY(!view()->runButton()->isHidden());

        // The audit's own containers come and go without ever being listed among the user's.
        QSignalSpy inserted(&m_window->containerModel(), &QAbstractItemModel::rowsInserted);
        QTest::mouseClick(view()->runButton(), Qt::LeftButton);
        QVERIFY(view()->isRunning());
        QCOMPARE(view()->runButton()->text(), QStringLiteral("Cancel Audit"));
        // Live: the first rows have their verdicts while later ones are still pending.
        QTRY_VERIFY2_WITH_TIMEOUT(view()->rows()->topLevelItemCount() > 0 &&
                                      view()->rows()->topLevelItem(0)->text(AuditView::VerdictColumn) ==
                                          QStringLiteral("Go"),
                                  qPrintable(view()->statusText()), 60000);
        const int last = view()->rows()->topLevelItemCount() - 1;
        QVERIFY(view()->rows()->topLevelItem(last)->text(AuditView::VerdictColumn) != QStringLiteral("Go"));

        QTRY_VERIFY_WITH_TIMEOUT(!view()->isRunning() && !view()->report().isEmpty(), 180000);
        QString noGo;
        QStringList notApplicable;
        for (int i = 0; i < view()->rows()->topLevelItemCount(); ++i) {
            const QTreeWidgetItem *item = view()->rows()->topLevelItem(i);
            if (item->text(AuditView::VerdictColumn) == QStringLiteral("Not applicable"))
                notApplicable << item->text(AuditView::ClaimColumn);
            else if (item->text(AuditView::VerdictColumn) != QStringLiteral("Go"))
                noGo += item->text(AuditView::ClaimColumn) + QStringLiteral(": ") +
                        item->text(AuditView::ReasonColumn) + QLatin1Char('\n');
        }
        QVERIFY2(noGo.isEmpty(), qPrintable(noGo));
        QCOMPARE(view()->rows()->topLevelItemCount(), 21);
        // Without network there is no allowed host, no proxy to refuse, and no host for a domain secret.
        QCOMPARE(notApplicable,
                 (QStringList{QStringLiteral("A domain secret never enters the sandbox"),
                              QStringLiteral("The allowlisted host is reached"),
                              QStringLiteral("Unlisted hosts, private and metadata addresses are "
                                             "refused")}));
        QVERIFY2(view()->statusText().contains(
                     QStringLiteral("18 of 18 rows Go, 3 not applicable under this policy")),
                 qPrintable(view()->statusText()));
        QCOMPARE(view()->runButton()->text(), QStringLiteral("Run Audit"));

        // Kept in the history; the audit's containers are gone again, the user's is untouched.
        auto listed = CordonGuiTest::callAndWait(m_window->connection(), QStringLiteral("audit.list"));
        QVERIFY_RESULT(listed);
        QCOMPARE(listed->value(QStringLiteral("audits"))
                     .toArray()
                     .first()
                     .toObject()
                     .value(QStringLiteral("id"))
                     .toString(),
                 view()->report().value(QStringLiteral("id")).toString());
        QTRY_COMPARE(m_window->containerModel().rowCount(), 1);
        QCOMPARE(m_window->currentContainerId(), m_container);
        QCOMPARE(inserted.count(), 0);
    }

    // Its runs are left out of the History's lists (dozens of them would bury the user's own); Show Its Runs
    // lists them there, alone, and the way back shows the user's again.
    void theAuditsRunsAreShownOnRequest()
    {
        QTreeWidgetItem *item = rowItem(QStringLiteral("The pids limit holds"));
        QVERIFY(item);
        const QString runId = item->data(AuditView::RunColumn, Qt::UserRole + 1).toString();
        HistoryView *history = m_window->historyView();
        m_window->historyDock()->show();
        QSignalSpy loaded(history, &HistoryView::pageLoaded);
        history->reload();
        QVERIFY(loaded.wait(10000));
        QCOMPARE(history->model()->rowOf(runId), -1);
        QCOMPARE(history->model()->total(), 0); // the user ran nothing

        QVERIFY(view()->auditRunsButton()->isEnabled());
        m_window->auditDock()->raise();
        QTest::mouseClick(view()->auditRunsButton(), Qt::LeftButton);
        const QString auditId = view()->report().value(QStringLiteral("id")).toString();
        QCOMPARE(history->auditFilter(), auditId);
        QTRY_VERIFY(m_window->historyDock()->isVisible());
        QTRY_VERIFY_WITH_TIMEOUT(history->model()->total() >= 20, 10000);
        history->setPageSize(500);
        history->reload();
        QTRY_VERIFY_WITH_TIMEOUT(history->model()->rowOf(runId) >= 0, 10000);
        for (int row = 0; row < history->model()->rowCount(); ++row)
            QCOMPARE(history->model()->item(row).value(QStringLiteral("container_origin")).toString(),
                     QStringLiteral("audit:") + auditId);
        history->showAuditRuns({});
        QTRY_COMPARE_WITH_TIMEOUT(history->model()->total(), 0, 10000);
    }

    void aRowsRunOpensWithOneClick()
    {
        m_window->historyDock()->hide(); // shown by the test before
        QTreeWidgetItem *item = rowItem(QStringLiteral("The pids limit holds"));
        QVERIFY(item);
        const QString runId = item->data(AuditView::RunColumn, Qt::UserRole + 1).toString();
        QCOMPARE(runId.size(), 16);
        QTreeWidget *rows = view()->rows();
        rows->scrollToItem(item);
        const QRect cell = rows->visualItemRect(item);
        const int x = rows->header()->sectionViewportPosition(AuditView::RunColumn) + 4;
        QTest::mouseClick(rows->viewport(), Qt::LeftButton, {}, QPoint(x, cell.center().y()));
        // The run itself opens, whole, in a window of its own: not the History's list, which may not hold it.
        RunDetailDialog *opened = nullptr;
        QTRY_VERIFY((opened = m_window->findChild<RunDetailDialog *>()) && opened->isVisible());
        QCOMPARE(opened->runId(), runId);
        QVERIFY(!m_window->historyDock()->isVisible());
        QTRY_VERIFY_WITH_TIMEOUT(opened->detail()->run().contains(QStringLiteral("stdout")), 10000);
        QCOMPARE(opened->detail()->run().value(QStringLiteral("id")).toString(), runId);
        QVERIFY2(opened->detail()->text().startsWith(QStringLiteral("Run ") + runId),
                 qPrintable(opened->detail()->text()));
        // Its container, one of the audit's, is gone and not in the main list: the detail names it as the
        // history keeps it, never with an empty name.
        const QString container = opened->detail()->run().value(QStringLiteral("container")).toString();
        const QString name = opened->detail()->run().value(QStringLiteral("container_name")).toString();
        QVERIFY(!container.isEmpty());
        QVERIFY2(name.startsWith(QStringLiteral("audit-")), qPrintable(name));
        QCOMPARE(m_window->containerModel().rowOf(container), -1);
        QVERIFY2(opened->detail()->text().contains(QStringLiteral("Container: ") + name),
                 qPrintable(opened->detail()->text()));
        // A second click raises the same window.
        QTest::mouseClick(rows->viewport(), Qt::LeftButton, {}, QPoint(x, cell.center().y()));
        QCOMPARE(m_window->findChildren<RunDetailDialog *>().size(), 1);
        // The run exported from its window holds the evidence the report's row shows: one format.
        QTemporaryDir dir;
        const QString exported = dir.filePath(QStringLiteral("run.json"));
        QVERIFY(opened->detail()->exportRun(exported));
        QFile file(exported);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QJsonArray runEvidence =
            QJsonDocument::fromJson(file.readAll()).object().value(QStringLiteral("evidence")).toArray();
        QVERIFY(runEvidence.size() >= 4);
        QJsonArray rowEvidence;
        for (const QJsonValue &row : view()->report().value(QStringLiteral("rows")).toArray()) {
            if (row.toObject().value(QStringLiteral("id")).toString() == QStringLiteral("limits.pids"))
                rowEvidence = row.toObject().value(QStringLiteral("evidence")).toArray();
        }
        for (const QJsonValue &piece : runEvidence)
            QVERIFY2(rowEvidence.contains(piece),
                     QJsonDocument(piece.toObject()).toJson(QJsonDocument::Compact).constData());
        // The lifecycle rows ran on the audit's private daemon: no link into this history.
        QVERIFY(rowItem(QStringLiteral("Expiry removes everything, with a receipt"))
                    ->data(AuditView::RunColumn, Qt::UserRole + 1)
                    .toString()
                    .isEmpty());
        opened->close();
    }

    void theSignOffIsSignedWithTheUsersKey()
    {
        m_window->auditDock()->raise();
        view()->signerName()->setText(QStringLiteral("Ada Reviewer"));
        view()->signerRole()->setText(QStringLiteral("Trainer"));
        view()->decision()->setCurrentIndex(view()->decision()->findData(QStringLiteral("go")));
        QTest::mouseClick(m_window->findChild<QPushButton *>(QStringLiteral("auditSignButton")),
                          Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(!view()->report().value(QStringLiteral("signature")).toObject().isEmpty(),
                                 20000);
        const QString keyId = view()
                                  ->report()
                                  .value(QStringLiteral("signature"))
                                  .toObject()
                                  .value(QStringLiteral("key_id"))
                                  .toString();
        QVERIFY(keyId.startsWith(QStringLiteral("ak-")));
        QVERIFY(m_window->findChild<QLabel *>(QStringLiteral("auditSignature"))->text().contains(keyId));
        auto verification = Cordon::Audit::verifyReport(Cordon::toPlain(view()->report()));
        QVERIFY(verification && verification->intact());
    }

    void theReportExportsInEveryForm()
    {
        QTemporaryDir dir;
        const QString base = dir.filePath(QStringLiteral("report"));
        QCOMPARE(view()->exportTo(base + QStringLiteral(".json"), AuditView::ExportFormat::Json), QString());
        QCOMPARE(view()->exportTo(base + QStringLiteral(".md"), AuditView::ExportFormat::Markdown),
                 QString());
        QCOMPARE(view()->exportTo(base + QStringLiteral(".html"), AuditView::ExportFormat::Html), QString());
        QCOMPARE(view()->exportTo(base + QStringLiteral(".pdf"), AuditView::ExportFormat::Pdf), QString());
        const auto read = [](const QString &path) {
            QFile file(path);
            return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
        };
        auto document = Cordon::Json::read(Cordon::toPlain(read(base + QStringLiteral(".json"))));
        QVERIFY(document);
        auto verification = Cordon::Audit::verifyReport(*document);
        QVERIFY(verification && verification->intact());
        QVERIFY(read(base + QStringLiteral(".md")).contains("Ada Reviewer (Trainer): Go on"));
        QVERIFY(read(base + QStringLiteral(".html")).contains("<h3 id=\"rights.privileges\">Go"));
        QVERIFY(read(base + QStringLiteral(".pdf")).startsWith("%PDF"));

        // Through Export: the folder is remembered for the next report and the status bar says where it went.
        QCOMPARE(WorkbenchSettings::exportFolder(WorkbenchSettings::ExportKind::Audit),
                 QFileInfo(QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation)).isDir()
                     ? QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation)
                     : QDir::homePath());
        const QString chosen = base + QStringLiteral("-chosen.md");
        view()->saveExport(chosen, AuditView::ExportFormat::Markdown);
        QVERIFY(read(chosen).contains("Ada Reviewer (Trainer): Go on"));
        QVERIFY2(m_window->statusBar()->currentMessage().contains(chosen),
                 qPrintable(m_window->statusBar()->currentMessage()));
        QCOMPARE(WorkbenchSettings::exportFolder(WorkbenchSettings::ExportKind::Audit), dir.path());
    }

    void cleanupTestCase()
    {
        m_window.reset();
        QVERIFY(m_daemon.stop());
    }
};

CORDON_GUI_SANDBOX_TEST_MAIN(AuditViewTest)
#include "tst_auditview.moc"
