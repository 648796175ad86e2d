// SPDX-License-Identifier: MIT
// The address guard on a table of addresses: every range SECURITY.md 2.2 names, the IPv6 forms that carry an
// IPv4 address, and what allow_private_addresses may and may not open.
#include "network/addressguard.h"

#include "testutil.h"

#include <QObject>

using namespace Cordon::Network;

Q_DECLARE_METATYPE(Cordon::Network::AddressClass)

class TestAddressGuard : public QObject
{
    Q_OBJECT

private slots:
    void classify_data();
    void classify();
    void embeddedAddress();
    void allowPrivate_data();
    void allowPrivate();
    void nonAddresses();
};

void TestAddressGuard::classify_data()
{
    QTest::addColumn<QString>("address");
    QTest::addColumn<AddressClass>("expected");

    const auto row = [](const char *address, AddressClass expected) {
        QTest::newRow(address) << QString::fromLatin1(address) << expected;
    };
    // Public.
    row("8.8.8.8", AddressClass::Public);
    row("1.1.1.1", AddressClass::Public);
    row("151.101.0.223", AddressClass::Public);
    row("100.63.255.255", AddressClass::Public); // just below CGNAT
    row("100.128.0.0", AddressClass::Public);    // just above CGNAT
    row("172.15.255.255", AddressClass::Public); // just below 172.16/12
    row("172.32.0.0", AddressClass::Public);     // just above
    row("192.169.0.1", AddressClass::Public);
    row("198.20.0.1", AddressClass::Public);      // above the benchmarking /15
    row("223.255.255.255", AddressClass::Public); // just below multicast
    row("2606:4700::1111", AddressClass::Public);
    row("2a00:1450:4001:80b::200e", AddressClass::Public);
    row("::ffff:8.8.8.8", AddressClass::Public);   // v4-mapped, public inside
    row("64:ff9b::808:808", AddressClass::Public); // NAT64 of 8.8.8.8
    row("2002:808:808::1", AddressClass::Public);  // 6to4 of 8.8.8.8

    // IPv4 special ranges.
    row("0.0.0.0", AddressClass::Unspecified);
    row("0.1.2.3", AddressClass::Unspecified);
    row("127.0.0.1", AddressClass::Loopback);
    row("127.255.255.254", AddressClass::Loopback);
    row("10.0.0.1", AddressClass::Private);
    row("10.255.255.255", AddressClass::Private);
    row("172.16.0.1", AddressClass::Private);
    row("172.31.255.255", AddressClass::Private);
    row("192.168.1.1", AddressClass::Private);
    row("100.64.0.1", AddressClass::SharedCgnat);
    row("100.100.100.200", AddressClass::SharedCgnat); // Alibaba Cloud metadata
    row("169.254.169.254", AddressClass::LinkLocal);   // AWS/GCP/Azure metadata
    row("169.254.0.1", AddressClass::LinkLocal);
    row("224.0.0.1", AddressClass::Multicast);
    row("239.255.255.250", AddressClass::Multicast);
    row("255.255.255.255", AddressClass::Broadcast);
    row("240.0.0.1", AddressClass::Reserved);
    row("192.0.0.8", AddressClass::Reserved);
    row("192.88.99.1", AddressClass::Reserved);
    row("198.18.0.1", AddressClass::Reserved);
    row("198.19.255.255", AddressClass::Reserved);
    row("192.0.2.1", AddressClass::Documentation);
    row("198.51.100.7", AddressClass::Documentation);
    row("203.0.113.9", AddressClass::Documentation);

    // IPv6.
    row("::", AddressClass::Unspecified);
    row("::1", AddressClass::Loopback);
    row("fc00::1", AddressClass::Private);
    row("fd00:ec2::254", AddressClass::Private); // AWS IMDS over IPv6
    row("fe80::1", AddressClass::LinkLocal);
    row("febf::1", AddressClass::LinkLocal);
    row("fec0::1", AddressClass::Private); // deprecated site-local
    row("ff02::1", AddressClass::Multicast);
    row("2001:db8::1", AddressClass::Documentation);
    row("3fff::1", AddressClass::Documentation);
    row("2001::1", AddressClass::Reserved); // Teredo
    row("2001:0:4136:e378::1", AddressClass::Reserved);
    row("2001:2::1", AddressClass::Reserved);    // benchmarking
    row("2001:10::1", AddressClass::Reserved);   // ORCHID
    row("100::1", AddressClass::Reserved);       // discard-only
    row("64:ff9b:1::1", AddressClass::Reserved); // local-use NAT64
    row("5f00::1", AddressClass::Reserved);
    row("4000::1", AddressClass::Reserved);         // outside 2000::/3
    row("::ffff:0:7f00:1", AddressClass::Reserved); // IPv4-translated

    // IPv6 forms that carry an IPv4 address are judged by it.
    row("::ffff:127.0.0.1", AddressClass::Loopback);
    row("::ffff:7f00:1", AddressClass::Loopback);
    row("::ffff:a9fe:a9fe", AddressClass::LinkLocal); // 169.254.169.254, the menna.website trick
    row("::ffff:10.0.0.1", AddressClass::Private);
    row("::ffff:0.0.0.0", AddressClass::Unspecified);
    row("::127.0.0.1", AddressClass::Loopback); // v4-compatible
    row("::10.1.2.3", AddressClass::Private);
    row("::8.8.8.8", AddressClass::Reserved);       // v4-compatible is deprecated even when public
    row("64:ff9b::7f00:1", AddressClass::Loopback); // NAT64 of 127.0.0.1
    row("64:ff9b::a9fe:a9fe", AddressClass::LinkLocal);
    row("64:ff9b::c0a8:101", AddressClass::Private);
    row("2002:7f00:1::1", AddressClass::Loopback); // 6to4 of 127.0.0.1
    row("2002:a00:1::", AddressClass::Private);    // 6to4 of 10.0.0.1
    row("2002:a9fe:a9fe::1", AddressClass::LinkLocal);
}

void TestAddressGuard::classify()
{
    QFETCH(QString, address);
    QFETCH(AddressClass, expected);
    const QHostAddress parsed(address);
    QVERIFY2(!parsed.isNull(), qPrintable(address));
    const AddressVerdict verdict = checkAddress(parsed);
    QCOMPARE(verdict.addressClass, expected);
    QCOMPARE(verdict.isPublic(), expected == AddressClass::Public);
    // Every refusal says why, in words the 403 body can carry.
    QCOMPARE(verdict.reason.isEmpty(), expected == AddressClass::Public);
}

void TestAddressGuard::embeddedAddress()
{
    const AddressVerdict mapped = checkAddress(QHostAddress(QStringLiteral("::ffff:a9fe:a9fe")));
    QCOMPARE(mapped.embeddedIpv4, QHostAddress(QStringLiteral("169.254.169.254")));
    QVERIFY2(mapped.reason.contains(QStringLiteral("169.254.169.254")), qPrintable(mapped.reason));
    const AddressVerdict nat64 = checkAddress(QHostAddress(QStringLiteral("64:ff9b::7f00:1")));
    QCOMPARE(nat64.embeddedIpv4, QHostAddress(QStringLiteral("127.0.0.1")));
    QVERIFY(checkAddress(QHostAddress(QStringLiteral("2001:db8::1"))).embeddedIpv4.isNull());
}

void TestAddressGuard::allowPrivate_data()
{
    QTest::addColumn<QString>("address");
    QTest::addColumn<bool>("withoutPrivate");
    QTest::addColumn<bool>("withPrivate");

    const auto row = [](const char *address, bool without, bool with) {
        QTest::newRow(address) << QString::fromLatin1(address) << without << with;
    };
    row("8.8.8.8", true, true);
    row("127.0.0.1", false, true);
    row("::1", false, true);
    row("10.1.2.3", false, true);
    row("100.64.1.1", false, true);
    row("169.254.169.254", false, true);
    row("fd00::1", false, true);
    row("::ffff:127.0.0.1", false, true);
    // Never, whatever the rule says: these are not where an upstream lives.
    row("0.0.0.0", false, false);
    row("::", false, false);
    row("224.0.0.1", false, false);
    row("255.255.255.255", false, false);
    row("192.0.2.1", false, false);
    row("240.0.0.1", false, false);
    row("2001::1", false, false);
    row("::8.8.8.8", false, false);
}

void TestAddressGuard::allowPrivate()
{
    QFETCH(QString, address);
    QFETCH(bool, withoutPrivate);
    QFETCH(bool, withPrivate);
    QCOMPARE(isAddressAllowed(QHostAddress(address), false), withoutPrivate);
    QCOMPARE(isAddressAllowed(QHostAddress(address), true), withPrivate);
}

void TestAddressGuard::nonAddresses()
{
    // Fail closed on anything that is not one concrete address.
    QCOMPARE(checkAddress(QHostAddress()).addressClass, AddressClass::Reserved);
    QCOMPARE(checkAddress(QHostAddress(QHostAddress::Any)).addressClass, AddressClass::Reserved);
    QVERIFY(!isAddressAllowed(QHostAddress(), true));
    // A scope id on a global address is refused; link-local stays link-local.
    QHostAddress scoped(QStringLiteral("2606:4700::1111"));
    scoped.setScopeId(QStringLiteral("eth0"));
    QCOMPARE(checkAddress(scoped).addressClass, AddressClass::Reserved);
    QHostAddress linkLocal(QStringLiteral("fe80::1"));
    linkLocal.setScopeId(QStringLiteral("eth0"));
    QCOMPARE(checkAddress(linkLocal).addressClass, AddressClass::LinkLocal);
}

QTEST_APPLESS_MAIN(TestAddressGuard)
#include "tst_addressguard.moc"
