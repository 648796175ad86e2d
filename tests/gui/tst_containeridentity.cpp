// SPDX-License-Identifier: MIT
// Telling containers apart and looking into one, against a real cordond: names are unique and readable by
// default, the list shows each id, the context menu and the delete confirmation name it, Inspect shows every
// limit, the effective allowlist and the policy in full, and the Help menu's windows have their content.
#include "guitest.h"
#include "windowtest.h"

#include "containerlistmodel.h"
#include "createcontainerdialog.h"
#include "helpdialogs.h"
#include "inspectdialog.h"
#include "policyview.h"
#include "testutil.h"

#include <QClipboard>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QRegularExpression>
#include <QTimer>
#include <QTreeView>

#include <cstdio>

using namespace Cordon::Ui;
using CordonGuiTest::callAndWait;

namespace {

// Replaced as editors do: a new file renamed over the old one, so the daemon never reads half of it.
bool writeOrgFile(const QJsonArray &domains)
{
    const QString path = qEnvironmentVariable("XDG_CONFIG_HOME") + QStringLiteral("/cordon/org-policy.json");
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile file(path + QStringLiteral(".new"));
    if (!file.open(QIODevice::WriteOnly) ||
        file.write(QJsonDocument(QJsonObject{{QStringLiteral("allowed_domains"), domains}}).toJson()) <= 0)
        return false;
    file.close();
    return std::rename(QFile::encodeName(file.fileName()).constData(), QFile::encodeName(path).constData()) ==
           0;
}

} // namespace

class ContainerIdentityTest final : public QObject
{
    Q_OBJECT

    CordonTest::DaemonFixture m_daemon;
    std::unique_ptr<MainWindow> m_window;

    QJsonObject create(const QJsonObject &policy)
    {
        auto created = callAndWait(m_window->connection(), QStringLiteral("container.create"),
                                   {{QStringLiteral("policy"), policy}});
        if (!created) {
            qWarning("%s", created.error().describe().c_str());
            return {};
        }
        return created->value(QStringLiteral("container")).toObject();
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(writeOrgFile({QStringLiteral("pypi.org"), QStringLiteral("*.example.com")}));
        QVERIFY(m_daemon.start());
        m_window = CordonGuiTest::openConnectedWindow();
        QVERIFY(m_window);
    }

    void cleanupTestCase()
    {
        m_window.reset();
        QVERIFY(m_daemon.stop());
    }

    void namesAreReadableByDefaultAndUnique()
    {
        const QJsonObject first = create({});
        const QJsonObject second = create({});
        static const QRegularExpression readable(QStringLiteral("^[a-z]+-[a-z]+$"));
        const QString a = first.value(QStringLiteral("name")).toString();
        const QString b = second.value(QStringLiteral("name")).toString();
        QVERIFY2(readable.match(a).hasMatch(), qPrintable(a));
        QVERIFY2(readable.match(b).hasMatch(), qPrintable(b));
        QVERIFY(a != b);
        QVERIFY(a != QLatin1String("sandbox"));

        // A second container with a name in use is refused, and says which container has it.
        auto duplicate = callAndWait(m_window->connection(), QStringLiteral("container.create"),
                                     {{QStringLiteral("policy"), QJsonObject{{QStringLiteral("name"), a}}}});
        QVERIFY(!duplicate);
        QCOMPARE(duplicate.error().code(), "container.name_taken");
        QVERIFY2(
            Cordon::toQt(duplicate.error().message()).contains(first.value(QStringLiteral("id")).toString()),
            duplicate.error().message().c_str());
        QVERIFY(!duplicate.error().hint().empty());

        // The New Container dialog refuses it before asking, and lets an empty name through.
        QTRY_VERIFY(m_window->containerModel().liveNames().contains(a));
        m_window->showCreateDialog();
        auto *dialog = m_window->findChild<CreateContainerDialog *>(QStringLiteral("createContainerDialog"));
        QVERIFY(dialog);
        QVERIFY(dialog->canCreate());
        QVERIFY(!dialog->policy().contains(QStringLiteral("name")));
        dialog->setName(a);
        QVERIFY(!dialog->canCreate());
        dialog->setName(a + QStringLiteral("-2"));
        QVERIFY(dialog->canCreate());
        // What a name cannot hold is left out with a word under the field saying why, until it is emptied.
        auto *nameField = dialog->findChild<QLineEdit *>(QStringLiteral("createName"));
        auto *note = dialog->findChild<QLabel *>(QStringLiteral("createNameNote"));
        QVERIFY(nameField && note);
        nameField->clear();
        QVERIFY(!note->isVisibleTo(dialog));
        QTest::keyClicks(nameField, QStringLiteral("my box"));
        QCOMPARE(nameField->text(), QStringLiteral("mybox"));
        QVERIFY(note->isVisibleTo(dialog));
        QTRY_VERIFY2(note->text().startsWith(QStringLiteral("A space cannot be in a name")),
                     qPrintable(note->text()));
        QVERIFY(dialog->canCreate());
        QTest::keyClicks(nameField, QStringLiteral("!"));
        QCOMPARE(nameField->text(), QStringLiteral("mybox"));
        QTRY_VERIFY2(note->text().startsWith(QStringLiteral("“!” cannot be in a name")),
                     qPrintable(note->text()));
        nameField->setText(QString(64, QLatin1Char('n')));
        QTest::keyClicks(nameField, QStringLiteral("n"));
        QCOMPARE(nameField->text().size(), 64);
        QTRY_VERIFY2(note->text().startsWith(QStringLiteral("A name has at most 64 characters")),
                     qPrintable(note->text()));
        nameField->clear();
        QVERIFY(!note->isVisibleTo(dialog));
        dialog->reject();
        dialog->deleteLater();
        QTest::qWait(0);

        // The name is free again once its container is deleted.
        QVERIFY_RESULT(callAndWait(m_window->connection(), QStringLiteral("container.delete"),
                                   {{QStringLiteral("id"), first.value(QStringLiteral("id"))}}));
        QCOMPARE(create({{QStringLiteral("name"), a}}).value(QStringLiteral("name")).toString(), a);
    }

    void theListShowsTheShortIdAndAStateOfFixedWidth()
    {
        const QJsonObject container = create({{QStringLiteral("name"), QStringLiteral("busy")}});
        const QString id = container.value(QStringLiteral("id")).toString();
        QTRY_VERIFY(m_window->containerModel().rowOf(id) >= 0);
        ContainerListModel &model = m_window->containerModel();
        const int row = model.rowOf(id);
        // The short id in the column, the whole one in its tooltip (and on the clipboard: Copy Container ID).
        QCOMPARE(model.index(row, ContainerListModel::IdColumn).data().toString(), id.left(8));
        QVERIFY(
            model.index(row, ContainerListModel::IdColumn).data(Qt::ToolTipRole).toString().startsWith(id));
        QCOMPARE(id.size(), 16);
        QCOMPARE(model.headerData(ContainerListModel::IdColumn, Qt::Horizontal).toString(),
                 QStringLiteral("ID"));
        // Running code is an icon beside the same word, not a longer text that widens the column.
        QVERIFY_RESULT(callAndWait(
            m_window->connection(), QStringLiteral("run.exec"),
            {{QStringLiteral("container"), id},
             {QStringLiteral("command"), QJsonArray{QStringLiteral("sleep"), QStringLiteral("3")}}}));
        QTRY_VERIFY_WITH_TIMEOUT(
            !model.index(model.rowOf(id), ContainerListModel::StateColumn).data(Qt::DecorationRole).isNull(),
            10000);
        QCOMPARE(model.index(model.rowOf(id), ContainerListModel::StateColumn).data().toString(),
                 QStringLiteral("Running"));
        QVERIFY(model.index(model.rowOf(id), ContainerListModel::StateColumn)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .contains(QStringLiteral("running code")));
        QTRY_VERIFY_WITH_TIMEOUT(
            model.index(model.rowOf(id), ContainerListModel::StateColumn).data(Qt::DecorationRole).isNull(),
            15000);
    }

    void contextMenuAndDeleteConfirmationNameTheContainer()
    {
        const QJsonObject container = create({{QStringLiteral("name"), QStringLiteral("menu-target")}});
        const QString id = container.value(QStringLiteral("id")).toString();
        QTRY_VERIFY(m_window->containerModel().rowOf(id) >= 0);
        m_window->selectContainer(id);
        auto *list = m_window->findChild<QTreeView *>(QStringLiteral("containerList"));
        QVERIFY(list);
        const QRect rect =
            list->visualRect(m_window->containerModel().index(m_window->containerModel().rowOf(id), 0));
        QStringList offered;
        QTimer::singleShot(200, this, [&offered] {
            auto *menu = qobject_cast<QMenu *>(QApplication::activePopupWidget());
            if (!menu)
                return;
            for (QAction *action : menu->actions())
                if (!action->isSeparator())
                    offered.append(action->text().remove(QLatin1Char('&')) +
                                   (action->isEnabled() ? QString() : QStringLiteral(" (disabled)")));
            menu->close();
        });
        QMetaObject::invokeMethod(list, "customContextMenuRequested", Q_ARG(QPoint, rect.center()));
        QCOMPARE(offered, (QStringList{QStringLiteral("Copy Container ID"), QStringLiteral("Inspect…"),
                                       QStringLiteral("Stop"), QStringLiteral("Keep Alive"),
                                       QStringLiteral("Mark as Demo Container"), QStringLiteral("Delete…")}));

        m_window->copyCurrentId();
        QCOMPARE(QGuiApplication::clipboard()->text(), id);

        m_window->findChild<QAction *>(QStringLiteral("deleteContainerAction"))->trigger();
        auto *box = m_window->findChild<QMessageBox *>(QStringLiteral("deleteConfirmation"));
        QVERIFY(box);
        QVERIFY2(box->text().contains(id) && box->text().contains(QStringLiteral("menu-target")),
                 qPrintable(box->text()));
        box->reject();
        QTest::qWait(50);
        QVERIFY(m_window->containerModel().rowOf(id) >= 0);
    }

    void inspectShowsLimitsAllowlistAndPolicy()
    {
        const QJsonObject policy{
            {QStringLiteral("name"), QStringLiteral("inspected")},
            {QStringLiteral("memory_limit"), QStringLiteral("4g")},
            {QStringLiteral("limits"),
             QJsonObject{{QStringLiteral("pids"), 64}, {QStringLiteral("run_timeout_s"), 90}}},
            {QStringLiteral("network_policy"),
             QJsonObject{{QStringLiteral("type"), QStringLiteral("allowlist")},
                         {QStringLiteral("allowed_domains"),
                          QJsonArray{QStringLiteral("pypi.org"), QStringLiteral("*.example.com")}}}}};
        const QString id = create(policy).value(QStringLiteral("id")).toString();
        QVERIFY(!id.isEmpty());
        QTRY_VERIFY(m_window->containerModel().rowOf(id) >= 0);
        m_window->selectContainer(id);
        InspectDialog *dialog = m_window->inspectCurrent();
        QVERIFY(dialog);
        QSignalSpy checked(dialog, &InspectDialog::allowlistChecked);
        QVERIFY(dialog->headerText().contains(QStringLiteral("ID: ") + id));
        QVERIFY(dialog->headerText().contains(QStringLiteral("Expires: ")));
        const QString words = dialog->policyView()->wordsText();
        for (const QString &expected :
             {QStringLiteral("Memory: 4 GiB"), QStringLiteral("Processes: at most 64 processes"),
              QStringLiteral("Run time: 90 s per run"), QStringLiteral("/tmp: 512 MiB"),
              QStringLiteral("Workspace: 2.0 GiB"), QStringLiteral("Output: 16 MiB"),
              QStringLiteral("Allows: pypi.org, ports 80 and 443, any method, any path, this host only"),
              QStringLiteral(
                  "Allows: *.example.com, ports 80 and 443, any method, any path, every subdomain of "
                  "example.com, not example.com itself"),
              QStringLiteral("never example.com itself")})
            QVERIFY2(words.contains(expected),
                     qPrintable(expected + QStringLiteral("\n--- in ---\n") + words));
        QVERIFY(dialog->policyView()->jsonText().contains(QStringLiteral("\"pids\": 64")));
        // Asking again raises the same window.
        QCOMPARE(m_window->inspectCurrent(), dialog);

        QTRY_VERIFY(!checked.isEmpty() || dialog->allowlistRows().value(0).endsWith(QStringLiteral("yes")));
        QTRY_COMPARE(dialog->allowlistRows().size(), 2);
        QTRY_VERIFY(dialog->allowlistRows().at(0).endsWith(QStringLiteral("— yes")));
        QVERIFY(dialog->allowlistRows().at(1).endsWith(QStringLiteral("— yes")));

        // The organisation narrows: the effective allowlist says so, as the proxy would act.
        QVERIFY(writeOrgFile({QStringLiteral("pypi.org")}));
        QTRY_VERIFY_WITH_TIMEOUT(callAndWait(m_window->connection(), QStringLiteral("network.org_policy"))
                                         ->value(QStringLiteral("allowed_domains"))
                                         .toArray()
                                         .size() == 1,
                                 10000);
        dialog->close();
        QTest::qWait(0);
        dialog = m_window->inspectCurrent();
        QTRY_COMPARE(dialog->allowlistRows().size(), 2);
        QTRY_VERIFY(dialog->allowlistRows().at(1).contains(QStringLiteral("outside the organisation")));
        QVERIFY(dialog->allowlistRows().at(0).endsWith(QStringLiteral("— yes")));
        dialog->close();
    }

    void runDetailAndExportCarryThePolicyText()
    {
        const QString id = create({{QStringLiteral("name"), QStringLiteral("policy-run")},
                                   {QStringLiteral("limits"), QJsonObject{{QStringLiteral("pids"), 77}}}})
                               .value(QStringLiteral("id"))
                               .toString();
        auto started = callAndWait(m_window->connection(), QStringLiteral("run.exec"),
                                   {{QStringLiteral("container"), id},
                                    {QStringLiteral("command"), QJsonArray{QStringLiteral("true")}}});
        QVERIFY_RESULT(started);
        const QString runId =
            started->value(QStringLiteral("run")).toObject().value(QStringLiteral("id")).toString();
        auto run = callAndWait(m_window->connection(), QStringLiteral("run.wait"),
                               {{QStringLiteral("run_id"), runId}});
        QVERIFY_RESULT(run);
        auto got = callAndWait(m_window->connection(), QStringLiteral("run.get"),
                               {{QStringLiteral("run_id"), runId}});
        QVERIFY_RESULT(got);
        const QJsonObject policy =
            got->value(QStringLiteral("run")).toObject().value(QStringLiteral("policy")).toObject();
        QCOMPARE(policy.value(QStringLiteral("limits")).toObject().value(QStringLiteral("pids")).toInt(), 77);
        QCOMPARE(policy.value(QStringLiteral("name")).toString(), QStringLiteral("policy-run"));
    }

    void helpMenuWindowsHaveTheirContent()
    {
        m_window->showDocumentation();
        auto *docs = m_window->findChild<DocumentationDialog *>();
        QVERIFY(docs);
        QVERIFY(docs->topics().size() >= 5);
        QVERIFY2(docs->shownText().startsWith(QStringLiteral("Cordon user guide")),
                 qPrintable(docs->shownText().left(80)));
        docs->showTopic(2);
        QVERIFY(docs->shownText().contains(QStringLiteral("cordon exec")));
        docs->close();

        m_window->showShortcuts();
        auto *shortcuts = m_window->findChild<ShortcutsDialog *>();
        QVERIFY(shortcuts);
        const QStringList rows = shortcuts->rows();
        for (const QString &expected :
             {QStringLiteral("Container › New Container: Ctrl+N"),
              QStringLiteral("Container › Inspect: Ctrl+I"), QStringLiteral("Edit › Preferences: Ctrl+,"),
              QStringLiteral("Help › User Guide: F1")})
            QVERIFY2(rows.contains(expected),
                     qPrintable(expected + QStringLiteral(" not in ") + rows.join(u'|')));
        shortcuts->close();

        const QString about = aboutText(
            m_window->connection().helloResult().value(QStringLiteral("daemon_version")).toString());
        QVERIFY(about.contains(QStringLiteral("Licence: MIT")));
        QVERIFY2(about.contains(QStringLiteral("Daemon (cordond): ") + QStringLiteral(CORDON_TEST_VERSION)),
                 qPrintable(about));

        // The welcome page over a non-empty list, until a container is chosen.
        auto *welcome = m_window->findChild<QWidget *>(QStringLiteral("welcomePage"));
        m_window->showWelcomePage();
        QTRY_VERIFY(welcome->isVisible());
        const QString other = create({}).value(QStringLiteral("id")).toString();
        QTRY_VERIFY(m_window->containerModel().rowOf(other) >= 0);
        m_window->selectContainer(other);
        QTRY_VERIFY(!welcome->isVisible());
    }

    void theDemoIsCalledDemoOnceThenGetsAFreeName()
    {
        QStringList demos;
        for (int i = 0; i < 2; ++i) {
            const int before = m_window->containerModel().rowCount();
            m_window->createDemoContainer();
            QTRY_VERIFY_WITH_TIMEOUT(m_window->containerModel().rowCount() == before + 1, 15000);
            demos.append(m_window->containerModel()
                             .container(m_window->currentContainerId())
                             .value(QStringLiteral("name"))
                             .toString());
        }
        QCOMPARE(demos.first(), QStringLiteral("demo"));
        QVERIFY2(demos.last() != QLatin1String("demo") && !demos.last().isEmpty(), qPrintable(demos.last()));
    }
};

CORDON_GUI_SANDBOX_TEST_MAIN(ContainerIdentityTest)

#include "tst_containeridentity.moc"
