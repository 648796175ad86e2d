// SPDX-License-Identifier: MIT
// The History dock's date filter, the event timeline and a run's network decisions, against a real cordond.
// Runs at known past times are written into the history database before the daemon starts (the store is the
// daemon's own, opened by the test the way the daemon opens it), so the date filter has something to narrow.
#include "guitest.h"

#include "containerlistmodel.h"
#include "daemonconnection.h"
#include "eventtimelinemodel.h"
#include "eventtimelineview.h"
#include "historymodel.h"
#include "historyview.h"
#include "mainwindow.h"
#include "pagedquery.h"
#include "rundetailview.h"
#include "store/historystore.h"
#include "testutil.h"

#include <QAbstractItemModelTester>
#include <QCryptographicHash>
#include <QDir>
#include <QDockWidget>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTreeWidget>

using namespace Cordon::Ui;

namespace {

// Noon on a day `days` before today, local time: the same local day whatever the time zone's DST does.
qint64 noonDaysAgo(int days)
{
    return QDateTime(QDate::currentDate().addDays(-days), QTime(12, 0)).toMSecsSinceEpoch();
}

} // namespace

class HistoryTimelineTest final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        // The organisation allows example.com only; a request elsewhere is denied by the proxy before any
        // name is resolved, so the test needs no network.
        const QString config = qEnvironmentVariable("XDG_CONFIG_HOME") + QStringLiteral("/cordon");
        QVERIFY(QDir().mkpath(config));
        QFile org(config + QStringLiteral("/org-policy.json"));
        QVERIFY(org.open(QIODevice::WriteOnly));
        org.write(R"({"allowed_domains": ["example.com"]})");
        org.close();

        seedPastRuns();
        QVERIFY(m_daemon.start());
        m_containerId = create(QStringLiteral("timeline-test"));
        QVERIFY(!m_containerId.isEmpty());
        m_todayRun = runToEnd(m_containerId, QStringLiteral("print('today')\n"));
        QVERIFY(!m_todayRun.isEmpty());

        m_window = std::make_unique<MainWindow>(MainWindow::Options{false});
        m_history = m_window->historyView();
        m_runsTester = std::make_unique<QAbstractItemModelTester>(
            m_history->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        m_eventsTester = std::make_unique<QAbstractItemModelTester>(
            m_history->timeline()->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
        m_window->start();
        QTRY_VERIFY_WITH_TIMEOUT(m_window->connection().isConnected(), 10000);
        QSignalSpy loaded(m_history, &HistoryView::pageLoaded);
        m_window->findChild<QAction *>(QStringLiteral("historyAction"))->trigger();
        QVERIFY(loaded.wait(10000));
    }

    void dateFilterNarrowsRuns()
    {
        HistoryModel *model = m_history->model();
        QCOMPARE(model->total(), 3);

        m_history->setDateFilter(HistoryView::DateFilter::Today);
        QTRY_COMPARE_WITH_TIMEOUT(model->total(), 1, 10000);
        QCOMPARE(model->index(0, 0).data(HistoryModel::RunIdRole).toString(), m_todayRun);

        m_history->setDateFilter(HistoryView::DateFilter::Last7Days);
        QTRY_COMPARE_WITH_TIMEOUT(model->total(), 2, 10000);
        QCOMPARE(model->index(1, 0).data(HistoryModel::RunIdRole).toString(), m_threeDaysAgo);

        // One past day, both ends included: only the run of that day.
        const QDate day = QDate::currentDate().addDays(-10);
        m_history->setDateFilter(HistoryView::DateFilter::Custom, day, day);
        const auto [since, until] = m_history->dateBounds();
        QCOMPARE(since, day.startOfDay().toMSecsSinceEpoch());
        QCOMPARE(until, day.addDays(1).startOfDay().toMSecsSinceEpoch());
        QTRY_COMPARE_WITH_TIMEOUT(model->total(), 1, 10000);
        QCOMPARE(model->index(0, 0).data(HistoryModel::RunIdRole).toString(), m_tenDaysAgo);

        // A range with no runs is empty and says why.
        m_history->setDateFilter(HistoryView::DateFilter::Custom, QDate::currentDate().addDays(-400),
                                 QDate::currentDate().addDays(-370));
        QTRY_COMPARE_WITH_TIMEOUT(model->total(), 0, 10000);
        QCOMPARE(model->rowCount(), 0);
        QTRY_COMPARE(m_history->footerText(), QStringLiteral("No runs match the filter."));

        m_history->setDateFilter(HistoryView::DateFilter::AnyTime);
        QTRY_COMPARE_WITH_TIMEOUT(model->total(), 3, 10000);
    }

    void timelineShowsLifecycle()
    {
        const QString id = create(QStringLiteral("lifecycle"));
        QVERIFY(!id.isEmpty());
        QVERIFY_RESULT(m_daemon.call(QStringLiteral("container.stop"), {{QStringLiteral("id"), id}}));
        QVERIFY_RESULT(m_daemon.call(QStringLiteral("container.start"), {{QStringLiteral("id"), id}}));

        QTRY_VERIFY(m_window->containerModel().rowOf(id) >= 0);
        m_window->selectContainer(id);
        m_history->setOnlyCurrentContainer(true);
        EventTimelineView *timeline = m_history->timeline();
        m_history->tabs()->setCurrentWidget(timeline);
        EventTimelineModel *model = timeline->model();
        // Newest first: started, the workspace saved (at the latest before the start), stopped, created;
        // each with the container's name and a line in words.
        QTRY_COMPARE_WITH_TIMEOUT(
            kinds(model),
            (QStringList{QStringLiteral("container.started"), QStringLiteral("workspace.saved"),
                         QStringLiteral("container.stopped"), QStringLiteral("container.created")}),
            10000);
        QCOMPARE(model->index(2, EventTimelineModel::DescriptionColumn).data().toString(),
                 QStringLiteral("Stopped; its files are kept"));
        QCOMPARE(model->index(0, EventTimelineModel::ContainerColumn).data().toString(),
                 QStringLiteral("lifecycle"));
        QCOMPARE(model->index(1, EventTimelineModel::DescriptionColumn).data().toString(),
                 QStringLiteral("Files saved to disk: 0 files, 0 B"));
        QVERIFY(model->index(3, EventTimelineModel::DescriptionColumn)
                    .data()
                    .toString()
                    .startsWith(QStringLiteral("Created under policy ")));

        timeline->setKindFilter(QStringLiteral("run."));
        QTRY_COMPARE_WITH_TIMEOUT(timeline->footerText(), QStringLiteral("No events of this kind."), 10000);
        // A run in that container arrives by itself (pushed events mark the timeline stale).
        const QString run = runToEnd(id, QStringLiteral("import sys\nsys.exit(4)\n"));
        QVERIFY(!run.isEmpty());
        QTRY_COMPARE_WITH_TIMEOUT(
            kinds(model), (QStringList{QStringLiteral("run.finished"), QStringLiteral("run.started")}),
            10000);
        const QString finished = model->index(0, EventTimelineModel::DescriptionColumn).data().toString();
        QVERIFY2(finished.startsWith(QStringLiteral("Run %1 ended: nonzero_exit · exit 4").arg(run)),
                 qPrintable(finished));

        timeline->setKindFilter(QString());
        m_history->setOnlyCurrentContainer(false);
        QTRY_VERIFY_WITH_TIMEOUT(model->total() >= 7, 10000);
        m_history->tabs()->setCurrentIndex(0);
    }

    void runDetailShowsNetworkDecision()
    {
        const QString id = create(
            QStringLiteral("networked"),
            QJsonObject{{QStringLiteral("type"), QStringLiteral("allowlist")},
                        {QStringLiteral("allowed_domains"), QJsonArray{QStringLiteral("example.com")}}});
        QVERIFY(!id.isEmpty());
        const QJsonObject run =
            exec(id, {{QStringLiteral("command"),
                       QJsonArray{QStringLiteral("/bin/sh"), QStringLiteral("-c"),
                                  QStringLiteral("curl -sS -m 10 -o /dev/null -w '%{http_code}' "
                                                 "http://blocked.example/private")}}});
        QCOMPARE(run.value(QStringLiteral("stdout")).toString(), QStringLiteral("403"));
        const QString runId = run.value(QStringLiteral("id")).toString();

        QTRY_VERIFY_WITH_TIMEOUT(m_history->model()->rowOf(runId) >= 0, 10000);
        RunDetailView *detail = m_history->detail();
        QSignalSpy network(detail, &RunDetailView::networkLoaded);
        m_history->showRun(runId);
        QVERIFY(network.wait(10000));
        QCOMPARE(detail->networkEvents().size(), 1);
        const QJsonObject event = detail->networkEvents().first().toObject();
        QCOMPARE(event.value(QStringLiteral("kind")).toString(), QStringLiteral("network.denied"));
        QCOMPARE(event.value(QStringLiteral("run_id")).toString(), runId);
        QTreeWidget *tree = detail->networkView();
        QCOMPARE(tree->topLevelItemCount(), 1);
        QTreeWidgetItem *row = tree->topLevelItem(0);
        QCOMPARE(row->text(1), QStringLiteral("GET blocked.example:80"));
        QCOMPARE(row->text(2), QStringLiteral("denied"));
        QCOMPARE(row->text(4), QStringLiteral("403"));
        QVERIFY(!row->text(3).isEmpty());

        // The export carries the decision beside the run.
        QTemporaryDir directory;
        const QString path = directory.filePath(QStringLiteral("run.json"));
        QTRY_VERIFY(!m_history->detailRun().value(QStringLiteral("code")).isUndefined());
        QVERIFY_RESULT(m_history->exportRun(path));
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QJsonObject exported = QJsonDocument::fromJson(file.readAll()).object();
        QCOMPARE(exported.value(QStringLiteral("id")).toString(), runId);
        QCOMPARE(exported.value(QStringLiteral("network_events")).toArray().size(), 1);

        // The same decision in the timeline, in words.
        EventTimelineView *timeline = m_history->timeline();
        timeline->setKindFilter(QStringLiteral("network."));
        m_history->tabs()->setCurrentWidget(timeline);
        QTRY_COMPARE_WITH_TIMEOUT(timeline->model()->total(), 1, 10000);
        const QString line =
            timeline->model()->index(0, EventTimelineModel::DescriptionColumn).data().toString();
        QVERIFY2(line.startsWith(QStringLiteral("GET blocked.example:80 denied: ")), qPrintable(line));
        QVERIFY2(line.endsWith(QStringLiteral("(403)")), qPrintable(line));
    }

    void cleanupTestCase()
    {
        m_runsTester.reset();
        m_eventsTester.reset();
        m_window.reset();
        QVERIFY(m_daemon.stop());
    }

private:
    // Two finished runs in a container that was deleted long ago, three and ten days back.
    void seedPastRuns()
    {
        auto store = Cordon::Store::HistoryStore::open(qEnvironmentVariable("CORDON_DATA_DIR") +
                                                       QStringLiteral("/history.db"));
        QVERIFY_RESULT(store);
        const QByteArray policy = R"({"name":"archived"})";
        const QString version =
            QString::fromLatin1(QCryptographicHash::hash(policy, QCryptographicHash::Sha256).toHex());
        QVERIFY_RESULT((*store)->recordPolicyVersion(version, policy));
        Cordon::Store::ContainerRecord container;
        container.id = QStringLiteral("0a0a0a0a0a0a0a0a");
        container.name = QStringLiteral("archived");
        container.state = QStringLiteral("deleted");
        container.policyVersion = version;
        container.createdAt = noonDaysAgo(11);
        container.lastActiveAt = noonDaysAgo(3);
        container.endedAt = noonDaysAgo(3) + 60000;
        QVERIFY_RESULT((*store)->saveContainer(container));
        int serial = 0;
        for (const int days : {10, 3}) {
            Cordon::Store::RunRecord run;
            run.id = QStringLiteral("5eed%1").arg(++serial, 12, 10, QLatin1Char('0'));
            run.containerId = container.id;
            run.policyVersion = version;
            run.language = QStringLiteral("python");
            run.code = QStringLiteral("print(%1)\n").arg(days);
            run.startedAt = noonDaysAgo(days);
            QVERIFY_RESULT((*store)->insertRun(run));
            run.endedAt = run.startedAt + 120;
            run.errorClass = QStringLiteral("ok");
            run.exitCode = 0;
            run.wallMs = 120;
            QVERIFY_RESULT((*store)->finishRun(run));
            (days == 10 ? m_tenDaysAgo : m_threeDaysAgo) = run.id;
        }
    }

    QString create(const QString &name, const QJsonObject &network = {})
    {
        const auto id = m_daemon.createContainer(
            name,
            network.isEmpty() ? QJsonObject{} : QJsonObject{{QStringLiteral("network_policy"), network}});
        if (!id)
            qWarning("container.create: %s", id.error().describe().c_str());
        return id.value_or(QString());
    }

    QJsonObject exec(const QString &container, const QJsonObject &params)
    {
        const auto run = m_daemon.runToEnd(container, params);
        if (!run)
            qWarning("run: %s", run.error().describe().c_str());
        return run.value_or(QJsonObject());
    }

    QString runToEnd(const QString &container, const QString &code)
    {
        return exec(container,
                    {{QStringLiteral("language"), QStringLiteral("python")}, {QStringLiteral("code"), code}})
            .value(QStringLiteral("id"))
            .toString();
    }

    static QStringList kinds(const EventTimelineModel *model)
    {
        QStringList list;
        for (int row = 0; row < model->rowCount(); ++row)
            list.append(model->index(row, 0).data(EventTimelineModel::KindRole).toString());
        return list;
    }

    CordonTest::DaemonFixture m_daemon;
    QString m_containerId;
    QString m_todayRun;
    QString m_threeDaysAgo;
    QString m_tenDaysAgo;
    std::unique_ptr<MainWindow> m_window;
    HistoryView *m_history = nullptr;
    std::unique_ptr<QAbstractItemModelTester> m_runsTester;
    std::unique_ptr<QAbstractItemModelTester> m_eventsTester;
};

CORDON_GUI_SANDBOX_TEST_MAIN(HistoryTimelineTest)

#include "tst_historytimeline.moc"
