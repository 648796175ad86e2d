// SPDX-License-Identifier: MIT
// Help › User Guide (F1) opens the user guide by task (docs/user-guide.md, built in), rendered, not the
// reference documents; and the guide names the menus as they are: every "Menu › Item (keys)" it tells a user
// to choose is an action of that menu with those keys.
#include "guitest.h"

#include "helpdialogs.h"
#include "mainwindow.h"

#include <QAction>
#include <QFile>
#include <QMenu>
#include <QMenuBar>
#include <QRegularExpression>

using namespace Cordon::Ui;

class UserGuideTest final : public QObject
{
    Q_OBJECT

private:
    static QString plain(QString text) { return text.remove(QLatin1Char('&')).remove(QStringLiteral("…")); }

    static QString guide()
    {
        QFile file(QStringLiteral(":/docs/user-guide.md"));
        return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
    }

private Q_SLOTS:
    void f1OpensTheGuideRendered()
    {
        MainWindow window(MainWindow::Options{false});
        window.show();
        QVERIFY(CordonGuiTest::activate(&window));
        auto *action = window.findChild<QAction *>(QStringLiteral("userGuideAction"));
        QVERIFY(action);
        QCOMPARE(plain(action->text()), QStringLiteral("User Guide"));
        QCOMPARE(action->shortcut(), QKeySequence(QKeySequence::HelpContents));
        QTest::keySequence(&window, action->shortcut());
        DocumentationDialog *dialog = nullptr;
        QTRY_VERIFY((dialog = window.findChild<DocumentationDialog *>()) && dialog->isVisible());
        QCOMPARE(dialog->topics().value(0), QStringLiteral("User guide"));
        const QString shown = dialog->shownText();
        QVERIFY2(shown.startsWith(QStringLiteral("Cordon user guide\n")), qPrintable(shown.left(80)));
        // One section per task a user comes with, in words, not the reference's parts of the program.
        for (const QString &task :
             {QStringLiteral("Run code"), QStringLiteral("Upload and download files"),
              QStringLiteral("Allow a host on the network"), QStringLiteral("Keep secrets out of the code"),
              QStringLiteral("Read the history"), QStringLiteral("Prove a policy with the audit"),
              QStringLiteral("Demo mode for trainers")})
            QVERIFY2(shown.contains(QLatin1Char('\n') + task + QLatin1Char('\n')), qPrintable(task));
        // Rendered: no Markdown marks left in what the user reads.
        QVERIFY2(!shown.contains(QStringLiteral("## ")) && !shown.contains(QStringLiteral("**")),
                 qPrintable(shown.left(400)));

        // Another topic, then F1 again: back to the guide.
        dialog->showTopic(1);
        QVERIFY(!dialog->shownText().startsWith(QStringLiteral("Cordon user guide")));
        QVERIFY(CordonGuiTest::activate(&window));
        QTest::keySequence(&window, action->shortcut());
        QTRY_VERIFY(dialog->shownText().startsWith(QStringLiteral("Cordon user guide")));
    }

    void menuPathsInTheGuideExist()
    {
        MainWindow window(MainWindow::Options{false});
        const QString text = guide();
        QVERIFY(!text.isEmpty());
        // "View › Go/No-Go Audit (Ctrl+G)": the menu, the item's capitalised words, and the keys if given.
        static const QRegularExpression path(
            QStringLiteral("(\\w+) › ([A-Z][\\w/-]*(?: [A-Z][\\w/-]*)*)…?(?: \\(([^)]+)\\))?"));
        int checked = 0;
        for (auto it = path.globalMatch(text); it.hasNext();) {
            const QRegularExpressionMatch match = it.next();
            const QString where = match.captured(0);
            QMenu *menu = nullptr;
            for (QAction *top : window.menuBar()->actions()) {
                if (top->menu() && plain(top->text()) == match.captured(1))
                    menu = top->menu();
            }
            QVERIFY2(menu, qPrintable(where + QStringLiteral(": no such menu")));
            const QAction *item = nullptr;
            for (const QAction *candidate : menu->actions()) {
                if (!candidate->isSeparator() && plain(candidate->text()).startsWith(match.captured(2)))
                    item = candidate;
            }
            QVERIFY2(item, qPrintable(where + QStringLiteral(": no such item")));
            const QString keys = match.captured(3);
            if (!keys.isEmpty())
                QVERIFY2(item->shortcut().toString(QKeySequence::PortableText) == keys,
                         qPrintable(where + QStringLiteral(": the item's keys are ") +
                                    item->shortcut().toString(QKeySequence::PortableText)));
            ++checked;
        }
        QVERIFY2(checked >= 10, qPrintable(QString::number(checked)));
    }
};

CORDON_GUI_TEST_MAIN(UserGuideTest)
#include "tst_userguide.moc"
