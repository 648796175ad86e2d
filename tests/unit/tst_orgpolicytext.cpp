// SPDX-License-Identifier: MIT
// Saving the organisation allowlist changes its "allowed_domains" array and nothing else of the file as the
// user wrote it: other keys and their order, the indentation, and the text of each entry that stays (also
// when the editor has it in another form, "PyPI.org" for "pypi.org"); saveUserFile() writes it so.
#include "network/orgpolicy.h"
#include "network/orgpolicytext.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QObject>
#include <QTemporaryDir>
#include <QTest>

using namespace Cordon::Network;

class OrgPolicyTextTest final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void withAllowedDomains_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QJsonArray>("domains");
        QTest::addColumn<QByteArray>("expected");
        const QByteArray twoSpaces = "{\n"
                                     "  \"internal_suffixes\": [\"corp.example\"],\n"
                                     "  \"allowed_domains\": [\n"
                                     "    \"pypi.org\",\n"
                                     "    {\"domain\": \"api.example.com\",\n"
                                     "     \"ports\": [443]},\n"
                                     "    \"github.com\"\n"
                                     "  ]\n"
                                     "}\n";
        QTest::newRow("one removed, one added, the rest as written")
            << twoSpaces
            << QJsonArray{QStringLiteral("pypi.org"),
                          QJsonObject{{QStringLiteral("domain"), QStringLiteral("api.example.com")},
                                      {QStringLiteral("ports"), QJsonArray{443}}},
                          QStringLiteral("registry.npmjs.org")}
            << QByteArray("{\n"
                          "  \"internal_suffixes\": [\"corp.example\"],\n"
                          "  \"allowed_domains\": [\n"
                          "    \"pypi.org\",\n"
                          "    {\"domain\": \"api.example.com\",\n"
                          "     \"ports\": [443]},\n"
                          "    \"registry.npmjs.org\"\n"
                          "  ]\n"
                          "}\n");
        // The editor shows the daemon's canonical form of each rule; the file keeps the user's.
        QTest::newRow("the same rule in another form keeps its text")
            << QByteArray("{\"allowed_domains\": [\"PyPI.org\", \"github.com\"]}")
            << QJsonArray{QJsonObject{{QStringLiteral("domain"), QStringLiteral("pypi.org")}},
                          QStringLiteral("example.com")}
            << QByteArray("{\"allowed_domains\": [\"PyPI.org\", \"example.com\"]}");
        QTest::newRow("emptied") << QByteArray(
                                        "{\n    \"allowed_domains\": [\n        \"a.example\"\n    ]\n}\n")
                                 << QJsonArray{} << QByteArray("{\n    \"allowed_domains\": []\n}\n");
        QTest::newRow("filled from empty, one per line like the file")
            << QByteArray("{\n  \"allowed_domains\": []\n}\n")
            << QJsonArray{QStringLiteral("a.example"), QStringLiteral("b.example")}
            << QByteArray("{\n  \"allowed_domains\": [\n    \"a.example\",\n    \"b.example\"\n  ]\n}\n");
        // Brackets and quotes inside strings do not end anything.
        QTest::newRow("brackets in strings")
            << QByteArray("{\"note\": \"a ] b } \\\" [\", \"allowed_domains\": [\"x.example\"], \"z\": 1}")
            << QJsonArray{QStringLiteral("y.example")}
            << QByteArray("{\"note\": \"a ] b } \\\" [\", \"allowed_domains\": [\"y.example\"], \"z\": 1}");
    }

    void withAllowedDomains()
    {
        QFETCH(QByteArray, text);
        QFETCH(QJsonArray, domains);
        QFETCH(QByteArray, expected);
        const std::optional<QByteArray> edited = Cordon::Network::withAllowedDomains(text, domains);
        QVERIFY(edited);
        QCOMPARE(*edited, expected);
    }

    void notAnAllowlistFile_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::newRow("no key") << QByteArray("{\"internal_suffixes\": []}");
        QTest::newRow("not an object") << QByteArray("[\"pypi.org\"]");
        QTest::newRow("cut short") << QByteArray("{\"allowed_domains\": [\"pypi.org\"");
        QTest::newRow("not an array") << QByteArray("{\"allowed_domains\": \"pypi.org\"}");
    }

    void notAnAllowlistFile()
    {
        QFETCH(QByteArray, text);
        QVERIFY(!Cordon::Network::withAllowedDomains(text, {QStringLiteral("a.example")}));
    }

    // The daemon's save goes through it: the file on disk keeps its layout.
    void saveKeepsTheLayout()
    {
        QTemporaryDir dir;
        const QString user = dir.filePath(QStringLiteral("org-policy.json"));
        QFile file(user);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("{\n  \"allowed_domains\": [\n    \"PyPI.org\"\n  ],\n  \"internal_suffixes\": "
                   "[\"corp.example\"]\n}\n");
        file.close();
        const auto saved =
            OrgPolicy::saveUserFile({QStringLiteral("pypi.org"), QStringLiteral("example.com")},
                                    dir.filePath(QStringLiteral("system.json")), user);
        QVERIFY2(saved, saved ? "" : saved.error().describe().c_str());
        QCOMPARE(saved->rules().size(), size_t(2));
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(file.readAll(),
                 QByteArray("{\n  \"allowed_domains\": [\n    \"PyPI.org\",\n    \"example.com\"\n  "
                            "],\n  \"internal_suffixes\": [\"corp.example\"]\n}\n"));
    }
};

QTEST_GUILESS_MAIN(OrgPolicyTextTest)

#include "tst_orgpolicytext.moc"
