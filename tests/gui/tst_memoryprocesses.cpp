// SPDX-License-Identifier: MIT
// The per-process memory breakdown against a real cordond: a process left running by a run is listed with
// its resident memory, largest first; the list is refreshed only while it is open and on screen, and says so
// when the container is not running.
#include "guitest.h"

#include "daemonconnection.h"
#include "memoryprocesses.h"
#include "testutil.h"

#include <QJsonArray>
#include <QSignalSpy>
#include <QToolButton>
#include <QTreeWidget>

using namespace Cordon::Ui;

class MemoryProcessesTest final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_daemon.start());
        const auto created = m_daemon.createContainer(QStringLiteral("processes"));
        QVERIFY_RESULT(created);
        m_id = *created;
        // A process that outlives its run: files and processes persist between runs until the container
        // stops.
        QVERIFY_RESULT(m_daemon.runToEnd(
            m_id, {{QStringLiteral("command"),
                    QJsonArray{QStringLiteral("/bin/sh"), QStringLiteral("-c"),
                               QStringLiteral("sleep 300 </dev/null >/dev/null 2>&1 &")}}}));
        m_connection = std::make_unique<DaemonConnection>();
        m_connection->setAutoStart(false);
        m_connection->open();
        QTRY_VERIFY_WITH_TIMEOUT(m_connection->isConnected(), 10000);
    }

    void listsAProcessWithItsMemory()
    {
        MemoryProcessesView view(*m_connection);
        view.setContainer(m_id, true);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        // Closed: nothing is asked.
        QVERIFY(!view.isPolling());
        QVERIFY(view.list()->isHidden());

        QSignalSpy refreshed(&view, &MemoryProcessesView::refreshed);
        view.toggle()->click();
        QVERIFY(view.isExpanded());
        QVERIFY(view.isPolling());
        QVERIFY(refreshed.wait(10000));
        QTRY_VERIFY_WITH_TIMEOUT(rowOf(view, QStringLiteral("sleep")) >= 0, 10000);
        const QJsonArray processes = view.processes();
        const QJsonObject sleep = processes.at(rowOf(view, QStringLiteral("sleep"))).toObject();
        QVERIFY(sleep.value(QStringLiteral("pid")).toInteger() > 1);
        QVERIFY2(sleep.value(QStringLiteral("rss_bytes")).toInteger() > 0,
                 qPrintable(QString::number(sleep.value(QStringLiteral("rss_bytes")).toInteger())));
        // Largest first.
        for (int row = 1; row < processes.size(); ++row)
            QVERIFY(processes.at(row - 1).toObject().value(QStringLiteral("rss_bytes")).toInteger() >=
                    processes.at(row).toObject().value(QStringLiteral("rss_bytes")).toInteger());
        const int row = rowOf(view, QStringLiteral("sleep"));
        QTreeWidgetItem *item = view.list()->topLevelItem(row);
        QCOMPARE(item->text(MemoryProcessesView::PidColumn),
                 QString::number(sleep.value(QStringLiteral("pid")).toInteger()));
        QVERIFY2(item->text(MemoryProcessesView::RssColumn).endsWith(QStringLiteral("iB")),
                 qPrintable(item->text(MemoryProcessesView::RssColumn)));
        QVERIFY2(view.statusText().contains(QStringLiteral("resident in total")),
                 qPrintable(view.statusText()));

        // Refreshed while shown (every two seconds) ...
        const int before = int(refreshed.size());
        QVERIFY(refreshed.wait(MemoryProcessesView::RefreshMs + 5000));
        QVERIFY(refreshed.size() > before);
        // ... and not while hidden.
        view.hide();
        QVERIFY(!view.isPolling());
        view.show();
        QVERIFY(view.isPolling());
        view.setExpanded(false);
        QVERIFY(!view.isPolling());
    }

    void stoppedContainerHasNone()
    {
        MemoryProcessesView view(*m_connection);
        view.setContainer(m_id, true);
        view.setExpanded(true);
        view.show();
        QSignalSpy refreshed(&view, &MemoryProcessesView::refreshed);
        QVERIFY(refreshed.wait(10000));
        QVERIFY(view.list()->topLevelItemCount() > 0);
        QVERIFY_RESULT(m_daemon.call(QStringLiteral("container.stop"), {{QStringLiteral("id"), m_id}}));
        view.setContainer(m_id, false);
        QVERIFY(!view.isPolling());
        QCOMPARE(view.list()->topLevelItemCount(), 0);
        QCOMPARE(view.statusText(), QStringLiteral("The container is not running: it has no processes."));
    }

    void cleanupTestCase()
    {
        m_connection.reset();
        QVERIFY(m_daemon.stop());
    }

private:
    static int rowOf(const MemoryProcessesView &view, const QString &command)
    {
        for (int row = 0; row < view.list()->topLevelItemCount(); ++row) {
            if (view.list()->topLevelItem(row)->text(MemoryProcessesView::CommandColumn) == command)
                return row;
        }
        return -1;
    }

    CordonTest::DaemonFixture m_daemon;
    QString m_id;
    std::unique_ptr<DaemonConnection> m_connection;
};

CORDON_GUI_SANDBOX_TEST_MAIN(MemoryProcessesTest)

#include "tst_memoryprocesses.moc"
