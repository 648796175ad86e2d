// SPDX-License-Identifier: MIT
// The history view against a real cordond: the runs are listed with their outcome classes, the filter and
// "load more" page through them, the detail shows the code and the outcome, and the export is the run as
// JSON.
#include "guitest.h"

#include "containerlistmodel.h"
#include "daemonconnection.h"
#include "historymodel.h"
#include "historyview.h"
#include "mainwindow.h"
#include "policyview.h"
#include "rundetailview.h"

#include <QAbstractItemModelTester>
#include <QDockWidget>
#include <QJsonArray>
#include <QJsonDocument>
#include <QPlainTextEdit>
#include <QSignalSpy>

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
        QCOMPARE(model->index(1, HistoryModel::WhatColumn).data().toString(), QStringLiteral("python"));

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
