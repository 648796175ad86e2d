// SPDX-License-Identifier: MIT
// The network allowlist editor against a real cordond: a bad entry is refused with the parser's words, an
// entry outside the organisation list is marked and cannot be applied, a valid list applies and the daemon's
// container has it, presets add their hosts, the recent decisions fill from network.summary after a program
// was denied, "Allow This Host" allows an organisation-permitted host (and stays off for one the organisation
// does not permit), the create dialog creates a container with an allowlist, a container without network
// explains how to get one, and the organisation editor writes the user's file, or is read-only when an
// administrator's governs.
#include "guitest.h"
#include "testutil.h"

#include "allowlisteditor.h"
#include "allowlistmodel.h"
#include "createcontainerdialog.h"
#include "daemonconnection.h"
#include "demoscripts.h"
#include "networkdecisionmodel.h"
#include "networkpanel.h"
#include "orgallowlisteditor.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QListView>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QTableView>
#include <QToolButton>

using namespace Cordon::Ui;

namespace {

QJsonObject allowlist(const QJsonArray &domains)
{
    return {{QStringLiteral("type"), QStringLiteral("allowlist")},
            {QStringLiteral("allowed_domains"), domains}};
}

QStringList domainsOf(const QJsonObject &container)
{
    QStringList domains;
    for (const QJsonValue &rule : container.value(QStringLiteral("policy"))
                                      .toObject()
                                      .value(QStringLiteral("network_policy"))
                                      .toObject()
                                      .value(QStringLiteral("allowed_domains"))
                                      .toArray())
        domains.append(rule.toObject().value(QStringLiteral("domain")).toString());
    return domains;
}

QString orgFile()
{
    return qEnvironmentVariable("XDG_CONFIG_HOME") + QStringLiteral("/cordon/org-policy.json");
}

QByteArray readOrgFile()
{
    QFile file(orgFile());
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

bool writeOrgFile(const QString &path, const QJsonArray &domains)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile file(path);
    return file.open(QIODevice::WriteOnly) &&
           file.write(QJsonDocument(QJsonObject{{QStringLiteral("allowed_domains"), domains}}).toJson()) > 0;
}

AllowlistModel::Status statusOf(AllowlistEditor *editor, const QString &text)
{
    for (int row = 0; row < editor->model()->rowCount(); ++row) {
        if (editor->model()->index(row).data().toString() == text)
            return editor->model()->status(row);
    }
    return AllowlistModel::Status::Unchecked;
}

QAction *presetAction(AllowlistEditor *editor, const QString &name)
{
    return editor->findChild<QToolButton *>(QStringLiteral("allowlistPresetButton"))
        ->menu()
        ->findChild<QAction *>(QStringLiteral("preset_") + name);
}

} // namespace

class NetworkEditorTest final : public QObject
{
    Q_OBJECT

private:
    CordonTest::DaemonFixture m_daemon;
    std::unique_ptr<DaemonConnection> m_connection;
    std::unique_ptr<NetworkPanel> m_panel;
    std::unique_ptr<QAbstractItemModelTester> m_listTester;
    std::unique_ptr<QAbstractItemModelTester> m_decisionTester;
    QString m_id;

    QJsonObject containerJson(const QString &id)
    {
        const auto got = m_daemon.call(QStringLiteral("container.get"), {{QStringLiteral("id"), id}});
        return got ? got->value(QStringLiteral("container")).toObject() : QJsonObject();
    }

    AllowlistEditor *editor() const { return m_panel->editor(); }

    void typeEntry(AllowlistEditor *target, const QString &text)
    {
        target->entryField()->clear();
        target->entryField()->setFocus();
        QTest::keyClicks(target->entryField(), text);
    }

    bool connectPanel()
    {
        m_connection = std::make_unique<DaemonConnection>();
        m_connection->setAutoStart(false);
        m_connection->open();
        return QTest::qWaitFor([this] { return m_connection->isConnected(); }, 10000);
    }

private Q_SLOTS:
    void initTestCase()
    {
        // The organisation allows three hosts; pypi.org is in the container's list from the start.
        QVERIFY(writeOrgFile(orgFile(),
                             QJsonArray{QStringLiteral("pypi.org"), QStringLiteral("files.pythonhosted.org"),
                                        QStringLiteral("example.com")}));
        QVERIFY(m_daemon.start());
        const auto created = m_daemon.call(
            QStringLiteral("container.create"),
            {{QStringLiteral("policy"),
              QJsonObject{{QStringLiteral("name"), QStringLiteral("net-test")},
                          {QStringLiteral("network_policy"), allowlist({QStringLiteral("pypi.org")})}}}});
        QVERIFY_RESULT(created);
        m_id = created->value(QStringLiteral("container")).toObject().value(QStringLiteral("id")).toString();
        QVERIFY(connectPanel());
        m_panel = std::make_unique<NetworkPanel>(*m_connection);
        // As the window does: pushed events reach the panel.
        connect(m_connection.get(), &DaemonConnection::eventReceived, m_panel.get(), &NetworkPanel::onEvent);
        m_listTester = std::make_unique<QAbstractItemModelTester>(
            editor()->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        m_decisionTester = std::make_unique<QAbstractItemModelTester>(
            m_panel->decisionModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        m_panel->resize(900, 700);
        m_panel->show();
        QVERIFY(CordonGuiTest::activate(m_panel.get()));
        m_panel->setContainer(containerJson(m_id));
        QCOMPARE(m_panel->page(), QStringLiteral("allowlist"));
        QCOMPARE(editor()->model()->rowCount(), 1);
        QTRY_COMPARE(statusOf(editor(), QStringLiteral("pypi.org")), AllowlistModel::Status::Valid);
        // The organisation list is shown beside it, read from the daemon.
        QTRY_COMPARE(m_panel->organisationEditor()->editor()->model()->rowCount(), 3);
        QVERIFY(m_panel->organisationEditor()->sourceText().contains(QLatin1String("org-policy.json")));
        QVERIFY(!m_panel->applyButton()->isEnabled());
    }

    void aChangedOrganisationListIsShownAtOnce()
    {
        // Saved elsewhere (Settings, the CLI): the daemon's pushed event, not the panel's 4 s timer, brings
        // it.
        const QJsonArray wider{QStringLiteral("pypi.org"), QStringLiteral("files.pythonhosted.org"),
                               QStringLiteral("example.com"), QStringLiteral("registry.npmjs.org")};
        QVERIFY_RESULT(m_daemon.call(QStringLiteral("network.set_org_policy"),
                                     {{QStringLiteral("allowed_domains"), wider}}));
        QTRY_COMPARE_WITH_TIMEOUT(m_panel->organisationEditor()->editor()->model()->rowCount(), 4,
                                  NetworkPanel::RefreshIntervalMs / 2);
        QVERIFY_RESULT(
            m_daemon.call(QStringLiteral("network.set_org_policy"),
                          {{QStringLiteral("allowed_domains"), QJsonArray{wider[0], wider[1], wider[2]}}}));
        QTRY_COMPARE_WITH_TIMEOUT(m_panel->organisationEditor()->editor()->model()->rowCount(), 3,
                                  NetworkPanel::RefreshIntervalMs / 2);
    }

    void badEntryIsRefusedWithTheParsersWords()
    {
        // The verdict has its place reserved: the list below does not move as it comes and goes.
        const int listTop = editor()->view()->geometry().top();
        typeEntry(editor(), QStringLiteral("https://pypi.org/simple"));
        QTRY_VERIFY2(editor()->fieldMessage().startsWith(QLatin1String("Refused: ")),
                     qPrintable(editor()->fieldMessage()));
        QTRY_COMPARE(editor()->view()->geometry().top(), listTop);
        QVERIFY2(editor()->fieldMessage().contains(QLatin1String("without a scheme")),
                 qPrintable(editor()->fieldMessage()));
        QVERIFY(!editor()->findChild<QPushButton *>(QStringLiteral("allowlistAddButton"))->isEnabled());
        QTest::keyClick(editor()->entryField(), Qt::Key_Return);
        QCOMPARE(editor()->model()->rowCount(), 1);

        typeEntry(editor(), QStringLiteral("*.com"));
        QTRY_VERIFY2(editor()->fieldMessage().contains(QLatin1String("wildcard")),
                     qPrintable(editor()->fieldMessage()));
        // A rule object with a mistake: the daemon's own words about it.
        typeEntry(editor(), QStringLiteral("{\"domain\": \"example.com\", \"ports\": [0]}"));
        QTRY_VERIFY2(editor()->fieldMessage().contains(QLatin1String("ports[0]")),
                     qPrintable(editor()->fieldMessage()));
        typeEntry(editor(), QStringLiteral("{\"domain\": "));
        QTRY_VERIFY2(editor()->fieldMessage().startsWith(QLatin1String("A rule object must be JSON")),
                     qPrintable(editor()->fieldMessage()));
        editor()->entryField()->clear();
        QTRY_COMPARE(editor()->fieldMessage(), QString());
        QTRY_COMPARE(editor()->view()->geometry().top(), listTop);
        // Nor does selecting an entry, whose meaning appears below the list, change the list's size.
        editor()->view()->clearSelection();
        editor()->view()->setCurrentIndex(QModelIndex());
        QApplication::processEvents();
        const QRect listBefore = editor()->view()->geometry();
        editor()->view()->setCurrentIndex(editor()->model()->index(0, 0));
        QTRY_VERIFY(!editor()->ruleMeaning().isEmpty());
        QTRY_COMPARE(editor()->view()->geometry(), listBefore);
    }

    void entryOutsideTheOrganisationIsMarkedAndNotApplied()
    {
        typeEntry(editor(), QStringLiteral("evil.example"));
        QTRY_VERIFY2(editor()->fieldMessage().startsWith(QLatin1String("Outside the organisation allowlist")),
                     qPrintable(editor()->fieldMessage()));
        QVERIFY(editor()->fieldMessage().contains(
            QLatin1String("\"evil.example\" is not in the organisation allowlist")));
        QTest::keyClick(editor()->entryField(), Qt::Key_Return);
        QCOMPARE(editor()->model()->rowCount(), 1); // refused in the field

        // One that arrives otherwise (a preset, a list written elsewhere) is marked, and Apply stays off.
        editor()->entryField()->clear();
        QCOMPARE(editor()->addEntries(QJsonArray{QStringLiteral("evil.example")}), 1);
        QTRY_COMPARE(statusOf(editor(), QStringLiteral("evil.example")), AllowlistModel::Status::Outside);
        QVERIFY(m_panel->isModified());
        QVERIFY(!m_panel->applyButton()->isEnabled());
        QVERIFY2(
            m_panel->applyButton()->toolTip().contains(QLatin1String("outside the organisation allowlist")),
            qPrintable(m_panel->applyButton()->toolTip()));
        QVERIFY(editor()
                    ->model()
                    ->index(1)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .contains(QLatin1String("evil.example")));
        m_panel->apply(); // refused while disabled: nothing reaches the daemon
        QCOMPARE(domainsOf(containerJson(m_id)), QStringList{QStringLiteral("pypi.org")});

        // Removed with Del on the list: nothing left to apply.
        editor()->view()->setCurrentIndex(editor()->model()->index(1));
        editor()->view()->setFocus();
        QTest::keyClick(editor()->view(), Qt::Key_Delete);
        QCOMPARE(editor()->model()->rowCount(), 1);
        QTRY_VERIFY(!m_panel->isModified());
    }

    void validListApplies()
    {
        typeEntry(editor(), QStringLiteral("FILES.pythonhosted.org."));
        QTest::keyClick(editor()->entryField(), Qt::Key_Return); // before the verdict: added once it comes
        QTRY_COMPARE(editor()->model()->rowCount(), 2);
        QTRY_VERIFY(m_panel->applyButton()->isEnabled());
        QTest::mouseClick(m_panel->applyButton(), Qt::LeftButton);
        QTRY_VERIFY2(m_panel->message().startsWith(QLatin1String("Applied")), qPrintable(m_panel->message()));
        QCOMPARE(domainsOf(containerJson(m_id)),
                 (QStringList{QStringLiteral("pypi.org"), QStringLiteral("files.pythonhosted.org")}));
        // The editor shows the daemon's canonical form, and there is nothing left to apply.
        QCOMPARE(editor()->model()->index(1).data().toString(), QStringLiteral("files.pythonhosted.org"));
        QVERIFY(!m_panel->isModified());

        // The selected entry in words, for a reviewer.
        editor()->view()->setCurrentIndex(editor()->model()->index(0));
        QTRY_COMPARE(
            editor()->ruleMeaning(),
            QStringLiteral("Allows pypi.org, ports 80 and 443, any method, any path, this host only."));
        QVERIFY(editor()->findChild<QLabel *>(QStringLiteral("allowlistRuleMeaning"))->isVisibleTo(editor()));

        // Edit (F2) replaces an entry in place; Revert goes back.
        editor()->view()->setCurrentIndex(editor()->model()->index(1));
        editor()->view()->setFocus();
        QTest::keyClick(editor()->view(), Qt::Key_F2);
        QCOMPARE(editor()->entryField()->text(), QStringLiteral("files.pythonhosted.org"));
        typeEntry(editor(), QStringLiteral("example.com"));
        QTest::keyClick(editor()->entryField(), Qt::Key_Return);
        QTRY_COMPARE(editor()->model()->index(1).data().toString(), QStringLiteral("example.com"));
        QCOMPARE(editor()->model()->rowCount(), 2);
        QTRY_VERIFY(m_panel->applyButton()->isEnabled());
        QTest::mouseClick(m_panel->revertButton(), Qt::LeftButton);
        QCOMPARE(editor()->model()->index(1).data().toString(), QStringLiteral("files.pythonhosted.org"));
    }

    void presetsAddTheirHosts()
    {
        QAction *github = presetAction(editor(), QStringLiteral("github"));
        QVERIFY(github);
        github->trigger();
        QCOMPARE(editor()->model()->rowCount(), 2 + 6);
        QVERIFY(editor()->model()->find(QStringLiteral("release-assets.githubusercontent.com")) >= 0);
        // None of them is in this organisation's list.
        QTRY_COMPARE(statusOf(editor(), QStringLiteral("github.com")), AllowlistModel::Status::Outside);
        QTRY_VERIFY(editor()->isAcceptable() == false && !editor()->isChecking());
        QVERIFY(!m_panel->applyButton()->isEnabled());
        m_panel->revert();
        QCOMPARE(editor()->model()->rowCount(), 2);
        // Hosts already listed are not added twice.
        presetAction(editor(), QStringLiteral("python"))->trigger();
        QCOMPARE(editor()->model()->rowCount(), 2);
        presetAction(editor(), QStringLiteral("npm"))->trigger();
        QCOMPARE(editor()->model()->rowCount(), 3);
        QCOMPARE(editor()->model()->index(2).data().toString(), QStringLiteral("registry.npmjs.org"));
        m_panel->revert();
    }

    // The trainer's network probe in a container with an allowlist: it tells a host the policy refuses from
    // one it allows that cannot be reached (this machine has no way out, so pypi.org fails upstream).
    void theNetworkProbeTellsDenialFromUpstreamFailure()
    {
        const auto scripts = DemoScripts::all();
        const auto probe = std::find_if(scripts.cbegin(), scripts.cend(), [](const DemoScript &script) {
            return script.id == QLatin1String("network-probe");
        });
        QVERIFY(probe != scripts.cend());
        // A container of its own, so that the other tests' decision counts stay as they expect.
        const auto created = m_daemon.call(
            QStringLiteral("container.create"),
            {{QStringLiteral("policy"),
              QJsonObject{{QStringLiteral("network_policy"), allowlist({QStringLiteral("pypi.org")})}}}});
        QVERIFY_RESULT(created);
        const QString id =
            created->value(QStringLiteral("container")).toObject().value(QStringLiteral("id")).toString();
        const auto started =
            m_daemon.call(QStringLiteral("run.exec"), {{QStringLiteral("container"), id},
                                                       {QStringLiteral("language"), QStringLiteral("python")},
                                                       {QStringLiteral("code"), probe->code()}});
        QVERIFY_RESULT(started);
        auto finished =
            m_daemon.call(QStringLiteral("run.wait"),
                          {{QStringLiteral("run_id"),
                            started->value(QStringLiteral("run")).toObject().value(QStringLiteral("id"))}});
        QVERIFY_RESULT(finished);
        auto run =
            m_daemon.call(QStringLiteral("run.get"),
                          {{QStringLiteral("run_id"),
                            finished->value(QStringLiteral("run")).toObject().value(QStringLiteral("id"))}});
        QVERIFY_RESULT(run);
        const QString out =
            run->value(QStringLiteral("run")).toObject().value(QStringLiteral("stdout")).toString();
        QVERIFY2(out.contains(QStringLiteral("GET http://example.com/: denied by policy")), qPrintable(out));
        QVERIFY2(
            out.contains(QStringLiteral("GET https://pypi.org/simple/: allowed, but the upstream failed")),
            qPrintable(out));
    }

    void decisionsFillAndAllowThisHost()
    {
        // A program asks the proxy for two hosts the container's list does not name: example.com (which the
        // organisation permits) twice, evil.example (which it does not) once.
        const auto started = m_daemon.call(
            QStringLiteral("run.exec"),
            {{QStringLiteral("container"), m_id},
             {QStringLiteral("command"),
              QJsonArray{
                  QStringLiteral("/bin/sh"), QStringLiteral("-c"),
                  QStringLiteral("curl -s -m 5 http://example.com/; curl -s -m 5 http://example.com/again; "
                                 "curl -s -m 5 http://evil.example/")}}});
        QVERIFY_RESULT(started);
        const QJsonObject run = started->value(QStringLiteral("run")).toObject();
        QVERIFY_RESULT(m_daemon.call(QStringLiteral("run.wait"),
                                     {{QStringLiteral("run_id"), run.value(QStringLiteral("id"))}}));
        m_panel->onEvent(QStringLiteral("run.finished"), {{QStringLiteral("run"), run}});

        NetworkDecisionModel *decisions = m_panel->decisionModel();
        QTRY_VERIFY(decisions->find(QStringLiteral("example.com"), QStringLiteral("denied")) >= 0 &&
                    decisions->find(QStringLiteral("evil.example"), QStringLiteral("denied")) >= 0);
        const int example = decisions->find(QStringLiteral("example.com"), QStringLiteral("denied"));
        QCOMPARE(decisions->index(example, NetworkDecisionModel::CountColumn).data().toString(),
                 QStringLiteral("2"));
        QCOMPARE(decisions->index(example, NetworkDecisionModel::DecisionColumn).data().toString(),
                 QStringLiteral("denied"));
        QVERIFY2(decisions->index(example, NetworkDecisionModel::ReasonColumn)
                     .data()
                     .toString()
                     .contains(QLatin1String("not in this container's allowlist")),
                 qPrintable(decisions->index(example, NetworkDecisionModel::ReasonColumn).data().toString()));
        QVERIFY(!decisions->index(example, NetworkDecisionModel::TimeColumn).data().toString().isEmpty());

        // Outside the organisation list: the daemon says so, and the action stays off.
        QTableView *table = m_panel->decisionView();
        table->setCurrentIndex(
            decisions->index(decisions->find(QStringLiteral("evil.example"), QStringLiteral("denied")), 0));
        QTRY_VERIFY2(m_panel->allowHostButton()->toolTip().contains(QLatin1String("does not permit")),
                     qPrintable(m_panel->allowHostButton()->toolTip()));
        QVERIFY(!m_panel->allowHostButton()->isEnabled());

        // Permitted by the organisation: allowed, and applied at once.
        table->setCurrentIndex(decisions->index(example, 0));
        QTRY_VERIFY(m_panel->allowHostButton()->isEnabled());
        QTest::mouseClick(m_panel->allowHostButton(), Qt::LeftButton);
        QTRY_VERIFY2(m_panel->message().startsWith(QLatin1String("Allowed example.com")),
                     qPrintable(m_panel->message()));
        QVERIFY(domainsOf(containerJson(m_id)).contains(QStringLiteral("example.com")));
        QCOMPARE(statusOf(editor(), QStringLiteral("example.com")), AllowlistModel::Status::Valid);
        QTRY_VERIFY(!m_panel->allowHostButton()->isEnabled()); // listed now
    }

    void secretDeliveriesAreShownAndApplyKeepsThem()
    {
        // A container with a domain secret for example.com: a program sends its placeholder there over plain
        // HTTP, which the proxy refuses (the value goes only over HTTPS, which it terminates).
        QVERIFY_RESULT(m_daemon.call(QStringLiteral("secret.set"),
                                     {{QStringLiteral("name"), QStringLiteral("API_TOKEN")},
                                      {QStringLiteral("value"), QStringLiteral("gui-test-value-123")}}));
        QJsonObject network = allowlist({QStringLiteral("example.com")});
        network.insert(QStringLiteral("domain_secrets"),
                       QJsonArray{QJsonObject{{QStringLiteral("domain"), QStringLiteral("example.com")},
                                              {QStringLiteral("name"), QStringLiteral("API_TOKEN")}}});
        const auto created = m_daemon.call(
            QStringLiteral("container.create"),
            {{QStringLiteral("policy"), QJsonObject{{QStringLiteral("name"), QStringLiteral("net-secret")},
                                                    {QStringLiteral("network_policy"), network}}}});
        QVERIFY_RESULT(created);
        const QString id =
            created->value(QStringLiteral("container")).toObject().value(QStringLiteral("id")).toString();
        const auto started = m_daemon.call(
            QStringLiteral("run.exec"),
            {{QStringLiteral("container"), id},
             {QStringLiteral("command"),
              QJsonArray{QStringLiteral("/bin/sh"), QStringLiteral("-c"),
                         QStringLiteral(
                             "curl -s -m 5 http://example.com/ -H \"Authorization: Bearer $API_TOKEN\"")}}});
        QVERIFY_RESULT(started);
        const QJsonObject run = started->value(QStringLiteral("run")).toObject();
        QVERIFY_RESULT(m_daemon.call(QStringLiteral("run.wait"),
                                     {{QStringLiteral("run_id"), run.value(QStringLiteral("id"))}}));

        m_panel->setContainer(containerJson(id));
        m_panel->onEvent(QStringLiteral("run.finished"), {{QStringLiteral("run"), run}});
        QTRY_VERIFY(m_panel->secretDeliveries()->isVisible());
        QCOMPARE(m_panel->secretDeliveries()->text(),
                 QStringLiteral("Secret API_TOKEN: refused to example.com (1 request)"));

        // The allowlist editor knows nothing of domain secrets; applying a list keeps them.
        typeEntry(editor(), QStringLiteral("pypi.org"));
        QTest::keyClick(editor()->entryField(), Qt::Key_Return);
        QTRY_VERIFY(m_panel->applyButton()->isEnabled());
        QTest::mouseClick(m_panel->applyButton(), Qt::LeftButton);
        QTRY_VERIFY(domainsOf(containerJson(id)).contains(QStringLiteral("pypi.org")));
        const QJsonArray kept = containerJson(id)[QStringLiteral("policy")][QStringLiteral("network_policy")]
                                                 [QStringLiteral("domain_secrets")]
                                                     .toArray();
        QCOMPARE(kept.size(), 1);

        // A container without them shows nothing.
        m_panel->setContainer(containerJson(m_id));
        QTRY_VERIFY(!m_panel->secretDeliveries()->isVisible());
    }

    void createDialogOffersAnAllowlist()
    {
        CreateContainerDialog dialog(*m_connection);
        dialog.setName(QStringLiteral("net-create"));
        QVERIFY(dialog.canCreate()); // network off by default
        dialog.setAllowlistChosen(true);
        AllowlistEditor *list = dialog.allowlistEditor();
        QVERIFY(list->isVisibleTo(&dialog));
        presetAction(list, QStringLiteral("python"))->trigger();
        QCOMPARE(list->model()->rowCount(), 2);
        QTRY_VERIFY(dialog.canCreate());
        list->addEntries(QJsonArray{QStringLiteral("registry.npmjs.org")});
        QTRY_VERIFY(!list->isChecking() && !dialog.canCreate());
        list->view()->setCurrentIndex(list->model()->index(2));
        list->removeSelected();
        QTRY_VERIFY(dialog.canCreate());
        dialog.accept();
        QTRY_VERIFY_WITH_TIMEOUT(!dialog.createdContainer().isEmpty(), 30000);
        QCOMPARE(domainsOf(dialog.createdContainer()),
                 (QStringList{QStringLiteral("pypi.org"), QStringLiteral("files.pythonhosted.org")}));
        m_daemon.call(QStringLiteral("container.delete"),
                      {{QStringLiteral("id"), dialog.createdContainer().value(QStringLiteral("id"))}});
    }

    void unappliedEditsSurviveASwitch()
    {
        m_panel->setContainer(containerJson(m_id));
        QVERIFY(!m_panel->isModified());
        QCOMPARE(editor()->addEntries(QJsonArray{QStringLiteral("drafted.example")}), 1);
        QVERIFY(m_panel->isModified());
        // Another container (here: none) and back: the edit is there again, still not applied.
        m_panel->setContainer({});
        QCOMPARE(m_panel->page(), QStringLiteral("none"));
        m_panel->setContainer(containerJson(m_id));
        QVERIFY(m_panel->isModified());
        QVERIFY(editor()->entries().contains(QJsonValue(QStringLiteral("drafted.example"))));
        QVERIFY2(m_panel->message().contains(QLatin1String("from before")), qPrintable(m_panel->message()));
        QVERIFY(!domainsOf(containerJson(m_id)).contains(QStringLiteral("drafted.example")));
        m_panel->revert();
        QVERIFY(!m_panel->isModified());
        // Reverted, nothing is kept for the next visit.
        m_panel->setContainer({});
        m_panel->setContainer(containerJson(m_id));
        QVERIFY(!m_panel->isModified());
        QVERIFY(m_panel->message().isEmpty());
    }

    void containerWithoutNetworkExplainsHowToGetOne()
    {
        const auto created = m_daemon.call(
            QStringLiteral("container.create"),
            {{QStringLiteral("policy"), QJsonObject{{QStringLiteral("name"), QStringLiteral("offline")}}}});
        QVERIFY_RESULT(created);
        const QString id =
            created->value(QStringLiteral("container")).toObject().value(QStringLiteral("id")).toString();
        m_panel->setContainer(containerJson(id));
        QCOMPARE(m_panel->page(), QStringLiteral("disabled"));
        auto *enable = m_panel->findChild<QPushButton *>(QStringLiteral("enableAllowlistButton"));
        QVERIFY(!enable->isEnabled()); // running: it cannot switch
        QVERIFY(m_panel->findChild<QLabel *>(QStringLiteral("networkDisabledNote"))
                    ->text()
                    .contains(QLatin1String("stop the container")));
        QVERIFY_RESULT(m_daemon.call(QStringLiteral("container.stop"), {{QStringLiteral("id"), id}}));
        m_panel->onEvent(QStringLiteral("container.changed"),
                         {{QStringLiteral("container"), containerJson(id)}});
        QVERIFY(enable->isEnabled());
        QTest::mouseClick(enable, Qt::LeftButton);
        QTRY_COMPARE(m_panel->page(), QStringLiteral("allowlist"));
        QCOMPARE(containerJson(id)
                     .value(QStringLiteral("policy"))
                     .toObject()
                     .value(QStringLiteral("network_policy"))
                     .toObject()
                     .value(QStringLiteral("type"))
                     .toString(),
                 QStringLiteral("allowlist"));
        m_daemon.call(QStringLiteral("container.delete"), {{QStringLiteral("id"), id}});
        m_panel->setContainer(containerJson(m_id));
    }

    void organisationEditorWritesTheUserFile()
    {
        OrgAllowlistEditor org(*m_connection);
        org.show();
        QTRY_COMPARE(org.editor()->model()->rowCount(), 3);
        QVERIFY(!org.isAdministered());
        QVERIFY(org.editor()->entryField()->isVisible());
        QVERIFY(!org.saveButton()->isEnabled());
        // Inline validation, the same as the container's (outside the organisation does not apply here).
        typeEntry(org.editor(), QStringLiteral("registry..npmjs.org"));
        QTRY_VERIFY2(org.editor()->fieldMessage().contains(QLatin1String("empty label")),
                     qPrintable(org.editor()->fieldMessage()));
        typeEntry(org.editor(), QStringLiteral("registry.npmjs.org"));
        QTRY_COMPARE(org.editor()->fieldMessage(), QStringLiteral("Valid: registry.npmjs.org"));
        QTest::keyClick(org.editor()->entryField(), Qt::Key_Return);
        QTRY_VERIFY(org.saveButton()->isEnabled());
        // Save says what changes before it writes; Cancel writes nothing.
        const auto question = [&org]() -> QMessageBox * {
            QMessageBox *box = nullptr;
            const bool shown = QTest::qWaitFor([&] {
                box = org.findChild<QMessageBox *>(QStringLiteral("orgSaveQuestion"));
                return box && box->isVisible();
            });
            return shown ? box : nullptr;
        };
        const QByteArray before = readOrgFile();
        QTest::mouseClick(org.saveButton(), Qt::LeftButton);
        QMessageBox *box = question();
        QVERIFY(box);
        QVERIFY2(box->informativeText().startsWith(QLatin1String("Added (1): registry.npmjs.org\n")) &&
                     !box->informativeText().contains(QLatin1String("Removed")),
                 qPrintable(box->informativeText()));
        box->button(QMessageBox::Cancel)->click();
        QTRY_VERIFY(!org.findChild<QMessageBox *>(QStringLiteral("orgSaveQuestion")));
        QCOMPARE(readOrgFile(), before);
        QVERIFY(org.isModified());
        QTest::mouseClick(org.saveButton(), Qt::LeftButton);
        box = question();
        QVERIFY(box);
        box->findChild<QPushButton *>(QStringLiteral("orgSaveConfirm"))->click();
        QTRY_VERIFY2(org.message().startsWith(QLatin1String("Saved")), qPrintable(org.message()));
        QFile file(orgFile());
        QVERIFY(file.open(QIODevice::ReadOnly));
        QVERIFY(QJsonDocument::fromJson(file.readAll())
                    .object()
                    .value(QStringLiteral("allowed_domains"))
                    .toArray()
                    .contains(QStringLiteral("registry.npmjs.org")));
        // In force at once: the container may now list it.
        const auto checked = m_daemon.call(
            QStringLiteral("network.check"),
            {{QStringLiteral("allowed_domains"), QJsonArray{QStringLiteral("registry.npmjs.org")}}});
        QVERIFY_RESULT(checked);
        QVERIFY(checked->value(QStringLiteral("ok")).toBool());
    }

    // Last: it replaces the daemon with one that sees an administrator's file.
    void organisationEditorIsReadOnlyWhenAdministered()
    {
        m_panel.reset();
        m_connection.reset();
        QVERIFY(m_daemon.stop());
        QTemporaryDir etc;
        const QString system = etc.filePath(QStringLiteral("org-policy.json"));
        QVERIFY(writeOrgFile(system, QJsonArray{QStringLiteral("pypi.org")}));
        qputenv("CORDON_SYSTEM_ORG_POLICY", system.toLocal8Bit());
        QVERIFY(m_daemon.start());
        qunsetenv("CORDON_SYSTEM_ORG_POLICY");
        QVERIFY(connectPanel());
        OrgAllowlistEditor org(*m_connection);
        org.show();
        QTRY_VERIFY(org.isAdministered());
        QCOMPARE(org.editor()->model()->rowCount(), 1);
        QVERIFY(org.editor()->isReadOnly());
        QVERIFY(!org.editor()->entryField()->isVisible());
        QVERIFY(!org.saveButton()->isVisible());
        QVERIFY2(org.sourceText().contains(QLatin1String("Set by your administrator")),
                 qPrintable(org.sourceText()));
        QVERIFY(org.sourceText().contains(system));
        org.save(); // nothing happens: there is nothing it may save
        QCOMPARE(org.message(), QString());
    }

    void cleanupTestCase() { QVERIFY(m_daemon.stop()); }
};

CORDON_GUI_SANDBOX_TEST_MAIN(NetworkEditorTest)
#include "tst_networkeditor.moc"
