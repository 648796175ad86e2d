// SPDX-License-Identifier: MIT
// The Settings dialog against a real cordond: the defaults it saves are what the New Container dialog
// offers, the theme switches the whole application's palette and back, the data location is the daemon's
// own, the history purge deletes old runs after a confirmation, and OK saves an edited organisation
// allowlist to the user's file through the daemon.
#include "guitest.h"
#include "sandbox/policy/containerpolicy.h"
#include "windowtest.h"

#include "allowlisteditor.h"
#include "appearance.h"
#include "createcontainerdialog.h"
#include "daemonconnection.h"
#include "mainwindow.h"
#include "orgallowlisteditor.h"
#include "settingsdialog.h"
#include "testutil.h"
#include "workbenchsettings.h"

#include <QComboBox>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSpinBox>
#include <QStandardPaths>

using namespace Cordon::Ui;

class SettingsTest final : public QObject
{
    Q_OBJECT

    QPointer<SettingsDialog> openSettings()
    {
        m_window->findChild<QAction *>(QStringLiteral("settingsAction"))->trigger();
        QPointer<SettingsDialog> dialog;
        if (!QTest::qWaitFor(
                [&] { return (dialog = m_window->findChild<SettingsDialog *>()) && dialog->isVisible(); }))
            return nullptr;
        return dialog;
    }

    Cordon::Result<QJsonObject> call(const QString &method, const QJsonObject &params = {})
    {
        return CordonGuiTest::callAndWait(m_window->connection(), method, params);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_daemon.start());
        m_window = CordonGuiTest::openConnectedWindow();
        QVERIFY(m_window);
    }

    void cleanupTestCase()
    {
        m_window.reset();
        QVERIFY(m_daemon.stop());
    }

    void defaultsReachTheCreateDialog()
    {
        QPointer<SettingsDialog> dialog = openSettings();
        QVERIFY(dialog);
        auto *memory = dialog->findChild<QComboBox *>(QStringLiteral("defaultMemory"));
        auto *idle = dialog->findChild<QSpinBox *>(QStringLiteral("defaultIdleMinutes"));
        QCOMPARE(memory->currentText(), QStringLiteral("1 GiB"));
        QCOMPARE(idle->value(), 20);
        memory->setCurrentIndex(memory->findData(4));
        idle->setValue(45);
        dialog->accept();
        QTRY_VERIFY(dialog.isNull() || !dialog->isVisible());
        QCOMPARE(WorkbenchSettings::defaultMemoryGib(), 4);
        QCOMPARE(WorkbenchSettings::defaultIdleMinutes(), 45);

        m_window->showCreateDialog();
        QPointer<CreateContainerDialog> create;
        QTRY_VERIFY((create = m_window->findChild<CreateContainerDialog *>()) && create->isVisible());
        const QJsonObject policy = create->policy();
        QCOMPARE(policy.value(QStringLiteral("memory_limit")).toString(), QStringLiteral("4g"));
        QCOMPARE(
            policy.value(QStringLiteral("expires_after")).toObject().value(QStringLiteral("minutes")).toInt(),
            45);
        // The file sizes are left to the tier unless chosen: 4g gives the workspace 2048 MiB and /tmp 512.
        const QJsonObject limits = policy.value(QStringLiteral("limits")).toObject();
        QVERIFY(!limits.contains(QStringLiteral("workspace_mb")) &&
                !limits.contains(QStringLiteral("tmp_mb")));
        const auto read = Cordon::Policy::ContainerPolicy::fromJson(
            QJsonDocument(policy).toJson(QJsonDocument::Compact).toStdString());
        QVERIFY_RESULT(read);
        QCOMPARE(read->limits.workspaceMb, 2048);
        QCOMPARE(read->limits.tmpMb, 512);
        auto *workspace = create->findChild<QSpinBox *>();
        for (QSpinBox *box : create->findChildren<QSpinBox *>())
            if (box->accessibleName() == QLatin1String("Workspace size in MiB"))
                workspace = box;
        QCOMPARE(workspace->text(), QStringLiteral("Default (½ of memory)"));
        workspace->setValue(300);
        QCOMPARE(
            create->policy().value(QStringLiteral("limits")).toObject().value(QStringLiteral("workspace_mb")),
            QJsonValue(300));
        create->reject();
        QTRY_VERIFY(create.isNull() || !create->isVisible());
    }

    void theThemeSwitchesAndComesBack()
    {
        const QColor systemWindow = QApplication::palette().color(QPalette::Window);
        QPointer<SettingsDialog> dialog = openSettings();
        auto *theme = dialog->findChild<QComboBox *>(QStringLiteral("theme"));
        theme->setCurrentIndex(theme->findData(QStringLiteral("dark")));
        dialog->accept();
        QCOMPARE(Appearance::theme(), Theme::Dark);
        QVERIFY(QApplication::palette().color(QPalette::Window).lightnessF() < 0.3);
        QTRY_VERIFY(m_window->palette().color(QPalette::Base).lightnessF() < 0.3);
        QCOMPARE(WorkbenchSettings::theme(), Theme::Dark);

        dialog = openSettings();
        theme = dialog->findChild<QComboBox *>(QStringLiteral("theme"));
        theme->setCurrentIndex(theme->findData(QStringLiteral("system")));
        dialog->accept();
        QCOMPARE(QApplication::palette().color(QPalette::Window), systemWindow);
    }

    void theDataLocationIsTheDaemons()
    {
        QPointer<SettingsDialog> dialog = openSettings();
        auto *location = dialog->findChild<QLabel *>(QStringLiteral("dataLocation"));
        QTRY_COMPARE(location->text(), qEnvironmentVariable("CORDON_DATA_DIR"));
        dialog->reject();
    }

    void oldHistoryIsPurgedAfterAConfirmation()
    {
        auto created = call(
            QStringLiteral("container.create"),
            {{QStringLiteral("policy"), QJsonObject{{QStringLiteral("name"), QStringLiteral("purge")}}}});
        QVERIFY_RESULT(created);
        const QString id =
            created->value(QStringLiteral("container")).toObject().value(QStringLiteral("id")).toString();
        auto run = call(QStringLiteral("run.exec"),
                        {{QStringLiteral("container"), id},
                         {QStringLiteral("command"), QJsonArray{QStringLiteral("/bin/true")}}});
        QVERIFY_RESULT(run);
        QVERIFY_RESULT(
            call(QStringLiteral("run.wait"),
                 {{QStringLiteral("run_id"),
                   run->value(QStringLiteral("run")).toObject().value(QStringLiteral("id")).toString()}}));
        QVERIFY_RESULT(call(QStringLiteral("container.delete"), {{QStringLiteral("id"), id}}));

        QPointer<SettingsDialog> dialog = openSettings();
        dialog->findChild<QSpinBox *>(QStringLiteral("purgeDays"))->setValue(0);
        dialog->findChild<QPushButton *>(QStringLiteral("purgeHistory"))->click();
        QPointer<QMessageBox> confirm;
        QTRY_VERIFY((confirm = dialog->findChild<QMessageBox *>(QStringLiteral("purgeConfirmation"))) &&
                    confirm->isVisible());
        QPushButton *destroy = nullptr;
        for (QAbstractButton *button : confirm->buttons())
            if (confirm->buttonRole(button) == QMessageBox::DestructiveRole)
                destroy = qobject_cast<QPushButton *>(button);
        QVERIFY(destroy);
        destroy->click();
        QTRY_VERIFY_WITH_TIMEOUT(dialog->purgeMessage().startsWith(QStringLiteral("Deleted")), 10000);
        QVERIFY2(!dialog->purgeMessage().startsWith(QStringLiteral("Deleted 0 runs")),
                 qPrintable(dialog->purgeMessage()));
        // The deleted container went with its runs: the history no longer knows its id.
        auto runs = call(QStringLiteral("history.runs"), {{QStringLiteral("container"), id}});
        QVERIFY(!runs);
        QCOMPARE(Cordon::toQt(runs.error().code()), QStringLiteral("container.not_found"));
        dialog->reject();
    }

    void okSavesTheOrganisationAllowlist()
    {
        QPointer<SettingsDialog> dialog = openSettings();
        OrgAllowlistEditor *org = dialog->orgEditor();
        QVERIFY(org);
        QTRY_VERIFY(!org->organisation().isEmpty());
        QVERIFY(!org->isAdministered());
        QCOMPARE(org->editor()->addEntries(
                     QJsonArray{QStringLiteral("pypi.org"), QStringLiteral("*.example.org")}),
                 2);
        QTRY_VERIFY(org->isModified() && org->canSave());
        dialog->accept();
        // The list is written once the user has seen what changes.
        QMessageBox *question = nullptr;
        QTRY_VERIFY((question = org->findChild<QMessageBox *>(QStringLiteral("orgSaveQuestion"))) &&
                    question->isVisible());
        QVERIFY2(question->informativeText().contains(QLatin1String("Added (2): pypi.org, *.example.org")),
                 qPrintable(question->informativeText()));
        question->findChild<QPushButton *>(QStringLiteral("orgSaveConfirm"))->click();
        QTRY_VERIFY_WITH_TIMEOUT(dialog.isNull() || !dialog->isVisible(), 10000);

        QFile file(QStandardPaths::writableLocation(QStandardPaths::GenericConfigLocation) +
                   QStringLiteral("/cordon/org-policy.json"));
        QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(file.fileName()));
        const QJsonArray saved = QJsonDocument::fromJson(file.readAll())
                                     .object()
                                     .value(QStringLiteral("allowed_domains"))
                                     .toArray();
        QCOMPARE(saved.size(), 2);
        auto org2 = call(QStringLiteral("network.org_policy"));
        QVERIFY_RESULT(org2);
        QCOMPARE(org2->value(QStringLiteral("allowed_domains")).toArray().size(), 2);
    }

    void okRefusesAnUnsavableAllowlist()
    {
        QPointer<SettingsDialog> dialog = openSettings();
        OrgAllowlistEditor *org = dialog->orgEditor();
        QTRY_VERIFY(org->organisation().value(QStringLiteral("allowed_domains")).toArray().size() == 2);
        org->editor()->setEntries(QJsonArray{QStringLiteral("pypi.org"), QStringLiteral("bad host!")});
        QTRY_VERIFY(org->isModified() && !org->canSave());
        dialog->accept();
        QPointer<QMessageBox> warning;
        QTRY_VERIFY((warning = dialog->findChild<QMessageBox *>()) && warning->isVisible());
        QVERIFY(dialog->isVisible());
        warning->accept();
        dialog->reject();
        auto org2 = call(QStringLiteral("network.org_policy"));
        QVERIFY_RESULT(org2);
        QCOMPARE(org2->value(QStringLiteral("allowed_domains")).toArray().size(), 2);
    }

private:
    CordonTest::DaemonFixture m_daemon;
    std::unique_ptr<MainWindow> m_window;
};

CORDON_GUI_SANDBOX_TEST_MAIN(SettingsTest)
#include "tst_settings.moc"
