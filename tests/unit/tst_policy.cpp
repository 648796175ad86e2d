// SPDX-License-Identifier: MIT
// The container policy model: strict parsing with exact error codes and field paths, host normalisation and
// matching, canonical form and version hash.
#include "sandbox/json.h"
#include "sandbox/policy/containerpolicy.h"

#include "testutil.h"

#include <QCryptographicHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QObject>
#include <QRegularExpression>
#include <QSet>

#include <functional>

using namespace Cordon::Policy;
using namespace Qt::Literals::StringLiterals;

namespace {

QList<quint16> qtPorts(const std::vector<std::uint16_t> &ports)
{
    return QList<quint16>(ports.begin(), ports.end());
}

QStringList qtList(const std::vector<std::string> &texts)
{
    QStringList list;
    for (const std::string &text : texts)
        list.append(QString::fromStdString(text));
    return list;
}

// The Qt spellings the data rows use, at the test's edge.
Cordon::Result<DomainRule> parseDomainRule(const QString &entry)
{
    return Cordon::Policy::parseDomainRule(entry.toStdString());
}

Cordon::Result<std::string> normaliseHost(const QString &host)
{
    return Cordon::Policy::normaliseHost(host.toStdString());
}

Cordon::Result<ContainerPolicy> parsePolicy(QByteArrayView json)
{
    return ContainerPolicy::fromJson(std::string_view(json.data(), static_cast<std::size_t>(json.size())));
}

QByteArray withAllowlist(const QByteArray &entries)
{
    return R"({"network_policy":{"type":"allowlist","allowed_domains":[)" + entries + "]}}";
}

QByteArray withLimit(const char *key, const QByteArray &value)
{
    return R"({"limits":{")" + QByteArray(key) + R"(":)" + value + "}}";
}

QByteArray withMount(const QByteArray &host, const QByteArray &target)
{
    return R"({"mounts":[{"host":)" + host + R"(,"target":)" + target + "}]}";
}

// A syntactically valid document of exactly size bytes: a policy padded with trailing whitespace.
QByteArray paddedDocument(qsizetype size)
{
    QByteArray json = R"({"name":"padded"})";
    json.append(size - json.size(), ' ');
    return json;
}

// "item(0),item(1),...": the body of a long JSON array or object.
QByteArray commaList(int count, const std::function<QByteArray(int)> &item)
{
    QByteArray out;
    for (int i = 0; i < count; ++i)
        out += (i ? QByteArray(",") : QByteArray()) + item(i);
    return out;
}

QByteArray nested(int levels)
{
    return R"({"env":{"A":)" + QByteArray(levels, '[') + QByteArray(levels, ']') + "}}";
}

} // namespace

class TestPolicy : public QObject
{
    Q_OBJECT

private slots:
    void defaults();
    void fullDocument();
    void accepted_data();
    void accepted();
    void rejected_data();
    void rejected();
    void exactMessages_data();
    void exactMessages();
    void documentSize();
    void deepNesting();
    void memoryLimit_data();
    void memoryLimit();
    void formatMemory();
    void domainRule_data();
    void domainRule();
    void domainRuleRejected_data();
    void domainRuleRejected();
    void matchesHost_data();
    void matchesHost();
    void matchesHostNeedsNormalisedInput();
    void ports();
    void workspaceAndTmpFollowTheMemoryLimit();
    void domainSecretHeaderIsWrittenOnlyWhenNamed();
    void canonicalDefaults();
    void canonicalEscaping();
    void sameMeaningSameVersion();
    void differentPolicyDifferentVersion();
    void roundTrip();
    void fromJsonValueAppliesTheSameRules();
    void validatedNormalisesCodeBuiltPolicies();
    void validatedRejectsInvalidCodeBuiltPolicies();
};

void TestPolicy::defaults()
{
    const auto policy = parsePolicy("{}");
    QVERIFY_RESULT(policy);
    QCOMPARE(policy->name, u"sandbox"_s);
    QCOMPARE(policy->memoryLimitBytes, 1 * GiB);
    QCOMPARE(policy->expiresAfter.anchor, u"last_active_at"_s);
    QCOMPARE(policy->expiresAfter.minutes, 20);
    QCOMPARE(policy->network.type, NetworkPolicy::Type::Disabled);
    QVERIFY(policy->network.allowedDomains.empty());
    QCOMPARE(policy->limits.runTimeoutS, 300);
    QCOMPARE(policy->limits.pids, 256);
    // Half and a quarter of the 1g tier: files in the workspace and /tmp end with ENOSPC, never with the
    // memory limit killing the writer.
    QCOMPARE(policy->limits.tmpMb, 256);
    QCOMPARE(policy->limits.workspaceMb, 512);
    QCOMPARE(policy->limits.outputMb, 16);
    QVERIFY(policy->mounts.empty());
    QVERIFY(policy->env.empty());
    QCOMPARE(policy->allowPtrace, false);
    QVERIFY(*policy == ContainerPolicy{});
    // Whitespace around the document is allowed, as RFC 8259 says.
    QVERIFY_RESULT(parsePolicy(" \t\r\n{ }\n"));
}

void TestPolicy::fullDocument()
{
    const QByteArray json =
        R"({"name":"demo","memory_limit":"4g","expires_after":{"anchor":"last_active_at","minutes":60},
        "network_policy":{"type":"allowlist","allowed_domains":["pypi.org","*.pythonhosted.org:443",
            {"domain":"127.0.0.1","ports":[8080],"methods":["get","HEAD"],"path_prefixes":["/simple/","/packages/"],
             "allow_private_addresses":true}]},
        "limits":{"run_timeout_s":30,"pids":64,"tmp_mb":128,"workspace_mb":1024,"output_mb":4},
        "mounts":[{"host":"/opt/datasets/","target":"/mnt/datasets","read_only":true},
                  {"host":"/srv//cache/./x","target":"/opt/cache","read_only":false}],
        "env":{"LANG":"C.UTF-8","EMPTY":""},"allow_ptrace":true})";
    const auto policy = parsePolicy(json);
    QVERIFY_RESULT(policy);
    QCOMPARE(policy->name, u"demo"_s);
    QCOMPARE(policy->memoryLimitBytes, 4 * GiB);
    QCOMPARE(policy->expiresAfter.minutes, 60);
    QCOMPARE(policy->network.type, NetworkPolicy::Type::Allowlist);
    QCOMPARE(policy->network.allowedDomains.size(), std::size_t(3));

    const DomainRule &pypi = policy->network.allowedDomains.at(0);
    QCOMPARE(pypi.host, u"pypi.org"_s);
    QCOMPARE(pypi.wildcard, false);
    QVERIFY(pypi.ports.empty());
    QVERIFY(pypi.methods.empty());
    QCOMPARE(pypi.allowPrivateAddresses, false);

    const DomainRule &hosted = policy->network.allowedDomains.at(1);
    QCOMPARE(hosted.host, u"pythonhosted.org"_s);
    QCOMPARE(hosted.wildcard, true);
    QCOMPARE(qtPorts(hosted.ports), QList<quint16>{443});

    const DomainRule &local = policy->network.allowedDomains.at(2);
    QCOMPARE(local.host, u"127.0.0.1"_s);
    QVERIFY(local.isIpLiteral());
    QCOMPARE(qtPorts(local.ports), QList<quint16>{8080});
    QCOMPARE(qtList(local.methods), (QStringList{u"GET"_s, u"HEAD"_s}));
    QCOMPARE(qtList(local.pathPrefixes), (QStringList{u"/packages/"_s, u"/simple/"_s}));
    QCOMPARE(local.allowPrivateAddresses, true);

    QCOMPARE(policy->limits, (Limits{30, 64, 128, 1024, 4}));
    QCOMPARE(policy->mounts.size(), std::size_t(2));
    QVERIFY(policy->mounts.at(0) == (Mount{"/opt/datasets", "/mnt/datasets", true}));
    QVERIFY(policy->mounts.at(1) == (Mount{"/srv/cache/x", "/opt/cache", false}));
    QCOMPARE(policy->env.at("LANG"), u"C.UTF-8"_s);
    QVERIFY(policy->env.contains("EMPTY"));
    QCOMPARE(policy->allowPtrace, true);
}

// Bounds just inside, and spellings that are valid; fragment must appear in the canonical JSON.
void TestPolicy::accepted_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QByteArray>("fragment");

    QTest::newRow("name 1 char") << QByteArray(R"({"name":"a"})") << QByteArray(R"("name":"a")");
    for (const char *mode : {"block", "warn", "redact", "off"})
        QTest::newRow((std::string("artifact_scan ") + mode).c_str())
            << QByteArray("{\"artifact_scan\":\"") + mode + "\"}"
            << QByteArray("\"artifact_scan\":\"") + mode + '"';
    QTest::newRow("name 64 chars") << QByteArray(R"({"name":")" + QByteArray(64, 'n') + R"("})")
                                   << QByteArray(R"("name":")" + QByteArray(64, 'n') + '"');
    QTest::newRow("name charset") << QByteArray(R"({"name":"A-z_0.9"})") << QByteArray(R"("name":"A-z_0.9")");
    QTest::newRow("memory tier upper")
        << QByteArray(R"({"memory_limit":"16G"})") << QByteArray(R"("memory_limit":"16g")");
    QTest::newRow("memory integer tier")
        << QByteArray(R"({"memory_limit":68719476736})") << QByteArray(R"("memory_limit":"64g")");
    QTest::newRow("memory integer min")
        << QByteArray(R"({"memory_limit":67108864})") << QByteArray(R"("memory_limit":67108864)");
    QTest::newRow("memory string bytes")
        << QByteArray(R"({"memory_limit":"67108864"})") << QByteArray(R"("memory_limit":67108864)");
    QTest::newRow("memory 1.0e9 integral")
        << QByteArray(R"({"memory_limit":1.0e9})") << QByteArray(R"("memory_limit":1000000000)");
    QTest::newRow("minutes 1") << QByteArray(R"({"expires_after":{"minutes":1}})")
                               << QByteArray(R"("minutes":1)");
    QTest::newRow("minutes 10080") << QByteArray(R"({"expires_after":{"minutes":10080}})")
                                   << QByteArray(R"("minutes":10080)");
    QTest::newRow("anchor explicit") << QByteArray(R"({"expires_after":{"anchor":"last_active_at"}})")
                                     << QByteArray(R"("anchor":"last_active_at","minutes":20)");

    const struct
    {
        const char *key;
        int min;
        int max;
    } limits[] = {{"run_timeout_s", 1, 86400},
                  {"pids", 1, 65536},
                  {"tmp_mb", 1, 65536},
                  {"workspace_mb", 1, 1048576},
                  {"output_mb", 1, 4096}};
    for (const auto &limit : limits) {
        for (int value : {limit.min, limit.max}) {
            const QByteArray number = QByteArray::number(value);
            QTest::addRow("limits.%s %d", limit.key, value)
                << withLimit(limit.key, number) << QByteArray('"' + QByteArray(limit.key) + "\":" + number);
        }
    }
    QTest::newRow("pids 1e2") << withLimit("pids", "1e2") << QByteArray(R"("pids":100)");
    QTest::newRow("pids 2.0") << withLimit("pids", "2.0") << QByteArray(R"("pids":2)");

    QTest::newRow("32 mounts") << QByteArray(R"({"mounts":[)" +
                                             commaList(32,
                                                       [](int i) -> QByteArray {
                                                           return R"({"host":"/h","target":"/mnt/m)" +
                                                                  QByteArray::number(i) + R"("})";
                                                       }) +
                                             "]}")
                               << QByteArray(R"("target":"/mnt/m31")");
    QTest::newRow("mount prefix confusion /mnt/datasets")
        << withMount(R"("/d")", R"("/mnt/datasets")") << QByteArray(R"("target":"/mnt/datasets")");
    QTest::newRow("mount /mnt/database")
        << withMount(R"("/d")", R"("/mnt/data_base")") << QByteArray(R"("target":"/mnt/data_base")");
    QTest::newRow("mount target normalised")
        << withMount(R"("/d")", R"("/opt//x/./y/")") << QByteArray(R"("target":"/opt/x/y")");
    QTest::newRow("mount read_only default")
        << withMount(R"("/d")", R"("/opt/x")") << QByteArray(R"("read_only":true)");
    QTest::newRow("sibling targets") << QByteArray(R"({"mounts":[{"host":"/a","target":"/mnt/a"},
                                                               {"host":"/a","target":"/mnt/ab"}]})")
                                     << QByteArray(R"("target":"/mnt/ab")");

    QTest::newRow("128 env") << QByteArray(R"({"env":{)" +
                                           commaList(128,
                                                     [](int i) -> QByteArray {
                                                         return R"("V)" + QByteArray::number(i) + R"(":"x")";
                                                     }) +
                                           "}}")
                             << QByteArray(R"("V99":"x")");
    QTest::newRow("env value 32 KiB")
        << QByteArray(R"({"env":{"A":")" + QByteArray(32 * 1024, 'v') + R"("}})")
        << QByteArray(R"("A":")" + QByteArray(32 * 1024, 'v') + '"');
    QTest::newRow("env name underscore")
        << QByteArray(R"({"env":{"_A1":"x"}})") << QByteArray(R"("_A1":"x")");
    QTest::newRow("env unicode value") << QByteArray(R"({"env":{"A":"\u00e9t\u00e9 \ud83d\ude00"}})")
                                       << QByteArray("\"A\":\"\xc3\xa9t\xc3\xa9 \xf0\x9f\x98\x80\"");

    QTest::newRow("network disabled with empty list")
        << QByteArray(R"({"network_policy":{"type":"disabled","allowed_domains":[]}})")
        << QByteArray(R"("network_policy":{"allowed_domains":[],"type":"disabled"})");
    QTest::newRow("empty allowlist") << QByteArray(R"({"network_policy":{"type":"allowlist"}})")
                                     << QByteArray(
                                            R"("network_policy":{"allowed_domains":[],"type":"allowlist"})");
    QTest::newRow("256 domains") << withAllowlist(commaList(256, [](int i) -> QByteArray {
        return R"("d)" + QByteArray::number(i) + R"(.example")";
    })) << QByteArray(R"("domain":"d255.example")");
    QTest::newRow("port bounds") << withAllowlist(R"({"domain":"a.example","ports":[65535,1]})")
                                 << QByteArray(R"("ports":[1,65535])");
    QTest::newRow("all methods")
        << withAllowlist(
               R"({"domain":"a.example","methods":["OPTIONS","DELETE","PATCH","PUT","POST","HEAD","GET"]})")
        << QByteArray(R"("methods":["DELETE","GET","HEAD","OPTIONS","PATCH","POST","PUT"])");
    QTest::newRow("path prefix escapes")
        << withAllowlist(R"({"domain":"a.example","path_prefixes":["/a%2Fb/~x"]})")
        << QByteArray(R"("path_prefixes":["/a%2Fb/~x"])");
    QTest::newRow("ptrace") << QByteArray(R"({"allow_ptrace":true})") << QByteArray(R"("allow_ptrace":true)");
}

void TestPolicy::accepted()
{
    QFETCH(QByteArray, json);
    QFETCH(QByteArray, fragment);
    const auto policy = parsePolicy(json);
    QVERIFY_RESULT(policy);
    const QByteArray canonical = QByteArray::fromStdString(policy->canonicalJson());
    QVERIFY2(canonical.contains(fragment), canonical.left(2000).constData());
}

// Every rule, with its exact code, and a fragment of the message that names the field.
void TestPolicy::rejected_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("code");
    QTest::addColumn<QString>("message");

    QTest::newRow("artifact_scan unknown")
        << QByteArray(R"({"artifact_scan":"sometimes"})") << u"policy.invalid_value"_s
        << u"artifact_scan: must be \"default\", \"block\", \"warn\", \"redact\" or \"off\", got \"sometimes\""_s;
    QTest::newRow("artifact_scan type")
        << QByteArray(R"({"artifact_scan":true})") << u"policy.wrong_type"_s << u"artifact_scan"_s;
    // Document shape and syntax.
    QTest::newRow("top array") << QByteArray("[]") << u"policy.wrong_type"_s
                               << u"policy: the document must be a JSON object, got array"_s;
    QTest::newRow("top string") << QByteArray(R"("x")") << u"policy.wrong_type"_s << u"got string"_s;
    QTest::newRow("top null") << QByteArray("null") << u"policy.wrong_type"_s << u"got null"_s;
    QTest::newRow("empty document") << QByteArray("") << u"policy.invalid_json"_s
                                    << u"unexpected end of data"_s;
    QTest::newRow("trailing data") << QByteArray("{} {}") << u"policy.invalid_json"_s
                                   << u"unexpected data after the document"_s;
    QTest::newRow("byte order mark") << QByteArray("\xef\xbb\xbf{}") << u"policy.invalid_json"_s
                                     << u"a byte order mark is not allowed (line 1, column 1)"_s;
    QTest::newRow("comment") << QByteArray("{/* x */}") << u"policy.invalid_json"_s << u"line 1, column 2"_s;
    QTest::newRow("trailing comma") << QByteArray(R"({"name":"a",})") << u"policy.invalid_json"_s
                                    << u"expected a member name"_s;
    QTest::newRow("single quotes") << QByteArray("{'name':'a'}") << u"policy.invalid_json"_s
                                   << u"expected a member name"_s;
    QTest::newRow("unquoted key") << QByteArray("{name:1}") << u"policy.invalid_json"_s
                                  << u"expected a member name"_s;
    QTest::newRow("unterminated") << QByteArray(R"({"name":"a)") << u"policy.invalid_json"_s
                                  << u"name: unterminated string"_s;
    QTest::newRow("missing brace") << QByteArray(R"({"name":"a")") << u"policy.invalid_json"_s
                                   << u"expected ',' or '}'"_s;
    QTest::newRow("line and column") << QByteArray("{\n  \"limits\": {\n    \"pids\": 1,\n  }\n}")
                                     << u"policy.invalid_json"_s << u"line 4, column 3"_s;
    QTest::newRow("NaN") << withLimit("pids", "NaN") << u"policy.invalid_json"_s
                         << u"limits.pids: invalid value"_s;
    QTest::newRow("Infinity") << withLimit("pids", "Infinity") << u"policy.invalid_json"_s
                              << u"limits.pids"_s;
    QTest::newRow("-Infinity") << withLimit("pids", "-Infinity") << u"policy.invalid_json"_s
                               << u"limits.pids"_s;
    QTest::newRow("1e400") << withLimit("pids", "1e400") << u"policy.out_of_range"_s
                           << u"limits.pids: number out of range"_s;
    QTest::newRow("leading zero") << withLimit("pids", "01") << u"policy.invalid_json"_s
                                  << u"limits.pids: invalid number: leading zeros are not allowed"_s;
    QTest::newRow("two dots") << withLimit("pids", "1.2.3") << u"policy.invalid_json"_s
                              << u"limits.pids: invalid number"_s;
    QTest::newRow("minus alone") << withLimit("pids", "-") << u"policy.invalid_json"_s
                                 << u"limits.pids: invalid number"_s;
    QTest::newRow("plus sign") << withLimit("pids", "+1") << u"policy.invalid_json"_s << u"limits.pids"_s;
    QTest::newRow("bare fraction") << withLimit("pids", ".5") << u"policy.invalid_json"_s << u"limits.pids"_s;
    QTest::newRow("hex number") << withLimit("pids", "0x10") << u"policy.invalid_json"_s
                                << u"limits.pids: invalid number"_s;
    QTest::newRow("raw control char") << QByteArray("{\"name\":\"a\x01\"}") << u"policy.invalid_json"_s
                                      << u"name: control character in a string"_s;
    QTest::newRow("raw newline") << QByteArray("{\"name\":\"a\nb\"}") << u"policy.invalid_json"_s
                                 << u"control character"_s;
    QTest::newRow("lone high surrogate")
        << QByteArray(R"({"name":"\ud800"})") << u"policy.invalid_json"_s << u"name: lone high surrogate"_s;
    QTest::newRow("lone low surrogate")
        << QByteArray(R"({"name":"\udc00x"})") << u"policy.invalid_json"_s << u"lone low surrogate"_s;
    QTest::newRow("high then not low")
        << QByteArray(R"({"name":"\ud800\u0041"})") << u"policy.invalid_json"_s << u"lone high surrogate"_s;
    QTest::newRow("bad escape") << QByteArray(R"({"name":"\x41"})") << u"policy.invalid_json"_s
                                << u"invalid escape"_s;
    QTest::newRow("short unicode escape")
        << QByteArray(R"({"name":"\u12"})") << u"policy.invalid_json"_s << u"invalid \\u escape"_s;
    QTest::newRow("NUL byte after document")
        << QByteArray("{}\0", 3) << u"policy.invalid_json"_s << u"unexpected data"_s;

    // Invalid UTF-8, in values, keys and between tokens.
    QTest::newRow("utf8 0xff") << QByteArray("{\"name\":\"\xff\"}") << u"policy.invalid_json"_s
                               << u"name: invalid UTF-8 in a string (line 1, column 10)"_s;
    QTest::newRow("utf8 overlong slash")
        << QByteArray("{\"name\":\"\xc0\xaf\"}") << u"policy.invalid_json"_s << u"invalid UTF-8"_s;
    QTest::newRow("utf8 overlong 3 byte")
        << QByteArray("{\"name\":\"\xe0\x80\xaf\"}") << u"policy.invalid_json"_s << u"invalid UTF-8"_s;
    QTest::newRow("utf8 surrogate") << QByteArray("{\"name\":\"\xed\xa0\x80\"}") << u"policy.invalid_json"_s
                                    << u"invalid UTF-8"_s;
    QTest::newRow("utf8 above U+10FFFF")
        << QByteArray("{\"name\":\"\xf4\x90\x80\x80\"}") << u"policy.invalid_json"_s << u"invalid UTF-8"_s;
    QTest::newRow("utf8 truncated") << QByteArray("{\"name\":\"\xe2\x82\"}") << u"policy.invalid_json"_s
                                    << u"invalid UTF-8"_s;
    QTest::newRow("utf8 lone continuation")
        << QByteArray("{\"name\":\"\x80\"}") << u"policy.invalid_json"_s << u"invalid UTF-8"_s;
    QTest::newRow("utf8 in key") << QByteArray("{\"\xfe\":1}") << u"policy.invalid_json"_s
                                 << u"invalid UTF-8 in a string (line 1, column 3)"_s;
    QTest::newRow("utf8 at end") << QByteArray("{}\xc3") << u"policy.invalid_json"_s
                                 << u"unexpected data after the document (line 1, column 3)"_s;

    // Duplicate keys: QJsonDocument would keep the last one silently.
    QTest::newRow("duplicate top") << QByteArray(R"({"name":"a","name":"b"})") << u"policy.duplicate_key"_s
                                   << u"name: duplicate key"_s;
    QTest::newRow("duplicate escaped") << QByteArray(R"({"name":"a","\u006eame":"b"})")
                                       << u"policy.duplicate_key"_s << u"name: duplicate key"_s;
    QTest::newRow("duplicate limits") << QByteArray(R"({"limits":{"pids":1,"pids":2}})")
                                      << u"policy.duplicate_key"_s << u"limits.pids: duplicate key"_s;
    QTest::newRow("duplicate env") << QByteArray(R"({"env":{"A":"1","A":"2"}})") << u"policy.duplicate_key"_s
                                   << u"env.A: duplicate key"_s;
    QTest::newRow("duplicate in rule")
        << withAllowlist(R"({"domain":"a.example","domain":"b.example"})") << u"policy.duplicate_key"_s
        << u"network_policy.allowed_domains[0].domain: duplicate key"_s;
    QTest::newRow("duplicate in mount")
        << QByteArray(R"({"mounts":[{"host":"/a","target":"/mnt/a","target":"/mnt/b"}]})")
        << u"policy.duplicate_key"_s << u"mounts[0].target: duplicate key"_s;
    QTest::newRow("duplicate deep unknown")
        << QByteArray(R"({"x":{"y":1,"y":2}})") << u"policy.duplicate_key"_s << u"x.y: duplicate key"_s;

    // Unknown keys at every level.
    QTest::newRow("unknown top") << QByteArray(R"({"nmae":"x"})") << u"policy.unknown_key"_s
                                 << u"nmae: unknown key"_s;
    QTest::newRow("unknown top odd name")
        << QByteArray(R"({"a b":1})") << u"policy.unknown_key"_s << u"[\"a b\"]: unknown key"_s;
    QTest::newRow("unknown expires_after")
        << QByteArray(R"({"expires_after":{"minute":5}})") << u"policy.unknown_key"_s
        << u"expires_after.minute: unknown key"_s;
    QTest::newRow("unknown network_policy")
        << QByteArray(R"({"network_policy":{"type":"disabled","allowed":[]}})") << u"policy.unknown_key"_s
        << u"network_policy.allowed: unknown key"_s;
    QTest::newRow("unknown rule key")
        << withAllowlist(R"({"domain":"pypi.org","port":[443]})") << u"policy.unknown_key"_s
        << u"network_policy.allowed_domains[0].port: unknown key"_s;
    QTest::newRow("unknown limits") << QByteArray(R"({"limits":{"cpu":1}})") << u"policy.unknown_key"_s
                                    << u"limits.cpu: unknown key"_s;
    QTest::newRow("unknown mount key")
        << QByteArray(R"({"mounts":[{"host":"/a","target":"/mnt/a","readonly":true}]})")
        << u"policy.unknown_key"_s << u"mounts[0].readonly: unknown key"_s;
    QTest::newRow("unknown key case")
        << QByteArray(R"({"Name":"x"})") << u"policy.unknown_key"_s << u"Name: unknown key"_s;

    // Wrong types.
    QTest::newRow("name integer") << QByteArray(R"({"name":5})") << u"policy.wrong_type"_s
                                  << u"name: must be a string, got integer"_s;
    QTest::newRow("name null") << QByteArray(R"({"name":null})") << u"policy.wrong_type"_s
                               << u"name: must be a string, got null"_s;
    QTest::newRow("memory bool") << QByteArray(R"({"memory_limit":true})") << u"policy.wrong_type"_s
                                 << u"memory_limit: must be a tier string"_s;
    QTest::newRow("memory fraction") << QByteArray(R"({"memory_limit":1.5})") << u"policy.wrong_type"_s
                                     << u"got 1.5"_s;
    QTest::newRow("memory array") << QByteArray(R"({"memory_limit":["1g"]})") << u"policy.wrong_type"_s
                                  << u"got array"_s;
    QTest::newRow("expires_after array") << QByteArray(R"({"expires_after":[]})") << u"policy.wrong_type"_s
                                         << u"expires_after: must be an object, got array"_s;
    QTest::newRow("minutes string") << QByteArray(R"({"expires_after":{"minutes":"20"}})")
                                    << u"policy.wrong_type"_s
                                    << u"expires_after.minutes: must be an integer, got string"_s;
    QTest::newRow("anchor integer") << QByteArray(R"({"expires_after":{"anchor":1}})")
                                    << u"policy.wrong_type"_s << u"expires_after.anchor: must be a string"_s;
    QTest::newRow("network string") << QByteArray(R"({"network_policy":"disabled"})")
                                    << u"policy.wrong_type"_s
                                    << u"network_policy: must be an object, got string"_s;
    QTest::newRow("network type integer")
        << QByteArray(R"({"network_policy":{"type":1}})") << u"policy.wrong_type"_s
        << u"network_policy.type: must be a string"_s;
    QTest::newRow("allowed_domains string")
        << QByteArray(R"({"network_policy":{"type":"allowlist","allowed_domains":"pypi.org"}})")
        << u"policy.wrong_type"_s << u"network_policy.allowed_domains: must be an array, got string"_s;
    QTest::newRow("domain entry integer")
        << withAllowlist("5") << u"policy.wrong_type"_s
        << u"network_policy.allowed_domains[0]: must be a domain string or a rule object, got integer"_s;
    QTest::newRow("domain entry array")
        << withAllowlist(R"(["pypi.org"])") << u"policy.wrong_type"_s
        << u"allowed_domains[0]: must be a domain string or a rule object, got array"_s;
    QTest::newRow("rule domain integer") << withAllowlist(R"({"domain":1})") << u"policy.wrong_type"_s
                                         << u"allowed_domains[0].domain: must be a string"_s;
    QTest::newRow("ports not array") << withAllowlist(R"({"domain":"a.example","ports":443})")
                                     << u"policy.wrong_type"_s
                                     << u"allowed_domains[0].ports: must be an array, got integer"_s;
    QTest::newRow("port string") << withAllowlist(R"({"domain":"a.example","ports":["443"]})")
                                 << u"policy.wrong_type"_s
                                 << u"allowed_domains[0].ports[0]: must be an integer, got string"_s;
    QTest::newRow("port fraction") << withAllowlist(R"({"domain":"a.example","ports":[80,443.5]})")
                                   << u"policy.wrong_type"_s
                                   << u"allowed_domains[0].ports[1]: must be an integer, got 443.5"_s;
    QTest::newRow("method integer") << withAllowlist(R"({"domain":"a.example","methods":[1]})")
                                    << u"policy.wrong_type"_s
                                    << u"allowed_domains[0].methods[0]: must be a string"_s;
    QTest::newRow("path_prefixes string")
        << withAllowlist(R"({"domain":"a.example","path_prefixes":"/x"})") << u"policy.wrong_type"_s
        << u"allowed_domains[0].path_prefixes: must be an array"_s;
    QTest::newRow("allow_private string")
        << withAllowlist(R"({"domain":"a.example","allow_private_addresses":"yes"})")
        << u"policy.wrong_type"_s
        << u"allowed_domains[0].allow_private_addresses: must be true or false, got string"_s;
    QTest::newRow("limits integer") << QByteArray(R"({"limits":5})") << u"policy.wrong_type"_s
                                    << u"limits: must be an object, got integer"_s;
    QTest::newRow("pids 1.5") << withLimit("pids", "1.5") << u"policy.wrong_type"_s
                              << u"limits.pids: must be an integer, got 1.5"_s;
    QTest::newRow("pids string") << withLimit("pids", R"("256")") << u"policy.wrong_type"_s
                                 << u"limits.pids: must be an integer, got string"_s;
    QTest::newRow("pids bool") << withLimit("pids", "true") << u"policy.wrong_type"_s << u"got boolean"_s;
    QTest::newRow("pids null") << withLimit("pids", "null") << u"policy.wrong_type"_s << u"got null"_s;
    QTest::newRow("run_timeout_s 0.5") << withLimit("run_timeout_s", "0.5") << u"policy.wrong_type"_s
                                       << u"limits.run_timeout_s: must be an integer"_s;
    QTest::newRow("tmp_mb 1e-1") << withLimit("tmp_mb", "1e-1") << u"policy.wrong_type"_s
                                 << u"limits.tmp_mb: must be an integer"_s;
    QTest::newRow("mounts object") << QByteArray(R"({"mounts":{}})") << u"policy.wrong_type"_s
                                   << u"mounts: must be an array, got object"_s;
    QTest::newRow("mount string") << QByteArray(R"({"mounts":["/a:/mnt/a"]})") << u"policy.wrong_type"_s
                                  << u"mounts[0]: must be an object, got string"_s;
    QTest::newRow("mount host integer")
        << withMount("1", R"("/mnt/a")") << u"policy.wrong_type"_s << u"mounts[0].host: must be a string"_s;
    QTest::newRow("mount read_only string")
        << QByteArray(R"({"mounts":[{"host":"/a","target":"/mnt/a","read_only":"true"}]})")
        << u"policy.wrong_type"_s << u"mounts[0].read_only: must be true or false"_s;
    QTest::newRow("env array") << QByteArray(R"({"env":[]})") << u"policy.wrong_type"_s
                               << u"env: must be an object, got array"_s;
    QTest::newRow("env value integer") << QByteArray(R"({"env":{"A":1}})") << u"policy.wrong_type"_s
                                       << u"env.A: must be a string, got integer"_s;
    QTest::newRow("env value null") << QByteArray(R"({"env":{"A":null}})") << u"policy.wrong_type"_s
                                    << u"env.A: must be a string, got null"_s;
    QTest::newRow("ptrace integer") << QByteArray(R"({"allow_ptrace":1})") << u"policy.wrong_type"_s
                                    << u"allow_ptrace: must be true or false, got integer"_s;
    QTest::newRow("ptrace string") << QByteArray(R"({"allow_ptrace":"false"})") << u"policy.wrong_type"_s
                                   << u"allow_ptrace: must be true or false, got string"_s;

    // Name.
    QTest::newRow("name empty") << QByteArray(R"({"name":""})") << u"policy.out_of_range"_s
                                << u"name: must not be empty"_s;
    QTest::newRow("name 65 chars") << QByteArray(R"({"name":")" + QByteArray(65, 'n') + R"("})")
                                   << u"policy.out_of_range"_s
                                   << u"name: must be at most 64 characters, got 65"_s;
    QTest::newRow("name space") << QByteArray(R"({"name":"a b"})") << u"policy.invalid_name"_s
                                << u"name: may only contain"_s;
    QTest::newRow("name slash") << QByteArray(R"({"name":"a/b"})") << u"policy.invalid_name"_s << u"name:"_s;
    // The escape is decoded, not passed through: "a\/b" is "a/b".
    QTest::newRow("name escaped slash")
        << QByteArray(R"({"name":"a\/b"})") << u"policy.invalid_name"_s << u"got \"a/b\""_s;
    QTest::newRow("name non-ascii") << QByteArray(R"({"name":"caf\u00e9"})") << u"policy.invalid_name"_s
                                    << u"name:"_s;
    QTest::newRow("name NUL") << QByteArray(R"({"name":"a\u0000"})") << u"policy.invalid_name"_s
                              << u"\\u0000"_s;
    QTest::newRow("name dot") << QByteArray(R"({"name":"."})") << u"policy.invalid_name"_s
                              << u"name: must not be \".\" or \"..\""_s;
    QTest::newRow("name dotdot") << QByteArray(R"({"name":".."})") << u"policy.invalid_name"_s << u"name:"_s;

    // Memory.
    for (const char *text : {"2g", "1gb", "1GiB", "1 g", " 1g", "1g ", "g", "", "-1", "0", "1.5g", "1024m",
                             "67108863", "68719476737", "0x40000000", "99999999999999999999"})
        QTest::addRow("memory \"%s\"", text)
            << QByteArray(R"({"memory_limit":")" + QByteArray(text) + R"("})")
            << u"policy.invalid_memory_limit"_s << u"memory_limit: must be one of 1g, 4g, 16g, 64g"_s;
    QTest::newRow("memory full-width digit") << QByteArray(R"({"memory_limit":"\uff11g"})")
                                             << u"policy.invalid_memory_limit"_s << u"memory_limit:"_s;
    QTest::newRow("memory integer low")
        << QByteArray(R"({"memory_limit":67108863})") << u"policy.invalid_memory_limit"_s
        << u"memory_limit: must be one of 1g, 4g, 16g, 64g, or a byte count between 67108864 and 68719476736, got 67108863"_s;
    QTest::newRow("memory integer high") << QByteArray(R"({"memory_limit":68719476737})")
                                         << u"policy.invalid_memory_limit"_s << u"got 68719476737"_s;
    QTest::newRow("memory integer negative") << QByteArray(R"({"memory_limit":-1073741824})")
                                             << u"policy.invalid_memory_limit"_s << u"memory_limit:"_s;
    QTest::newRow("memory 1e300")
        << QByteArray(R"({"memory_limit":1e300})") << u"policy.invalid_memory_limit"_s
        << u"memory_limit: must be one of 1g, 4g, 16g, 64g, or a byte count between 67108864 and 68719476736, got 1.0000000000000001e+300"_s;

    // Expiry.
    QTest::newRow("minutes 0") << QByteArray(R"({"expires_after":{"minutes":0}})") << u"policy.out_of_range"_s
                               << u"expires_after.minutes: must be between 1 and 10080, got 0"_s;
    QTest::newRow("minutes 10081") << QByteArray(R"({"expires_after":{"minutes":10081}})")
                                   << u"policy.out_of_range"_s
                                   << u"expires_after.minutes: must be between 1 and 10080, got 10081"_s;
    QTest::newRow("anchor other")
        << QByteArray(R"({"expires_after":{"anchor":"created_at"}})") << u"policy.invalid_value"_s
        << u"expires_after.anchor: must be \"last_active_at\", got \"created_at\""_s;

    // Limits, each bound just outside.
    const struct
    {
        const char *key;
        qint64 min;
        qint64 max;
    } limits[] = {{"run_timeout_s", 1, 86400},
                  {"pids", 1, 65536},
                  {"tmp_mb", 1, 65536},
                  {"workspace_mb", 1, 1048576},
                  {"output_mb", 1, 4096}};
    for (const auto &limit : limits) {
        for (qint64 value : {limit.min - 1, limit.max + 1, qint64(-1)}) {
            QTest::addRow("limits.%s %lld", limit.key, static_cast<long long>(value))
                << withLimit(limit.key, QByteArray::number(value)) << u"policy.out_of_range"_s
                << u"limits.%1: must be between %2 and %3, got %4"_s.arg(QLatin1StringView(limit.key))
                       .arg(limit.min)
                       .arg(limit.max)
                       .arg(value);
        }
    }
    QTest::newRow("pids int64 max") << withLimit("pids", "9223372036854775807") << u"policy.out_of_range"_s
                                    << u"got 9223372036854775807"_s;
    QTest::newRow("pids beyond int64") << withLimit("pids", "9223372036854775808") << u"policy.out_of_range"_s
                                       << u"limits.pids: must be between 1 and 65536"_s;
    QTest::newRow("pids 1e300") << withLimit("pids", "1e300") << u"policy.out_of_range"_s
                                << u"limits.pids: must be between 1 and 65536, got 1.0000000000000001e+300"_s;
    QTest::newRow("pids -0") << withLimit("pids", "-0") << u"policy.out_of_range"_s << u"got 0"_s;

    // Mounts.
    QTest::newRow("33 mounts") << QByteArray(R"({"mounts":[)" +
                                             commaList(33,
                                                       [](int i) -> QByteArray {
                                                           return R"({"host":"/h","target":"/mnt/m)" +
                                                                  QByteArray::number(i) + R"("})";
                                                       }) +
                                             "]}")
                               << u"policy.out_of_range"_s
                               << u"mounts: must have at most 32 entries, got 33"_s;
    QTest::newRow("mount missing host") << QByteArray(R"({"mounts":[{"target":"/mnt/a"}]})")
                                        << u"policy.missing_key"_s << u"mounts[0].host: is required"_s;
    QTest::newRow("mount missing target") << QByteArray(R"({"mounts":[{"host":"/a"}]})")
                                          << u"policy.missing_key"_s << u"mounts[0].target: is required"_s;
    QTest::newRow("host relative") << withMount(R"("data")", R"("/mnt/a")") << u"policy.invalid_mount"_s
                                   << u"mounts[0].host: must be an absolute path, got \"data\""_s;
    QTest::newRow("host empty") << withMount(R"("")", R"("/mnt/a")") << u"policy.invalid_mount"_s
                                << u"mounts[0].host: must not be empty"_s;
    QTest::newRow("host dotdot") << withMount(R"("/opt/../etc")", R"("/mnt/a")") << u"policy.invalid_mount"_s
                                 << u"mounts[0].host: must not contain \"..\""_s;
    QTest::newRow("host trailing dotdot")
        << withMount(R"("/opt/..")", R"("/mnt/a")") << u"policy.invalid_mount"_s << u"mounts[0].host"_s;
    QTest::newRow("host NUL") << withMount(R"("/opt/a\u0000b")", R"("/mnt/a")") << u"policy.invalid_mount"_s
                              << u"mounts[0].host: contains a control character"_s;
    QTest::newRow("host newline") << withMount(R"("/opt/a\nb")", R"("/mnt/a")") << u"policy.invalid_mount"_s
                                  << u"mounts[0].host: contains a control character"_s;
    QTest::newRow("host too long") << withMount('"' + QByteArray(4096, '/') + '"', R"("/mnt/a")")
                                   << u"policy.out_of_range"_s
                                   << u"mounts[0].host: must be at most 4095 characters"_s;
    QTest::newRow("target /mnt")
        << withMount(R"("/a")", R"("/mnt")") << u"policy.invalid_mount"_s
        << u"mounts[0].target: must be a directory under /mnt/ or /opt/, got \"/mnt\""_s;
    QTest::newRow("target /mnt/") << withMount(R"("/a")", R"("/mnt/")") << u"policy.invalid_mount"_s
                                  << u"mounts[0].target: must be a directory under /mnt/ or /opt/"_s;
    QTest::newRow("target /opt") << withMount(R"("/a")", R"("/opt")") << u"policy.invalid_mount"_s
                                 << u"mounts[0].target"_s;
    QTest::newRow("target /") << withMount(R"("/a")", R"("/")") << u"policy.invalid_mount"_s
                              << u"mounts[0].target"_s;
    QTest::newRow("target /tmp/x") << withMount(R"("/a")", R"("/tmp/x")") << u"policy.invalid_mount"_s
                                   << u"mounts[0].target"_s;
    QTest::newRow("target /etc") << withMount(R"("/a")", R"("/etc")") << u"policy.invalid_mount"_s
                                 << u"mounts[0].target"_s;
    QTest::newRow("target /mntx/a") << withMount(R"("/a")", R"("/mntx/a")") << u"policy.invalid_mount"_s
                                    << u"mounts[0].target"_s;
    QTest::newRow("target relative") << withMount(R"("/a")", R"("mnt/a")") << u"policy.invalid_mount"_s
                                     << u"mounts[0].target: must be an absolute path"_s;
    QTest::newRow("target /mnt/data") << withMount(R"("/a")", R"("/mnt/data")") << u"policy.invalid_mount"_s
                                      << u"mounts[0].target: /mnt/data is the workspace"_s;
    QTest::newRow("target /mnt/data/") << withMount(R"("/a")", R"("/mnt/data/")") << u"policy.invalid_mount"_s
                                       << u"/mnt/data is the workspace"_s;
    QTest::newRow("target /mnt//data") << withMount(R"("/a")", R"("/mnt//data")") << u"policy.invalid_mount"_s
                                       << u"/mnt/data is the workspace"_s;
    QTest::newRow("target /mnt/./data") << withMount(R"("/a")", R"("/mnt/./data")")
                                        << u"policy.invalid_mount"_s << u"/mnt/data is the workspace"_s;
    QTest::newRow("target beneath data") << withMount(R"("/a")", R"("/mnt/data/inputs")")
                                         << u"policy.invalid_mount"_s << u"/mnt/data is the workspace"_s;
    QTest::newRow("target dotdot") << withMount(R"("/a")", R"("/mnt/x/../data")") << u"policy.invalid_mount"_s
                                   << u"mounts[0].target: must not contain \"..\""_s;
    QTest::newRow("duplicate target")
        << QByteArray(R"({"mounts":[{"host":"/a","target":"/mnt/a"},{"host":"/b","target":"/mnt/a/"}]})")
        << u"policy.invalid_mount"_s << u"mounts[1].target: \"/mnt/a\" is already a mount target"_s;
    QTest::newRow("nested targets")
        << QByteArray(R"({"mounts":[{"host":"/a","target":"/mnt/a"},{"host":"/b","target":"/mnt/a/b"}]})")
        << u"policy.invalid_mount"_s << u"mounts[1].target: \"/mnt/a/b\" and \"/mnt/a\" are nested"_s;
    QTest::newRow("nested targets reversed")
        << QByteArray(R"({"mounts":[{"host":"/a","target":"/opt/a/b"},{"host":"/b","target":"/opt/a"}]})")
        << u"policy.invalid_mount"_s << u"mounts[1].target"_s;

    // Environment.
    QTest::newRow("129 env") << QByteArray(R"({"env":{)" +
                                           commaList(129,
                                                     [](int i) -> QByteArray {
                                                         return R"("V)" + QByteArray::number(i) + R"(":"x")";
                                                     }) +
                                           "}}")
                             << u"policy.out_of_range"_s
                             << u"env: must have at most 128 variables, got 129"_s;
    QTest::newRow("env name digit first") << QByteArray(R"({"env":{"1A":"x"}})") << u"policy.invalid_env"_s
                                          << u"env[\"1A\"]: the name must match"_s;
    QTest::newRow("env name dash") << QByteArray(R"({"env":{"A-B":"x"}})") << u"policy.invalid_env"_s
                                   << u"env[\"A-B\"]"_s;
    QTest::newRow("env name equals") << QByteArray(R"({"env":{"A=B":"x"}})") << u"policy.invalid_env"_s
                                     << u"env[\"A=B\"]"_s;
    QTest::newRow("env name empty") << QByteArray(R"({"env":{"":"x"}})") << u"policy.invalid_env"_s
                                    << u"env[\"\"]"_s;
    QTest::newRow("env name non-ascii")
        << QByteArray(R"({"env":{"\u00c4":"x"}})") << u"policy.invalid_env"_s << u"env["_s;
    QTest::newRow("env name too long")
        << QByteArray(R"({"env":{")" + QByteArray(257, 'A') + R"(":"x"}})") << u"policy.out_of_range"_s
        << u"the name must be at most 256 characters"_s;
    QTest::newRow("env value NUL") << QByteArray(R"({"env":{"A":"x\u0000y"}})") << u"policy.invalid_env"_s
                                   << u"env.A: the value contains a NUL character"_s;
    QTest::newRow("env value 32 KiB + 1")
        << QByteArray(R"({"env":{"A":")" + QByteArray(32 * 1024 + 1, 'v') + R"("}})")
        << u"policy.out_of_range"_s << u"env.A: must be at most 32768 characters, got 32769"_s;
    QTest::newRow("env value bytes") << QByteArray(R"({"env":{"A":")" +
                                                   QByteArray("\xe2\x82\xac").repeated(11000) + R"("}})")
                                     << u"policy.out_of_range"_s
                                     << u"env.A: the value must be at most 32768 bytes, got 33000"_s;

    // Secrets: names only, each variable from one source.
    QTest::newRow("secrets not an array") << QByteArray(R"({"secrets":{"name":"A"}})")
                                          << u"policy.wrong_type"_s << u"secrets: must be an array"_s;
    QTest::newRow("secret without name")
        << QByteArray(R"({"secrets":[{"env":"A"}]})") << u"policy.missing_key"_s << u"secrets[0]"_s;
    QTest::newRow("secret with a value") << QByteArray(R"({"secrets":[{"name":"A","value":"v"}]})")
                                         << u"policy.unknown_key"_s << u"secrets[0]"_s;
    QTest::newRow("secret name dash") << QByteArray(R"({"secrets":[{"name":"A-B"}]})")
                                      << u"policy.invalid_secret"_s << u"secrets[0].name: must match"_s;
    QTest::newRow("secret name too long")
        << QByteArray(R"({"secrets":[{"name":")" + QByteArray(129, 'A') + R"("}]})")
        << u"policy.out_of_range"_s << u"secrets[0].name"_s;
    QTest::newRow("secret env digit first") << QByteArray(R"({"secrets":[{"name":"A","env":"1A"}]})")
                                            << u"policy.invalid_secret"_s << u"secrets[0].env: must match"_s;
    QTest::newRow("secret env twice")
        << QByteArray(R"({"secrets":[{"name":"A","env":"X"},{"name":"B","env":"X"}]})")
        << u"policy.invalid_secret"_s << u"secrets[1]: variable X already receives secret A"_s;
    QTest::newRow("secret env also in env")
        << QByteArray(R"({"env":{"A":"1"},"secrets":[{"name":"A"}]})") << u"policy.invalid_secret"_s
        << u"secrets[0]: variable A is also set in env"_s;
    QTest::newRow("65 secrets") << QByteArray("{\"secrets\":[" +
                                              commaList(65,
                                                        [](int i) -> QByteArray {
                                                            return R"({"name":"S)" + QByteArray::number(i) +
                                                                   R"("})";
                                                        }) +
                                              "]}")
                                << u"policy.out_of_range"_s << u"secrets"_s;

    // Domain secrets.
    const QByteArray api = R"("allowed_domains":["api.example.com"])";
    QTest::newRow("domain secret with a value")
        << QByteArray(R"({"network_policy":{"type":"allowlist",)" + api +
                      R"(,"domain_secrets":[{"domain":"api.example.com","name":"T","value":"v"}]}})")
        << u"policy.invalid_secret"_s << u"domain_secrets[0].value: a policy never holds a secret's value"_s;
    QTest::newRow("domain secret unlisted domain")
        << QByteArray(R"({"network_policy":{"type":"allowlist",)" + api +
                      R"(,"domain_secrets":[{"domain":"evil.example.net","name":"T"}]}})")
        << u"policy.invalid_secret"_s
        << u"domain_secrets[0]: secret T goes to evil.example.net, which allowed_domains does not allow"_s;
    QTest::newRow("domain secret address")
        << QByteArray(R"({"network_policy":{"type":"allowlist","allowed_domains":["192.0.2.1"],)"
                      R"("domain_secrets":[{"domain":"192.0.2.1","name":"T"}]}})")
        << u"policy.invalid_secret"_s << u"must be a host name, not an address"_s;
    QTest::newRow("domain secret bad name")
        << QByteArray(R"({"network_policy":{"type":"allowlist",)" + api +
                      R"(,"domain_secrets":[{"domain":"api.example.com","name":"A-B"}]}})")
        << u"policy.invalid_secret"_s << u"domain_secrets[0].name: must match"_s;
    QTest::newRow("domain secret twice")
        << QByteArray(R"({"network_policy":{"type":"allowlist",)" + api +
                      R"(,"domain_secrets":[{"domain":"api.example.com","name":"T"},)"
                      R"({"domain":"API.example.com.","name":"T"}]}})")
        << u"policy.invalid_secret"_s << u"domain_secrets[1]: secret T for api.example.com is listed twice"_s;
    QTest::newRow("domain secret variable also in env")
        << QByteArray(R"({"env":{"T":"1"},"network_policy":{"type":"allowlist",)" + api +
                      R"(,"domain_secrets":[{"domain":"api.example.com","name":"T"}]}})")
        << u"policy.invalid_secret"_s << u"variable T would hold the domain secret's placeholder"_s;
    QTest::newRow("domain secret header not a token")
        << QByteArray(
               R"({"network_policy":{"type":"allowlist",)" + api +
               R"(,"domain_secrets":[{"domain":"api.example.com","name":"T","header":"X-Key: 1\r\nA"}]}})")
        << u"policy.invalid_secret"_s
        << u"domain_secrets[0].header: must be a header field name of letters, digits and '-'"_s;
    QTest::newRow("domain secret two headers")
        << QByteArray(
               R"({"network_policy":{"type":"allowlist","allowed_domains":["a.example.com","b.example.com"],)"
               R"("domain_secrets":[{"domain":"a.example.com","name":"T"},)"
               R"({"domain":"b.example.com","name":"T","header":"X-Api-Key"}]}})")
        << u"policy.invalid_secret"_s
        << u"domain_secrets[1]: secret T goes into header X-Api-Key here and Authorization above"_s;
    QTest::newRow("domain secret disabled")
        << QByteArray(R"({"network_policy":{"type":"disabled",)"
                      R"("domain_secrets":[{"domain":"api.example.com","name":"T"}]}})")
        << u"policy.invalid_value"_s << u"domain_secrets: must be empty"_s;

    // Network policy.
    QTest::newRow("type missing") << QByteArray(R"({"network_policy":{}})") << u"policy.missing_key"_s
                                  << u"network_policy.type: is required"_s;
    QTest::newRow("type missing with domains")
        << QByteArray(R"({"network_policy":{"allowed_domains":["pypi.org"]}})") << u"policy.missing_key"_s
        << u"network_policy.type: is required"_s;
    QTest::newRow("type open")
        << QByteArray(R"({"network_policy":{"type":"open"}})") << u"policy.invalid_value"_s
        << u"network_policy.type: must be \"disabled\" or \"allowlist\", got \"open\""_s;
    QTest::newRow("type case") << QByteArray(R"({"network_policy":{"type":"Allowlist"}})")
                               << u"policy.invalid_value"_s << u"network_policy.type"_s;
    QTest::newRow("disabled with domains")
        << QByteArray(R"({"network_policy":{"type":"disabled","allowed_domains":["pypi.org"]}})")
        << u"policy.invalid_value"_s
        << u"network_policy.allowed_domains: must be empty when type is \"disabled\""_s;
    QTest::newRow("257 domains")
        << withAllowlist(commaList(
               257, [](int i) -> QByteArray { return R"("d)" + QByteArray::number(i) + R"(.example")"; }))
        << u"policy.out_of_range"_s
        << u"network_policy.allowed_domains: must have at most 256 entries, got 257"_s;
    QTest::newRow("duplicate rule")
        << withAllowlist(R"("pypi.org","PYPI.ORG.")") << u"policy.invalid_domain"_s
        << u"network_policy.allowed_domains[1]: the rule for \"pypi.org\" is listed twice"_s;
    QTest::newRow("bad domain string")
        << withAllowlist(R"("pypi.org","www*.com")") << u"policy.invalid_domain"_s
        << u"network_policy.allowed_domains[1]: \"www*.com\": a wildcard is only allowed"_s;
    QTest::newRow("domain string too long")
        << withAllowlist('"' + QByteArray(513, 'a') + '"') << u"policy.out_of_range"_s
        << u"network_policy.allowed_domains[0]: must be at most 512 characters"_s;
    QTest::newRow("rule missing domain") << withAllowlist(R"({"ports":[443]})") << u"policy.missing_key"_s
                                         << u"network_policy.allowed_domains[0].domain: is required"_s;
    QTest::newRow("rule bad domain")
        << withAllowlist(R"({"domain":"127.1"})") << u"policy.invalid_domain"_s
        << u"network_policy.allowed_domains[0].domain: \"127.1\": is not a canonical IPv4 address"_s;
    QTest::newRow("rule domain with port")
        << withAllowlist(R"({"domain":"a.example:443"})") << u"policy.invalid_domain"_s
        << u"allowed_domains[0].domain: put the port in \"ports\""_s;
    QTest::newRow("rule port 0") << withAllowlist(R"({"domain":"a.example","ports":[0]})")
                                 << u"policy.out_of_range"_s
                                 << u"allowed_domains[0].ports[0]: must be between 1 and 65535, got 0"_s;
    QTest::newRow("rule port 65536")
        << withAllowlist(R"({"domain":"a.example","ports":[65536]})") << u"policy.out_of_range"_s
        << u"allowed_domains[0].ports[0]: must be between 1 and 65535, got 65536"_s;
    QTest::newRow("rule duplicate port")
        << withAllowlist(R"({"domain":"a.example","ports":[443,443]})") << u"policy.invalid_domain"_s
        << u"allowed_domains[0].ports[1]: port 443 is listed twice"_s;
    QTest::newRow("rule 65 ports")
        << withAllowlist(R"({"domain":"a.example","ports":[)" +
                         commaList(65, [](int i) -> QByteArray { return QByteArray::number(i + 1); }) + "]}")
        << u"policy.out_of_range"_s << u"allowed_domains[0].ports: must have at most 64 entries, got 65"_s;
    QTest::newRow("rule unknown method")
        << withAllowlist(R"({"domain":"a.example","methods":["GET","FETCH"]})") << u"policy.invalid_domain"_s
        << u"allowed_domains[0].methods[1]: unknown HTTP method \"FETCH\""_s;
    QTest::newRow("rule CONNECT") << withAllowlist(R"({"domain":"a.example","methods":["CONNECT"]})")
                                  << u"policy.invalid_domain"_s
                                  << u"allowed_domains[0].methods[0]: unknown HTTP method"_s;
    QTest::newRow("rule method with space") << withAllowlist(R"({"domain":"a.example","methods":["GET "]})")
                                            << u"policy.invalid_domain"_s << u"methods[0]"_s;
    QTest::newRow("rule duplicate method")
        << withAllowlist(R"({"domain":"a.example","methods":["get","GET"]})") << u"policy.invalid_domain"_s
        << u"allowed_domains[0].methods[1]: method GET is listed twice"_s;
    QTest::newRow("rule prefix no slash")
        << withAllowlist(R"({"domain":"a.example","path_prefixes":["simple/"]})")
        << u"policy.invalid_domain"_s
        << u"allowed_domains[0].path_prefixes[0]: path prefix \"simple/\": must start with \"/\""_s;
    QTest::newRow("rule prefix dotdot")
        << withAllowlist(R"({"domain":"a.example","path_prefixes":["/simple/../admin"]})")
        << u"policy.invalid_domain"_s
        << u"path_prefixes[0]: path prefix \"/simple/../admin\": must not contain"_s;
    QTest::newRow("rule prefix space") << withAllowlist(R"({"domain":"a.example","path_prefixes":["/a b"]})")
                                       << u"policy.invalid_domain"_s << u"path_prefixes[0]"_s;
    QTest::newRow("rule prefix query") << withAllowlist(R"({"domain":"a.example","path_prefixes":["/a?b"]})")
                                       << u"policy.invalid_domain"_s << u"path_prefixes[0]"_s;
    QTest::newRow("rule prefix backslash")
        << withAllowlist(R"({"domain":"a.example","path_prefixes":["/a\\b"]})") << u"policy.invalid_domain"_s
        << u"path_prefixes[0]"_s;
    QTest::newRow("rule prefix bad escape")
        << withAllowlist(R"({"domain":"a.example","path_prefixes":["/a%zz"]})") << u"policy.invalid_domain"_s
        << u"path_prefixes[0]"_s;
    QTest::newRow("rule prefix non-ascii")
        << withAllowlist(R"({"domain":"a.example","path_prefixes":["/\u00e9"]})")
        << u"policy.invalid_domain"_s << u"path_prefixes[0]"_s;
    QTest::newRow("rule duplicate prefix")
        << withAllowlist(R"({"domain":"a.example","path_prefixes":["/a","/a"]})")
        << u"policy.invalid_domain"_s << u"path_prefixes[1]: path prefix is listed twice"_s;
    QTest::newRow("rule prefix too long")
        << withAllowlist(R"({"domain":"a.example","path_prefixes":["/)" + QByteArray(1024, 'a') + R"("]})")
        << u"policy.out_of_range"_s << u"path_prefixes[0]: must be at most 1024 characters"_s;

    // Structure caps.
    QTest::newRow("object with 1025 keys")
        << QByteArray(
               R"({"env":{)" +
               commaList(1025,
                         [](int i) -> QByteArray { return R"("K)" + QByteArray::number(i) + R"(":"x")"; }) +
               "}}")
        << u"policy.too_large"_s << u"env: too many members in one object"_s;
    QTest::newRow("array with 1025 entries")
        << QByteArray(R"({"mounts":[)" + commaList(1025, [](int) { return QByteArray("0"); }) + "]}")
        << u"policy.too_large"_s << u"mounts: too many items in one array"_s;
}

void TestPolicy::rejected()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, code);
    QFETCH(QString, message);
    const auto policy = parsePolicy(json);
    QVERIFY2(!policy, json.left(200).constData());
    QCOMPARE(Cordon::toQt(policy.error().code()), code);
    QVERIFY2(Cordon::toQt(policy.error().message()).contains(message), policy.error().message().c_str());
}

void TestPolicy::exactMessages_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("message");
    QTest::newRow("bound") << withLimit("pids", "0") << u"limits.pids: must be between 1 and 65536, got 0"_s;
    QTest::newRow("fraction") << withLimit("pids", "1.5") << u"limits.pids: must be an integer, got 1.5"_s;
    QTest::newRow("unknown key")
        << QByteArray(R"({"limits":{"cpu":1}})")
        << u"limits.cpu: unknown key (known keys: output_mb, pids, run_timeout_s, tmp_mb, workspace_mb)"_s;
    QTest::newRow("duplicate") << QByteArray(R"({"name":"a","name":"b"})")
                               << u"name: duplicate key (line 1, column 13)"_s;
    QTest::newRow("memory")
        << QByteArray(R"({"memory_limit":"2g"})")
        << u"memory_limit: must be one of 1g, 4g, 16g, 64g, or a byte count between 67108864 and 68719476736, got \"2g\""_s;
    QTest::newRow("domain")
        << withAllowlist(R"("www*.com")")
        << u"network_policy.allowed_domains[0]: \"www*.com\": a wildcard is only allowed as a whole leftmost label, as in \"*.example.org\""_s;
    QTest::newRow("hostile key quoted")
        << QByteArray(R"({"x\n\u0000\"":1})")
        << u"[\"x\\u000a\\u0000\\\"\"]: unknown key (known keys: allow_ptrace, artifact_scan, env, expires_after, limits, memory_limit, mounts, name, network_policy, secrets)"_s;
    QTest::newRow("too deep")
        << nested(16)
        << u"env.A[0][0][0][0][0][0][0][0][0][0][0][0][0][0]: nested deeper than 16 levels (line 1, column 27)"_s;
}

void TestPolicy::exactMessages()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, message);
    const auto policy = parsePolicy(json);
    QVERIFY(!policy);
    QCOMPARE(Cordon::toQt(policy.error().message()), message);
    QVERIFY(Cordon::toQt(policy.error().describe()).contains(u"docs/policy.md"_s));
}

void TestPolicy::documentSize()
{
    QVERIFY_RESULT(parsePolicy(paddedDocument(qsizetype(DocumentLimits.maxBytes))));

    const auto justOver = parsePolicy(paddedDocument(qsizetype(DocumentLimits.maxBytes) + 1));
    QVERIFY(!justOver);
    QCOMPARE(Cordon::toQt(justOver.error().code()), u"policy.too_large"_s);
    QCOMPARE(Cordon::toQt(justOver.error().message()),
             u"the document is 1048577 bytes, the limit is 1048576"_s);

    // Refused by size before anything looks at the content: this one is not even JSON.
    const auto twoMiB = parsePolicy(QByteArray(2 * 1024 * 1024, '['));
    QVERIFY(!twoMiB);
    QCOMPARE(Cordon::toQt(twoMiB.error().code()), u"policy.too_large"_s);
}

void TestPolicy::deepNesting()
{
    // The document object is level 1, env level 2, so 14 arrays reach exactly 16: parsed, then refused by
    // type.
    const auto atLimit = parsePolicy(nested(14));
    QVERIFY(!atLimit);
    QCOMPARE(Cordon::toQt(atLimit.error().code()), u"policy.wrong_type"_s);
    QVERIFY(Cordon::toQt(atLimit.error().message()).startsWith(u"env.A: must be a string, got array"_s));

    const auto overLimit = parsePolicy(nested(15));
    QVERIFY(!overLimit);
    QCOMPARE(Cordon::toQt(overLimit.error().code()), u"policy.too_deep"_s);

    // Far beyond the limit, and beyond what a recursive parser's stack would survive: still a clean error.
    const auto hostile = parsePolicy(QByteArray(500000, '['));
    QVERIFY(!hostile);
    QCOMPARE(Cordon::toQt(hostile.error().code()), u"policy.too_deep"_s);
    QVERIFY(Cordon::toQt(hostile.error().message()).contains(u"nested deeper than 16 levels"_s));

    const auto objects =
        parsePolicy(QByteArray(QByteArray(R"({"a":)").repeated(100) + "1" + QByteArray(100, '}')));
    QVERIFY(!objects);
    QCOMPARE(Cordon::toQt(objects.error().code()), u"policy.too_deep"_s);
}

void TestPolicy::memoryLimit_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<qint64>("bytes");
    QTest::newRow("1g") << u"1g"_s << qint64(1 * GiB);
    QTest::newRow("1G") << u"1G"_s << qint64(1 * GiB);
    QTest::newRow("4g") << u"4g"_s << qint64(4 * GiB);
    QTest::newRow("4G") << u"4G"_s << qint64(4 * GiB);
    QTest::newRow("16g") << u"16g"_s << qint64(16 * GiB);
    QTest::newRow("16G") << u"16G"_s << qint64(16 * GiB);
    QTest::newRow("64g") << u"64g"_s << qint64(64 * GiB);
    QTest::newRow("64G") << u"64G"_s << qint64(64 * GiB);
    QTest::newRow("min bytes") << u"67108864"_s << qint64(64 * MiB);
    QTest::newRow("max bytes") << u"68719476736"_s << qint64(64 * GiB);
    QTest::newRow("odd bytes") << u"100000000"_s << qint64(100000000);
    QTest::newRow("2g") << u"2g"_s << qint64(-1);
    QTest::newRow("8g") << u"8g"_s << qint64(-1);
    QTest::newRow("1gb") << u"1gb"_s << qint64(-1);
    QTest::newRow("1") << u"1"_s << qint64(-1);
    QTest::newRow("empty") << QString() << qint64(-1);
    QTest::newRow("below min") << u"67108863"_s << qint64(-1);
    QTest::newRow("above max") << u"68719476737"_s << qint64(-1);
    QTest::newRow("+1g") << u"+1g"_s << qint64(-1);
    QTest::newRow("01g") << u"01g"_s << qint64(-1);
    QTest::newRow("arabic digits") << u"\u0661\u0662\u0663\u0664\u0665\u0666\u0667\u0668\u0669"_s
                                   << qint64(-1);
}

void TestPolicy::memoryLimit()
{
    QFETCH(QString, text);
    QFETCH(qint64, bytes);
    const auto parsed = parseMemoryLimit(text.toStdString());
    if (bytes < 0) {
        QVERIFY(!parsed);
        QCOMPARE(Cordon::toQt(parsed.error().code()), u"policy.invalid_memory_limit"_s);
        QVERIFY(Cordon::toQt(parsed.error().message()).contains(u"1g, 4g, 16g, 64g"_s));
        return;
    }
    QVERIFY_RESULT(parsed);
    QCOMPARE(*parsed, bytes);
    // Whatever was accepted, formatting reads back to the same value.
    QCOMPARE(*parseMemoryLimit(formatMemoryLimit(bytes)), bytes);
}

void TestPolicy::formatMemory()
{
    QCOMPARE(formatMemoryLimit(1 * GiB), std::string("1g"));
    QCOMPARE(formatMemoryLimit(4 * GiB), std::string("4g"));
    QCOMPARE(formatMemoryLimit(16 * GiB), std::string("16g"));
    QCOMPARE(formatMemoryLimit(64 * GiB), std::string("64g"));
    QCOMPARE(formatMemoryLimit(2 * GiB), std::string("2147483648"));
    QCOMPARE(formatMemoryLimit(64 * MiB), std::string("67108864"));
}

void TestPolicy::domainRule_data()
{
    QTest::addColumn<QString>("entry");
    QTest::addColumn<QString>("host");
    QTest::addColumn<bool>("wildcard");
    QTest::addColumn<QList<quint16>>("ports");

    const QList<quint16> none;
    QTest::newRow("plain") << u"pypi.org"_s << u"pypi.org"_s << false << none;
    QTest::newRow("upper case and trailing dot") << u"PYPI.ORG."_s << u"pypi.org"_s << false << none;
    QTest::newRow("wildcard") << u"*.pythonhosted.org"_s << u"pythonhosted.org"_s << true << none;
    QTest::newRow("wildcard mixed case dot")
        << u"*.PythonHosted.Org."_s << u"pythonhosted.org"_s << true << none;
    QTest::newRow("port") << u"example.com:8443"_s << u"example.com"_s << false << QList<quint16>{8443};
    QTest::newRow("wildcard port") << u"*.example.com:443"_s << u"example.com"_s << true
                                   << QList<quint16>{443};
    QTest::newRow("trailing dot and port")
        << u"example.com.:80"_s << u"example.com"_s << false << QList<quint16>{80};
    QTest::newRow("port 1") << u"example.com:1"_s << u"example.com"_s << false << QList<quint16>{1};
    QTest::newRow("port 65535") << u"example.com:65535"_s << u"example.com"_s << false
                                << QList<quint16>{65535};
    QTest::newRow("punycode") << u"b\u00fccher.example"_s << u"xn--bcher-kva.example"_s << false << none;
    // Written in Punycode already: kept, once it decodes.
    QTest::newRow("a-label") << u"XN--BCHER-KVA.example"_s << u"xn--bcher-kva.example"_s << false << none;
    // ASCII labels DNS serves, which IDNA2008 alone would refuse ("--" in the third and fourth place).
    QTest::newRow("double hyphen") << u"ab--c.example"_s << u"ab--c.example"_s << false << none;
    QTest::newRow("eszett") << u"stra\u00dfe.example"_s << u"xn--strae-oqa.example"_s << false << none;
    QTest::newRow("punycode upper") << u"B\u00dcCHER.example"_s << u"xn--bcher-kva.example"_s << false
                                    << none;
    QTest::newRow("already ace") << u"xn--bcher-kva.example"_s << u"xn--bcher-kva.example"_s << false << none;
    QTest::newRow("punycode wildcard")
        << u"*.b\u00fccher.example"_s << u"xn--bcher-kva.example"_s << true << none;
    QTest::newRow("ideographic full stop") << u"pypi\u3002org"_s << u"pypi.org"_s << false << none;
    QTest::newRow("full-width full stop") << u"pypi\uff0eorg"_s << u"pypi.org"_s << false << none;
    QTest::newRow("full-width letters")
        << u"\uff50\uff59\uff50\uff49.org"_s << u"pypi.org"_s << false << none;
    QTest::newRow("full-width digits in a name")
        << u"web\uff12.example"_s << u"web2.example"_s << false << none;
    QTest::newRow("single label") << u"localhost"_s << u"localhost"_s << false << none;
    QTest::newRow("underscore") << u"_dmarc.example.com"_s << u"_dmarc.example.com"_s << false << none;
    QTest::newRow("digit label not last") << u"1.example.com"_s << u"1.example.com"_s << false << none;
    QTest::newRow("63-char label") << QString(63, u'a') + u".com"_s << QString(63, u'a') + u".com"_s << false
                                   << none;
    const QString longName =
        QString(63, u'a') + u'.' + QString(63, u'b') + u'.' + QString(63, u'c') + u'.' + QString(61, u'd');
    QTest::newRow("253-char name") << longName << longName << false << none;
    QTest::newRow("253-char name with dot") << longName + u'.' << longName << false << none;
    QTest::newRow("ipv4") << u"127.0.0.1"_s << u"127.0.0.1"_s << false << none;
    QTest::newRow("ipv4 port") << u"192.0.2.1:8080"_s << u"192.0.2.1"_s << false << QList<quint16>{8080};
    QTest::newRow("ipv4 255") << u"255.255.255.255"_s << u"255.255.255.255"_s << false << none;
    QTest::newRow("ipv6 loopback") << u"[::1]"_s << u"[::1]"_s << false << none;
    QTest::newRow("ipv6 port") << u"[::1]:8080"_s << u"[::1]"_s << false << QList<quint16>{8080};
    QTest::newRow("ipv6 canonical form")
        << u"[2001:DB8:0:0:0:0:0:1]"_s << u"[2001:db8::1]"_s << false << none;
    QTest::newRow("ipv6 leading zeros") << u"[2001:0db8::0001]"_s << u"[2001:db8::1]"_s << false << none;
}

void TestPolicy::domainRule()
{
    QFETCH(QString, entry);
    QFETCH(QString, host);
    QFETCH(bool, wildcard);
    QFETCH(QList<quint16>, ports);
    const auto rule = parseDomainRule(entry);
    QVERIFY_RESULT(rule);
    QCOMPARE(rule->host, host);
    QCOMPARE(rule->wildcard, wildcard);
    QCOMPARE(qtPorts(rule->ports), ports);
    QVERIFY(rule->methods.empty());
    QVERIFY(rule->pathPrefixes.empty());
    QCOMPARE(rule->allowPrivateAddresses, false);
    // The normalised form parses to itself, so stored policies read back unchanged.
    const auto again = parseDomainRule(rule->pattern());
    QVERIFY_RESULT(again);
    QCOMPARE(again->host, host);
    QCOMPARE(again->wildcard, wildcard);
    if (!wildcard && ports.isEmpty()) {
        const auto normalised = normaliseHost(entry);
        QVERIFY_RESULT(normalised);
        QCOMPARE(*normalised, host);
    }
}

void TestPolicy::domainRuleRejected_data()
{
    QTest::addColumn<QString>("entry");
    QTest::addColumn<QString>("message");

    QTest::newRow("empty") << QString() << u"the host name is empty"_s;
    QTest::newRow("bare star") << u"*"_s << u"a bare \"*\" would allow every host"_s;
    QTest::newRow("bare star port") << u"*:443"_s << u"a bare \"*\""_s;
    QTest::newRow("star dot") << u"*."_s << u"\"*.\" needs a domain"_s;
    QTest::newRow("wildcard tld") << u"*.com"_s << u"a wildcard needs at least two labels"_s;
    QTest::newRow("embedded www*") << u"www*.com"_s
                                   << u"a wildcard is only allowed as a whole leftmost label"_s;
    QTest::newRow("embedded middle") << u"a.*.com"_s << u"a wildcard is only allowed"_s;
    QTest::newRow("star prefix no dot") << u"*example.com"_s << u"a wildcard is only allowed"_s;
    QTest::newRow("double star") << u"**.example.com"_s << u"a wildcard is only allowed"_s;
    QTest::newRow("star suffix") << u"*.example.*"_s << u"a wildcard is only allowed"_s;
    QTest::newRow("scheme") << u"https://pypi.org"_s << u"without a scheme"_s;
    QTest::newRow("scheme and path") << u"http://pypi.org/simple"_s << u"without a scheme"_s;
    QTest::newRow("path") << u"pypi.org/simple"_s << u"paths are not allowed"_s;
    QTest::newRow("userinfo") << u"user@pypi.org"_s << u"user info"_s;
    QTest::newRow("userinfo confusion") << u"pypi.org@evil.com"_s << u"user info"_s;
    QTest::newRow("backslash") << u"evil.com\\@pypi.org"_s << u"backslashes are not allowed"_s;
    QTest::newRow("percent") << u"pypi%2eorg"_s << u"percent-encoding"_s;
    QTest::newRow("query") << u"pypi.org?x"_s << u"queries and fragments"_s;
    QTest::newRow("fragment") << u"pypi.org#x"_s << u"queries and fragments"_s;
    QTest::newRow("space") << u"pypi .org"_s << u"contains whitespace"_s;
    QTest::newRow("leading space") << u" pypi.org"_s << u"contains whitespace"_s;
    QTest::newRow("tab") << u"pypi.org\t"_s << u"contains a control character"_s;
    QTest::newRow("newline") << u"pypi.org\n"_s << u"contains a control character"_s;
    QTest::newRow("NUL") << QString(u"pypi.org\0x.com"_s) << u"contains a control character"_s;
    QTest::newRow("DEL") << u"pypi\x7f.org"_s << u"contains a control character"_s;
    QTest::newRow("no-break space") << u"pypi\u00a0.org"_s << u"contains whitespace"_s;
    QTest::newRow("ideographic space") << u"pypi\u3000.org"_s << u"contains whitespace"_s;
    QTest::newRow("zero-width space") << u"pypi\u200b.org"_s << u"invisible formatting character"_s;
    QTest::newRow("soft hyphen") << u"py\u00adpi.org"_s << u"invisible formatting character"_s;
    QTest::newRow("full-width at") << u"user\uff20pypi.org"_s << QString();
    QTest::newRow("full-width solidus") << u"pypi.org\uff0fsimple"_s << QString();
    QTest::newRow("empty label") << u"a..b"_s << u"has an empty label"_s;
    QTest::newRow("bad punycode") << u"xn--zz.example"_s << u"is not a valid internationalised domain name"_s;
    QTest::newRow("empty punycode") << u"xn--.example"_s << u"starts or ends with \"-\""_s;
    QTest::newRow("leading hyphen") << u"-a.example"_s << u"starts or ends with \"-\""_s;
    QTest::newRow("unicode hyphen end") << u"b\u00fccher-.example"_s << u"starts or ends with \"-\""_s;
    QTest::newRow("leading dot") << u".pypi.org"_s << u"has an empty label"_s;
    QTest::newRow("two trailing dots") << u"pypi.org.."_s << u"has an empty label"_s;
    QTest::newRow("only dot") << u"."_s << u"has an empty label"_s;
    QTest::newRow("64-char label") << QString(64, u'a') + u".com"_s
                                   << u"has a label longer than 63 characters"_s;
    QTest::newRow("254-char name") << QString(63, u'a') + u'.' + QString(63, u'b') + u'.' +
                                          QString(63, u'c') + u'.' + QString(62, u'd')
                                   << u"is longer than 253 characters"_s;
    QTest::newRow("leading hyphen") << u"-pypi.org"_s << u"starts or ends with \"-\""_s;
    QTest::newRow("trailing hyphen") << u"pypi-.org"_s << u"starts or ends with \"-\""_s;
    QTest::newRow("bad punycode") << u"xn--.com"_s << QString();
    QTest::newRow("ipv4 short") << u"127.1"_s << u"is not a canonical IPv4 address"_s;
    QTest::newRow("ipv4 hex") << u"0x7f000001"_s << u"is not a canonical IPv4 address"_s;
    QTest::newRow("ipv4 hex dotted") << u"0x7f.0.0.1"_s << QString();
    QTest::newRow("ipv4 integer") << u"2130706433"_s << u"is not a canonical IPv4 address"_s;
    QTest::newRow("ipv4 octal") << u"0177.0.0.1"_s << u"is not a canonical IPv4 address"_s;
    QTest::newRow("ipv4 leading zero") << u"127.0.0.01"_s << u"is not a canonical IPv4 address"_s;
    QTest::newRow("ipv4 256") << u"256.1.1.1"_s << u"is not a canonical IPv4 address"_s;
    QTest::newRow("ipv4 five parts") << u"1.2.3.4.5"_s << u"is not a canonical IPv4 address"_s;
    QTest::newRow("numeric tld") << u"example.123"_s << u"is not a canonical IPv4 address"_s;
    QTest::newRow("hex tld") << u"example.0x1"_s << u"is not a canonical IPv4 address"_s;
    QTest::newRow("ipv4 unspecified") << u"0.0.0.0"_s << u"the unspecified address"_s;
    QTest::newRow("full-width ipv4") << u"\uff11\uff12\uff17\u3002\uff10\u3002\uff10\u3002\uff11"_s
                                     << u"IPv4 addresses must be written with ASCII digits and dots"_s;
    QTest::newRow("circled ipv4") << u"\u2460\u2461\u2466.\u24ea.\u24ea.\u2460"_s
                                  << u"IPv4 addresses must be written with ASCII digits and dots"_s;
    QTest::newRow("wildcard ipv4") << u"*.1.2.3.4"_s << u"a wildcard cannot apply to an IP address"_s;
    QTest::newRow("wildcard ipv6") << u"*.[::1]"_s << QString();
    QTest::newRow("ipv6 unbracketed") << u"::1"_s << u"write IPv6 addresses in brackets"_s;
    QTest::newRow("ipv6 unbracketed full") << u"2001:db8::1"_s << u"write IPv6 addresses in brackets"_s;
    QTest::newRow("ipv6 unclosed") << u"[::1"_s << u"missing \"]\""_s;
    QTest::newRow("ipv6 junk after") << u"[::1]x"_s << u"only \":port\" may follow \"]\""_s;
    QTest::newRow("ipv6 mapped dotted") << u"[::ffff:127.0.0.1]"_s << u"IPv4-mapped IPv6 address"_s;
    QTest::newRow("ipv6 mapped hex") << u"[::ffff:a9fe:a9fe]"_s << u"IPv4-mapped IPv6 address"_s;
    QTest::newRow("ipv6 compatible") << u"[::127.0.0.1]"_s << u"IPv4-compatible IPv6 address"_s;
    QTest::newRow("ipv6 unspecified") << u"[::]"_s << u"the unspecified address"_s;
    QTest::newRow("ipv6 zone") << u"[fe80::1%eth0]"_s << u"percent-encoding and IPv6 zone ids"_s;
    QTest::newRow("ipv6 holding ipv4") << u"[1.2.3.4]"_s << u"is not a valid IPv6 address"_s;
    QTest::newRow("ipv6 garbage") << u"[::g]"_s << u"is not a valid IPv6 address"_s;
    QTest::newRow("ipv6 empty") << u"[]"_s << u"is not a valid IPv6 address"_s;
    QTest::newRow("bracket in name") << u"a[b].com"_s
                                     << u"brackets are only allowed around a whole IPv6 address"_s;
    QTest::newRow("port 0") << u"pypi.org:0"_s << u"the port must be a number between 1 and 65535"_s;
    QTest::newRow("port 65536") << u"pypi.org:65536"_s << u"the port must be a number between 1 and 65535"_s;
    QTest::newRow("port empty") << u"pypi.org:"_s << u"expected host:port"_s;
    QTest::newRow("port only") << u":443"_s << u"expected host:port"_s;
    QTest::newRow("port leading zero") << u"pypi.org:0443"_s << u"the port must be a number"_s;
    QTest::newRow("port name") << u"pypi.org:https"_s << u"the port must be a number"_s;
    QTest::newRow("port sign") << u"pypi.org:+443"_s << u"the port must be a number"_s;
    QTest::newRow("port full-width") << u"pypi.org:\uff14\uff14\uff13"_s << u"the port must be a number"_s;
    QTest::newRow("port huge") << u"pypi.org:99999999999"_s << u"the port must be a number"_s;
    QTest::newRow("too long") << QString(600, u'a') << u"is longer than 512 characters"_s;
}

void TestPolicy::domainRuleRejected()
{
    QFETCH(QString, entry);
    QFETCH(QString, message);
    const auto rule = parseDomainRule(entry);
    QVERIFY2(!rule, rule ? rule->pattern().c_str() : "");
    QCOMPARE(Cordon::toQt(rule.error().code()), u"policy.invalid_domain"_s);
    QVERIFY2(Cordon::toQt(rule.error().message()).contains(message), rule.error().message().c_str());
    if (entry.size() <= 80 && !entry.contains(QChar(0)) && !entry.contains(u'\n') && !entry.contains(u'\t') &&
        !entry.contains(QChar(0x7f)) && !entry.contains(u'\\') && !entry.contains(QChar(0x200b)) &&
        !entry.contains(QChar(0xad)))
        QVERIFY2(Cordon::toQt(rule.error().message()).startsWith(u'"' + entry + u'"'),
                 rule.error().message().c_str());
}

void TestPolicy::matchesHost_data()
{
    QTest::addColumn<QString>("rule");
    QTest::addColumn<QString>("host");
    QTest::addColumn<bool>("matches");

    QTest::newRow("wildcard subdomain") << u"*.pythonhosted.org"_s << u"files.pythonhosted.org"_s << true;
    QTest::newRow("wildcard deep subdomain") << u"*.pythonhosted.org"_s << u"a.b.pythonhosted.org"_s << true;
    QTest::newRow("wildcard not apex") << u"*.pythonhosted.org"_s << u"pythonhosted.org"_s << false;
    QTest::newRow("wildcard suffix confusion")
        << u"*.pythonhosted.org"_s << u"evilpythonhosted.org"_s << false;
    QTest::newRow("wildcard one-letter confusion")
        << u"*.pythonhosted.org"_s << u"xpythonhosted.org"_s << false;
    QTest::newRow("wildcard as prefix of attacker")
        << u"*.pythonhosted.org"_s << u"files.pythonhosted.org.evil.com"_s << false;
    QTest::newRow("wildcard normalised input")
        << u"*.pythonhosted.org"_s << u"FILES.PythonHosted.org."_s << true;
    QTest::newRow("wildcard other tld") << u"*.pythonhosted.org"_s << u"files.pythonhosted.com"_s << false;
    QTest::newRow("exact") << u"pypi.org"_s << u"pypi.org"_s << true;
    QTest::newRow("exact upper trailing dot") << u"pypi.org"_s << u"PYPI.ORG."_s << true;
    QTest::newRow("exact full-width dot") << u"pypi.org"_s << u"pypi\u3002org"_s << true;
    QTest::newRow("exact not subdomain") << u"pypi.org"_s << u"x.pypi.org"_s << false;
    QTest::newRow("exact suffix confusion") << u"pypi.org"_s << u"evilpypi.org"_s << false;
    QTest::newRow("exact prefix confusion") << u"pypi.org"_s << u"pypi.org.evil.com"_s << false;
    QTest::newRow("exact ipv4") << u"127.0.0.1"_s << u"127.0.0.1"_s << true;
    QTest::newRow("ipv4 other") << u"127.0.0.1"_s << u"127.0.0.2"_s << false;
    QTest::newRow("ipv6") << u"[::1]"_s << u"[0:0::1]"_s << true;
    QTest::newRow("punycode both sides") << u"b\u00fccher.example"_s << u"xn--bcher-kva.example"_s << true;
    QTest::newRow("punycode wildcard") << u"*.b\u00fccher.example"_s << u"www.B\u00dcCHER.example"_s << true;
}

void TestPolicy::matchesHost()
{
    QFETCH(QString, rule);
    QFETCH(QString, host);
    QFETCH(bool, matches);
    const auto parsed = parseDomainRule(rule);
    QVERIFY_RESULT(parsed);
    const auto normalised = normaliseHost(host);
    QVERIFY_RESULT(normalised);
    QCOMPARE(parsed->matchesHost(*normalised), matches);
}

void TestPolicy::matchesHostNeedsNormalisedInput()
{
    const auto wildcard = parseDomainRule(u"*.example.org"_s);
    QVERIFY_RESULT(wildcard);
    // matchesHost compares normalised strings; an empty label before the suffix is not a subdomain.
    QVERIFY(!wildcard->matchesHost(".example.org"));
    QVERIFY(!wildcard->matchesHost("example.org"));
    QVERIFY(!wildcard->matchesHost(""));
    // A rule that was never filled in matches nothing, wildcard or not.
    DomainRule empty;
    QVERIFY(!empty.matchesHost(""));
    QVERIFY(!empty.matchesHost("x"));
    empty.wildcard = true;
    QVERIFY(!empty.matchesHost("x."));
    QVERIFY(!empty.matchesHost("a.b"));
}

void TestPolicy::ports()
{
    const auto plain = parseDomainRule(u"pypi.org"_s);
    QVERIFY_RESULT(plain);
    QCOMPARE(qtPorts(plain->effectivePorts()), (QList<quint16>{80, 443}));
    QVERIFY(plain->matchesPort(443));
    QVERIFY(plain->matchesPort(80));
    QVERIFY(!plain->matchesPort(22));
    QVERIFY(!plain->matchesPort(8443));
    const auto custom = parseDomainRule(u"pypi.org:8443"_s);
    QVERIFY_RESULT(custom);
    QVERIFY(custom->matchesPort(8443));
    QVERIFY(!custom->matchesPort(443));
    QVERIFY(!plain->isIpLiteral());
    QVERIFY(parseDomainRule(u"[::1]"_s)->isIpLiteral());
    QVERIFY(parseDomainRule(u"10.0.0.1"_s)->isIpLiteral());
}

void TestPolicy::workspaceAndTmpFollowTheMemoryLimit()
{
    const auto sized = [](const char *json) {
        const auto policy = parsePolicy(json);
        return policy ? std::pair{policy->limits.workspaceMb, policy->limits.tmpMb} : std::pair{-1, -1};
    };
    QCOMPARE(sized(R"({"memory_limit":"4g"})"), std::pair(2048, 512));
    QCOMPARE(sized(R"({"memory_limit":"64g"})"), std::pair(2048, 512)); // the sizes they always had, at most
    QCOMPARE(sized(R"({"memory_limit":67108864})"), std::pair(32, 16));
    // A size the document names is kept, whatever the memory; the other still follows.
    QCOMPARE(sized(R"({"memory_limit":"1g","limits":{"workspace_mb":4096}})"), std::pair(4096, 256));
    QCOMPARE(sized(R"({"limits":{"tmp_mb":100},"memory_limit":"4g"})"), std::pair(2048, 100));

    // An override of the memory (cordon create --memory) moves the sizes still at their defaults only.
    ContainerPolicy policy;
    policy.setMemoryLimit(4 * GiB);
    QCOMPARE(std::pair(policy.limits.workspaceMb, policy.limits.tmpMb), std::pair(2048, 512));
    policy.limits.workspaceMb = 700;
    policy.setMemoryLimit(1 * GiB);
    QCOMPARE(std::pair(policy.limits.workspaceMb, policy.limits.tmpMb), std::pair(700, 256));
    QVERIFY_RESULT(policy.validated());
}

// A domain secret's header: written only when not Authorization, so that earlier policies keep their
// versions.
void TestPolicy::domainSecretHeaderIsWrittenOnlyWhenNamed()
{
    const QByteArray start = R"({"network_policy":{"type":"allowlist","allowed_domains":["api.example.com"],)"
                             R"("domain_secrets":[{"domain":"api.example.com","name":"T")";
    const auto read = [&start](const char *tail) {
        return ContainerPolicy::fromJson(QByteArray(start + tail).toStdString());
    };
    const auto plain = read("}]}}");
    const auto spelled = read(R"(,"header":"authorization"}]}})");
    const auto named = read(R"(,"header":"X-Api-Key"}]}})");
    QVERIFY_RESULT(plain);
    QVERIFY_RESULT(spelled);
    QVERIFY_RESULT(named);
    QCOMPARE(plain->network.domainSecrets.front().header, std::string("Authorization"));
    QVERIFY(*plain == *spelled);
    QCOMPARE(plain->version(), spelled->version());
    QVERIFY(plain->canonicalJson().find("header") == std::string::npos);
    QVERIFY(named->canonicalJson().find(R"("header":"X-Api-Key")") != std::string::npos);
    const auto again = ContainerPolicy::fromJson(named->canonicalJson());
    QVERIFY_RESULT(again);
    QVERIFY(*again == *named);

    // allow_compressed_responses: written only when true, so that earlier policies keep their versions.
    QVERIFY(!plain->network.domainSecrets.front().allowCompressedResponses);
    QVERIFY(plain->canonicalJson().find("compressed") == std::string::npos);
    const auto unset = read(R"(,"allow_compressed_responses":false}]}})");
    QVERIFY_RESULT(unset);
    QCOMPARE(unset->version(), plain->version());
    const auto compressed = read(R"(,"allow_compressed_responses":true}]}})");
    QVERIFY_RESULT(compressed);
    QVERIFY(compressed->network.domainSecrets.front().allowCompressedResponses);
    QVERIFY(compressed->canonicalJson().find(R"("allow_compressed_responses":true)") != std::string::npos);
    QVERIFY(*ContainerPolicy::fromJson(compressed->canonicalJson()) == *compressed);
    const auto wrong = read(R"(,"allow_compressed_responses":"yes"}]}})");
    QVERIFY(!wrong);
    QVERIFY2(wrong.error().message().find("allow_compressed_responses") != std::string::npos,
             wrong.error().message().c_str());
}

void TestPolicy::canonicalDefaults()
{
    // Pinned: stored runs name their policy by this hash, so the canonical bytes of a policy must never
    // change.
    const QByteArray expected =
        R"({"allow_ptrace":false,"env":{},"expires_after":{"anchor":"last_active_at","minutes":20},)"
        R"("limits":{"output_mb":16,"pids":256,"run_timeout_s":300,"tmp_mb":256,"workspace_mb":512},)"
        R"("memory_limit":"1g","mounts":[],"name":"sandbox","network_policy":{"allowed_domains":[],"type":"disabled"}})";
    const ContainerPolicy defaults;
    QCOMPARE(QByteArray::fromStdString(defaults.canonicalJson()), expected);
    QCOMPARE(defaults.version(),
             u"%1"_s.arg(
                 QLatin1StringView(QCryptographicHash::hash(expected, QCryptographicHash::Sha256).toHex())));
    // The defaults were 2048 and 512 MiB before they followed the memory limit: a stored policy that has
    // them keeps its bytes and so its version.
    const QByteArray earlierDefaults =
        R"({"allow_ptrace":false,"env":{},"expires_after":{"anchor":"last_active_at","minutes":20},)"
        R"("limits":{"output_mb":16,"pids":256,"run_timeout_s":300,"tmp_mb":512,"workspace_mb":2048},)"
        R"("memory_limit":"1g","mounts":[],"name":"sandbox","network_policy":{"allowed_domains":[],"type":"disabled"}})";
    const auto earlier = ContainerPolicy::fromJson(earlierDefaults.toStdString());
    QVERIFY_RESULT(earlier);
    QCOMPARE(QByteArray::fromStdString(earlier->canonicalJson()), earlierDefaults);
    QCOMPARE(defaults.version(), u"b45d876daff8f168c61df2af727fd49b54548a298723cb3291ccfb20c3dd1b83"_s);
    QCOMPARE(earlier->version(), u"8ab527d3dac05724efbd830fa8996580c6135adb2a642507adadf7f8f9e5d0ad"_s);
    QVERIFY(
        QRegularExpression(u"^[0-9a-f]{64}$"_s).match(QString::fromStdString(defaults.version())).hasMatch());
    QCOMPARE(parsePolicy("{}")->version(), defaults.version());
}

void TestPolicy::canonicalEscaping()
{
    const QByteArray json =
        R"({"env":{"B":"quote\" backslash\\ slash/ tab\t nl\n cr\r bs\b ff\f ctl\u0001 del\u007f",)"
        R"("A":"\u00e9\u2028\ud83d\ude00"}})";
    const auto policy = parsePolicy(json);
    QVERIFY_RESULT(policy);
    const QByteArray expected =
        "\"env\":{\"A\":\"\xc3\xa9\xe2\x80\xa8\xf0\x9f\x98\x80\","
        "\"B\":\"quote\\\" backslash\\\\ slash/ tab\\t nl\\n cr\\r bs\\b ff\\f ctl\\u0001 del\x7f\"}";
    QVERIFY2(QByteArray::fromStdString(policy->canonicalJson()).contains(expected),
             QByteArray::fromStdString(policy->canonicalJson()).constData());
    QVERIFY(!QByteArray::fromStdString(policy->canonicalJson()).contains(QByteArrayView("\": ")));
}

void TestPolicy::sameMeaningSameVersion()
{
    const QByteArray first = R"({"name":"demo","memory_limit":"4g","limits":{"pids":64,"run_timeout_s":30},
        "network_policy":{"type":"allowlist","allowed_domains":["PYPI.ORG.",
            {"domain":"*.B\u00dcCHER.example","ports":[443,80],"methods":["post","get"],"path_prefixes":["/b","/a"]}]},
        "mounts":[{"host":"/opt/datasets/","target":"/mnt/datasets"}],"env":{"B":"2","A":"1"},
        "expires_after":{"minutes":20}})";
    const QByteArray second = R"(
    {
        "env": {"A": "1", "B": "2"},
        "expires_after": {"anchor": "last_active_at"},
        "mounts": [{"read_only": true, "target": "/mnt//datasets/", "host": "/opt/./datasets"}],
        "network_policy": {"allowed_domains": [{"domain": "pypi.org"},
            {"path_prefixes": ["/a", "/b"], "methods": ["GET", "POST"], "ports": [80, 443],
             "domain": "*.xn--bcher-kva.example", "allow_private_addresses": false}], "type": "allowlist"},
        "limits": {"run_timeout_s": 30.0, "pids": 6.4e1, "output_mb": 16},
        "memory_limit": 4294967296,
        "allow_ptrace": false,
        "name": "demo"
    })";
    const auto a = parsePolicy(first);
    const auto b = parsePolicy(second);
    QVERIFY_RESULT(a);
    QVERIFY_RESULT(b);
    QVERIFY(*a == *b);
    QCOMPARE(QByteArray::fromStdString(a->canonicalJson()), QByteArray::fromStdString(b->canonicalJson()));
    QCOMPARE(a->version(), b->version());
    QCOMPARE(a->version(),
             QString::fromLatin1(QCryptographicHash::hash(QByteArray::fromStdString(a->canonicalJson()),
                                                          QCryptographicHash::Sha256)
                                     .toHex()));
}

void TestPolicy::differentPolicyDifferentVersion()
{
    const auto base = parsePolicy(R"({"limits":{"pids":256}})");
    QVERIFY_RESULT(base);
    const char *variants[] = {
        R"({"limits":{"pids":257}})",
        R"({"allow_ptrace":true})",
        R"({"memory_limit":"4g"})",
        R"({"env":{"A":""}})",
        R"({"network_policy":{"type":"allowlist"}})",
        R"({"network_policy":{"type":"allowlist","allowed_domains":["pypi.org"]}})",
        R"({"name":"other"})",
    };
    QSet<std::string> versions{base->version()};
    for (const char *json : variants) {
        const auto policy = parsePolicy(json);
        QVERIFY_RESULT(policy);
        QVERIFY2(!versions.contains(policy->version()), json);
        versions.insert(policy->version());
    }
}

void TestPolicy::roundTrip()
{
    const QByteArray json =
        R"({"name":"round.trip-1","memory_limit":100000000,"expires_after":{"minutes":10080},
        "network_policy":{"type":"allowlist","allowed_domains":["pypi.org","*.pythonhosted.org","[2001:db8::1]:8443",
            {"domain":"b\u00fccher.example","ports":[8080,80],"methods":["PUT"],"path_prefixes":["/x/"],"allow_private_addresses":true}]},
        "limits":{"run_timeout_s":86400,"pids":65536,"tmp_mb":65536,"workspace_mb":1048576,"output_mb":4096},
        "mounts":[{"host":"/","target":"/opt/root","read_only":true},{"host":"/srv/x","target":"/mnt/x","read_only":false}],
        "env":{"LANG":"C.UTF-8","PATH":"/usr/bin:/bin","TEXT":"line\none \"quoted\" \u00e9"},"allow_ptrace":true})";
    const auto policy = parsePolicy(json);
    QVERIFY_RESULT(policy);

    const QByteArray canonical = QByteArray::fromStdString(policy->canonicalJson());
    QVERIFY(!canonical.contains('\n'));
    const auto reread = parsePolicy(canonical);
    QVERIFY_RESULT(reread);
    QVERIFY(*reread == *policy);
    QCOMPARE(QByteArray::fromStdString(reread->canonicalJson()), canonical);
    QCOMPARE(reread->version(), policy->version());

    const auto fromValue = ContainerPolicy::fromJsonValue(policy->toJson());
    QVERIFY_RESULT(fromValue);
    QVERIFY(*fromValue == *policy);

    // The canonical form has every field, in sorted order.
    const auto tree = Cordon::Json::read(policy->canonicalJson());
    QVERIFY_RESULT(tree);
    QCOMPARE(tree->members().size(), std::size_t(8)); // "secrets" only when there are any

    // Secrets round-trip by name; the variable defaults to the name, and they change the version.
    const auto withSecrets =
        parsePolicy(R"({"secrets":[{"name":"API_TOKEN"},{"name":"DB_PASSWORD","env":"PGPASSWORD"}]})");
    QVERIFY_RESULT(withSecrets);
    QCOMPARE(withSecrets->secrets.size(), std::size_t(2));
    QCOMPARE(withSecrets->secrets[0].env, std::string("API_TOKEN"));
    QCOMPARE(withSecrets->secrets[1].env, std::string("PGPASSWORD"));
    const auto secretsReread = parsePolicy(QByteArray::fromStdString(withSecrets->canonicalJson()));
    QVERIFY_RESULT(secretsReread);
    QVERIFY(*secretsReread == *withSecrets);
    QVERIFY(withSecrets->version() != ContainerPolicy{}.version());

    // Domain secrets: normalised, read back equal, and a wildcard rule covers a domain of its own.
    const auto withDomainSecrets = parsePolicy(
        R"({"network_policy":{"type":"allowlist","allowed_domains":["*.example.com"],)"
        R"("domain_secrets":[{"domain":"API.Example.com.","name":"API_TOKEN"},{"domain":"b.example.com","name":"API_TOKEN"}]}})");
    QVERIFY_RESULT(withDomainSecrets);
    QCOMPARE(withDomainSecrets->network.domainSecrets.size(), std::size_t(2));
    QCOMPARE(withDomainSecrets->network.domainSecrets[0].domain, std::string("api.example.com"));
    const auto domainSecretsReread =
        parsePolicy(QByteArray::fromStdString(withDomainSecrets->canonicalJson()));
    QVERIFY_RESULT(domainSecretsReread);
    QVERIFY(*domainSecretsReread == *withDomainSecrets);
    QVERIFY(!QByteArray::fromStdString(policy->canonicalJson()).contains("domain_secrets"));
    const Cordon::Json &rule = (*tree)["network_policy"]["allowed_domains"].items().at(3);
    QStringList keys;
    for (const auto &member : rule.members())
        keys.append(QString::fromStdString(member.first));
    QCOMPARE(keys, (QStringList{u"allow_private_addresses"_s, u"domain"_s, u"methods"_s, u"path_prefixes"_s,
                                u"ports"_s}));
    QCOMPARE(rule["domain"].toString(), u"xn--bcher-kva.example"_s);
    QCOMPARE(rule["ports"].serialize(), std::string("[80,8080]"));
}

void TestPolicy::fromJsonValueAppliesTheSameRules()
{
    // A document that something else read (a protocol frame's member) meets the same rules.
    const auto unknown = ContainerPolicy::fromJsonValue(*Cordon::Json::read(R"({"limits":{"cpu":1}})"));
    QVERIFY(!unknown);
    QCOMPARE(unknown.error().code(), "policy.unknown_key");
    QCOMPARE(unknown.error().message(),
             "limits.cpu: unknown key (known keys: output_mb, pids, run_timeout_s, "
             "tmp_mb, workspace_mb)");

    const auto array = ContainerPolicy::fromJsonValue(*Cordon::Json::read("[]"));
    QVERIFY(!array);
    QCOMPARE(array.error().code(), "policy.wrong_type");

    const auto good = ContainerPolicy::fromJsonValue(*Cordon::Json::read(R"({"memory_limit":"4g"})"));
    QVERIFY_RESULT(good);
    QCOMPARE(good->memoryLimitBytes, 4 * GiB);
}

void TestPolicy::validatedNormalisesCodeBuiltPolicies()
{
    ContainerPolicy policy;
    policy.memoryLimitBytes = 16 * GiB;
    policy.network.type = NetworkPolicy::Type::Allowlist;
    DomainRule rule;
    rule.host = "PyPI.org.";
    rule.ports = {443, 80};
    rule.methods = {"head", "GET"};
    policy.network.allowedDomains = {rule};
    policy.mounts = {Mount{"/opt/data/", "/mnt//in", true}};

    const auto validated = policy.validated();
    QVERIFY_RESULT(validated);
    const DomainRule &normalised = validated->network.allowedDomains.at(0);
    QCOMPARE(normalised.host, u"pypi.org"_s);
    QCOMPARE(qtPorts(normalised.ports), (QList<quint16>{80, 443}));
    QCOMPARE(qtList(normalised.methods), (QStringList{u"GET"_s, u"HEAD"_s}));
    QVERIFY(validated->mounts.at(0) == (Mount{"/opt/data", "/mnt/in", true}));
    QCOMPARE(validated->validated()->canonicalJson(), validated->canonicalJson());

    const auto fromRule = normaliseDomainRule(rule);
    QVERIFY_RESULT(fromRule);
    QVERIFY(*fromRule == normalised);
}

void TestPolicy::validatedRejectsInvalidCodeBuiltPolicies()
{
    const auto check = [](const ContainerPolicy &policy, const QString &code, const QString &message) {
        const auto validated = policy.validated();
        QVERIFY2(!validated, qPrintable(code));
        QCOMPARE(Cordon::toQt(validated.error().code()), code);
        QVERIFY2(Cordon::toQt(validated.error().message()).contains(message),
                 validated.error().message().c_str());
    };
    ContainerPolicy pids;
    pids.limits.pids = 0;
    check(pids, u"policy.out_of_range"_s, u"limits.pids: must be between 1 and 65536, got 0"_s);

    ContainerPolicy memory;
    memory.memoryLimitBytes = 64 * MiB - 1;
    check(memory, u"policy.invalid_memory_limit"_s, u"memory_limit:"_s);

    ContainerPolicy disabledWithRules;
    disabledWithRules.network.allowedDomains = {*parseDomainRule(u"pypi.org"_s)};
    check(disabledWithRules, u"policy.invalid_value"_s, u"network_policy.allowed_domains: must be empty"_s);

    ContainerPolicy badRule;
    badRule.network.type = NetworkPolicy::Type::Allowlist;
    DomainRule rule;
    rule.host = "evil.com/x";
    badRule.network.allowedDomains = {rule};
    check(badRule, u"policy.invalid_domain"_s, u"network_policy.allowed_domains[0].domain"_s);

    ContainerPolicy env;
    env.env.emplace("A", std::string("a\0b", 3));
    check(env, u"policy.invalid_env"_s, u"env.A: the value contains a NUL character"_s);

    ContainerPolicy mount;
    mount.mounts = {Mount{"/a", "/mnt/data/x", false}};
    check(mount, u"policy.invalid_mount"_s, u"mounts[0].target"_s);

    ContainerPolicy anchor;
    anchor.expiresAfter.anchor = "created_at";
    check(anchor, u"policy.invalid_value"_s, u"expires_after.anchor"_s);
}

QTEST_APPLESS_MAIN(TestPolicy)
#include "tst_policy.moc"
