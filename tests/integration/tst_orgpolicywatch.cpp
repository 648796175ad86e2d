// SPDX-License-Identifier: MIT
// The daemon follows the organisation allowlist file and nothing else: a file created after the daemon
// started (even in a folder that did not exist yet) applies at once, writes to other files in the same
// folder (the workbench's settings live there) record nothing, and a reload is an event only when the
// content changed.
#include "cliprocess.h"
#include "daemonfixture.h"
#include "sandboxtest.h"
#include "testutil.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>

#include <cstdio>

using namespace CordonTest;

class TestOrgPolicyWatch : public QObject
{
    Q_OBJECT

    QTemporaryDir m_config;
    std::unique_ptr<DaemonFixture> m_daemon;

    QString configFile(const QString &name) const
    {
        return m_config.filePath(QStringLiteral("cordon/") + name);
    }

    void writeFile(const QString &path, const QByteArray &content, bool byRename)
    {
        QVERIFY(QDir().mkpath(QFileInfo(path).absolutePath()));
        const QString target = byRename ? path + QStringLiteral(".new") : path;
        QFile file(target);
        QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
        file.write(content);
        file.close();
        if (byRename)
            QVERIFY(std::rename(QFile::encodeName(target).constData(), QFile::encodeName(path).constData()) ==
                    0);
    }

    static QByteArray orgDocument(const QStringList &domains)
    {
        return QJsonDocument(
                   QJsonObject{{QStringLiteral("allowed_domains"), QJsonArray::fromStringList(domains)}})
            .toJson();
    }

    int reloadEvents() const
    {
        auto events =
            m_daemon->call(QStringLiteral("history.events"),
                           {{QStringLiteral("kind"), QStringLiteral("network.org_policy_reloaded")}});
        return events ? events->value(QStringLiteral("total")).toInt() : -1;
    }

    QStringList orgDomains() const
    {
        auto org = m_daemon->call(QStringLiteral("network.org_policy"));
        QStringList domains;
        if (!org)
            return {QStringLiteral("<error>")};
        for (const QJsonValue &rule : org->value(QStringLiteral("allowed_domains")).toArray())
            domains.append(rule.toObject().value(QStringLiteral("domain")).toString());
        return domains;
    }

    // Lets the daemon see (and, were it wrong, act on) what was just written.
    void settle() const
    {
        // A round trip through the daemon's event loop after a pause long enough for inotify to deliver.
        QTest::qWait(700);
        QVERIFY(m_daemon->call(QStringLiteral("daemon.status")).has_value());
    }

private Q_SLOTS:
    void initTestCase()
    {
        // No cordon folder at all: the daemon must notice it being created, then the file in it.
        qputenv("XDG_CONFIG_HOME", m_config.path().toLocal8Bit());
        m_daemon = std::make_unique<DaemonFixture>();
        QVERIFY(m_daemon->start());
        QCOMPARE(orgDomains(), QStringList());
        QCOMPARE(reloadEvents(), 0);
    }

    void cleanupTestCase() { QVERIFY(m_daemon->stop()); }

    void aFileCreatedInANewFolderAppliesWithoutReload()
    {
        writeFile(configFile(QStringLiteral("org-policy.json")), orgDocument({QStringLiteral("pypi.org")}),
                  false);
        QTRY_COMPARE_WITH_TIMEOUT(orgDomains(), QStringList{QStringLiteral("pypi.org")}, 10000);
        QCOMPARE(reloadEvents(), 1);
    }

    void otherFilesInTheFolderRecordNothing()
    {
        const int before = reloadEvents();
        for (int i = 0; i < 5; ++i)
            writeFile(configFile(QStringLiteral("workbench.conf")),
                      QByteArrayLiteral("[General]\ncount=") + QByteArray::number(i), i % 2 == 0);
        settle();
        QCOMPARE(reloadEvents(), before);
        QCOMPARE(orgDomains(), QStringList{QStringLiteral("pypi.org")});
    }

    void theSameContentWrittenAgainRecordsNothing()
    {
        const int before = reloadEvents();
        writeFile(configFile(QStringLiteral("org-policy.json")), orgDocument({QStringLiteral("pypi.org")}),
                  true);
        writeFile(configFile(QStringLiteral("org-policy.json")), orgDocument({QStringLiteral("pypi.org")}),
                  false);
        settle();
        QCOMPARE(reloadEvents(), before);
        // --reload of an unchanged file answers with the list and records nothing either.
        QVERIFY_RESULT(m_daemon->call(QStringLiteral("network.reload_org_policy")));
        QCOMPARE(reloadEvents(), before);
    }

    void anEditInPlaceOrByRenameAppliesOnce()
    {
        const int before = reloadEvents();
        writeFile(configFile(QStringLiteral("org-policy.json")),
                  orgDocument({QStringLiteral("pypi.org"), QStringLiteral("example.com")}), false);
        QTRY_COMPARE_WITH_TIMEOUT(orgDomains().size(), 2, 10000);
        settle();
        QCOMPARE(reloadEvents(), before + 1);
        writeFile(configFile(QStringLiteral("org-policy.json")), orgDocument({QStringLiteral("example.com")}),
                  true);
        QTRY_COMPARE_WITH_TIMEOUT(orgDomains(), QStringList{QStringLiteral("example.com")}, 10000);
        settle();
        QCOMPARE(reloadEvents(), before + 2);
    }

    void aBrokenFileIsRecordedOnceAndTheOldListStays()
    {
        writeFile(configFile(QStringLiteral("org-policy.json")), QByteArrayLiteral("{\"allowed_domains\": ["),
                  true);
        auto invalidEvents = [this] {
            auto events =
                m_daemon->call(QStringLiteral("history.events"),
                               {{QStringLiteral("kind"), QStringLiteral("network.org_policy_invalid")}});
            return events ? events->value(QStringLiteral("total")).toInt() : -1;
        };
        QTRY_COMPARE_WITH_TIMEOUT(invalidEvents(), 1, 10000);
        // Touching the workbench's file while the allowlist stays broken adds nothing.
        writeFile(configFile(QStringLiteral("workbench.conf")), QByteArrayLiteral("[General]\n"), true);
        settle();
        QCOMPARE(invalidEvents(), 1);
        QCOMPARE(orgDomains(), QStringList{QStringLiteral("example.com")});
        // Visible, not only recorded: the answer says the file has an error and since when the list in force
        // is the one before, and `cordon network org` exits 1 saying so (it printed the old list "from" the
        // broken file with status 0).
        auto org = m_daemon->call(QStringLiteral("network.org_policy"));
        QVERIFY_RESULT(org);
        const QJsonObject fileError = org->value(QStringLiteral("file_error")).toObject();
        QVERIFY2(!fileError.value(QStringLiteral("message")).toString().isEmpty(),
                 QJsonDocument(*org).toJson().constData());
        QVERIFY(fileError.value(QStringLiteral("since")).toInteger() >=
                org->value(QStringLiteral("in_force_since")).toInteger());
        const CliResult shown = cordon({QStringLiteral("network"), QStringLiteral("org")});
        QCOMPARE(shown.status, 1);
        QVERIFY2(shown.err.contains("has an error") && shown.err.contains("stays in force"),
                 shown.describe());
        QVERIFY2(shown.out.contains("allow example.com"), shown.describe());
        writeFile(configFile(QStringLiteral("org-policy.json")), orgDocument({QStringLiteral("pypi.org")}),
                  true);
        QTRY_COMPARE_WITH_TIMEOUT(orgDomains(), QStringList{QStringLiteral("pypi.org")}, 10000);
        auto fixed = m_daemon->call(QStringLiteral("network.org_policy"));
        QVERIFY_RESULT(fixed);
        QVERIFY(!fixed->contains(QStringLiteral("file_error")));
        QCOMPARE(cordon({QStringLiteral("network"), QStringLiteral("org")}).status, 0);
    }
};

CORDON_SANDBOX_TEST_MAIN(TestOrgPolicyWatch)
#include "tst_orgpolicywatch.moc"
