// SPDX-License-Identifier: MIT
// Recorded events in words, as the timeline and `cordon events` show them: the artifact scan's findings and
// overrides (with the reviewer's reason word for word), the Go/No-Go audit's saving and signing and the demo
// clock read as sentences, not as their detail's JSON; text that came from a container or a user stays
// escaped.
#include "core/eventwords.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QObject>
#include <QTest>

using namespace Cordon;

class EventWordsTest final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void describe_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QJsonObject>("detail");
        QTest::addColumn<QString>("words");
        const QJsonArray rules{QStringLiteral("aws.access_key_id"), QStringLiteral("private_key.openssh")};
        const auto finding = [&rules](const char *action, qint64 findings) {
            return QJsonObject{{QStringLiteral("scope"), QStringLiteral("outputs")},
                               {QStringLiteral("path"), QStringLiteral("deploy.env")},
                               {QStringLiteral("action"), QString::fromLatin1(action)},
                               {QStringLiteral("rules"), rules},
                               {QStringLiteral("findings"), findings}};
        };
        QTest::newRow("finding kept back")
            << QStringLiteral("artifact.finding") << finding("blocked", 3)
            << QStringLiteral(
                   "Kept back from a download by the artifact scan: outputs/deploy.env, 3 findings "
                   "(aws.access_key_id, private_key.openssh)");
        QTest::newRow("finding warned")
            << QStringLiteral("artifact.finding") << finding("warned", 1)
            << QStringLiteral(
                   "Downloaded with a warning from the artifact scan: outputs/deploy.env, 1 finding "
                   "(aws.access_key_id, private_key.openssh)");
        QTest::newRow("finding redacted")
            << QStringLiteral("artifact.finding") << finding("redacted", 2)
            << QStringLiteral("Downloaded with the artifact scan's findings redacted: outputs/deploy.env, 2 "
                              "findings (aws.access_key_id, private_key.openssh)");
        QTest::newRow("finding overridden")
            << QStringLiteral("artifact.finding") << finding("overridden", 1)
            << QStringLiteral(
                   "Downloaded although the artifact scan would keep it back: outputs/deploy.env, 1 "
                   "finding (aws.access_key_id, private_key.openssh)");
        QTest::newRow("override with its reason")
            << QStringLiteral("artifact.override")
            << QJsonObject{{QStringLiteral("scope"), QStringLiteral("outputs")},
                           {QStringLiteral("path"), QStringLiteral("deploy.env")},
                           {QStringLiteral("rules"), QJsonArray{QStringLiteral("aws.access_key_id")}},
                           {QStringLiteral("reason"), QStringLiteral("test token, revoked yesterday")}}
            << QStringLiteral("Downloaded anyway despite the artifact scan: outputs/deploy.env "
                              "(aws.access_key_id); the reason given: “test token, revoked yesterday”");
        // A reason cannot turn the sentence around it: a bidi override is shown, not obeyed.
        QTest::newRow("override with a reason that hides text")
            << QStringLiteral("artifact.override")
            << QJsonObject{{QStringLiteral("scope"), QStringLiteral("outputs")},
                           {QStringLiteral("path"), QStringLiteral("a.txt")},
                           {QStringLiteral("rules"), QJsonArray{QStringLiteral("generic.password")}},
                           {QStringLiteral("reason"), QStringLiteral("ok\u202Eevil")}}
            << QStringLiteral(
                   "Downloaded anyway despite the artifact scan: outputs/a.txt (generic.password); "
                   "the reason given: “ok\\u{202e}evil”");
        QTest::newRow("audit kept")
            << QStringLiteral("audit.saved")
            << QJsonObject{{QStringLiteral("id"), QStringLiteral("a1b2c3d4")},
                           {QStringLiteral("verdict"), QStringLiteral("no_go")},
                           {QStringLiteral("policy_version"), QStringLiteral("0123456789abcdef0123")},
                           {QStringLiteral("rows"), 21},
                           {QStringLiteral("go_rows"), 17}}
            << QStringLiteral("Go/No-Go audit a1b2c3d4 kept: No-Go, 17 of 21 rows Go, policy 0123456789ab");
        QTest::newRow("audit signed")
            << QStringLiteral("audit.signed")
            << QJsonObject{{QStringLiteral("id"), QStringLiteral("a1b2c3d4")},
                           {QStringLiteral("key_id"), QStringLiteral("k-77aa")},
                           {QStringLiteral("decision"), QStringLiteral("go")},
                           {QStringLiteral("name"), QStringLiteral("Ada Lovelace")},
                           {QStringLiteral("role"), QStringLiteral("Security reviewer")},
                           {QStringLiteral("date"), QStringLiteral("2026-12-03")}}
            << QStringLiteral("Go/No-Go audit a1b2c3d4 signed off Go by Ada Lovelace (Security reviewer) on "
                              "2026-12-03 with key k-77aa");
        // A kind this version does not know still shows what it holds.
        // The demo clock says whom it moves: demo containers only.
        QTest::newRow("demo clock on")
            << QStringLiteral("daemon.time_scale") << QJsonObject{{QStringLiteral("scale"), 60}}
            << QStringLiteral("The demo clock now runs 60× faster for demo containers");
        QTest::newRow("demo clock off")
            << QStringLiteral("daemon.time_scale") << QJsonObject{{QStringLiteral("scale"), 1}}
            << QStringLiteral("The demo clock is back to real time");
        QTest::newRow("marked as a demo")
            << QStringLiteral("container.demo_clock")
            << QJsonObject{{QStringLiteral("demo"), true}, {QStringLiteral("time_scale"), 60}}
            << QStringLiteral("Marked as a demo: follows the demo clock (60×)");
        QTest::newRow("unmarked") << QStringLiteral("container.demo_clock")
                                  << QJsonObject{{QStringLiteral("demo"), false},
                                                 {QStringLiteral("time_scale"), 1}}
                                  << QStringLiteral("No longer a demo: back on real time");
        QTest::newRow("unknown kind") << QStringLiteral("future.thing")
                                      << QJsonObject{{QStringLiteral("n"), 1}} << QStringLiteral("{\"n\":1}");
    }

    void describe()
    {
        QFETCH(QString, kind);
        QFETCH(QJsonObject, detail);
        QFETCH(QString, words);
        QCOMPARE(EventWords::describe({{QStringLiteral("kind"), kind}, {QStringLiteral("detail"), detail}}),
                 words);
    }
};

QTEST_GUILESS_MAIN(EventWordsTest)

#include "tst_eventwords.moc"
