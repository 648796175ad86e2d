// SPDX-License-Identifier: MIT
// The network ledger bounds what a sandbox's connection attempts make the daemon write and keep: rows per
// run, and coalescing windows in memory (a flood of attempts for a new host each held one window per
// attempt), while the decisions counted over every row stay exact.
#include "containers/networkledger.h"

#include <QJsonObject>
#include <QObject>
#include <QTest>

using namespace Cordon::Containers;

namespace {

// What the ledger wrote: rows, and the decisions they stand for, by host.
struct Written
{
    qint64 rows = 0;
    qint64 decisions = 0;
    qint64 suppressed = 0;
    QHash<QString, qint64> byHost;
};

NetworkLedger::Writer recorder(Written &written)
{
    return [&written](const QString &, const QString &, const QString &, const QJsonObject &detail) {
        const qint64 count = detail.value(QStringLiteral("count")).toInteger(1);
        ++written.rows;
        written.decisions += count;
        if (detail.value(QStringLiteral("suppressed")).toBool())
            written.suppressed += count;
        else
            written.byHost[detail.value(QStringLiteral("host")).toString()] += count;
    };
}

QJsonObject denied(const QString &host)
{
    return {{QStringLiteral("host"), host},
            {QStringLiteral("port"), 80},
            {QStringLiteral("method"), QStringLiteral("GET")},
            {QStringLiteral("decision"), QStringLiteral("denied")},
            {QStringLiteral("reason"), QStringLiteral("%1 is not in the container's allowlist").arg(host)},
            {QStringLiteral("status"), 403}};
}

// Long enough that no window closes by time while a test runs (and there is no event loop to tick).
constexpr int LongWindowMs = 600000;

} // namespace

class TestNetworkLedger final : public QObject
{
    Q_OBJECT

private slots:
    void floodOfNewHostsKeepsWindowsBounded();
    void repeatedHostStillCoalescesDuringAFlood();
    void everyWindowCoalescingIsClosedEarly();
};

void TestNetworkLedger::floodOfNewHostsKeepsWindowsBounded()
{
    Written written;
    NetworkLedger ledger(recorder(written), 1000, LongWindowMs);
    constexpr int Attempts = 46000;
    for (int i = 0; i < Attempts; ++i) {
        ledger.add(QStringLiteral("c1"), QStringLiteral("r1"), QStringLiteral("network.denied"),
                   denied(QStringLiteral("h%1.example").arg(i)));
        QVERIFY2(
            ledger.openWindows() <= NetworkLedger::MaxOpenWindows,
            qPrintable(QStringLiteral("%1 windows open after %2 attempts").arg(ledger.openWindows()).arg(i)));
    }
    ledger.flushAll();
    QCOMPARE(written.decisions, Attempts);
    // Itemised up to the run's cap, the rest counted in one suppressed row.
    QCOMPARE(written.rows, 1001);
    QCOMPARE(written.suppressed, Attempts - 1000);
}

void TestNetworkLedger::repeatedHostStillCoalescesDuringAFlood()
{
    Written written;
    NetworkLedger ledger(recorder(written), 1000000, LongWindowMs);
    const QString again = QStringLiteral("again.example");
    constexpr int Rounds = 3000;
    for (int i = 0; i < Rounds; ++i) {
        ledger.add(QStringLiteral("c1"), QStringLiteral("r1"), QStringLiteral("network.denied"),
                   denied(again));
        ledger.add(QStringLiteral("c1"), QStringLiteral("r1"), QStringLiteral("network.denied"),
                   denied(QStringLiteral("h%1.example").arg(i)));
    }
    QVERIFY(ledger.openWindows() <= NetworkLedger::MaxOpenWindows);
    ledger.flushAll();
    QCOMPARE(written.decisions, 2 * Rounds);
    QCOMPARE(written.byHost.value(again), Rounds);
    // The repeated host's window coalesces, so it is never dropped: five itemised rows and one for the rest,
    // besides one row for each new host.
    QCOMPARE(written.rows, Rounds + 6);
}

void TestNetworkLedger::everyWindowCoalescingIsClosedEarly()
{
    Written written;
    NetworkLedger ledger(recorder(written), 1000000, LongWindowMs);
    // More hosts than windows, each repeated past the itemised five, so that every window has a rest.
    constexpr int Hosts = int(NetworkLedger::MaxOpenWindows) + 100;
    constexpr int Each = 8;
    for (int i = 0; i < Hosts; ++i) {
        for (int k = 0; k < Each; ++k)
            ledger.add(QStringLiteral("c1"), QStringLiteral("r1"), QStringLiteral("network.denied"),
                       denied(QStringLiteral("h%1.example").arg(i)));
        QVERIFY(ledger.openWindows() <= NetworkLedger::MaxOpenWindows);
    }
    ledger.flushAll();
    QCOMPARE(ledger.openWindows(), 0);
    QCOMPARE(written.decisions, qint64(Hosts) * Each);
    for (int i = 0; i < Hosts; ++i)
        QCOMPARE(written.byHost.value(QStringLiteral("h%1.example").arg(i)), Each);
    // Five itemised and one coalesced row per host.
    QCOMPARE(written.rows, qint64(Hosts) * 6);
}

QTEST_GUILESS_MAIN(TestNetworkLedger)
#include "tst_networkledger.moc"
