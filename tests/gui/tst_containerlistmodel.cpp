// SPDX-License-Identifier: MIT
// The container list model on its own: rows kept in step with the daemon's list and events, the countdown
// and its warning, under QAbstractItemModelTester.
#include "guitest.h"

#include "containerlistmodel.h"

#include <QAbstractItemModelTester>
#include <QJsonArray>
#include <QSignalSpy>

using namespace Cordon::Ui;

namespace {

constexpr qint64 Now = 1'700'000'000'000;

QJsonObject container(const QString &id, const QString &state, qint64 createdAt,
                      qint64 expiresAt = Now + 600000, int idleMinutes = 20)
{
    return {{QStringLiteral("id"), id},
            {QStringLiteral("name"), QString(QStringLiteral("box-") + id)},
            {QStringLiteral("state"), state},
            {QStringLiteral("created_at"), createdAt},
            {QStringLiteral("expires_at"), expiresAt},
            {QStringLiteral("time_scale"), 1},
            {QStringLiteral("memory_limit"), qint64(4) * 1024 * 1024 * 1024},
            {QStringLiteral("active_runs"), 0},
            {QStringLiteral("policy"), QJsonObject{{QStringLiteral("expires_after"),
                                                    QJsonObject{{QStringLiteral("minutes"), idleMinutes}}}}}};
}

} // namespace

class ContainerListModelTest final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init()
    {
        m_model = std::make_unique<ContainerListModel>();
        m_model->setClock([] { return Now; });
        m_tester = std::make_unique<QAbstractItemModelTester>(
            m_model.get(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    }

    void cleanup()
    {
        m_tester.reset();
        m_model.reset();
    }

    void newestFirst()
    {
        m_model->resetFrom(QJsonArray{container(QStringLiteral("a"), QStringLiteral("running"), 100),
                                      container(QStringLiteral("b"), QStringLiteral("stopped"), 300)});
        m_model->update(container(QStringLiteral("c"), QStringLiteral("running"), 200));
        QCOMPARE(m_model->rowCount(), 3);
        QCOMPARE(m_model->index(0, 0).data(ContainerListModel::IdRole).toString(), QStringLiteral("b"));
        QCOMPARE(m_model->index(1, 0).data(ContainerListModel::IdRole).toString(), QStringLiteral("c"));
        QCOMPARE(m_model->index(2, 0).data(ContainerListModel::IdRole).toString(), QStringLiteral("a"));
        QCOMPARE(m_model->index(0, ContainerListModel::StateColumn).data().toString(),
                 QStringLiteral("Stopped"));
        QCOMPARE(m_model->index(0, ContainerListModel::MemoryColumn).data().toString(),
                 QStringLiteral("4 GiB"));
    }

    void updatesInPlaceAndRemovesDeleted()
    {
        m_model->resetFrom(QJsonArray{container(QStringLiteral("a"), QStringLiteral("running"), 100)});
        QSignalSpy changed(m_model.get(), &QAbstractItemModel::dataChanged);
        m_model->update(container(QStringLiteral("a"), QStringLiteral("stopped"), 100));
        QCOMPARE(changed.count(), 1);
        QCOMPARE(m_model->index(0, ContainerListModel::StateColumn).data().toString(),
                 QStringLiteral("Stopped"));
        m_model->update(container(QStringLiteral("a"), QStringLiteral("deleted"), 100));
        QCOMPARE(m_model->rowCount(), 0);
    }

    void reconnectKeepsExpiredRowsAndDropsVanished()
    {
        m_model->resetFrom(QJsonArray{container(QStringLiteral("a"), QStringLiteral("running"), 100),
                                      container(QStringLiteral("b"), QStringLiteral("running"), 200)});
        m_model->update(container(QStringLiteral("a"), QStringLiteral("expired"), 100, 0));
        // The daemon's list after a reconnect has neither: `a` expired (the user should still see that), `b`
        // was deleted by someone else while we were away.
        m_model->resetFrom(QJsonArray{container(QStringLiteral("c"), QStringLiteral("running"), 300)});
        QCOMPARE(m_model->rowCount(), 2);
        QCOMPARE(m_model->rowOf(QStringLiteral("a")), 1);
        QCOMPARE(m_model->rowOf(QStringLiteral("b")), -1);
        QCOMPARE(m_model->index(1, ContainerListModel::IdleColumn).data().toString(), QStringLiteral("—"));
        m_model->remove(QStringLiteral("a"));
        QCOMPARE(m_model->rowCount(), 1);
    }

    void countdownAndWarning_data()
    {
        QTest::addColumn<qint64>("leftMs");
        QTest::addColumn<QString>("text");
        QTest::addColumn<bool>("warning");
        QTest::newRow("full") << qint64(20 * 60000) << QStringLiteral("20:00") << false;
        QTest::newRow("rounded up") << qint64(300001) << QStringLiteral("5:01") << false;
        QTest::newRow("last tenth") << qint64(119000) << QStringLiteral("1:59") << true;
        QTest::newRow("gone") << qint64(-5000) << QStringLiteral("0:00") << true;
    }

    void countdownAndWarning()
    {
        QFETCH(qint64, leftMs);
        QFETCH(QString, text);
        QFETCH(bool, warning);
        m_model->update(container(QStringLiteral("a"), QStringLiteral("running"), 100, Now + leftMs));
        const QModelIndex idle = m_model->index(0, ContainerListModel::IdleColumn);
        QCOMPARE(idle.data().toString(), text);
        QCOMPARE(idle.data(Qt::ForegroundRole).isValid(), warning);
    }

    void countdownTicks()
    {
        qint64 now = Now;
        m_model->setClock([&now] { return now; });
        m_model->update(container(QStringLiteral("a"), QStringLiteral("running"), 100, Now + 10000));
        QSignalSpy changed(m_model.get(), &QAbstractItemModel::dataChanged);
        now += 3000;
        QVERIFY(changed.wait(2000));
        QCOMPARE(changed.first().at(0).toModelIndex().column(), int(ContainerListModel::IdleColumn));
        QCOMPARE(m_model->index(0, ContainerListModel::IdleColumn).data().toString(), QStringLiteral("0:07"));
    }

private:
    std::unique_ptr<ContainerListModel> m_model;
    std::unique_ptr<QAbstractItemModelTester> m_tester;
};

CORDON_GUI_TEST_MAIN(ContainerListModelTest)

#include "tst_containerlistmodel.moc"
