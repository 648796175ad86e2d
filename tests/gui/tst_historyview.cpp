// SPDX-License-Identifier: MIT
// The history view against a real cordond: the runs are listed with what ran and their outcome classes,
// failures marked, the filters, the search and "load more" page through them, the detail shows the code and
// the outcome, the export is the run as JSON and says where it went, and a Go/No-Go audit's runs stay out
// of the list until asked for.
#include "guitest.h"

#include "containerlistmodel.h"
#include "daemonconnection.h"
#include "eventtimelinemodel.h"
#include "eventtimelineview.h"
#include "historymodel.h"
#include "historyview.h"
#include "mainwindow.h"
#include "messagetone.h"
#include "policyview.h"
#include "rundetailview.h"
#include "workbenchsettings.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QCheckBox>
#include <QDir>
#include <QDockWidget>
#include <QFileInfo>
#include <QIcon>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>

using namespace Cordon::Ui;

class HistoryViewTest final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_daemon.start());
        const auto created = m_daemon.createContainer(QStringLiteral("history-test"));
        QVERIFY2(created, created ? "" : created.error().describe().c_str());
        m_containerId = *created;
        // Oldest first: the history lists the newest first.
        m_okRun = runToEnd(QStringLiteral("print('first run')\n"));
        m_failedRun = runToEnd(QStringLiteral("import sys\nprint('second', file=sys.stderr)\nsys.exit(3)\n"));
        m_lastRun = runToEnd(QStringLiteral("print('third run')\n"));
        QVERIFY(!m_okRun.isEmpty() && !m_failedRun.isEmpty() && !m_lastRun.isEmpty());

        m_window = std::make_unique<MainWindow>(MainWindow::Options{false});
        m_history = m_window->historyView();
        QVERIFY(m_history);
        m_tester = std::make_unique<QAbstractItemModelTester>(
            m_history->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        m_history->setPageSize(2);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
        m_window->start();
        QTRY_VERIFY_WITH_TIMEOUT(m_window->connection().isConnected(), 10000);
    }

    void listsRunsWithTheirClasses()
    {
        QSignalSpy loaded(m_history, &HistoryView::pageLoaded);
        QAction *toggle = m_window->findChild<QAction *>(QStringLiteral("historyAction"));
        QVERIFY(toggle);
        toggle->trigger();
        QVERIFY(m_window->historyDock()->isVisible());
        QVERIFY(loaded.wait(10000));
        HistoryModel *model = m_history->model();
        // The first page of two, newest first, and a way to the rest.
        QCOMPARE(model->rowCount(), 2);
        QCOMPARE(model->total(), 3);
        QVERIFY(model->canLoadMore());
        QCOMPARE(model->index(0, 0).data(HistoryModel::RunIdRole).toString(), m_lastRun);
        QCOMPARE(model->index(1, 0).data(HistoryModel::RunIdRole).toString(), m_failedRun);
        QCOMPARE(model->index(1, 0).data(HistoryModel::OutcomeRole).toString(),
                 QStringLiteral("nonzero_exit"));
        QCOMPARE(model->index(1, HistoryModel::OutcomeColumn).data().toString(),
                 QStringLiteral("nonzero_exit · exit 3"));
        QCOMPARE(model->index(1, HistoryModel::ContainerColumn).data().toString(),
                 QStringLiteral("history-test"));
        // What ran: the first line that says what the code does, not its language (every run is python).
        QCOMPARE(model->index(1, HistoryModel::WhatColumn).data().toString(),
                 QStringLiteral("print('second', file=sys.stderr)"));
        QCOMPARE(model->index(0, HistoryModel::WhatColumn).data().toString(),
                 QStringLiteral("print('third run')"));

        m_history->loadMore();
        QVERIFY(loaded.wait(10000));
        QCOMPARE(model->rowCount(), 3);
        QVERIFY(!model->canLoadMore());
        QCOMPARE(model->index(2, 0).data(HistoryModel::RunIdRole).toString(), m_okRun);
        QCOMPARE(model->index(2, 0).data(HistoryModel::OutcomeRole).toString(), QStringLiteral("ok"));
    }

    void filtersByOutcome()
    {
        QSignalSpy loaded(m_history, &HistoryView::pageLoaded);
        m_history->setOutcomeFilter(QStringLiteral("nonzero_exit"));
        QVERIFY(loaded.wait(10000));
        QCOMPARE(m_history->model()->rowCount(), 1);
        QCOMPARE(m_history->model()->index(0, 0).data(HistoryModel::RunIdRole).toString(), m_failedRun);
        m_history->setOutcomeFilter(QStringLiteral("ok"));
        QVERIFY(loaded.wait(10000));
        QCOMPARE(m_history->model()->rowCount(), 2);
        QCOMPARE(m_history->model()->total(), 2);
        m_history->setOutcomeFilter(QString());
        QVERIFY(loaded.wait(10000));
        QCOMPARE(m_history->model()->total(), 3);
    }

    void detailShowsCodeAndOutcome()
    {
        QSignalSpy detail(m_history, &HistoryView::detailLoaded);
        m_history->showRun(m_failedRun);
        QVERIFY(detail.wait(10000));
        QCOMPARE(m_history->detailRun().value(QStringLiteral("id")).toString(), m_failedRun);
        QCOMPARE(m_history->codeView()->toPlainText(),
                 QStringLiteral("import sys\nprint('second', file=sys.stderr)\nsys.exit(3)\n"));
        QVERIFY2(m_history->outputView()->toPlainText().contains(QStringLiteral("second")),
                 qPrintable(m_history->outputView()->toPlainText()));
        const QString text = m_history->detailText();
        QVERIFY2(text.contains(QStringLiteral("Outcome: Exit code 3 — nonzero_exit")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("Policy version: ") +
                               m_history->detailRun().value(QStringLiteral("policy_version")).toString()),
                 qPrintable(text));
        QVERIFY(!m_history->detailRun().value(QStringLiteral("policy_version")).toString().isEmpty());
        // The Policy tab: what the run ran under, in words and as text.
        const QString words = m_history->detail()->policyView()->wordsText();
        QVERIFY2(words.contains(QStringLiteral("Processes: at most 256 processes")), qPrintable(words));
        QVERIFY2(m_history->detail()->policyView()->jsonText().contains(
                     QStringLiteral("\"name\": \"history-test\"")),
                 qPrintable(m_history->detail()->policyView()->jsonText()));
    }

    void exportWritesTheRunAsJson()
    {
        QTemporaryDir directory;
        const QString path = directory.filePath(QStringLiteral("run.json"));
        const auto written = m_history->exportRun(path);
        QVERIFY2(written, written ? "" : written.error().describe().c_str());
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QJsonParseError error;
        const QJsonDocument document = QJsonDocument::fromJson(file.readAll(), &error);
        QCOMPARE(error.error, QJsonParseError::NoError);
        QVERIFY(document.isObject());
        QCOMPARE(document.object().value(QStringLiteral("id")).toString(), m_failedRun);
        QCOMPARE(document.object().value(QStringLiteral("error_class")).toString(),
                 QStringLiteral("nonzero_exit"));
        QCOMPARE(document.object().value(QStringLiteral("exit_code")).toInt(), 3);
        // The policy itself travels with the run, not only its hash.
        const QJsonObject policy = document.object().value(QStringLiteral("policy")).toObject();
        QCOMPARE(policy.value(QStringLiteral("name")).toString(), QStringLiteral("history-test"));
        QVERIFY(policy.contains(QStringLiteral("limits")));
        // And its evidence, in the Go/No-Go report's format, with the hash a report row would carry.
        const QJsonArray evidence = document.object().value(QStringLiteral("evidence")).toArray();
        QVERIFY(!evidence.isEmpty());
        QCOMPARE(evidence.first().toObject().value(QStringLiteral("label")).toString(),
                 QStringLiteral("run"));
        QVERIFY(evidence.first().toObject().value(QStringLiteral("text")).toString().startsWith(m_failedRun));
        QStringList labels;
        for (const QJsonValue &piece : evidence)
            labels.append(piece.toObject().value(QStringLiteral("label")).toString());
        QVERIFY2(labels.contains(QStringLiteral("outcome")) &&
                     labels.contains(QStringLiteral("policy version")),
                 qPrintable(labels.join(QLatin1Char(','))));
        QCOMPARE(document.object().value(QStringLiteral("evidence_sha256")).toString().size(), 64);
    }

    void newRunsAppear()
    {
        QSignalSpy loaded(m_history, &HistoryView::pageLoaded);
        const QString fourth = runToEnd(QStringLiteral("print('fourth')\n"));
        QVERIFY(!fourth.isEmpty());
        QTRY_COMPARE_WITH_TIMEOUT(m_history->model()->index(0, 0).data(HistoryModel::RunIdRole).toString(),
                                  fourth, 10000);
        QCOMPARE(m_history->model()->total(), 4);
    }

    void filtersByContainer()
    {
        const auto created =
            m_daemon.call(QStringLiteral("container.create"),
                          {{QStringLiteral("policy"),
                            QJsonObject{{QStringLiteral("name"), QStringLiteral("other")},
                                        {QStringLiteral("memory_limit"), QStringLiteral("1g")}}}});
        QVERIFY2(created, created ? "" : created.error().describe().c_str());
        const QString other =
            created->value(QStringLiteral("container")).toObject().value(QStringLiteral("id")).toString();
        const QString otherRun = runToEnd(QStringLiteral("print('elsewhere')\n"), other);
        QVERIFY(!otherRun.isEmpty());
        QTRY_COMPARE_WITH_TIMEOUT(m_history->model()->total(), 5, 10000);

        QTRY_VERIFY(m_window->containerModel().rowOf(other) >= 0);
        m_window->selectContainer(other);
        m_history->setOnlyCurrentContainer(true);
        QTRY_COMPARE_WITH_TIMEOUT(m_history->model()->total(), 1, 10000);
        QCOMPARE(m_history->model()->index(0, 0).data(HistoryModel::RunIdRole).toString(), otherRun);
        QCOMPARE(m_history->model()->index(0, HistoryModel::ContainerColumn).data().toString(),
                 QStringLiteral("other"));
        m_window->selectContainer(m_containerId);
        QTRY_COMPARE_WITH_TIMEOUT(m_history->model()->total(), 4, 10000);
        m_history->setOnlyCurrentContainer(false);
        QTRY_COMPARE_WITH_TIMEOUT(m_history->model()->total(), 5, 10000);
    }

    // A failed run is marked in the Outcome column, with the failure icon and a colour that reads at 4.5:1
    // on the list's backgrounds; a run that succeeded is not.
    void failedRunsAreMarked()
    {
        QSignalSpy loaded(m_history, &HistoryView::pageLoaded);
        m_history->setPageSize(50);
        m_history->reload();
        QVERIFY(loaded.wait(10000));
        HistoryModel *model = m_history->model();
        QCOMPARE(model->rowCount(), 5);
        const int failed = model->rowOf(m_failedRun);
        const int ok = model->rowOf(m_okRun);
        QVERIFY(failed >= 0 && ok >= 0);
        const QModelIndex failedOutcome = model->index(failed, HistoryModel::OutcomeColumn);
        const QModelIndex okOutcome = model->index(ok, HistoryModel::OutcomeColumn);
        QVERIFY(!failedOutcome.data(Qt::DecorationRole).value<QIcon>().isNull());
        QVERIFY(!okOutcome.data(Qt::DecorationRole).isValid());
        QVERIFY(!okOutcome.data(Qt::ForegroundRole).isValid());
        const QColor colour = failedOutcome.data(Qt::ForegroundRole).value<QColor>();
        QVERIFY(colour.isValid());
        const QPalette palette = QApplication::palette();
        for (QPalette::ColorRole background : {QPalette::Base, QPalette::AlternateBase, QPalette::Window})
            QVERIFY2(
                contrastRatio(colour, palette.color(background)) >= 4.5,
                qPrintable(QStringLiteral("%1 on %2").arg(colour.name(), palette.color(background).name())));
        QVERIFY(failedOutcome.data(Qt::AccessibleTextRole).toString().startsWith(QStringLiteral("Failed: ")));
        // The detail says what ran too.
        QSignalSpy detail(m_history, &HistoryView::detailLoaded);
        m_history->showRun(m_okRun);
        QVERIFY(detail.wait(10000));
        QVERIFY2(m_history->detailText().contains(QStringLiteral("Ran: python · print('first run')")),
                 qPrintable(m_history->detailText()));
    }

    // The search field: what is typed narrows the runs to those whose code (or command, id, container name)
    // holds it, once typing pauses.
    void searchNarrowsTheRuns()
    {
        auto *field = m_history->findChild<QLineEdit *>(QStringLiteral("historySearch"));
        QVERIFY(field);
        QVERIFY(field->isVisible());
        QTest::keyClicks(field, QStringLiteral("THIRD"));
        QTRY_COMPARE_WITH_TIMEOUT(m_history->model()->total(), 1, 10000);
        QCOMPARE(m_history->model()->index(0, 0).data(HistoryModel::RunIdRole).toString(), m_lastRun);
        m_history->setSearchText(QStringLiteral("no such text anywhere"));
        QTRY_COMPARE_WITH_TIMEOUT(m_history->model()->total(), 0, 10000);
        QVERIFY2(m_history->footerText().contains(QStringLiteral("No runs hold")),
                 qPrintable(m_history->footerText()));
        m_history->setSearchText({});
        QTRY_COMPARE_WITH_TIMEOUT(m_history->model()->total(), 5, 10000);
        QVERIFY(field->text().isEmpty());
    }

    // Export as JSON…: the dialog opens in the Documents folder (or home), never where the program was
    // started; once saved, the folder is remembered and the status bar says where the file went.
    void anExportIsConfirmedWithItsPath()
    {
        const QString documents = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
        QCOMPARE(WorkbenchSettings::exportFolder(WorkbenchSettings::ExportKind::Run),
                 QFileInfo(documents).isDir() ? documents : QDir::homePath());
        QTemporaryDir directory;
        const QString path = directory.filePath(QStringLiteral("exported-run.json"));
        QSignalSpy detail(m_history, &HistoryView::detailLoaded);
        m_history->showRun(m_failedRun);
        QVERIFY(detail.wait(10000));
        m_history->detail()->saveExport(path);
        QVERIFY(QFileInfo::exists(path));
        QVERIFY2(m_window->statusBar()->currentMessage().contains(path),
                 qPrintable(m_window->statusBar()->currentMessage()));
        QCOMPARE(WorkbenchSettings::exportFolder(WorkbenchSettings::ExportKind::Run), directory.path());
        // Each kind remembers its own.
        QVERIFY(WorkbenchSettings::exportFolder(WorkbenchSettings::ExportKind::Audit) != directory.path());
    }

    // A Go/No-Go audit's containers (origin "audit:<id>") stay out of the window's container list, and their
    // runs out of the History, until "Show audit runs" (or the audit's own "Show Its Runs") asks for them.
    void auditRunsAreLeftOutUntilShown()
    {
        const auto made = m_daemon.call(
            QStringLiteral("container.create"),
            {{QStringLiteral("policy"), QJsonObject{{QStringLiteral("name"), QStringLiteral("audit-box")},
                                                    {QStringLiteral("memory_limit"), QStringLiteral("1g")}}},
             {QStringLiteral("origin"), QStringLiteral("audit:au-gui")}});
        QVERIFY2(made, made ? "" : made.error().describe().c_str());
        const QString auditContainer =
            made->value(QStringLiteral("container")).toObject().value(QStringLiteral("id")).toString();
        const QString auditRun = runToEnd(QStringLiteral("print('probe')\n"), auditContainer);
        QVERIFY(!auditRun.isEmpty());
        // A run of the user's after it: once it is listed, the audit's run had its chance to be.
        const QString mine = runToEnd(QStringLiteral("print('mine again')\n"));
        QTRY_COMPARE_WITH_TIMEOUT(m_history->model()->index(0, 0).data(HistoryModel::RunIdRole).toString(),
                                  mine, 10000);
        QCOMPARE(m_history->model()->rowOf(auditRun), -1);
        QCOMPARE(m_history->model()->total(), 6);
        QCOMPARE(m_window->containerModel().rowOf(auditContainer), -1);

        auto *toggle = m_history->findChild<QCheckBox *>(QStringLiteral("historyShowAudits"));
        QVERIFY(toggle);
        QVERIFY(toggle->isVisible());
        QVERIFY(!toggle->isChecked());
        toggle->click();
        QTRY_VERIFY_WITH_TIMEOUT(m_history->model()->rowOf(auditRun) >= 0, 10000);
        QCOMPARE(m_history->model()->total(), 7);
        // Named although the window's list does not hold it.
        QCOMPARE(m_history->model()
                     ->index(m_history->model()->rowOf(auditRun), HistoryModel::ContainerColumn)
                     .data()
                     .toString(),
                 QStringLiteral("audit-box"));
        toggle->click();
        QTRY_COMPARE_WITH_TIMEOUT(m_history->model()->rowOf(auditRun), -1, 10000);

        // The audit's own runs, alone, with a line that says so and a way back.
        m_history->showAuditRuns(QStringLiteral("au-gui"));
        QTRY_COMPARE_WITH_TIMEOUT(m_history->model()->total(), 1, 10000);
        QCOMPARE(m_history->model()->index(0, 0).data(HistoryModel::RunIdRole).toString(), auditRun);
        auto *line = m_history->findChild<QLabel *>(QStringLiteral("historyAuditFilter"));
        QVERIFY(line && line->isVisible());
        QVERIFY2(line->text().contains(QStringLiteral("au-gui")), qPrintable(line->text()));
        QVERIFY(!toggle->isVisible());
        // The timeline follows: only the audit container's events.
        EventTimelineView *timeline = m_history->timeline();
        m_history->tabs()->setCurrentWidget(timeline);
        QTRY_VERIFY_WITH_TIMEOUT(timeline->model()->rowCount() >= 3, 10000);
        for (int row = 0; row < timeline->model()->rowCount(); ++row)
            QCOMPARE(timeline->model()->item(row).value(QStringLiteral("container")).toString(),
                     auditContainer);
        m_history->tabs()->setCurrentIndex(0);
        m_history->showAuditRuns({});
        QTRY_COMPARE_WITH_TIMEOUT(m_history->model()->total(), 6, 10000);
        QVERIFY(toggle->isVisible());
        QVERIFY(!line->isVisible());
    }

    void cleanupTestCase()
    {
        m_tester.reset();
        m_window.reset();
        QVERIFY(m_daemon.stop());
    }

private:
    QString runToEnd(const QString &code, const QString &container = {})
    {
        const auto run = m_daemon.runToEnd(
            container.isEmpty() ? m_containerId : container,
            {{QStringLiteral("language"), QStringLiteral("python")}, {QStringLiteral("code"), code}});
        if (!run)
            qWarning("run: %s", run.error().describe().c_str());
        return run ? run->value(QStringLiteral("id")).toString() : QString();
    }

    CordonTest::DaemonFixture m_daemon;
    QString m_containerId;
    QString m_okRun;
    QString m_failedRun;
    QString m_lastRun;
    std::unique_ptr<MainWindow> m_window;
    HistoryView *m_history = nullptr;
    std::unique_ptr<QAbstractItemModelTester> m_tester;
};

CORDON_GUI_SANDBOX_TEST_MAIN(HistoryViewTest)

#include "tst_historyview.moc"
