// SPDX-License-Identifier: MIT
// The workbench's Secrets dialog against a real cordond: a secret set from the write-only field appears with
// its fingerprint and the containers that use it, the value is in no widget afterwards, a bad value is
// refused with the daemon's reason, Remove takes it out; and the console marks each masked span.
#include "guitest.h"
#include "windowtest.h"

#include "createcontainerdialog.h"
#include "outputconsole.h"
#include "secretsdialog.h"
#include "testutil.h"

#include <QAction>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTextBlock>

using namespace Cordon::Ui;

namespace {

// Every text a person could see in the dialog.
QString visibleTexts(QWidget *root)
{
    QStringList texts;
    for (auto *label : root->findChildren<QLabel *>())
        texts.append(label->text());
    for (auto *line : root->findChildren<QLineEdit *>())
        texts.append(line->text());
    for (auto *table : root->findChildren<QTableWidget *>()) {
        for (int row = 0; row < table->rowCount(); ++row) {
            for (int column = 0; column < table->columnCount(); ++column)
                texts.append(table->item(row, column)->text());
        }
    }
    return texts.join(QLatin1Char('\n'));
}

} // namespace

class SecretsDialogTest final : public QObject
{
    Q_OBJECT

    CordonTest::DaemonFixture m_daemon;
    std::unique_ptr<MainWindow> m_window;

    QPointer<SecretsDialog> openDialog()
    {
        m_window->findChild<QAction *>(QStringLiteral("secretsAction"))->trigger();
        QPointer<SecretsDialog> dialog;
        if (!QTest::qWaitFor(
                [&] { return (dialog = m_window->findChild<SecretsDialog *>()) && dialog->isVisible(); }))
            return nullptr;
        return dialog;
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

    void setListRemove()
    {
        QPointer<SecretsDialog> dialog = openDialog();
        QVERIFY(dialog);
        QSignalSpy finished(dialog.data(), &SecretsDialog::finished);
        QTRY_COMPARE(finished.size(), 1); // the first list
        auto *table = dialog->findChild<QTableWidget *>(QStringLiteral("secretsTable"));
        auto *name = dialog->findChild<QLineEdit *>(QStringLiteral("secretName"));
        auto *value = dialog->findChild<QLineEdit *>(QStringLiteral("secretValue"));
        auto *set = dialog->findChild<QPushButton *>(QStringLiteral("setSecret"));
        QCOMPARE(table->rowCount(), 0);
        QCOMPARE(value->echoMode(), QLineEdit::Password);
        QVERIFY(!set->isEnabled());

        // A value too short: the daemon's reason, and the field emptied all the same.
        QTest::keyClicks(name, QStringLiteral("API_TOKEN"));
        QTest::keyClicks(value, QStringLiteral("short"));
        QVERIFY(set->isEnabled());
        set->click();
        QTRY_COMPARE(finished.size(), 2);
        QVERIFY(!finished.last().at(0).toBool());
        QVERIFY2(dialog->message().contains(QStringLiteral("8 to 4096 bytes")),
                 qPrintable(dialog->message()));
        QVERIFY(value->text().isEmpty());

        // A container that will use it, created once the secret exists.
        const QString secret = QStringLiteral("gui-secret-value-0123");
        QTest::keyClicks(value, secret);
        set->click();
        QTRY_COMPARE(finished.size(), 3);
        QVERIFY(finished.last().at(0).toBool());
        QCOMPARE(table->rowCount(), 1);
        QCOMPARE(table->item(0, 0)->text(), QStringLiteral("API_TOKEN"));
        QVERIFY(table->item(0, 3)->text().startsWith(QStringLiteral("hmac-sha256:")));
        // No keyring reaches the test's daemon: the dialog says the file holds the values.
        QVERIFY2(dialog->valuesInText().contains(QStringLiteral("secrets.json")),
                 qPrintable(dialog->valuesInText()));
        QVERIFY(value->text().isEmpty());
        QVERIFY2(!visibleTexts(dialog).contains(secret), qPrintable(visibleTexts(dialog)));

        // The New Container dialog offers it; checked, it is in the policy the dialog creates.
        CreateContainerDialog create(m_window->connection());
        create.setName(QStringLiteral("uses-token"));
        QTRY_COMPARE(create.secretsList()->count(), 1);
        QVERIFY(!create.policy().contains(QStringLiteral("secrets")));
        QCOMPARE(create.secretsList()->item(0)->text(), QStringLiteral("API_TOKEN"));
        create.secretsList()->item(0)->setCheckState(Qt::Checked);
        QCOMPARE(create.policy().value(QStringLiteral("secrets")).toArray(),
                 (QJsonArray{QJsonObject{{QStringLiteral("name"), QStringLiteral("API_TOKEN")}}}));
        auto created = CordonGuiTest::callAndWait(m_window->connection(), QStringLiteral("container.create"),
                                                  {{QStringLiteral("policy"), create.policy()}});
        QVERIFY_RESULT(created);
        dialog->reload();
        QTRY_COMPARE(finished.size(), 4);
        QCOMPARE(table->item(0, 1)->text(), QStringLiteral("uses-token"));

        // A new value for a name in the store asks first, naming who uses it; Cancel changes nothing.
        const QString fingerprint = table->item(0, 3)->text();
        const auto replaceQuestion = [&dialog]() -> QMessageBox * {
            QMessageBox *box = nullptr;
            if (!QTest::qWaitFor([&] {
                    box = dialog->findChild<QMessageBox *>(QStringLiteral("replaceSecretQuestion"));
                    return box && box->isVisible();
                }))
                return nullptr;
            return box;
        };
        QTest::keyClicks(value, QStringLiteral("gui-secret-value-4567"));
        set->click();
        QMessageBox *question = replaceQuestion();
        QVERIFY(question);
        QVERIFY2(question->informativeText().contains(QStringLiteral("Used by: uses-token")) &&
                     question->informativeText().contains(fingerprint),
                 qPrintable(question->informativeText()));
        question->button(QMessageBox::Cancel)->click();
        QTest::qWait(200);
        QCOMPARE(finished.size(), 4);
        QCOMPARE(table->item(0, 3)->text(), fingerprint);
        set->click();
        question = replaceQuestion();
        QVERIFY(question);
        question->findChild<QPushButton *>(QStringLiteral("replaceSecretButton"))->click();
        QTRY_COMPARE(finished.size(), 5);
        QVERIFY(finished.last().at(0).toBool());
        QTRY_VERIFY(table->item(0, 3)->text() != fingerprint);
        QVERIFY(value->text().isEmpty());

        dialog->removeSecret(QStringLiteral("API_TOKEN"));
        QTRY_COMPARE(finished.size(), 6);
        QCOMPARE(table->rowCount(), 0);
        QVERIFY(dialog->message().contains(QStringLiteral("removed")));
        dialog->close();
    }

    void theConsoleMarksMaskedSpans()
    {
        OutputConsole console;
        console.append(OutputConsole::Stream::Stdout, "token is [secret:API_TOKEN], rest\n");
        QTRY_VERIFY(console.findChild<QPlainTextEdit *>()->toPlainText().contains(QStringLiteral("rest")));
        const QTextDocument *document = console.findChild<QPlainTextEdit *>()->document();
        bool marked = false;
        for (QTextBlock block = document->begin(); block.isValid(); block = block.next()) {
            for (auto it = block.begin(); !it.atEnd(); ++it) {
                const QTextFragment fragment = it.fragment();
                if (fragment.text() == QStringLiteral("[secret:API_TOKEN]")) {
                    marked = fragment.charFormat().background().color() ==
                                 console.palette().color(QPalette::Highlight) &&
                             fragment.charFormat().toolTip().contains(QStringLiteral("API_TOKEN"));
                } else {
                    QVERIFY2(!fragment.text().contains(QStringLiteral("[secret:")),
                             qPrintable(fragment.text()));
                }
            }
        }
        QVERIFY(marked);
    }
};

CORDON_GUI_SANDBOX_TEST_MAIN(SecretsDialogTest)
#include "tst_secretsdialog.moc"
