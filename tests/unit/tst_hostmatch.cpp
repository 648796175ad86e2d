// SPDX-License-Identifier: MIT
// Authority parsing and allowlist matching for the proxy (every trick of SECURITY.md 2.3-2.5), the two-level
// decision with its denial sentences, and the organisation allowlist: loading, precedence, narrowing.
#include "network/accesscheck.h"
#include "network/hostmatch.h"
#include "network/orgpolicy.h"
#include "sandbox/quoteuntrusted.h"

#include "testutil.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QObject>
#include <QTemporaryDir>

Q_DECLARE_METATYPE(Cordon::Policy::DomainRule)
Q_DECLARE_METATYPE(Cordon::Network::Target)

using namespace Cordon;
using namespace Cordon::Network;
using namespace Cordon::Policy;

namespace {

QString str(const char *text)
{
    return QString::fromUtf8(text);
}

DomainRule rule(const char *entry)
{
    const Result<DomainRule> parsed = parseDomainRule(entry);
    if (!parsed)
        qFatal("bad rule in test: %s: %s", entry, parsed.error().message().c_str());
    return *parsed;
}

DomainRule ruleWith(const char *entry, QStringList methods, QStringList prefixes, bool allowPrivate = false)
{
    DomainRule r = rule(entry);
    for (const QString &method : methods)
        r.methods.push_back(method.toStdString());
    for (const QString &prefix : prefixes)
        r.pathPrefixes.push_back(prefix.toStdString());
    r.allowPrivateAddresses = allowPrivate;
    return r;
}

NetworkPolicy allowlist(QList<DomainRule> rules)
{
    NetworkPolicy policy;
    policy.type = NetworkPolicy::Type::Allowlist;
    policy.allowedDomains.assign(rules.begin(), rules.end());
    return policy;
}

OrgPolicy org(QList<DomainRule> rules)
{
    return OrgPolicy(std::vector<DomainRule>(rules.begin(), rules.end()), OrgPolicy::Source::User,
                     str("/home/u/.config/cordon/org-policy.json"));
}

Target connectTo(const char *host, quint16 port)
{
    return Target{str(host), port, str("CONNECT"), QString()};
}

Target get(const char *host, const char *path, const char *method = "GET", quint16 port = 80)
{
    return Target{str(host), port, str(method), str(path)};
}

bool writeFile(const QString &path, const QByteArray &contents)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(contents) == contents.size();
}

} // namespace

class TestHostMatch : public QObject
{
    Q_OBJECT

private slots:
    void authorityAccepted_data();
    void authorityAccepted();
    void authorityRefused_data();
    void authorityRefused();
    void splitHostPort_data();
    void splitHostPort();
    void hostHeaderForm();
    void matching_data();
    void matching();
    void accessReasons_data();
    void accessReasons();
    void accessNeedsBothLists();
    void privateAddressesNeedBothLists();
    void narrowing_data();
    void narrowing();
    void narrowingMessages();
    void orgAllows();
    void loadPrecedence();
    void loadMissing();
    void loadBrokenSystemFileFailsClosed();
    void loadRejectsUnknownKeys();
    void saveUserFile();
    void internalSuffixes();
};

void TestHostMatch::authorityAccepted_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<int>("defaultPort");
    QTest::addColumn<QString>("host");
    QTest::addColumn<int>("port");

    QTest::newRow("plain") << QByteArray("pypi.org:443") << 0 << str("pypi.org") << 443;
    QTest::newRow("mixed case") << QByteArray("PyPI.ORG:443") << 0 << str("pypi.org") << 443;
    QTest::newRow("trailing dot") << QByteArray("pypi.org.:443") << 0 << str("pypi.org") << 443;
    QTest::newRow("default port") << QByteArray("example.com") << 80 << str("example.com") << 80;
    QTest::newRow("explicit port") << QByteArray("example.com:8080") << 80 << str("example.com") << 8080;
    QTest::newRow("punycode") << QByteArray("xn--bcher-kva.example:443") << 0 << str("xn--bcher-kva.example")
                              << 443;
    QTest::newRow("unicode idn") << QByteArray("b\xc3\xbc"
                                               "cher.example:443")
                                 << 0 << str("xn--bcher-kva.example") << 443;
    QTest::newRow("ipv4") << QByteArray("192.0.2.1:443") << 0 << str("192.0.2.1") << 443;
    QTest::newRow("ipv6") << QByteArray("[2001:DB8:0::1]:443") << 0 << str("[2001:db8::1]") << 443;
    QTest::newRow("ipv6 loopback") << QByteArray("[::1]:8080") << 0 << str("[::1]") << 8080;
    QTest::newRow("localhost") << QByteArray("localhost:3128") << 0 << str("localhost") << 3128;
    QTest::newRow("max port") << QByteArray("a.example:65535") << 0 << str("a.example") << 65535;
}

void TestHostMatch::authorityAccepted()
{
    QFETCH(QByteArray, text);
    QFETCH(int, defaultPort);
    QFETCH(QString, host);
    QFETCH(int, port);
    const Result<Authority> authority =
        parseAuthority(text, defaultPort ? std::optional<quint16>(quint16(defaultPort)) : std::nullopt);
    QVERIFY_RESULT(authority);
    QCOMPARE(authority->host, host);
    QCOMPARE(int(authority->port), port);
}

void TestHostMatch::authorityRefused_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("messagePart");

    // SECURITY.md 2.3: every alternate IPv4 spelling that inet_aton and browsers accept.
    QTest::newRow("short ipv4") << QByteArray("127.1:443") << str("canonical IPv4");
    QTest::newRow("hex ipv4") << QByteArray("0x7f000001:443") << str("canonical IPv4");
    QTest::newRow("decimal ipv4") << QByteArray("2130706433:443") << str("canonical IPv4");
    QTest::newRow("octal ipv4") << QByteArray("0177.0.0.1:443") << str("canonical IPv4");
    QTest::newRow("leading zero octet") << QByteArray("127.0.0.01:443") << str("canonical IPv4");
    QTest::newRow("hex octets") << QByteArray("0x7f.0.0.1:443") << str("canonical IPv4");
    QTest::newRow("full-width digits")
        << QByteArray("\xef\xbc\x91\xef\xbc\x92\xef\xbc\x97\xe3\x80\x82\xef\xbc\x90"
                      "\xe3\x80\x82\xef\xbc\x90\xe3\x80\x82\xef\xbc\x91:443")
        << str("");
    QTest::newRow("circled digits") << QByteArray(
                                           "\xe2\x91\xa0\xe2\x91\xa1\xe2\x91\xa6.\xe2\x93\xaa.\xe2\x93\xaa."
                                           "\xe2\x91\xa0:443")
                                    << str("");
    QTest::newRow("v4-mapped") << QByteArray("[::ffff:a9fe:a9fe]:443") << str("IPv4-mapped");
    QTest::newRow("v4-mapped dotted") << QByteArray("[::ffff:127.0.0.1]:443") << str("IPv4-mapped");
    QTest::newRow("v4-compatible") << QByteArray("[::127.0.0.1]:443") << str("IPv4-compatible");
    QTest::newRow("unspecified v4") << QByteArray("0.0.0.0:443") << str("unspecified");
    QTest::newRow("unspecified v6") << QByteArray("[::]:443") << str("unspecified");
    QTest::newRow("zone id") << QByteArray("[fe80::1%25eth0]:443") << str("percent");
    QTest::newRow("unbracketed v6") << QByteArray("::1:443") << str("brackets");
    // SECURITY.md 2.8: where URL parsers disagree.
    QTest::newRow("userinfo") << QByteArray("allowed.example@evil.example:443") << str("user info");
    QTest::newRow("userinfo backslash")
        << QByteArray("evil.example\\@allowed.example:443") << str("backslash");
    QTest::newRow("percent in host") << QByteArray("pypi%2eorg:443") << str("percent");
    QTest::newRow("slash") << QByteArray("pypi.org/x:443") << str("not a bare host");
    QTest::newRow("hash") << QByteArray("pypi.org#.evil:443") << str("not a bare host");
    QTest::newRow("control") << QByteArray("pypi.org\x01:443") << str("control character");
    QTest::newRow("nul") << QByteArray("pypi.org\0.evil:443", 18) << str("control character");
    QTest::newRow("space") << QByteArray("pypi.org :443") << str("whitespace");
    QTest::newRow("invalid utf8") << QByteArray("p\xffypi.org:443") << str("UTF-8");
    // SECURITY.md 2.4: empty labels and trailing dots beyond one.
    QTest::newRow("two trailing dots") << QByteArray("pypi.org..:443") << str("empty label");
    QTest::newRow("ipv4 two trailing dots") << QByteArray("127.0.0.1..:443") << str("empty label");
    QTest::newRow("leading dot") << QByteArray(".pypi.org:443") << str("empty label");
    QTest::newRow("empty host") << QByteArray(":443") << str("empty");
    QTest::newRow("empty") << QByteArray("") << str("empty");
    QTest::newRow("idna disallowed") << QByteArray("a\xef\xbf\xbd"
                                                   "b.example:443")
                                     << str("");
    QTest::newRow("wildcard") << QByteArray("*.pypi.org:443") << str("wildcard");
    // Ports.
    QTest::newRow("no port") << QByteArray("pypi.org") << str("port is required");
    QTest::newRow("empty port") << QByteArray("pypi.org:") << str("port");
    QTest::newRow("port zero") << QByteArray("pypi.org:0") << str("port");
    QTest::newRow("port leading zero") << QByteArray("pypi.org:0443") << str("port");
    QTest::newRow("port too big") << QByteArray("pypi.org:65536") << str("port");
    QTest::newRow("port sign") << QByteArray("pypi.org:+443") << str("port");
    QTest::newRow("port hex") << QByteArray("pypi.org:0x1bb") << str("port");
    QTest::newRow("port full-width") << QByteArray("pypi.org:\xef\xbc\x94\xef\xbc\x94\xef\xbc\x93")
                                     << str("port");
    QTest::newRow("two colons") << QByteArray("pypi.org:443:80") << str("brackets");
    QTest::newRow("too long") << QByteArray(600, 'a') + ":443" << str("longer");
}

void TestHostMatch::authorityRefused()
{
    QFETCH(QByteArray, text);
    QFETCH(QString, messagePart);
    const Result<Authority> authority = parseAuthority(text);
    QVERIFY2(!authority, qPrintable(authority ? authority->toString() : QString()));
    QCOMPARE(authority.error().code(), "network.bad_authority");
    QVERIFY2(toQt(authority.error().message()).contains(messagePart), authority.error().message().c_str());
}

// The one splitter behind both the allowlist entries and the proxy's authorities. "null" marks no port.
void TestHostMatch::splitHostPort_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("host");
    QTest::addColumn<QString>("port");
    QTest::addColumn<QString>("refusal");

    const QString none = str("null");
    QTest::newRow("host") << str("pypi.org") << str("pypi.org") << none << QString();
    QTest::newRow("host:port") << str("pypi.org:443") << str("pypi.org") << str("443") << QString();
    QTest::newRow("empty port") << str("pypi.org:") << str("pypi.org") << QString() << QString();
    QTest::newRow("port only") << str(":443") << QString() << str("443") << QString();
    QTest::newRow("v6") << str("[::1]") << str("[::1]") << none << QString();
    QTest::newRow("v6:port") << str("[::1]:8080") << str("[::1]") << str("8080") << QString();
    QTest::newRow("v6 empty port") << str("[::1]:") << str("[::1]") << QString() << QString();
    QTest::newRow("v6 unclosed") << str("[::1") << QString() << QString() << str("missing \"]\"");
    QTest::newRow("v6 junk") << str("[::1]x") << QString() << QString() << str("only \":port\" may follow");
    QTest::newRow("v6 bare") << str("::1") << QString() << QString()
                             << str("write IPv6 addresses in brackets");
    QTest::newRow("v6 bare port") << str("2001:db8::1:443") << QString() << QString()
                                  << str("write IPv6 addresses in brackets");
}

void TestHostMatch::splitHostPort()
{
    QFETCH(QString, text);
    QFETCH(QString, host);
    QFETCH(QString, port);
    QFETCH(QString, refusal);
    const std::string utf8 = text.toStdString();
    const Result<Policy::HostPortText> split = Policy::splitHostPort(utf8);
    if (!refusal.isEmpty()) {
        QVERIFY(!split);
        QVERIFY2(toQt(split.error().message()).contains(refusal), split.error().message().c_str());
        return;
    }
    QVERIFY_RESULT(split);
    QCOMPARE(toQt(std::string(split->host)), host);
    if (port == u"null") {
        QVERIFY(!split->port);
    } else {
        QVERIFY(split->port.has_value());
        QCOMPARE(toQt(std::string(*split->port)), port);
    }
    // The port reader both share: ASCII decimal 1..65535 without a leading zero.
    QCOMPARE(Policy::parsePortNumber("443"), std::optional<quint16>(443));
    QCOMPARE(Policy::parsePortNumber("65535"), std::optional<quint16>(65535));
    for (const std::string_view bad : {"0", "0443", "65536", "+80", "", "\xef\xbc\x98\xef\xbc\x90"})
        QCOMPARE(Policy::parsePortNumber(bad), std::nullopt);
}

void TestHostMatch::hostHeaderForm()
{
    QCOMPARE((Authority{str("example.com"), 80}.hostHeader(80)), str("example.com"));
    QCOMPARE((Authority{str("example.com"), 8080}.hostHeader(80)), str("example.com:8080"));
    QCOMPARE((Authority{str("[::1]"), 8080}.hostHeader(80)), str("[::1]:8080"));
    QVERIFY((Authority{str("[::1]"), 1}.isIpLiteral()));
    QVERIFY((Authority{str("192.0.2.1"), 1}.isIpLiteral()));
    QVERIFY(!(Authority{str("example.com"), 1}.isIpLiteral()));
}

void TestHostMatch::matching_data()
{
    QTest::addColumn<DomainRule>("rule");
    QTest::addColumn<Target>("target");
    QTest::addColumn<bool>("matches");

    const DomainRule wildcard = rule("*.pythonhosted.org");
    QTest::newRow("wildcard subdomain") << wildcard << connectTo("files.pythonhosted.org", 443) << true;
    QTest::newRow("wildcard deep") << wildcard << connectTo("a.b.pythonhosted.org", 443) << true;
    // SECURITY.md 2.5: never endsWith(d) alone, and "*.d" is subdomains only.
    QTest::newRow("wildcard suffix confusion") << wildcard << connectTo("evilpythonhosted.org", 443) << false;
    QTest::newRow("wildcard apex") << wildcard << connectTo("pythonhosted.org", 443) << false;
    QTest::newRow("wildcard suffix appended")
        << wildcard << connectTo("files.pythonhosted.org.evil.com", 443) << false;
    const DomainRule exact = rule("pypi.org");
    QTest::newRow("exact") << exact << connectTo("pypi.org", 443) << true;
    QTest::newRow("exact subdomain") << exact << connectTo("www.pypi.org", 443) << false;
    QTest::newRow("exact prefix") << exact << connectTo("evilpypi.org", 443) << false;
    QTest::newRow("default port 80") << exact << get("pypi.org", "/") << true;
    QTest::newRow("ssh port") << exact << connectTo("pypi.org", 22) << false;
    QTest::newRow("smtp port") << exact << connectTo("pypi.org", 25) << false;
    QTest::newRow("listed port") << rule("example.com:8443") << connectTo("example.com", 8443) << true;
    QTest::newRow("listed port excludes 443")
        << rule("example.com:8443") << connectTo("example.com", 443) << false;
    // IP literals: only a rule that names the address.
    QTest::newRow("ip rule") << rule("192.0.2.1") << connectTo("192.0.2.1", 443) << true;
    QTest::newRow("ip other") << rule("192.0.2.1") << connectTo("192.0.2.2", 443) << false;
    QTest::newRow("ip vs name") << rule("localhost") << connectTo("127.0.0.1", 443) << false;
    QTest::newRow("v6 rule") << rule("[2001:db8::1]") << connectTo("[2001:db8::1]", 443) << true;
    // Methods and paths: plain HTTP only, and a restricted rule never authorises a tunnel.
    const DomainRule restricted = ruleWith("example.com", {str("GET")}, {str("/simple/")});
    QTest::newRow("method and path") << restricted << get("example.com", "/simple/pkg/") << true;
    QTest::newRow("other method") << restricted << get("example.com", "/simple/pkg/", "DELETE") << false;
    QTest::newRow("other path") << restricted << get("example.com", "/admin") << false;
    QTest::newRow("tunnel under restriction") << restricted << connectTo("example.com", 443) << false;
    QTest::newRow("dot-dot") << restricted << get("example.com", "/simple/../admin") << false;
    QTest::newRow("encoded dot-dot") << restricted << get("example.com", "/simple/%2e%2E/admin") << false;
    QTest::newRow("half encoded") << restricted << get("example.com", "/simple/.%2e/admin") << false;
    QTest::newRow("dot segment") << restricted << get("example.com", "/simple/./x") << false;
    QTest::newRow("tomcat ..;") << restricted << get("example.com", "/simple/..;/admin") << false;
    QTest::newRow("encoded slash") << restricted << get("example.com", "/simple%2f..%2fadmin") << false;
    QTest::newRow("encoded backslash") << restricted << get("example.com", "/simple/..%5cadmin") << false;
    QTest::newRow("nul") << restricted << get("example.com", "/simple/%00") << false;
    QTest::newRow("dots in names ok") << restricted << get("example.com", "/simple/a..b/") << true;
    const DomainRule methodsOnly = ruleWith("example.com", {str("GET"), str("HEAD")}, {});
    QTest::newRow("methods only, any path") << methodsOnly << get("example.com", "/x/../y") << true;
    QTest::newRow("methods only, post") << methodsOnly << get("example.com", "/", "POST") << false;
}

void TestHostMatch::matching()
{
    QFETCH(DomainRule, rule);
    QFETCH(Target, target);
    QFETCH(bool, matches);
    QCOMPARE(ruleMatches(rule, target), matches);
}

void TestHostMatch::accessReasons_data()
{
    QTest::addColumn<Target>("target");
    QTest::addColumn<QString>("reason");

    QTest::newRow("not listed") << connectTo("example.com", 443)
                                << str("example.com is not in this container's allowlist");
    QTest::newRow("port") << connectTo("pypi.org", 22) << str("port 22 is not allowed for pypi.org");
    QTest::newRow("method") << get("api.example.org", "/v1/x", "DELETE")
                            << str("method DELETE not allowed for api.example.org");
    QTest::newRow("path") << get("api.example.org", "/admin")
                          << str("path /admin not allowed for api.example.org");
    QTest::newRow("tunnel")
        << connectTo("api.example.org", 443)
        << str("api.example.org is only allowed for plain HTTP with listed methods or paths; "
               "an HTTPS (CONNECT) tunnel cannot be checked");
    QTest::newRow("ip literal") << connectTo("127.0.0.1", 443)
                                << str("127.0.0.1 is not in this container's allowlist");
}

void TestHostMatch::accessReasons()
{
    QFETCH(Target, target);
    QFETCH(QString, reason);
    const QList<DomainRule> rules{rule("pypi.org"), ruleWith("api.example.org", {str("GET")}, {str("/v1/")})};
    const NetworkPolicy policy = allowlist(rules);
    const AccessVerdict verdict = checkAccess(&policy, org(rules), target);
    QVERIFY(!verdict.allowed);
    QCOMPARE(verdict.reason, reason);
}

void TestHostMatch::accessNeedsBothLists()
{
    const NetworkPolicy policy = allowlist({rule("pypi.org"), rule("example.com")});
    const OrgPolicy organisation = org({rule("pypi.org")});
    QVERIFY(checkAccess(&policy, organisation, connectTo("pypi.org", 443)).allowed);
    // The organisation list was narrowed after the container was created: it wins at once.
    const AccessVerdict narrowed = checkAccess(&policy, organisation, connectTo("example.com", 443));
    QVERIFY(!narrowed.allowed);
    QCOMPARE(
        narrowed.reason,
        str("example.com is not in the organisation allowlist (/home/u/.config/cordon/org-policy.json)"));
    // No policy known, a disabled policy, an empty organisation list: nothing.
    QVERIFY(!checkAccess(nullptr, organisation, connectTo("pypi.org", 443)).allowed);
    const NetworkPolicy disabled;
    QVERIFY(!checkAccess(&disabled, organisation, connectTo("pypi.org", 443)).allowed);
    QVERIFY(!checkAccess(&policy, OrgPolicy(), connectTo("pypi.org", 443)).allowed);
    // Organisation ports narrow too.
    const AccessVerdict port = checkAccess(&policy, org({rule("pypi.org:443")}), get("pypi.org", "/"));
    QVERIFY(!port.allowed);
    QVERIFY2(port.reason.startsWith(str("port 80 is not allowed for pypi.org by the organisation allowlist")),
             qPrintable(port.reason));
}

void TestHostMatch::privateAddressesNeedBothLists()
{
    const DomainRule local = ruleWith("localhost", {}, {}, true);
    const NetworkPolicy policy = allowlist({local});
    QVERIFY(checkAccess(&policy, org({local}), connectTo("localhost", 443)).allowPrivateAddresses);
    const AccessVerdict orgSaysNo =
        checkAccess(&policy, org({rule("localhost")}), connectTo("localhost", 443));
    QVERIFY(orgSaysNo.allowed);
    QVERIFY(!orgSaysNo.allowPrivateAddresses);
    const NetworkPolicy containerSaysNo = allowlist({rule("localhost")});
    QVERIFY(!checkAccess(&containerSaysNo, org({local}), connectTo("localhost", 443)).allowPrivateAddresses);
}

void TestHostMatch::narrowing_data()
{
    QTest::addColumn<QList<DomainRule>>("orgRules");
    QTest::addColumn<QList<DomainRule>>("containerRules");
    QTest::addColumn<bool>("narrows");

    using Rules = QList<DomainRule>;
    QTest::newRow("same") << Rules{rule("pypi.org")} << Rules{rule("pypi.org")} << true;
    QTest::newRow("wildcard covers name")
        << Rules{rule("*.example.com")} << Rules{rule("api.example.com")} << true;
    QTest::newRow("wildcard covers deeper wildcard")
        << Rules{rule("*.example.com")} << Rules{rule("*.api.example.com")} << true;
    QTest::newRow("wildcard covers same wildcard")
        << Rules{rule("*.example.com")} << Rules{rule("*.example.com")} << true;
    QTest::newRow("wildcard not apex") << Rules{rule("*.example.com")} << Rules{rule("example.com")} << false;
    QTest::newRow("name not wildcard") << Rules{rule("example.com")} << Rules{rule("*.example.com")} << false;
    QTest::newRow("suffix confusion")
        << Rules{rule("*.example.com")} << Rules{rule("evilexample.com")} << false;
    QTest::newRow("narrower wildcard not wider")
        << Rules{rule("*.api.example.com")} << Rules{rule("*.example.com")} << false;
    QTest::newRow("port subset") << Rules{rule("example.com")} << Rules{rule("example.com:443")} << true;
    QTest::newRow("default ports not in 443")
        << Rules{rule("example.com:443")} << Rules{rule("example.com")} << false;
    QTest::newRow("ports from two rules")
        << Rules{rule("example.com:80"), rule("example.com:443")} << Rules{rule("example.com")} << true;
    QTest::newRow("other port") << Rules{rule("example.com")} << Rules{rule("example.com:8443")} << false;
    QTest::newRow("methods narrowed")
        << Rules{rule("example.com")} << Rules{ruleWith("example.com", {str("GET")}, {str("/a/")})} << true;
    QTest::newRow("methods widened") << Rules{ruleWith("example.com", {str("GET")}, {})}
                                     << Rules{rule("example.com")} << false;
    QTest::newRow("method subset") << Rules{ruleWith("example.com", {str("GET"), str("HEAD")}, {})}
                                   << Rules{ruleWith("example.com", {str("HEAD")}, {})} << true;
    QTest::newRow("method outside") << Rules{ruleWith("example.com", {str("GET")}, {})}
                                    << Rules{ruleWith("example.com", {str("POST")}, {})} << false;
    QTest::newRow("path inside") << Rules{ruleWith("example.com", {}, {str("/simple/")})}
                                 << Rules{ruleWith("example.com", {}, {str("/simple/numpy/")})} << true;
    QTest::newRow("path outside") << Rules{ruleWith("example.com", {}, {str("/simple/")})}
                                  << Rules{ruleWith("example.com", {}, {str("/admin/")})} << false;
    QTest::newRow("paths widened") << Rules{ruleWith("example.com", {}, {str("/simple/")})}
                                   << Rules{rule("example.com")} << false;
    QTest::newRow("private needs private")
        << Rules{rule("localhost")} << Rules{ruleWith("localhost", {}, {}, true)} << false;
    QTest::newRow("private covered") << Rules{ruleWith("localhost", {}, {}, true)}
                                     << Rules{ruleWith("localhost", {}, {}, true)} << true;
    QTest::newRow("non-private under private")
        << Rules{ruleWith("localhost", {}, {}, true)} << Rules{rule("localhost")} << true;
    QTest::newRow("ip exact") << Rules{rule("192.0.2.1")} << Rules{rule("192.0.2.1")} << true;
    QTest::newRow("ip other") << Rules{rule("192.0.2.1")} << Rules{rule("192.0.2.2")} << false;
    QTest::newRow("empty org") << Rules{} << Rules{rule("pypi.org")} << false;
    QTest::newRow("empty container") << Rules{} << Rules{} << true;
}

void TestHostMatch::narrowing()
{
    QFETCH(QList<DomainRule>, orgRules);
    QFETCH(QList<DomainRule>, containerRules);
    QFETCH(bool, narrows);
    const Result<void> result = org(orgRules).checkNarrows(allowlist(containerRules));
    QCOMPARE(bool(result), narrows);
    if (!result)
        QCOMPARE(toQt(result.error().code()), str("network.domain_not_allowed"));
}

void TestHostMatch::narrowingMessages()
{
    const OrgPolicy organisation = org({rule("pypi.org:443"), ruleWith("example.com", {str("GET")}, {})});
    const auto message = [&](QList<DomainRule> rules) {
        const Result<void> result = organisation.checkNarrows(allowlist(std::move(rules)));
        return result ? QString() : toQt(result.error().message());
    };
    const QString file = str(" (/home/u/.config/cordon/org-policy.json)");
    QCOMPARE(message({rule("pypi.org:443"), rule("evil.example")}),
             str("\"evil.example\" is not in the organisation allowlist") + file);
    QCOMPARE(message({rule("pypi.org")}),
             str("\"pypi.org\" port 80 is not allowed by the organisation allowlist") + file);
    QCOMPARE(message({rule("example.com")}),
             str("\"example.com\" allows every method, more than the organisation allowlist") + file);
    QCOMPARE(message({ruleWith("example.com", {str("DELETE")}, {})}),
             str("\"example.com\" method DELETE is not allowed by the organisation allowlist") + file);
    // A disabled policy narrows anything.
    QVERIFY_RESULT(organisation.checkNarrows(NetworkPolicy()));

    const OrgPolicy administered({}, OrgPolicy::Source::System, str("/etc/cordon/org-policy.json"));
    const Result<void> admin = administered.checkNarrows(allowlist({rule("pypi.org")}));
    QVERIFY(!admin);
    QCOMPARE(
        toQt(admin.error().message()),
        str("\"pypi.org\" is not in the organisation allowlist (/etc/cordon/org-policy.json, set by your "
            "administrator)"));
    const OrgPolicy missing({}, OrgPolicy::Source::Missing, str("/home/u/.config/cordon/org-policy.json"));
    const Result<void> none = missing.checkNarrows(allowlist({rule("pypi.org")}));
    QVERIFY(!none);
    QCOMPARE(toQt(none.error().message()),
             str("\"pypi.org\" is not in the organisation allowlist (/home/u/.config/cordon/org-policy.json "
                 "does not "
                 "exist, so it is empty); create it with {\"allowed_domains\": [\"pypi.org\"]}"));
}

void TestHostMatch::orgAllows()
{
    const OrgPolicy organisation =
        org({rule("*.example.com"), ruleWith("api.example.org", {str("GET")}, {str("/v1/")})});
    QVERIFY(organisation.allows(str("a.example.com"), 443, str("CONNECT"), QString()));
    QVERIFY(!organisation.allows(str("example.com"), 443, str("CONNECT"), QString()));
    QVERIFY(!organisation.allows(str("evilexample.com"), 443, str("CONNECT"), QString()));
    QVERIFY(organisation.allows(str("api.example.org"), 80, str("GET"), str("/v1/x")));
    QVERIFY(!organisation.allows(str("api.example.org"), 80, str("POST"), str("/v1/x")));
    QVERIFY(!organisation.allows(str("api.example.org"), 443, str("CONNECT"), QString()));
}

void TestHostMatch::loadPrecedence()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString system = dir.filePath(str("etc/org-policy.json"));
    const QString user = dir.filePath(str("config/org-policy.json"));
    QVERIFY(writeFile(
        user, R"({"allowed_domains": ["pypi.org", {"domain": "*.pythonhosted.org", "ports": [443]}]})"));
    Result<OrgPolicy> loaded = OrgPolicy::load(system, user);
    QVERIFY_RESULT(loaded);
    QCOMPARE(loaded->source(), OrgPolicy::Source::User);
    QVERIFY(!loaded->isAdministered());
    QCOMPARE(loaded->path(), user);
    QCOMPARE(loaded->rules().size(), std::size_t(2));
    QVERIFY(loaded->allows(str("files.pythonhosted.org"), 443, str("CONNECT"), QString()));
    QVERIFY(!loaded->allows(str("files.pythonhosted.org"), 80, str("GET"), str("/")));

    // The administrator's file wins, even when it allows less.
    QVERIFY(writeFile(system, R"({"allowed_domains": ["PYPI.ORG."]})"));
    loaded = OrgPolicy::load(system, user);
    QVERIFY_RESULT(loaded);
    QCOMPARE(loaded->source(), OrgPolicy::Source::System);
    QVERIFY(loaded->isAdministered());
    QCOMPARE(loaded->rules().size(), std::size_t(1));
    QCOMPARE(loaded->rules().front().host, str("pypi.org"));
}

void TestHostMatch::loadMissing()
{
    QTemporaryDir dir;
    const QString user = dir.filePath(str("config/org-policy.json"));
    const Result<OrgPolicy> loaded = OrgPolicy::load(dir.filePath(str("none.json")), user);
    QVERIFY_RESULT(loaded);
    QCOMPARE(loaded->source(), OrgPolicy::Source::Missing);
    QCOMPARE(loaded->path(), user);
    QVERIFY(loaded->rules().empty());
    QVERIFY(!loaded->allows(str("pypi.org"), 443, str("CONNECT"), QString()));
    QVERIFY(OrgPolicy::userPath().endsWith(str("/cordon/org-policy.json")));
    QCOMPARE(OrgPolicy::systemPath(), str("/etc/cordon/org-policy.json"));
}

void TestHostMatch::loadBrokenSystemFileFailsClosed()
{
    QTemporaryDir dir;
    const QString system = dir.filePath(str("org-policy.json"));
    const QString user = dir.filePath(str("user.json"));
    QVERIFY(writeFile(user, R"({"allowed_domains": ["evil.example"]})"));
    // Broken JSON in the administrator's file: an error, never the user's list instead.
    QVERIFY(writeFile(system, R"({"allowed_domains": ["pypi.org",]})"));
    Result<OrgPolicy> loaded = OrgPolicy::load(system, user);
    QVERIFY(!loaded);
    QVERIFY2(toQt(loaded.error().message()).startsWith(system), loaded.error().message().c_str());
    // A dangling symlink where the file should be is not "no file".
    QVERIFY(QFile::remove(system));
    QVERIFY(QFile::link(dir.filePath(str("nowhere.json")), system));
    loaded = OrgPolicy::load(system, user);
    QVERIFY(!loaded);
    QCOMPARE(toQt(loaded.error().code()), str("network.org_policy_unreadable"));
}

void TestHostMatch::loadRejectsUnknownKeys()
{
    const QString path = str("/x/org-policy.json");
    const auto code = [&](const QByteArray &json) {
        const Result<OrgPolicy> parsed = OrgPolicy::fromJson(json, OrgPolicy::Source::User, path);
        return parsed ? QString() : toQt(parsed.error().code());
    };
    QCOMPARE(code(R"({"allowed_domains": [], "allow_all": true})"), str("policy.unknown_key"));
    QCOMPARE(code(R"({})"), str("policy.missing_key"));
    QCOMPARE(code(R"({"allowed_domains": ["*"]})"), str("policy.invalid_domain"));
    QCOMPARE(code(R"({"allowed_domains": ["127.1"]})"), str("policy.invalid_domain"));
    QCOMPARE(code(R"({"allowed_domains": ["a.example", "a.example"]})"), str("policy.invalid_domain"));
    QCOMPARE(code(R"({"allowed_domains": "pypi.org"})"), str("policy.wrong_type"));
    QCOMPARE(code(R"({"allowed_domains": [], "allowed_domains": ["evil.example"]})"),
             str("policy.duplicate_key"));
    QCOMPARE(code(R"({"allowed_domains": []})"), QString());
    const Result<OrgPolicy> bad = OrgPolicy::fromJson(
        R"({"allowed_domains": ["ok.example", "bad..example"]})", OrgPolicy::Source::User, path);
    QVERIFY(!bad);
    QVERIFY2(toQt(bad.error().message()).startsWith(path + str(": allowed_domains[1]")),
             bad.error().message().c_str());
}

void TestHostMatch::saveUserFile()
{
    QTemporaryDir dir;
    const QString system = dir.filePath(str("etc/org-policy.json"));
    const QString user = dir.filePath(str("config/cordon/org-policy.json"));
    // Written through the loader's parser: the folder is made, the file is 0644 and reads back equal.
    Result<OrgPolicy> saved = OrgPolicy::saveUserFile(
        QJsonArray{str("PyPI.org."), QJsonObject{{str("domain"), str("*.pythonhosted.org")}}}, system, user);
    QVERIFY_RESULT(saved);
    QCOMPARE(saved->source(), OrgPolicy::Source::User);
    QCOMPARE(saved->rules().front().host, str("pypi.org"));
    // Owner, group and other bits only (0x0700 are the "current user" duplicates).
    QCOMPARE(QFileInfo(user).permissions() & QFileDevice::Permissions(0x7077),
             QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ReadGroup |
                 QFileDevice::ReadOther);
    const Result<OrgPolicy> loaded = OrgPolicy::load(system, user);
    QVERIFY_RESULT(loaded);
    QCOMPARE(*loaded, *saved);
    QVERIFY(QDir(QFileInfo(user).absolutePath()).entryList(QDir::Files | QDir::Hidden) ==
            QStringList{str("org-policy.json")});

    // Something load() would refuse is never written, and the file keeps its list.
    const Result<OrgPolicy> bad =
        OrgPolicy::saveUserFile(QJsonArray{str("ok.example"), str("https://x.example")}, system, user);
    QVERIFY(!bad);
    QCOMPARE(toQt(bad.error().code()), str("policy.invalid_domain"));
    QVERIFY2(toQt(bad.error().message()).contains(str("allowed_domains[1]")), bad.error().message().c_str());
    QCOMPARE(*OrgPolicy::load(system, user), *saved);

    // While an administrator's file exists, the user's is not the one in force: refused.
    QVERIFY(writeFile(system, R"({"allowed_domains": []})"));
    const Result<OrgPolicy> governed = OrgPolicy::saveUserFile(QJsonArray{str("a.example")}, system, user);
    QVERIFY(!governed);
    QCOMPARE(toQt(governed.error().code()), str("network.org_policy_administered"));
    QVERIFY(toQt(governed.error().message()).contains(system));
    QCOMPARE(OrgPolicy::load(dir.filePath(str("none.json")), user)->rules().size(), std::size_t(2));
}

// The organisation's own internal domains for the artifact scan: read, normalised, checked, and kept when the
// allowlist editor writes the file.
void TestHostMatch::internalSuffixes()
{
    const QString path = str("/x/org-policy.json");
    const Result<OrgPolicy> read = OrgPolicy::fromJson(
        R"({"allowed_domains": [], "internal_suffixes": [".Corp.Example.com", "build-farm", "build-farm"]})",
        OrgPolicy::Source::User, path);
    QVERIFY_RESULT(read);
    QCOMPARE(read->internalSuffixes(), (std::vector<std::string>{"corp.example.com", "build-farm"}));
    const auto code = [&](const QByteArray &json) {
        const Result<OrgPolicy> parsed = OrgPolicy::fromJson(json, OrgPolicy::Source::User, path);
        return parsed ? QString() : toQt(parsed.error().code());
    };
    QCOMPARE(code(R"({"allowed_domains": [], "internal_suffixes": ["a..b"]})"), str("policy.invalid_domain"));
    QCOMPARE(code(R"({"allowed_domains": [], "internal_suffixes": ["x y"]})"), str("policy.invalid_domain"));
    QCOMPARE(code(R"({"allowed_domains": [], "internal_suffixes": ["."]})"), str("policy.invalid_domain"));
    QCOMPARE(code(R"({"allowed_domains": [], "internal_suffixes": "corp"})"), str("policy.wrong_type"));
    QCOMPARE(code(R"({"allowed_domains": [], "internal_suffixes": [7]})"), str("policy.wrong_type"));

    QTemporaryDir dir;
    const QString system = dir.filePath(str("etc/org-policy.json"));
    const QString user = dir.filePath(str("config/org-policy.json"));
    QVERIFY(QDir().mkpath(dir.filePath(str("config"))));
    QVERIFY(writeFile(user, R"({"allowed_domains": [], "internal_suffixes": ["corp.example.com"]})"));
    const Result<OrgPolicy> saved = OrgPolicy::saveUserFile(QJsonArray{str("pypi.org")}, system, user);
    QVERIFY_RESULT(saved);
    QCOMPARE(saved->internalSuffixes(), std::vector<std::string>{"corp.example.com"});
    QCOMPARE(OrgPolicy::load(system, user)->internalSuffixes(), std::vector<std::string>{"corp.example.com"});
}

QTEST_GUILESS_MAIN(TestHostMatch)
#include "tst_hostmatch.moc"
